import { describe, expect, it, vi } from 'vitest';
import { createNoticeFeed, type NoticeSignal, type PendingReadRequest, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, fakeTimersEachTest, pendingPair } from './fake-source.js';
import { createMemoryStore } from '../../src/memory/index.js';

const A = 'agent:main:a';
const B = 'agent:main:b';
const T = 'agent:main:target';
const U = 'agent:main:other';

/** Lets pending promise callbacks (the feed's async reads) run without moving the fake clock. */

function collect() {
  const got: NoticeSignal[] = [];
  return { got, listener: (s: NoticeSignal) => void got.push(s), watchers: () => got.map((s) => s.watcherSessionKey) };
}

const settle = fakeTimersEachTest();

describe('notice feed: initial signal', () => {
  it('R61: subscribing signals once for every already-pending watcher, from a fresh read; a filtered subscription only its own', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 3), pendingPair(B, T, 1, 'next-turn')];
    const feed = createNoticeFeed(src, { logger: memoryLogger() });
    const all = collect();
    const onlyB = collect();
    feed.subscribe(all.listener);
    await settle();
    feed.subscribe(onlyB.listener, { watcherSessionKey: B });
    await settle();
    expect(all.watchers()).toEqual([A, B]); // the second subscriber's read changed nothing for the first
    expect(all.got[0]!.changed).toEqual([pendingPair(A, T, 3)]);
    expect(onlyB.watchers()).toEqual([B]);
    feed.close();
  });

  it('R61: a subscriber that comes during a read is answered by a read made after it came, not by the older one', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 1)];
    const feed = createNoticeFeed(src, { pollIntervalMs: 60_000, logger: memoryLogger() });
    const first = collect();
    feed.subscribe(first.listener);
    await settle();
    let open!: () => void;
    src.gate = new Promise((r) => (open = r));
    src.commitLocal([pendingPair(A, T, 1), pendingPair(B, T, 1)]); // a read starts and sees A and B
    await settle();
    src.pairs = [pendingPair(B, T, 1)]; // A acked elsewhere before the newcomer subscribes
    const late = collect();
    feed.subscribe(late.listener);
    src.gate = undefined;
    open();
    await settle();
    expect(first.watchers()).toEqual([A, B]);
    expect(late.watchers()).toEqual([B]); // not A: it was no longer pending when it subscribed
    feed.close();
  });

  it('R61: a failed first read does not lose the initial signal: it comes with the next tick', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 3)];
    src.failList = 1;
    const log = memoryLogger();
    const feed = createNoticeFeed(src, { logger: log, pollIntervalMs: 100 });
    const c = collect();
    feed.subscribe(c.listener);
    await settle();
    expect(c.got).toEqual([]);
    expect(log.entries.map((e) => e.message)).toEqual(['notice feed: reading pending notices failed; retrying on the next tick']);
    await vi.advanceTimersByTimeAsync(100);
    expect(c.watchers()).toEqual([A]);
    feed.close();
  });
});

