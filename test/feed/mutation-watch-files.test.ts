/**
 * R70 and R61-R63 details a feed's other tests leave open: a path is watched once however many
 * polls pass, a `change` keeps its watch and a `rename` drops it (watched again at the next poll),
 * a file event after the feed stopped reads nothing; a subscriber of every watcher gets its
 * snapshot signals in key order; a new run after a stop starts from a snapshot even when a read of
 * the old run lands late; a hash two watcher keys share keeps routing the one still subscribed.
 */
import { describe, expect, it, vi } from 'vitest';
import { routePayload, watcherRouteHash } from '../../src/core/index.js';
import { createNoticeFeed, type NoticeSignal, type PendingReadRequest, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, fakeTimersEachTest, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const T = 'agent:main:target';

const settle = fakeTimersEachTest();

function watched() {
  const src = new FakeSource();
  const watches: { path: string; fire: (e: 'change' | 'rename') => void; stopped: boolean }[] = [];
  const source: PendingSource = { listPending: () => src.listPending(), changeToken: () => src.changeToken(), onLocalChange: (l) => src.onLocalChange(l), changeFiles: () => ['/x/state.db-wal'] };
  const watchFiles = (path: string, onChange: (e: 'change' | 'rename') => void) => {
    const w = { path, fire: onChange, stopped: false };
    watches.push(w);
    return () => void (w.stopped = true);
  };
  return { src, source, watches, watchFiles };
}

describe('R70 file watches', () => {
  it('R70 a path is watched once across polls; a change keeps the watch, a rename drops it until the next poll', async () => {
    const { source, watches, watchFiles } = watched();
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 100, watchFiles });
    feed.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(350);
    expect(watches).toHaveLength(1);
    watches[0]!.fire('change');
    await vi.advanceTimersByTimeAsync(200);
    expect(watches).toHaveLength(1);
    expect(watches[0]!.stopped).toBe(false);
    watches[0]!.fire('rename');
    expect(watches[0]!.stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(150);
    expect(watches).toHaveLength(2);
    feed.close();
  });

  it('R70 a file event after the feed stopped (a watcher that could not be closed) reads nothing, nor do its rechecks', async () => {
    const { src, source, watches } = watched();
    const sticky = (path: string, onChange: (e: 'change' | 'rename') => void) => {
      watches.push({ path, fire: onChange, stopped: false });
      return () => {}; // cannot be closed
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: sticky });
    feed.subscribe(() => {});
    await settle();
    watches[0]!.fire('change'); // token unmoved: rechecks at 2, 10 and 40 ms
    await settle();
    feed.close();
    const tokens = src.tokenCalls;
    const reads = src.listCalls;
    src.commit([pendingPair(A, T, 1)]);
    watches[0]!.fire('change');
    await vi.advanceTimersByTimeAsync(100);
    expect(src.tokenCalls).toBe(tokens);
    expect(src.listCalls).toBe(reads);
  });
});

describe('R61, R63 a feed run by run', () => {
  it('R61 a subscriber of every watcher gets its snapshot signals in key order', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair('agent:main:c', T, 1), pendingPair('agent:main:a', T, 1), pendingPair('agent:main:b', T, 1)];
    const feed = createNoticeFeed(src, { logger: memoryLogger(), watchFiles: false });
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s));
    await settle();
    expect(got.map((s) => s.watcherSessionKey)).toEqual(['agent:main:a', 'agent:main:b', 'agent:main:c']);
    feed.close();
  });

  it('R61 a new run starts from a snapshot even when a read of the old run lands after the stop', async () => {
    const requests: PendingReadRequest[] = [];
    let gate: Promise<void> | undefined;
    let n = 0;
    const source: PendingSource = {
      readPending: async (r) => {
        requests.push(r);
        const p = String(++n);
        if (gate) await gate;
        return { position: p, changes: [], snapshot: [] };
      },
      onLocalChange: () => () => {},
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    const stop = feed.subscribe(() => {});
    await settle();
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const stop2 = feed.subscribe(() => {}, { watcherSessionKey: A }); // a read for its snapshot, held at the gate
    await settle();
    stop();
    stop2(); // the feed stops with that read in flight
    gate = undefined;
    open();
    await settle();
    requests.length = 0;
    feed.subscribe(() => {});
    await settle();
    expect(requests[0]).toEqual({ snapshot: 'all' });
    feed.close();
  });

  it('R74 news is confirmed by a read at newsConfirmMs exactly, counted in poll ticks', async () => {
    const reads: PendingReadRequest[] = [];
    let pushed: ((p?: string) => void) | undefined;
    const source: PendingSource = {
      readPending: async (r) => (reads.push(r), { position: '1', changes: [], snapshot: [] }),
      onLocalChange: () => () => {},
      subscribeRemote: async (l) => ((pushed = l), () => {}),
      wakeNews: () => ({ mark: '2', changes: [{ ...pendingPair(A, T, 1), pending: true }] }),
      positionCovers: (p, m) => Number(m) <= Number(p),
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 100, newsConfirmMs: 1_000, watchFiles: false });
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    const before = reads.length;
    pushed!('news');
    await vi.advanceTimersByTimeAsync(999);
    expect(reads.length).toBe(before);
    await vi.advanceTimersByTimeAsync(1);
    expect(reads.length).toBe(before + 1);
    feed.close();
  });
});

describe('R73 routing hashes two keys share', () => {
  it('R73 unsubscribing one of two watchers with the same hash keeps routing the other', async () => {
    // Two keys with one FNV-1a hash, found by search (32 bits: a collision within some 100,000 keys).
    const seen = new Map<string, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const k = `agent:main:w${i}`;
      const h = watcherRouteHash(k);
      const other = seen.get(h);
      if (other !== undefined) pair = [other, k];
      else seen.set(h, k);
    }
    const [first, second] = pair;
    expect(watcherRouteHash(first)).toBe(watcherRouteHash(second));
    const src = new FakeSource();
    let pushed: ((p?: string) => void) | undefined;
    const source: PendingSource = { listPending: () => src.listPending(), onLocalChange: (l) => src.onLocalChange(l), subscribeRemote: async (l) => ((pushed = l), () => {}) };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    const got: NoticeSignal[] = [];
    const stopFirst = feed.subscribe(() => {}, { watcherSessionKey: first });
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: second });
    await settle();
    stopFirst();
    src.pairs = [pendingPair(second, T, 1)];
    const reads = src.listCalls;
    pushed!(routePayload([second]));
    await settle();
    expect(src.listCalls).toBe(reads + 1);
    expect(got.map((s) => s.watcherSessionKey)).toEqual([second]);
    feed.close();
  });
});
