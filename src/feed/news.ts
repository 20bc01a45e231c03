import type { FeedPosition, PairChange, WakeNews } from '../../spec/index.js';

/**
 * R74: the pairs a feed handed out from wakes' news that its position has not seen yet. The
 * position only moves with a read, so a later read from it returns those pairs again: this is
 * what keeps that read from handing out again what news already did, or from handing out an
 * older state after a newer one (a read whose snapshot began before the commit the news came from).
 */
export class NewsAhead {
  private readonly pairs = new Map<string, { mark: string; change: PairChange }>();

  constructor(private readonly covers: (position: FeedPosition, mark: string) => boolean) {}

  get size(): number {
    return this.pairs.size;
  }

  /** The news's changes that reach someone here (`heard`), remembered until a read covers their commit. */
  take(news: WakeNews, heard: (watcherSessionKey: string) => boolean): PairChange[] {
    const out: PairChange[] = [];
    for (const change of news.changes) {
      if (!heard(change.watcherSessionKey)) continue;
      this.pairs.set(keyOf(change), { mark: news.mark, change });
      out.push(change);
    }
    return out;
  }

  /**
   * A read's changes at `position`, less those news has handed out already (the same state) or
   * overtaken (news from a commit the read did not see is newer); then forgets every pair whose
   * commit the position covers.
   */
  settle(position: FeedPosition, changes: readonly PairChange[]): PairChange[] {
    if (this.pairs.size === 0) return [...changes];
    const seen = new Map<string, boolean>();
    const covered = (mark: string) => {
      let c = seen.get(mark);
      if (c === undefined) seen.set(mark, (c = this.safeCovers(position, mark)));
      return c;
    };
    const out = changes.filter((c) => {
      const ahead = this.pairs.get(keyOf(c));
      if (ahead === undefined) return true;
      if (!covered(ahead.mark)) return false;
      return !sameState(ahead.change, c);
    });
    for (const [key, ahead] of this.pairs) if (covered(ahead.mark)) this.pairs.delete(key);
    return out;
  }

  clear(): void {
    this.pairs.clear();
  }

  /** A source whose check throws is treated as not covering: the pair waits for the next read. */
  private safeCovers(position: FeedPosition, mark: string): boolean {
    try {
      return this.covers(position, mark) === true;
    } catch {
      return false;
    }
  }
}

function keyOf(c: PairChange): string {
  return `${c.watcherSessionKey}\u0000${c.targetSessionKey}\u0000${c.targetAgentId}`;
}

/** What a signal says of a pair: two changes that agree here are one piece of news. */
function sameState(a: PairChange, b: PairChange): boolean {
  return a.lastSeenSequence === b.lastSeenSequence && a.pending === b.pending && a.wake === b.wake;
}