describe('notice feed: polling', () => {
  it('R62: polls the change token only while subscribed, re-reads only when it changed, and signals within one interval', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { pollIntervalMs: 50, logger: memoryLogger() });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(src.tokenCalls + src.listCalls).toBe(0); // nobody listens: no polling at all
    const c = collect();
    const off = feed.subscribe(c.listener);
    await settle();
    const reads = src.listCalls;
    await vi.advanceTimersByTimeAsync(500);
    expect(src.tokenCalls).toBeGreaterThanOrEqual(9);
    expect(src.tokenCalls).toBeLessThanOrEqual(11); // one poll per interval, never a spin
    expect(src.listCalls).toBe(reads); // token unchanged: no re-read
    src.commit([pendingPair(A, T, 7)]);
    await vi.advanceTimersByTimeAsync(49);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.watchers()).toEqual([A]);
    off();
    expect(vi.getTimerCount()).toBe(0);
    const calls = src.tokenCalls;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(src.tokenCalls).toBe(calls);
  });

  it('R60: a pair that stays pending is not signalled again; a new L for it is', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 3)];
    const feed = createNoticeFeed(src, { pollIntervalMs: 10, logger: memoryLogger() });
    const c = collect();
    feed.subscribe(c.listener);
    await settle();
    src.commit([pendingPair(A, T, 3), pendingPair(B, U, 0)]);
    await vi.advanceTimersByTimeAsync(10);
    src.commit([pendingPair(A, T, 3), pendingPair(B, U, 0)]); // token moves, nothing new
    await vi.advanceTimersByTimeAsync(10);
    src.commit([pendingPair(A, T, 9)]); // acked and re-opened elsewhere: a new notice text
    await vi.advanceTimersByTimeAsync(10);
    src.commit([]);
    await vi.advanceTimersByTimeAsync(10);
    expect(c.watchers()).toEqual([A, B, A]);
    expect(c.got[2]!.changed).toEqual([pendingPair(A, T, 9)]);
    feed.close();
  });

  it('R62: this handle\'s own commits (no token change) are read at once through onLocalChange', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { pollIntervalMs: 60_000, logger: memoryLogger() });
    const c = collect();
    feed.subscribe(c.listener);
    await settle();
    src.commitLocal([pendingPair(A, T, 1)]);
    await settle();
    expect(c.watchers()).toEqual([A]);
    feed.close();
    expect(src.local.size).toBe(0);
  });

  it('R62: server push (subscribeRemote) drives the same re-read; a source without a token is never polled', async () => {
    const src = new FakeSource();
    const pushers = new Set<() => void>();
    const push: PendingSource = {
      listPending: () => src.listPending(),
      onLocalChange: (l) => src.onLocalChange(l),
      subscribeRemote: async (l) => {
        pushers.add(l);
        return () => pushers.delete(l);
      },
    };
    const feed = createNoticeFeed(push, { pollIntervalMs: 10, logger: memoryLogger() });
    const c = collect();
    const off = feed.subscribe(c.listener);
    await settle();
    expect(pushers.size).toBe(1);
    const reads = src.listCalls;
    await vi.advanceTimersByTimeAsync(100);
    expect(src.listCalls).toBe(reads);
    src.pairs = [pendingPair(B, T, 2)];
    for (const p of pushers) p();
    await settle();
    expect(c.watchers()).toEqual([B]);
    off();
    expect(pushers.size).toBe(0);
  });
});

