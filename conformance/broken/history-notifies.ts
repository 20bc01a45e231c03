/**
 * BROKEN (R22): a new explicit watch treats the target's existing history as unseen: the cursor
 * starts at 0 (N at the head), so a notice is pending at once when the target already has events.
 */
import type { CreateOptions, WatchRequest } from '../../spec/index.js';
import { identityKey, isAgentScopedKey } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R22', what: 'history before the watch notifies' };

class HistoryNotifies extends VariantStore {
  override watch(request: WatchRequest) {
    const id = identityKey(request.targetSessionKey, request.agentId);
    const existed = this.state.cursors.get(id)?.has(request.watcherSessionKey) === true;
    const r = super.watch(request);
    const head = this.state.heads.get(id)?.stateVersion ?? 0;
    if (r.watched && !existed && head > 0 && isAgentScopedKey(request.watcherSessionKey)) {
      const c = this.state.cursors.get(id)!.get(request.watcherSessionKey)!;
      this.put({ ...c, lastSeenSequence: 0 });
    }
    return r;
  }
}

export const create = (options: CreateOptions) => new HistoryNotifies(options);
