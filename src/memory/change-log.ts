import type { WatchCursor } from '../../spec/index.js';
import { identityKey, noticeChanged } from '../core/index.js';

/**
 * R68 for the in-memory store: which pairs' notices changed after a position. An append-only list
 * of (change sequence, pair) in sequence order, plus each pair's latest sequence: a read finds its
 * start by binary search and reports each pair at its latest change only, so it costs the changes
 * after the position, not the pairs. Superseded entries are compacted away once they outnumber the
 * live ones, and a pair whose cursor is deleted is forgotten, so memory follows the cursors.
 */
export interface LoggedPair {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
}

interface Entry extends LoggedPair {
  sequence: number;
  slot: string;
}

export class PairChangeLog {
  private entries: Entry[] = [];
  private readonly latest = new Map<string, number>();
  /** The change sequence: the position of the newest change; never reused. */
  sequence = 0;

  private static slot(p: LoggedPair): string {
    return `${identityKey(p.targetSessionKey, p.targetAgentId)}\u0000${p.watcherSessionKey}`;
  }

  /** Notes a cursor write; a write that leaves the notice as it was (R68) is not a change. */
  write(before: WatchCursor | undefined, after: WatchCursor): void {
    if (!noticeChanged(before, after)) return;
    const slot = PairChangeLog.slot(after);
    const sequence = ++this.sequence;
    this.latest.set(slot, sequence);
    this.entries.push({ sequence, slot, watcherSessionKey: after.watcherSessionKey, targetSessionKey: after.targetSessionKey, targetAgentId: after.targetAgentId });
    if (this.entries.length > 1024 && this.entries.length > 2 * this.latest.size) this.compact();
  }

  /** A deleted cursor (unwatch, reset, delete, expiry): nothing of it is reported again (R68: a removal is no news). */
  forget(pair: LoggedPair): void {
    this.latest.delete(PairChangeLog.slot(pair));
  }

  /** The pairs changed after `since`, each once, oldest change first. */
  since(since: number): LoggedPair[] {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.sequence <= since) lo = mid + 1;
      else hi = mid;
    }
    const out: LoggedPair[] = [];
    for (let i = lo; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (this.latest.get(e.slot) === e.sequence) out.push(e);
    }
    return out;
  }

  private compact(): void {
    this.entries = this.entries.filter((e) => this.latest.get(e.slot) === e.sequence);
  }
}
