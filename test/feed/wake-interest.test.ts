/**
 * R75 in the feed: a source that can narrow which wakes reach a feed is told what the subscribers
 * want (the routing hashes of their watchers, or everything), once per burst of subscribes; when
 * that widens, the feed reads after the source has answered, because a commit before the source
 * began listening for the new watcher woke nobody here.
 */
import { describe, expect, it } from 'vitest';
import type { WakeInterest } from '../../spec/index.js';
import { watcherRouteHash } from '../../src/core/index.js';
import { createNoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, fakeTimersEachTest, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const B = 'agent:main:b';
const C = 'agent:main:c';
const T = 'agent:main:target';

const settle = fakeTimersEachTest();

function narrowingSource() {
  const src = new FakeSource();
  const told: WakeInterest[] = [];
  let firstInterest: WakeInterest | undefined;
  /** While set, remoteInterest waits for it (a LISTEN in flight). */
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  const source: PendingSource = {
    listPending: () => src.listPending(),
    onLocalChange: (l) => src.onLocalChange(l),
    subscribeRemote: async (_l, interest) => {
      firstInterest = interest;
      return () => {};
    },
    remoteInterest: async (_l, interest) => {
      told.push(Array.isArray(interest) ? [...interest].sort() : interest);
      if (gate) await gate.promise;
    },
  };
  return {
    src,
    source,
    told,
    first: () => firstInterest,
    hold() {
      let open!: () => void;
      gate = { promise: new Promise<void>((r) => (open = r)), open: () => open() };
      return () => {
        const g = gate!;
        gate = undefined;
        g.open();
      };
    },
  };
}

const hashes = (...watchers: string[]) => [...new Set(watchers.map(watcherRouteHash))].sort();

describe('R75 the feed tells a narrowing source what it wants', () => {
  it('R75 the first subscription names its watcher; a burst of subscribes is told once; a narrowing reads nothing, a widening reads once answered', async () => {
    const s = narrowingSource();
    const feed = createNoticeFeed(s.source, { logger: memoryLogger() });
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    expect(s.first()).toEqual(hashes(A));
    // The first read, and one more once the remote subscription is up (it may have begun listening only now).
    expect(s.src.listCalls).toBe(2);
    expect(s.told).toEqual([]);

    const release = s.hold();
    const offB = feed.subscribe(() => {}, { watcherSessionKey: B });
    feed.subscribe(() => {}, { watcherSessionKey: C });
    await settle();
    expect(s.told).toEqual([hashes(A, B, C)]);
    const whileListening = s.src.listCalls;
    // A commit for C lands before the source listens for C: nothing wakes this feed for it...
    s.src.pairs = [pendingPair(C, T, 0)];
    release();
    await settle();
    // ...and the read after the answer finds it.
    expect(s.src.listCalls).toBe(whileListening + 1);

    const beforeNarrowing = s.src.listCalls;
    offB();
    await settle();
    expect(s.told.at(-1)).toEqual(hashes(A, C));
    expect(s.src.listCalls).toBe(beforeNarrowing);
    feed.close();
  });

  it('R75 a subscriber of every watcher makes the interest "all" (and reads); when it leaves, the watchers again', async () => {
    const s = narrowingSource();
    const feed = createNoticeFeed(s.source, { logger: memoryLogger() });
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    const before = s.src.listCalls;
    const off = feed.subscribe(() => {});
    await settle();
    expect(s.told).toEqual(['all']);
    expect(s.src.listCalls).toBeGreaterThan(before);
    off();
    await settle();
    expect(s.told).toEqual(['all', hashes(A)]);
    feed.close();
  });

  it('R75 a second subscriber of a watcher already told changes nothing; one that fails to be told is logged and the feed goes on', async () => {
    const s = narrowingSource();
    const logger = memoryLogger();
    let fail = false;
    const source: PendingSource = {
      ...s.source,
      remoteInterest: async (l, i) => {
        if (fail) throw new Error('connection lost');
        return s.source.remoteInterest!(l, i);
      },
    };
    const feed = createNoticeFeed(source, { logger });
    const got: NoticeSignal[] = [];
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    expect(s.told).toEqual([]);
    fail = true;
    s.src.pairs = [pendingPair(B, T, 0)];
    feed.subscribe((x) => void got.push(x), { watcherSessionKey: B });
    await settle();
    expect(logger.entries.map((e) => e.message)).toContain('notice feed: telling the source which wakes to deliver failed');
    // The newcomer still gets its snapshot (R61).
    expect(got.map((x) => x.watcherSessionKey)).toEqual([B]);
    feed.close();
  });
});
