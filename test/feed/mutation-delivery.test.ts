/**
 * R64-R67 on the delivery side alone: the timers delivery sets (one per due time, none when
 * nothing is due, one retry per watcher), nothing run or armed once closed (even by a timer that
 * could not be cancelled), and a retry whose news was settled meanwhile still looks once.
 * A fake feed and store and a manual clock and timer, so every decision is observable.
 */
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../spec/index.js';
import { startDelivery, type NoticeFeed, type NoticeSignal } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

const W = 'agent:main:main';
const T = 'agent:main:peer';

function notice(lastSeen: number): Notice {
  return { watcherSessionKey: W, targetSessionKey: T, targetAgentId: 'main', lastSeenSequence: lastSeen, contextKey: 'session-state:1:1', wake: 'immediate', text: 'news' };
}

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
};

function harness(options: { coalesceMs?: number; retryMs?: number; cancellable?: boolean } = {}) {
  let now = 1_000_000;
  const timers: { fn: () => void; ms: number; at: number; cancelled: boolean }[] = [];
  let listener: ((s: NoticeSignal) => void) | undefined;
  const feed = {
    subscribe: (l: (s: NoticeSignal) => void) => {
      listener = l;
      return () => (listener = undefined);
    },
  } as unknown as NoticeFeed;
  const store = {
    pending: [notice(1)] as Notice[],
    reads: 0,
    acks: 0,
    async pendingNotices() {
      this.reads++;
      return this.pending.map((n) => ({ ...n }));
    },
    async ackNotices(_w: string, page: Notice[]) {
      this.acks++;
      return page;
    },
  };
  const deliveries: Notice[][] = [];
  const logger = memoryLogger();
  let deliverImpl: (notices: Notice[]) => unknown = (n) => void deliveries.push(n);
  const delivery = startDelivery({
    store: store as never,
    feed,
    deliver: (_w, n) => deliverImpl(n) as void,
    logger,
    now: () => now,
    ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
    ...(options.coalesceMs === undefined ? {} : { wake: { coalesceMs: options.coalesceMs } }),
    setTimer: (fn, ms) => {
      const t = { fn, ms, at: now + ms, cancelled: false };
      timers.push(t);
      return () => {
        if (options.cancellable !== false) t.cancelled = true;
      };
    },
  });
  return {
    store,
    logger,
    delivery,
    deliveries,
    timers,
    signal: () => listener?.({ watcherSessionKey: W, changed: [{ watcherSessionKey: W, targetSessionKey: T, targetAgentId: 'main', lastSeenSequence: 1, wake: 'immediate' }] }),
    setDeliver: (f: (notices: Notice[]) => unknown) => (deliverImpl = f),
    /** Moves the clock to `at` and fires every live timer due by then, oldest first. */
    advanceTo: async (at: number) => {
      now = at;
      for (const t of [...timers]) {
        if (!t.cancelled && t.at <= at && !(t as { fired?: boolean }).fired) {
          (t as { fired?: boolean }).fired = true;
          t.fn();
          await flush();
        }
      }
    },
    get now() {
      return now;
    },
  };
}

describe('delivery, decision by decision', () => {
  it('R65 a burst arms one timer for its due time, and none once nothing is due', async () => {
    const h = harness();
    h.signal(); // the first wake: at once, no timer
    await flush();
    expect(h.deliveries).toHaveLength(1);
    expect(h.timers).toHaveLength(0);
    h.signal(); // within the window: deferred to the window's end
    h.signal(); // the same due time: the armed timer serves it
    await flush();
    expect(h.timers.map((t) => t.ms)).toEqual([20_000]);
    await h.advanceTo(h.now + 20_000);
    expect(h.deliveries).toHaveLength(2);
    // Nothing more is due: no timer is set for "undefined".
    expect(h.timers).toHaveLength(1);
    h.delivery.close();
  });

  it('R67 after close a due timer or a retry timer that still fires (it could not be cancelled) reads nothing and sets nothing', async () => {
    const h = harness({ cancellable: false, retryMs: 500 });
    h.signal();
    await flush();
    h.signal(); // deferred: a due timer
    await flush();
    h.setDeliver(() => {
      throw new Error('runtime busy');
    });
    const reads = h.store.reads;
    h.delivery.close();
    await h.advanceTo(h.now + 20_000);
    expect(h.store.reads).toBe(reads);
    expect(h.timers).toHaveLength(1);

    // No coalescing: a retry that reached the scheduler would be a wake now, and a read.
    const r = harness({ cancellable: false, retryMs: 500, coalesceMs: 0 });
    r.setDeliver(() => {
      throw new Error('runtime busy');
    });
    r.signal(); // deliver fails: a retry timer
    await flush();
    expect(r.timers.map((t) => t.ms)).toEqual([500]);
    const readsR = r.store.reads;
    r.delivery.close();
    await r.advanceTo(r.now + 500);
    expect(r.store.reads).toBe(readsR);
    expect(r.timers).toHaveLength(1);
  });

  it('R67 a delivery in flight at close that then fails sets no retry', async () => {
    const h = harness({ retryMs: 500 });
    let fail!: (e: Error) => void;
    h.setDeliver(() => new Promise((_, reject) => (fail = reject)));
    h.signal();
    await flush();
    h.delivery.close();
    fail(new Error('runtime gone'));
    await flush();
    expect(h.timers).toHaveLength(0);
    await h.delivery.idle();
  });

  it('R67 two failures of one watcher before its retry is due keep one retry timer', async () => {
    const h = harness({ coalesceMs: 0, retryMs: 500 });
    let fail!: (e: Error) => void;
    h.setDeliver(() => new Promise((_, reject) => (fail = reject)));
    h.signal();
    await flush();
    h.signal(); // in flight: runs again after it
    await flush();
    fail(new Error('busy'));
    await flush();
    fail(new Error('busy again'));
    await flush();
    expect(h.store.reads).toBe(2);
    expect(h.timers.filter((t) => t.ms === 500)).toHaveLength(1);
    h.delivery.close();
  });

  it('R67 a retry whose news a later delivery settled still looks once (pending unknown: immediate)', async () => {
    const h = harness({ coalesceMs: 0, retryMs: 500 });
    let fail!: (e: Error) => void;
    h.setDeliver(() => new Promise((_, reject) => (fail = reject)));
    h.signal();
    await flush();
    h.signal(); // runs again after the first attempt
    await flush();
    h.setDeliver((n) => void h.deliveries.push(n));
    fail(new Error('busy')); // the first fails (a retry timer); the second delivers and settles
    await flush();
    expect(h.deliveries).toHaveLength(1);
    expect(h.timers.map((t) => t.ms)).toEqual([500]);
    h.store.pending = [];
    const reads = h.store.reads;
    await h.advanceTo(h.now + 500);
    expect(h.store.reads).toBe(reads + 1);
    // The empty read with nothing remembered settles quietly.
    expect(h.logger.entries.filter((e) => e.message.includes('unexpected'))).toEqual([]);
    h.delivery.close();
  });
});