describe('notice feed: no lost signal, no thrown error', () => {
  it('R63: a change committed during a read is caught by a second read', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { pollIntervalMs: 60_000, logger: memoryLogger() });
    const c = collect();
    feed.subscribe(c.listener);
    await settle();
    let open!: () => void;
    src.gate = new Promise((r) => (open = r));
    src.commitLocal([pendingPair(A, T, 1)]); // starts a read, which blocks on the gate
    await settle();
    src.commitLocal([pendingPair(A, T, 1), pendingPair(B, T, 1)]); // lands during that read
    src.gate = undefined;
    open();
    await settle();
    expect(c.watchers()).toEqual([A, B]);
    feed.close();
  });

  it('R63: failed reads and token reads are logged and retried on the next tick; the change is signalled then', async () => {
    const src = new FakeSource();
    const log = memoryLogger();
    const feed = createNoticeFeed(src, { pollIntervalMs: 20, logger: log });
    const c = collect();
    feed.subscribe(c.listener);
    await settle();
    src.commit([pendingPair(A, T, 1)]);
    src.failList = 1;
    await vi.advanceTimersByTimeAsync(20);
    expect(c.got).toEqual([]);
    src.failToken = 1;
    await vi.advanceTimersByTimeAsync(20); // the retry reads regardless of the token
    expect(c.watchers()).toEqual([A]);
    src.commit([pendingPair(A, T, 1), pendingPair(B, T, 1)]);
    src.failToken = 1;
    await vi.advanceTimersByTimeAsync(20);
    await vi.advanceTimersByTimeAsync(20);
    expect(c.watchers()).toEqual([A, B]);
    expect(log.entries.map((e) => e.message)).toEqual([
      'notice feed: reading pending notices failed; retrying on the next tick',
      'notice feed: reading the change token failed; retrying on the next tick',
      'notice feed: reading the change token failed; retrying on the next tick',
    ]);
    feed.close();
  });

  it('R63: a throwing listener is logged and does not keep the others (or a throwing logger) from the signal', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 1)];
    const feed = createNoticeFeed(src, { logger: { warn: () => {}, error: () => { throw new Error('logger down'); } } });
    const c = collect();
    feed.subscribe(() => {
      throw new Error('listener bug');
    });
    feed.subscribe(c.listener);
    await settle();
    expect(c.watchers()).toEqual([A]);
    feed.close();
  });

  it('R62: never a busy loop: a source that always fails is read once per interval, and a storm of local changes during a slow read costs one more read', async () => {
    const src = new FakeSource();
    src.failList = Number.POSITIVE_INFINITY;
    const log = memoryLogger();
    const feed = createNoticeFeed(src, { pollIntervalMs: 100, logger: log });
    feed.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(1_000);
    expect(src.listCalls).toBeGreaterThanOrEqual(10);
    expect(src.listCalls).toBeLessThanOrEqual(12);
    src.failList = 0;
    await vi.advanceTimersByTimeAsync(100);
    let open!: () => void;
    src.gate = new Promise((r) => (open = r));
    const before = src.listCalls;
    for (let i = 0; i < 1_000; i++) src.commitLocal([pendingPair(A, T, i)]);
    src.gate = undefined;
    open();
    await settle();
    expect(src.listCalls - before).toBe(2); // the read in flight, then one for everything after it
    feed.close();
  });

  it('pollIntervalMs is settable and validated; a source that is not a PendingSource is refused', () => {
    const src = new FakeSource();
    for (const bad of [0, -5, 1.5, Number.NaN, '200', 3_600_001]) expect(() => createNoticeFeed(src, { pollIntervalMs: bad as number })).toThrow(RangeError);
    expect(() => createNoticeFeed({} as PendingSource)).toThrow(TypeError);
    createNoticeFeed(src, { pollIntervalMs: 1 }).close();
  });
});

describe('notice feed: async iterator', () => {
  it('R61: signals() yields the initial signals, then new ones, keeps the latest per watcher, and ends on abort', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 1)];
    const feed = createNoticeFeed(src, { pollIntervalMs: 10, logger: memoryLogger() });
    const ac = new AbortController();
    const it = feed.signals({ signal: ac.signal })[Symbol.asyncIterator]();
    const first = it.next();
    await settle();
    expect((await first).value).toMatchObject({ watcherSessionKey: A });
    // Two changes for B before the consumer reads: one buffered signal with the latest pending set.
    src.commit([pendingPair(A, T, 1), pendingPair(B, T, 1)]);
    await vi.advanceTimersByTimeAsync(10);
    src.commit([pendingPair(A, T, 1), pendingPair(B, T, 1), pendingPair(B, U, 4)]);
    await vi.advanceTimersByTimeAsync(10);
    const second = (await it.next()).value as NoticeSignal;
    expect(second.watcherSessionKey).toBe(B);
    expect(second.changed.map((p) => p.targetSessionKey)).toEqual([U, T]);
    const third = it.next();
    ac.abort();
    expect(await third).toEqual({ value: undefined, done: true });
    expect(vi.getTimerCount()).toBe(0); // the iterator was the only subscriber
    feed.close();
  });

  it('R60: signals() answers concurrent next() calls in order, and ends them all on return()', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { logger: memoryLogger() });
    const it = feed.signals()[Symbol.asyncIterator]();
    const a = it.next();
    const b = it.next();
    const c = it.next();
    await settle();
    src.commitLocal([pendingPair(A, T, 1)]);
    await settle();
    src.commitLocal([pendingPair(A, T, 1), pendingPair(B, T, 1)]);
    await settle();
    expect(((await a).value as NoticeSignal).watcherSessionKey).toBe(A);
    expect(((await b).value as NoticeSignal).watcherSessionKey).toBe(B);
    await it.return!();
    expect(await c).toEqual({ value: undefined, done: true });
    feed.close();
  });

  it('signals() filtered by watcher, ended by close(); an already aborted signal yields nothing', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 1), pendingPair(B, T, 2)];
    const feed = createNoticeFeed(src, { logger: memoryLogger() });
    const aborted = AbortSignal.abort();
    const none: NoticeSignal[] = [];
    for await (const s of feed.signals({ signal: aborted })) none.push(s);
    expect(none).toEqual([]);
    const seen: string[] = [];
    const loop = (async () => {
      for await (const s of feed.signals({ watcherSessionKey: B })) seen.push(s.watcherSessionKey);
    })();
    await settle();
    feed.close();
    await loop;
    expect(seen).toEqual([B]);
    expect(() => feed.subscribe(() => {})).toThrow(/closed/);
  });
});

