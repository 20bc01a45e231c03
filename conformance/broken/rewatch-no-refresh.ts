/**
 * BROKEN (R44, via R21): watching a pair that already has a cursor keeps L, N and M as it should but
 * leaves `updatedAt` alone (the reference implementation's write-free re-watch), so a coordinator
 * that says "watch" again still loses the watch when the first watch idles out.
 */
import type { CreateOptions, WatchRequest } from '../../spec/index.js';
import { identityKey } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R44', what: 're-watching an existing cursor does not refresh its updatedAt (R21/R44)' };

class RewatchNoRefresh extends VariantStore {
  override watch(request: WatchRequest) {
    const before = this.state.cursors.get(identityKey(request.targetSessionKey, request.agentId))?.get(request.watcherSessionKey);
    const r = super.watch(request);
    const after = this.state.cursors.get(identityKey(request.targetSessionKey, request.agentId))?.get(request.watcherSessionKey);
    if (r.watched && before && after) this.put({ ...after, updatedAt: before.updatedAt });
    return r;
  }
}

export const create = (options: CreateOptions) => new RewatchNoRefresh(options);
