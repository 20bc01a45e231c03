/**
 * The edges of the feed and delivery that the other tests leave open, each by what a caller can
 * see: delivery looks once more after an empty read the feed contradicted, then settles; a page
 * of exactly pageSize is one deliver; news that reaches no subscriber here is not remembered (it
 * cannot fill the news cap); signals() of a closed feed ends at once; a feed stopped during a
 * poll's read polls no more; the change token's failures, absence and moves.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Notice } from '../../spec/index.js';
import { routePayload } from '../../src/core/index.js';
import { createNoticeFeed, startDelivery, type NoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, fakeTimersEachTest, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const B = 'agent:main:b';
const T = 'agent:main:target';
const W = 'agent:main:main';

const settle = fakeTimersEachTest();

const notice = (l: number): Notice => ({ watcherSessionKey: W, targetSessionKey: `${T}${l}`, targetAgentId: 'main', lastSeenSequence: l, contextKey: 'session-state:1:1', wake: 'immediate', text: 'news' });

function fakeFeed() {
  let listener: ((s: NoticeSignal) => void) | undefined;
  const feed = { subscribe: (l: (s: NoticeSignal) => void) => ((listener = l), () => (listener = undefined)) } as unknown as NoticeFeed;
  return { feed, signal: () => listener?.({ watcherSessionKey: W, changed: [pendingPair(W, T, 1)] }) };
}

describe('delivery edges', () => {
  it('R67 an empty read after the feed said "pending" looks once more later, then settles and forgets the watcher', async () => {
    const { feed, signal } = fakeFeed();
    let reads = 0;
    const d = startDelivery({ store: { pendingNotices: async () => (reads++, []), ackNotices: async () => [] } as never, feed, logger: memoryLogger(), deliver: () => {}, retryMs: 100, wake: { coalesceMs: 0 } });
    signal();
    await settle();
    expect(reads).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(reads).toBe(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reads).toBe(2);
    expect(d.tracked).toBe(0);
    d.close();
  });

  it('R67 exactly pageSize notices are one deliver and one ack', async () => {
    const { feed, signal } = fakeFeed();
    const pages: number[] = [];
    let acks = 0;
    const d = startDelivery({
      store: { pendingNotices: async () => [notice(1), notice(2), notice(3)], ackNotices: async (_w: string, p: Notice[]) => (acks++, p) } as never,
      feed,
      logger: memoryLogger(),
      deliver: (_w, n) => void pages.push(n.length),
      pageSize: 3,
    });
    signal();
    await settle();
    await d.idle();
    expect(pages).toEqual([3]);
    expect(acks).toBe(1);
    d.close();
  });
});

describe('feed edges', () => {
  it('R74 news whose pairs reach no subscriber here is not remembered: 10,000 of them leave the next news handed out without a read', async () => {
    let pushed: ((p?: string) => void) | undefined;
    let reads = 0;
    let next: { mark: string; changes: ReturnType<typeof change>[] } = { mark: '2', changes: [] };
    function change(w: string, t: string) {
      return { ...pendingPair(w, t, 1), pending: true };
    }
    const source: PendingSource = {
      readPending: async () => (reads++, { position: '1', changes: [], snapshot: [] }),
      onLocalChange: () => () => {},
      subscribeRemote: async (l) => ((pushed = l), () => {}),
      wakeNews: () => next,
      positionCovers: (p, m) => Number(m) <= Number(p),
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: A });
    await settle();
    const before = reads;
    // A payload that names A's hash (a collision, say) but carries 10,000 pairs of B.
    next = { mark: '2', changes: Array.from({ length: 10_000 }, (_, i) => change(B, `${T}${i}`)) };
    pushed!(routePayload([A]));
    await settle();
    next = { mark: '3', changes: [change(A, T)] };
    pushed!(routePayload([A]));
    await settle();
    expect(reads).toBe(before);
    expect(got.map((s) => s.watcherSessionKey)).toEqual([A]);
    feed.close();
  });

  it('R74 a subscriber of every watcher hears news without a read', async () => {
    let pushed: ((p?: string) => void) | undefined;
    let reads = 0;
    const source: PendingSource = {
      readPending: async () => (reads++, { position: '1', changes: [], snapshot: [] }),
      onLocalChange: () => () => {},
      subscribeRemote: async (l) => ((pushed = l), () => {}),
      wakeNews: () => ({ mark: '2', changes: [{ ...pendingPair(B, T, 4), pending: true }] }),
      positionCovers: (p, m) => Number(m) <= Number(p),
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s));
    await settle();
    const before = reads;
    pushed!('news');
    await settle();
    expect(reads).toBe(before);
    expect(got).toEqual([{ watcherSessionKey: B, changed: [pendingPair(B, T, 4)] }]);
    feed.close();
  });

  it('R62 a feed stopped while it waits for the change token reads nothing when the token comes back moved', async () => {
    const src = new FakeSource();
    let release: ((v: number) => void) | undefined;
    const source: PendingSource = {
      listPending: () => src.listPending(),
      changeToken: () => (release ? new Promise<number>((r) => (release = r)) : src.changeToken()),
      onLocalChange: (l) => src.onLocalChange(l),
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 100, watchFiles: false });
    const stop = feed.subscribe(() => {});
    await settle();
    release = () => {};
    await vi.advanceTimersByTimeAsync(100); // a poll waits for the token
    const reads = src.listCalls;
    stop();
    const give = release;
    release = undefined; // later token reads answer at once
    give(99);
    await vi.advanceTimersByTimeAsync(500);
    expect(src.listCalls).toBe(reads);
    feed.close();
  });

  it('signals() of a closed feed ends at once', async () => {
    const feed = createNoticeFeed(new FakeSource(), { logger: memoryLogger(), watchFiles: false });
    feed.close();
    const it = feed.signals()[Symbol.asyncIterator]();
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });

  it('R62 a feed stopped while a poll reads polls no more', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { logger: memoryLogger(), pollIntervalMs: 100, watchFiles: false });
    const stop = feed.subscribe(() => {});
    await settle();
    let open!: () => void;
    src.gate = new Promise((r) => (open = r));
    src.commit([pendingPair(A, T, 1)]); // the token moves: the next poll reads, and blocks
    await vi.advanceTimersByTimeAsync(100);
    const reads = src.listCalls;
    stop();
    src.gate = undefined;
    open();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(src.listCalls).toBe(reads);
    expect(src.tokenCalls).toBeLessThanOrEqual(reads + 2);
    feed.close();
  });

  it('R63 a token read that fails makes the next poll read though the token did not move; a token that is undefined never reads', async () => {
    const src = new FakeSource();
    const logger = memoryLogger();
    const feed = createNoticeFeed(src, { logger, pollIntervalMs: 100, watchFiles: false });
    feed.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(250);
    const reads = src.listCalls;
    src.failToken = 1;
    await vi.advanceTimersByTimeAsync(100); // the failing check
    await vi.advanceTimersByTimeAsync(100); // the next poll reads regardless
    expect(src.listCalls).toBe(reads + 1);
    expect(logger.entries.some((e) => e.message === 'notice feed: reading the change token failed; retrying on the next tick')).toBe(true);
    feed.close();

    let listCalls = 0;
    const blank: PendingSource = { listPending: async () => (listCalls++, []), changeToken: () => undefined as never, onLocalChange: () => () => {} };
    const quiet = createNoticeFeed(blank, { logger: memoryLogger(), pollIntervalMs: 100, watchFiles: false });
    quiet.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(1_000);
    expect(listCalls).toBe(1);
    quiet.close();
  });

  it('R70 a file event whose token moved reads once and schedules no rechecks; one whose token check fails does', async () => {
    const src = new FakeSource();
    let fire: ((e: 'change' | 'rename') => void) | undefined;
    const source: PendingSource = { listPending: () => src.listPending(), changeToken: () => src.changeToken(), onLocalChange: (l) => src.onLocalChange(l), changeFiles: () => ['/x/wal'] };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: (_p, l) => ((fire = l), () => {}) });
    feed.subscribe(() => {});
    await settle();
    src.commit([pendingPair(A, T, 1)]);
    const tokens = src.tokenCalls;
    fire!('change');
    await vi.advanceTimersByTimeAsync(100);
    // One look at the token on the event, one before the read it caused; no rechecks.
    expect(src.tokenCalls - tokens).toBe(2);
    const t2 = src.tokenCalls;
    src.failToken = 1;
    fire!('change');
    await vi.advanceTimersByTimeAsync(100);
    // The failed look, then three rechecks (2, 10, 40 ms).
    expect(src.tokenCalls - t2).toBe(4);
    feed.close();
  });
});