describe('notice feed over a source that reads what changed (R68, R69)', () => {
  const human = (store: ReturnType<typeof createMemoryStore>, target: string) =>
    store.record({ sessionKey: target, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });

  it('R68: after the first read the feed asks only for changes; no read lists everything pending, and a snapshot names only newcomers', async () => {
    const store = createMemoryStore({ now: () => 1_767_225_600_000 });
    for (let i = 0; i < 200; i++) store.watch({ watcherSessionKey: `agent:main:w${i}`, targetSessionKey: T, agentId: 'main' });
    human(store, T); // 200 pending pairs
    const requests: PendingReadRequest[] = [];
    let listings = 0;
    const source: PendingSource = {
      readPending: (r) => {
        requests.push(r);
        return store.readPending(r);
      },
      listPending: () => {
        listings++;
        return store.listPending();
      },
      onLocalChange: (l) => store.onLocalChange(l),
      changeToken: () => store.changeToken(),
    };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), watchFiles: false });
    const a = collect();
    feed.subscribe(a.listener, { watcherSessionKey: A });
    await settle();
    // R61: the newcomer's own watcher only; R68: and only its watcher's changes are wanted.
    expect(requests).toEqual([{ snapshot: [A], watchers: [A] }]);
    store.watch({ watcherSessionKey: A, targetSessionKey: U, agentId: 'main' });
    human(store, U);
    await settle();
    expect(requests.slice(1).every((r) => r.snapshot === undefined && r.since !== undefined && JSON.stringify(r.watchers) === JSON.stringify([A]))).toBe(true);
    expect(a.got.map((s) => s.changed.map((p) => p.targetSessionKey))).toEqual([[U]]);
    expect(listings).toBe(0);
    feed.close();
  });

  it('R68: a read names the feed\'s watchers while none of its subscribers hears every watcher and they are at most 256; otherwise it asks for every change', async () => {
    const store = createMemoryStore({ now: () => 1_767_225_600_000 });
    const requests: PendingReadRequest[] = [];
    const source: PendingSource = { readPending: (r) => (requests.push(r), store.readPending(r)), onLocalChange: (l) => store.onLocalChange(l), changeToken: () => store.changeToken() };
    const feed = createNoticeFeed(source, { logger: memoryLogger(), watchFiles: false });
    const last = () => requests[requests.length - 1]!;
    const a = collect();
    feed.subscribe(a.listener, { watcherSessionKey: A });
    const off = feed.subscribe(collect().listener, { watcherSessionKey: B });
    await settle();
    store.watch({ watcherSessionKey: A, targetSessionKey: T, agentId: 'main' });
    human(store, T);
    await settle();
    expect([...last().watchers!].sort()).toEqual([A, B].sort());
    off();
    human(store, T);
    await settle();
    expect(last().watchers).toEqual([A]);
    const everything = feed.subscribe(collect().listener);
    await settle();
    human(store, T);
    await settle();
    expect(last().watchers).toBeUndefined();
    everything();
    const many = Array.from({ length: 256 }, (_, i) => feed.subscribe(collect().listener, { watcherSessionKey: `agent:main:m${i}` }));
    await settle();
    human(store, T);
    await settle();
    expect(last().watchers).toBeUndefined(); // A and 256 more: past the bound
    many.pop()!();
    human(store, T);
    await settle();
    expect(last().watchers).toHaveLength(256);
    // Whatever it asked, the subscriber of A heard of its one notice on T once (R26: later prompts coalesce).
    expect(a.got.filter((s) => s.changed.some((p) => p.targetSessionKey === T)).length).toBe(1);
    feed.close();
  });

  it('R69: news goes to the subscribers of its watcher and of every watcher, not to the others; a late subscriber gets a snapshot, the others no repeat', async () => {
    const store = createMemoryStore({ now: () => 1_767_225_600_000 });
    const feed = createNoticeFeed(store, { logger: memoryLogger(), watchFiles: false });
    const a = collect();
    const b = collect();
    const all = collect();
    const bystanders = Array.from({ length: 1000 }, () => collect());
    feed.subscribe(a.listener, { watcherSessionKey: A });
    feed.subscribe(b.listener, { watcherSessionKey: B });
    feed.subscribe(all.listener);
    bystanders.forEach((c, i) => feed.subscribe(c.listener, { watcherSessionKey: `agent:main:quiet${i}` }));
    await settle();
    store.watch({ watcherSessionKey: A, targetSessionKey: T, agentId: 'main' });
    human(store, T);
    await settle();
    expect(a.watchers()).toEqual([A]);
    expect(b.got).toEqual([]);
    expect(all.watchers()).toEqual([A]);
    expect(bystanders.every((c) => c.got.length === 0)).toBe(true);
    const late = collect();
    feed.subscribe(late.listener, { watcherSessionKey: A });
    await settle();
    expect(late.got.map((s) => s.changed.map((p) => [p.targetSessionKey, p.lastSeenSequence]))).toEqual([[[T, 0]]]);
    expect(a.got).toHaveLength(1); // the late snapshot is no news for the others
    expect(all.got).toHaveLength(1);
    feed.close();
  });
});

