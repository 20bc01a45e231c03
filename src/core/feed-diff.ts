/**
 * R60, R61: which watchers a change feed signals. Pure: the feed (src/feed) reads every pending
 * pair from durable state, and this decides, against the previous read, who gained something new.
 * Structural types, so the core needs nothing from src/feed (PendingPair there has this shape).
 */

export interface FeedPair {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
  lastSeenSequence: number;
  wake: 'immediate' | 'next-turn';
}

/** Every pending pair grouped by watcher, each watcher's pairs in R26 order. */
export type PendingSnapshot<P extends FeedPair = FeedPair> = ReadonlyMap<string, readonly P[]>;

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** R26 order: (target session key, target agent id) by UTF-16 code units. */
export function compareFeedPairs(a: FeedPair, b: FeedPair): number {
  return compareCodeUnits(a.targetSessionKey, b.targetSessionKey) || compareCodeUnits(a.targetAgentId, b.targetAgentId);
}

// Keys cannot contain U+0000 (R1), so the join is unambiguous.
function pairSlot(p: FeedPair): string {
  return `${p.targetAgentId}\u0000${p.targetSessionKey}`;
}

/**
 * Groups pairs by watcher. A source that lists one (watcher, target) twice is answered with the
 * last listing, so a duplicate row can neither double a pair nor hide a new L.
 */
export function snapshotPending<P extends FeedPair>(pairs: readonly P[]): PendingSnapshot<P> {
  const byWatcher = new Map<string, Map<string, P>>();
  for (const p of pairs) {
    let slots = byWatcher.get(p.watcherSessionKey);
    if (!slots) byWatcher.set(p.watcherSessionKey, (slots = new Map()));
    slots.set(pairSlot(p), p);
  }
  const out = new Map<string, P[]>();
  for (const [watcher, slots] of byWatcher) out.set(watcher, [...slots.values()].sort(compareFeedPairs));
  return out;
}

/**
 * R60: the watchers of `next` that gained a new pending notice since `previous`: a pair that was
 * not pending, a pair quoting another L (acked and re-opened between two reads: a new notice
 * text), or a pair whose wake became `immediate` (an ambient cursor promoted by an explicit
 * watch must now wake its watcher). A watcher that only lost pairs, or whose pairs are unchanged,
 * is not signalled. R61: with no previous read, every watcher with a pending pair is new.
 * Order: watchers in code-unit order, so signals are deterministic.
 */
export function diffPending(previous: PendingSnapshot | undefined, next: PendingSnapshot): string[] {
  const gained: string[] = [];
  for (const [watcher, pairs] of next) {
    if (pairs.length === 0) continue;
    const before = previous?.get(watcher);
    if (!before) {
      gained.push(watcher);
      continue;
    }
    const old = new Map(before.map((p) => [pairSlot(p), p]));
    const changed = pairs.some((p) => {
      const o = old.get(pairSlot(p));
      return o === undefined || o.lastSeenSequence !== p.lastSeenSequence || (o.wake === 'next-turn' && p.wake === 'immediate');
    });
    if (changed) gained.push(watcher);
  }
  return gained.sort(compareCodeUnits);
}
