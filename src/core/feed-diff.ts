/**
 * R60, R61, R68: which watchers a change feed signals. Pure: the feed (src/feed) reads what changed
 * after its position (R68) or, from a source without positions, every pending pair, and these
 * decide who gained something new. The pairs are the feed source's (spec/schemas/feed-source.ts).
 */
import type { PairChange, PendingPair } from '../../spec/index.js';

/** A watcher/target pair with its notice's state, as a feed source reads it. */
export type FeedPair = PendingPair;

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

/** R68: a pair whose notice changed, and whether it is pending now. */
export type FeedChange = PairChange;

/**
 * R60 over changes (R68): the pairs that are news for their watcher, grouped by watcher, each
 * watcher's pairs in R26 order. A change to a pair that is still pending is news (it became
 * pending, quotes another L or was woken: a source reports no other change of a pending pair); a
 * pair no longer pending is not, and neither is a watcher that only lost pairs. A pair listed
 * twice counts once, as its last listing says. Watchers in code-unit order.
 */
export function newsByWatcher<P extends FeedChange>(changes: readonly P[]): Map<string, P[]> {
  const last = new Map<string, Map<string, P>>();
  for (const c of changes) {
    let slots = last.get(c.watcherSessionKey);
    if (!slots) last.set(c.watcherSessionKey, (slots = new Map()));
    slots.delete(pairSlot(c)); // re-inserted: the last listing wins
    slots.set(pairSlot(c), c);
  }
  const out = new Map<string, P[]>();
  for (const watcher of [...last.keys()].sort(compareCodeUnits)) {
    const news = [...last.get(watcher)!.values()].filter((c) => c.pending).sort(compareFeedPairs);
    if (news.length > 0) out.set(watcher, news);
  }
  return out;
}

/**
 * R68 for a source that can only list everything pending: the changes between two full reads.
 * A pair new in `next`, quoting another L, or woken is a pending change (R60's three cases); a
 * pair gone from `next` is a change to not pending. A pair pending unchanged is no change.
 */
export function changesBetween<P extends FeedPair>(previous: PendingSnapshot<P> | undefined, next: PendingSnapshot<P>): (P & { pending: boolean })[] {
  const out: (P & { pending: boolean })[] = [];
  for (const [watcher, pairs] of next) {
    const before = previous?.get(watcher);
    const old = before ? new Map(before.map((p) => [pairSlot(p), p])) : undefined;
    for (const p of pairs) {
      const o = old?.get(pairSlot(p));
      if (o === undefined || o.lastSeenSequence !== p.lastSeenSequence || (o.wake === 'next-turn' && p.wake === 'immediate')) out.push({ ...p, pending: true });
    }
  }
  if (previous) {
    for (const [watcher, pairs] of previous) {
      const now = next.get(watcher);
      const still = now ? new Set(now.map(pairSlot)) : undefined;
      for (const p of pairs) if (!still?.has(pairSlot(p))) out.push({ ...p, pending: false });
    }
  }
  return out;
}