describe('notice feed: file events (R70)', () => {
  it('R70: a file event reads the token at once and re-checks shortly after; a rename drops the watch and the next poll watches the path again; no watch outlives the feed', async () => {
    const src = new FakeSource();
    const files = ['/tmp/state.db-wal'];
    (src as PendingSource).changeFiles = () => files;
    const watches: { path: string; fire: (e: 'change' | 'rename') => void; stopped: boolean }[] = [];
    const feed = createNoticeFeed(src, {
      pollIntervalMs: 60_000,
      logger: memoryLogger(),
      watchFiles: (path, onChange) => {
        const w = { path, fire: onChange, stopped: false };
        watches.push(w);
        return () => void (w.stopped = true);
      },
    });
    const c = collect();
    feed.subscribe(c.listener);
    await settle();
    expect(watches.map((w) => w.path)).toEqual(files);
    const tokenReads = src.tokenCalls;
    // Another process commits: the file event, not the poll an hour away, brings it.
    src.commit([pendingPair(A, T, 3)]);
    watches[0]!.fire('change');
    await settle();
    expect(c.watchers()).toEqual([A]);
    expect(src.tokenCalls).toBe(tokenReads + 2); // the check, then the read's own token read (R63); no poll ran
    // An event before the commit is visible: re-checked at 2, 10 and 40 ms.
    watches[0]!.fire('change');
    await settle();
    src.commit([pendingPair(A, T, 3), pendingPair(B, T, 1)]);
    await vi.advanceTimersByTimeAsync(40);
    expect(c.watchers()).toEqual([A, B]);
    // The WAL is removed: the watch is dropped and armed again at the next poll.
    watches[0]!.fire('rename');
    expect(watches[0]!.stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(watches).toHaveLength(2);
    expect(watches[1]!.stopped).toBe(false);
    feed.close();
    expect(watches[1]!.stopped).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
