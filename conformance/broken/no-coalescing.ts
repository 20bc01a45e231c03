/**
 * BROKEN (R24): no coalescing. A pending pair lists one notice per material event since the
 * watcher's last ack instead of one per pair, so twenty fast changes give twenty lines.
 */
import type { CreateOptions, Notice, WatchCursor } from '../../spec/index.js';
import { identityKey, noticeOf } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R24', what: 'lists a notice per change instead of one per watcher/target pair' };

class NoCoalescing extends VariantStore {
  protected override noticesOf(c: WatchCursor): Notice[] {
    const events = this.state.sessionEvents.get(identityKey(c.targetSessionKey, c.targetAgentId)) ?? [];
    const changes = events.filter((e) => e.sequence > c.lastSeenSequence && e.sequence <= c.materialSequence).length;
    return Array.from({ length: Math.max(1, changes) }, () => noticeOf(c));
  }
}

export const create = (options: CreateOptions) => new NoCoalescing(options);
