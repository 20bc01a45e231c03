/**
 * BROKEN (R26): a per-watcher queue capped at 20, as one production system shipped: with more than
 * 20 targets pending for one watcher, the notices raised first are dropped silently. Reads show
 * only the 20 raised last; a drain acks every pending pair but hands over only those 20, so the
 * others are lost. Reaching it takes more than 20 targets pending for one watcher
 * (conformance/arbitraries.ts: fanOutDrafts).
 */
import type { CreateOptions, Notice, WatchCursor } from '../../spec/index.js';
import { validateSessionKey } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R26', what: 'caps each watcher\'s pending notices at 20, silently dropping the oldest (a per-watcher queue of 20)' };

const CAP = 20;

class WatcherQueueCapped extends VariantStore {
  protected override pendingWithCursors(watcherSessionKey: string): { cursor: WatchCursor; notices: Notice[] }[] {
    const all = super.pendingWithCursors(watcherSessionKey);
    if (all.length <= CAP) return all;
    // The queue keeps the last 20 raised (by the watermark that froze when each became pending).
    const kept = new Set([...all].sort((a, b) => b.cursor.notifiedSequence - a.cursor.notifiedSequence).slice(0, CAP).map((p) => p.cursor));
    return all.filter((p) => kept.has(p.cursor));
  }

  override drainNotices(watcherSessionKey: string): Notice[] {
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.clock();
    const shown = this.pendingWithCursors(watcherSessionKey);
    // Every pending pair is acked, the dropped ones too: their queue entries are gone for good.
    for (const p of super.pendingWithCursors(watcherSessionKey)) this.put(this.ack(p.cursor, now));
    return shown.flatMap((p) => p.notices);
  }
}

export const create = (options: CreateOptions) => new WatcherQueueCapped(options);
