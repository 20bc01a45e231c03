/**
 * BROKEN (R21): watching again re-seeds the cursor at the current head, which drops a pending
 * notice and its frozen watermark.
 */
import type { CreateOptions, WatchRequest } from '../../spec/index.js';
import { identityKey } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R21', what: 're-watch clobbers the pending state' };

class RewatchClobbers extends VariantStore {
  override watch(request: WatchRequest) {
    const r = super.watch(request);
    if (!r.watched) return r;
    const c = this.state.cursors.get(identityKey(request.targetSessionKey, request.agentId))?.get(request.watcherSessionKey);
    const head = this.state.heads.get(identityKey(request.targetSessionKey, request.agentId))?.stateVersion ?? 0;
    if (c) {
      this.put({ ...c, lastSeenSequence: head, notifiedSequence: head, materialSequence: head });
    }
    return r;
  }
}

export const create = (options: CreateOptions) => new RewatchClobbers(options);
