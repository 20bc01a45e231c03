/**
 * BROKEN (R34): reading acks. changesSince marks the session as seen by every watcher (cursor to
 * the head, so no notice is pending), as if the reader were all of them.
 */
import type { ChangesSinceRequest, CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R34', what: 'changesSince advances the watchers\' cursors' };

class ChangesSinceAcks extends VariantStore {
  override changesSince(request: ChangesSinceRequest) {
    const r = super.changesSince(request);
    for (const c of this.cursorsOn(request.sessionKey, request.agentId)) {
      const head = r.stateVersion;
      this.put({ ...c, lastSeenSequence: head, notifiedSequence: head, materialSequence: Math.max(head, c.materialSequence), updatedAt: this.clock() });
    }
    return r;
  }
}

export const create = (options: CreateOptions) => new ChangesSinceAcks(options);
