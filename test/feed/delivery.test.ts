import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Notice } from '../../spec/index.js';
import { WAKE_COALESCE_MS, createNoticeFeed, defaultLaneOf, startDelivery, type DeliveryOptions } from '../../src/feed/index.js';
import { fakeTimersEachTest } from './fake-source.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { ModelStore } from './model-store.js';
import { LIMITS } from '../../spec/index.js';
import { createMemoryStore } from '../../src/memory/index.js';

const MAIN = 'agent:main:main';
const T = 'agent:main:peer';
const U = 'agent:main:other';
const T0 = 1_767_225_600_000;

/** Runs pending promise callbacks (the feed's reads, deliveries, acks) without moving the clock. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0);
};

function setup(overrides: Partial<DeliveryOptions> = {}) {
  const store = new ModelStore();
  const logger = memoryLogger();
  const feed = createNoticeFeed(store, { logger, pollIntervalMs: 200 });
  const delivered: { at: number; watcher: string; notices: Notice[] }[] = [];
  let failing = false;
  const delivery = startDelivery({
    store,
    feed,
    logger,
    deliver: (watcher, notices) => {
      if (failing) throw new Error('runtime busy');
      delivered.push({ at: Date.now() - T0, watcher, notices });
    },
    ...overrides,
  });
  return { store, feed, delivery, delivered, logger, fail: (on: boolean) => (failing = on) };
}

fakeTimersEachTest(T0);

describe('delivery: wake, coalesce, ack (fake time)', () => {
  it('R67: first notice delivered at once; a burst after it: nothing at 19,999 ms, delivery at 20,000 ms; ack only when delivered', async () => {
    const { store, feed, delivery, delivered } = setup();
    await settle();
    store.change(MAIN, T);
    await settle();
    expect(delivered.map((d) => [d.at, d.notices.map((n) => n.lastSeenSequence)])).toEqual([[0, [0]]]);
    expect(store.ackCalls).toHaveLength(1);
    expect(store.pendingCount(MAIN)).toBe(0);

    await vi.advanceTimersByTimeAsync(1_000);
    store.change(MAIN, T);
    store.change(MAIN, U);
    await settle();
    await vi.advanceTimersByTimeAsync(20_000 - 1_000 - 1); // t = 19,999
    expect(delivered).toHaveLength(1);
    expect(store.ackCalls).toHaveLength(1); // nothing acked while undelivered
    expect(store.pendingCount(MAIN)).toBe(2);
    await vi.advanceTimersByTimeAsync(1); // t = 20,000
    expect(delivered.map((d) => d.at)).toEqual([0, 20_000]);
    expect(delivered[1]!.notices.map((n) => n.targetSessionKey)).toEqual([U, T]); // one wake for the burst, R26 order
    expect(store.pendingCount(MAIN)).toBe(0);
    delivery.close();
    feed.close();
  });

  it('R67: a failed deliver acks nothing, is logged, and is retried after the window; then acked', async () => {
    const { store, feed, delivery, delivered, logger, fail } = setup();
    await settle();
    fail(true);
    store.change(MAIN, T);
    await settle();
    expect(store.ackCalls).toHaveLength(0);
    expect(store.pendingCount(MAIN)).toBe(1);
    expect(logger.entries.map((e) => e.message)).toEqual(['notice delivery: deliver failed; the notices stay pending and are retried']);
    fail(false);
    await vi.advanceTimersByTimeAsync(WAKE_COALESCE_MS - 1);
    expect(delivered).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(delivered.map((d) => d.at)).toEqual([WAKE_COALESCE_MS]);
    expect(store.pendingCount(MAIN)).toBe(0);
    delivery.close();
    feed.close();
  });

  it('R67: deliver resolving false acks nothing and does not retry (the turn drains itself); a store read failure is retried', async () => {
    const store = new ModelStore();
    const logger = memoryLogger();
    const feed = createNoticeFeed(store, { logger });
    let calls = 0;
    const delivery = startDelivery({ store, feed, logger, deliver: () => (calls++, false) });
    await settle();
    store.change(MAIN, T);
    await settle();
    await vi.advanceTimersByTimeAsync(5 * WAKE_COALESCE_MS);
    expect(calls).toBe(1);
    expect(store.ackCalls).toHaveLength(0);
    store.failPending = 1;
    store.change(MAIN, U);
    await settle();
    await vi.advanceTimersByTimeAsync(2 * WAKE_COALESCE_MS);
    expect(calls).toBe(2);
    expect(logger.entries.map((e) => e.message)).toEqual(['notice delivery: reading pending notices failed; retrying later']);
    delivery.close();
    feed.close();
  });

  it('R67: an ack that acked less than was delivered (it could not be written) is looked at again after retryMs: delivered again, at least once', async () => {
    const { store, feed, delivery, delivered } = setup({ retryMs: 5_000 });
    await settle();
    store.dropAcks = 1;
    store.change(MAIN, T);
    await settle();
    expect(delivered.map((d) => d.at)).toEqual([0]);
    expect(store.pendingCount(MAIN)).toBe(1); // nothing changed, so the feed has nothing new to say
    await vi.advanceTimersByTimeAsync(WAKE_COALESCE_MS - 1);
    expect(delivered).toHaveLength(1); // the retry (at 5 s) is still held by the window (R65)
    await vi.advanceTimersByTimeAsync(1);
    expect(delivered.map((d) => d.at)).toEqual([0, WAKE_COALESCE_MS]);
    expect(store.pendingCount(MAIN)).toBe(0);
    delivery.close();
    feed.close();
  });

  it('R64: next-turn notices (sub-agents, ambient) and side lanes are never delivered; R66 a thread lane of the same agent is queue-only', async () => {
    const { store, feed, delivery, delivered } = setup();
    await settle();
    store.change('agent:main:subagent:c1', T);
    store.change(MAIN, U, 'next-turn'); // ambient cursor of the main lane
    store.change('agent:main:discord:channel:9:thread:4', T);
    await settle();
    await vi.advanceTimersByTimeAsync(3 * WAKE_COALESCE_MS);
    expect(delivered).toEqual([]);
    // An immediate notice wakes the main lane; its queued ambient notice rides along.
    store.change(MAIN, T);
    await settle();
    expect(delivered.map((d) => d.notices.map((n) => n.targetSessionKey))).toEqual([[U, T]]);
    delivery.close();
    feed.close();
  });

  it('R67: a notice raised while a delivery runs is delivered once that delivery ends (no wake lost to the one in flight)', async () => {
    let release: () => void = () => {};
    const { store, feed, delivery, delivered } = setup({
      wake: { coalesceMs: 0 },
      deliver: (watcher, notices) =>
        new Promise<void>((resolve) => {
          delivered.push({ at: Date.now() - T0, watcher, notices });
          release = resolve;
        }),
    });
    await settle();
    store.change(MAIN, T);
    await settle();
    expect(delivered).toHaveLength(1); // in flight: deliver has not resolved
    store.change(MAIN, U); // raised meanwhile; the feed signals it while T's delivery runs
    await settle();
    release(); // the first delivery ends and acks T only
    await settle();
    expect(delivered.map((d) => d.notices.map((n) => n.targetSessionKey))).toEqual([[T], [U]]);
    release();
    await settle();
    expect(store.pendingCount(MAIN)).toBe(0);
    delivery.close();
    feed.close();
  });

  it('R67: a read that finds nothing although the feed said something is pending (a store answers [] on a storage failure) is looked at again', async () => {
    const { store, feed, delivery, delivered } = setup();
    await settle();
    store.emptyReads = 1; // the next pendingNotices answers [] as a failing store would (R9)
    store.change(MAIN, T);
    await settle();
    expect(delivered).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(WAKE_COALESCE_MS);
    expect(delivered.map((d) => d.notices.map((n) => n.targetSessionKey))).toEqual([[T]]);
    expect(store.pendingCount(MAIN)).toBe(0);
    delivery.close();
    feed.close();
  });

  it('startDelivery validates its options', () => {
    const store = new ModelStore();
    const feed = createNoticeFeed(store);
    expect(() => startDelivery({ store: {} as never, feed, deliver: () => {} })).toThrow(TypeError);
    expect(() => startDelivery({ store, feed: {} as never, deliver: () => {} })).toThrow(TypeError);
    expect(() => startDelivery({ store, feed, deliver: 'x' as never })).toThrow(TypeError);
    expect(() => startDelivery({ store, feed, deliver: () => {}, retryMs: 0 })).toThrow(RangeError);
    expect(() => startDelivery({ store, feed, deliver: () => {}, wake: { coalesceMs: -1 } })).toThrow(RangeError);
    feed.close();
  });
});

describe('delivery model (fast-check, fake time)', () => {
  const watchers = [MAIN, 'agent:ops:main', 'agent:main:subagent:s', 'agent:main:telegram:group:1:topic:2'];
  const targets = [T, U];
  const op = fc.oneof(
    fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: 19_990, max: 20_010 })) }),
    fc.record({ kind: fc.constant('change' as const), watcher: fc.constantFrom(...watchers), target: fc.constantFrom(...targets), ambient: fc.boolean() }),
    fc.record({ kind: fc.constant('fail' as const), on: fc.boolean() }),
  );

  it('R67 model: acks only what was delivered, wakes >= 20 s apart, never wakes queue-only watchers, and delivers everything once deliver works', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        vi.setSystemTime(T0);
        const store = new ModelStore();
        const logger = memoryLogger();
        const feed = createNoticeFeed(store, { logger, pollIntervalMs: 200 });
        const successes: { at: number; watcher: string; notices: Notice[] }[] = [];
        const attempts: { at: number; watcher: string }[] = [];
        let failing = false;
        const delivery = startDelivery({
          store,
          feed,
          logger,
          deliver: (watcher, notices) => {
            attempts.push({ at: Date.now(), watcher });
            if (failing) throw new Error('down');
            successes.push({ at: Date.now(), watcher, notices: notices.map((n) => ({ ...n })) });
            notices.length = 0; // a runtime that consumes its array must not change what is acked
          },
        });
        await settle();
        for (const o of ops) {
          if (o.kind === 'advance') await vi.advanceTimersByTimeAsync(o.ms);
          else if (o.kind === 'fail') failing = o.on;
          else store.change(o.watcher, o.target, o.ambient ? 'next-turn' : 'immediate');
          await settle();
        }
        failing = false;
        await vi.advanceTimersByTimeAsync(3 * WAKE_COALESCE_MS);
        await settle();
        await delivery.idle();

        // Ack only when delivered: every ack call names exactly a batch deliver accepted.
        expect(store.ackCalls.map((a) => [a.watcher, a.notices])).toEqual(successes.map((s) => [s.watcher, s.notices]));
        // Wakes of one watcher are at least the window apart (failed attempts count as wakes).
        for (const w of watchers) {
          const times = attempts.filter((a) => a.watcher === w).map((a) => a.at);
          for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(WAKE_COALESCE_MS);
        }
        // Queue-only watchers are never woken.
        expect(attempts.filter((a) => defaultLaneOf(a.watcher) === 'side')).toEqual([]);
        // Liveness: with deliver working again, no main-lane watcher keeps an immediate notice pending.
        const left = store.listPending().filter((p) => p.wake === 'immediate' && defaultLaneOf(p.watcherSessionKey) === 'main');
        expect(left).toEqual([]);
        delivery.close();
        feed.close();
      }),
      { numRuns: 60 },
    );
  });
});

describe('delivery at scale (memory store, real stores\' limits)', () => {
  it('R67: more notices than one ack takes are delivered in pages of at most LIMITS.maxNoticesPerAck, each acked before the next', async () => {
    const store = createMemoryStore({ now: () => Date.now() });
    const logger = memoryLogger();
    const count = LIMITS.maxNoticesPerAck + 5;
    const targets = Array.from({ length: count }, (_, i) => `agent:main:w${String(i).padStart(6, '0')}`);
    for (const t of targets) store.watch({ watcherSessionKey: MAIN, targetSessionKey: t, agentId: 'main' });
    for (let i = 0; i < count; i += 1000) {
      store.recordMany(targets.slice(i, i + 1000).map((t) => ({ sessionKey: t, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' })));
    }
    expect(store.pendingNotices(MAIN)).toHaveLength(count);
    const feed = createNoticeFeed(store, { logger, watchFiles: false });
    const pages: number[] = [];
    const delivery = startDelivery({ store, feed, logger, deliver: (_w, notices) => void pages.push(notices.length) });
    await settle();
    await delivery.idle();
    expect(pages).toEqual([LIMITS.maxNoticesPerAck, 5]);
    expect(store.pendingNotices(MAIN)).toEqual([]); // all acked: nothing retried forever
    expect(logger.entries).toEqual([]);
    expect(delivery.tracked).toBe(0);
    delivery.close();
    feed.close();
  });

  it('R64: watchers that are never woken (sub-agents, side lanes, ambient) leave no state in delivery; woken ones none once delivered', async () => {
    const store = createMemoryStore({ now: () => Date.now() });
    const logger = memoryLogger();
    const feed = createNoticeFeed(store, { logger, watchFiles: false });
    const delivered: string[] = [];
    const delivery = startDelivery({ store, feed, logger, wake: { coalesceMs: 0 }, deliver: (w) => void delivered.push(w) });
    await settle();
    const quiet = [
      ...Array.from({ length: 3000 }, (_, i) => `agent:main:subagent:s${i}`),
      ...Array.from({ length: 3000 }, (_, i) => `agent:main:discord:channel:1:thread:${i}`),
    ];
    for (const w of quiet) store.watch({ watcherSessionKey: w, targetSessionKey: T, agentId: 'main' });
    for (let i = 0; i < 50; i++) store.watch({ watcherSessionKey: `agent:main:ambient${i}`, targetSessionKey: T, agentId: 'main', provenance: 'ambient' });
    store.record({ sessionKey: T, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
    await settle();
    await delivery.idle();
    expect(delivered).toEqual([]);
    expect(delivery.tracked).toBe(0);
    expect(delivery.scheduler.size).toBe(0);
    // A main lane is woken, delivered to, acked, and forgotten.
    store.watch({ watcherSessionKey: MAIN, targetSessionKey: U, agentId: 'main' });
    store.record({ sessionKey: U, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
    await settle();
    await delivery.idle();
    expect(delivered).toEqual([MAIN]);
    expect(delivery.tracked).toBe(0);
    delivery.close();
    feed.close();
  });
});
