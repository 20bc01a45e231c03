/**
 * The upstream monitor's driver where its reports alone do not show a decision (U2, U5, U8, U9,
 * U10): a stop reaching a check in flight, no timer left behind a check, a link changed while its
 * source was read, the removal after the last miss, the retry bounds of Continue and unlink, the
 * order links are checked and shown in, keys linked by two agents, and the timers of start/stop.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import type { JsonValue, Observation } from '../../src/core/upstream/index.js';
import type { SessionStateStore } from '../../spec/index.js';
import { createMemoryLinkStore, createSqliteLinkStore, createUpstreamMonitor, type UpstreamLinkStore, type UpstreamMonitorOptions, type UpstreamSource } from '../../src/upstream/index.js';
import { A, TARGET, continueInput, fakeClock } from './helpers.js';

const OTHER = 'agent:main:adopted:claude-2';

/** A source whose checks answer `next()` (default: found, nothing new), after `before` runs. */
function source(kind = 'fake') {
  const state = {
    checks: [] as string[],
    signals: [] as AbortSignal[],
    before: undefined as (() => Promise<void> | void) | undefined,
    next: undefined as (() => Observation) | undefined,
  };
  const s: UpstreamSource = {
    kind,
    baseline: async () => ({ pos: 0 }),
    async check({ threadId, marker }, signal): Promise<Observation> {
      state.checks.push(threadId);
      if (signal) state.signals.push(signal as AbortSignal);
      await state.before?.();
      return state.next?.() ?? { status: 'found', turns: [], nextMarker: marker as JsonValue, position: 'p' };
    },
  };
  return { s, state };
}

function setup(over: Partial<UpstreamMonitorOptions> = {}) {
  const clock = fakeClock();
  const store = createMemoryStore({ now: clock.now });
  const links = over.links ?? createMemoryLinkStore();
  const logger = memoryLogger();
  const fake = source();
  const monitor = createUpstreamMonitor({ store, links, now: clock.now, logger, sources: [fake.s], ...over });
  const input = (extra = {}) => continueInput('/unused', { upstreamKind: 'fake', ...extra });
  return { clock, store, links, logger, fake, monitor, input };
}

afterEach(() => void vi.useRealTimers());

describe('U8: a check in flight', () => {
  it("stop() aborts the check's own signal, saying the monitor stopped, and a check that ignores it does not hold the tick", async () => {
    const s = setup({ checkTimeoutMs: 600_000 });
    await s.monitor.continueSession(s.input());
    let entered!: () => void;
    const inCheck = new Promise<void>((r) => (entered = r));
    s.fake.state.before = () => {
      entered();
      return new Promise<void>(() => {}); // never answers, whatever its signal says
    };
    const running = s.monitor.tick();
    await inCheck;
    s.monitor.stop();
    expect((await running).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'stopped' }]);
    const signal = s.fake.state.signals[0]!;
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('monitor stopped');
  });

  it('a check that answers leaves no timer behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = setup();
    await s.monitor.continueSession(s.input());
    expect((await s.monitor.tick()).checked).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stop() inside the own-texts read: the link is skipped as stopped and its source never read', async () => {
    let stop = () => {};
    const s = setup({ ownTexts: () => (stop(), []) });
    await s.monitor.continueSession(s.input());
    stop = () => s.monitor.stop();
    expect((await s.monitor.tick()).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'stopped' }]);
    expect(s.fake.state.checks).toEqual([]);
  });

  it('a stop during the first of two links ends the tick: the second is neither checked nor reported', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    await s.monitor.continueSession(s.input({ sessionKey: OTHER, threadId: 'thread-2' }));
    s.fake.state.before = () => s.monitor.stop();
    const r = await s.monitor.tick();
    expect(s.fake.state.checks).toEqual(['thread-1']);
    expect(r.skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'stopped' }]);
  });
});

describe('U8: the link changed while its source was read', () => {
  for (const [what, change] of [
    ['continued again (a new revision)', async (s: ReturnType<typeof setup>) => void (await s.monitor.continueSession(s.input()))],
    ['unlinked', async (s: ReturnType<typeof setup>) => void (await s.monitor.unlink(TARGET, A))],
    ['unlinked and linked anew (a new serial)', async (s: ReturnType<typeof setup>) => void ((await s.monitor.unlink(TARGET, A)) && (await s.monitor.continueSession(s.input())))],
  ] as const) {
    it(`${what}: the result is dropped as raced`, async () => {
      const s = setup();
      await s.monitor.continueSession(s.input());
      s.fake.state.before = async () => {
        s.fake.state.before = undefined;
        await change(s);
      };
      s.fake.state.next = () => ({ status: 'missing', detail: 'gone' });
      const before = await s.links.list();
      const r = await s.monitor.tick();
      expect(r.skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'raced' }]);
      const after = await s.links.list();
      // Whatever the change left stands; the miss was not written over it.
      for (const link of after) expect(link.missCount).toBe(0);
      expect(after.length).toBeLessThanOrEqual(before.length);
    });
  }
});

describe('U2: the last miss', () => {
  const missing = (): Observation => ({ status: 'missing', detail: 'gone' });

  it('records upstream_missing, removes the link and reports it removed', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    s.fake.state.next = missing;
    for (let i = 0; i < 2; i++) expect((await s.monitor.tick()).removed).toEqual([]);
    const r = await s.monitor.tick();
    expect(r.recorded.map((e) => e.kind)).toEqual(['upstream_missing']);
    expect(r.removed).toEqual([{ sessionKey: TARGET, agentId: A }]);
    expect(await s.monitor.status()).toEqual([]);
  });

  it('a record that fails removes nothing and is logged with the session and kind', async () => {
    const store = createMemoryStore({ now: () => 0 });
    const failing = new Proxy(store, { get: (t, p) => (p === 'record' ? () => Promise.reject(new Error('log down')) : Reflect.get(t, p)) }) as SessionStateStore;
    const s = setup({ store: failing });
    await s.monitor.continueSession(s.input());
    s.fake.state.next = missing;
    for (let i = 0; i < 2; i++) await s.monitor.tick();
    const r = await s.monitor.tick();
    expect([r.recorded, r.removed]).toEqual([[], []]);
    expect(s.logger.entries).toEqual([{ level: 'error', message: 'upstream monitor: record failed', details: { sessionKey: TARGET, kind: 'upstream_missing', error: 'log down' } }]);
    expect(await s.monitor.status()).toHaveLength(1);
  });

  it('a removal the link store refuses is not reported as removed', async () => {
    const base = createMemoryLinkStore();
    const links: UpstreamLinkStore = { list: () => base.list(), get: (k, a) => base.get(k, a), nextSerial: () => base.nextSerial(), compareAndSet: (k, a, e, n) => (n === null ? Promise.resolve(false) : base.compareAndSet(k, a, e, n)) };
    const s = setup({ links });
    await s.monitor.continueSession(s.input());
    s.fake.state.next = missing;
    for (let i = 0; i < 2; i++) await s.monitor.tick();
    const r = await s.monitor.tick();
    expect(r.recorded.map((e) => e.kind)).toEqual(['upstream_missing']);
    expect(r.removed).toEqual([]);
  });
});

describe('U5: demand without a watch-aware store', () => {
  it('a demanded session whose store cannot say who watches records the human turn', async () => {
    const store = createMemoryStore({ now: () => 0 });
    // The same store without its isWatched: the monitor must not take that as "nobody watches".
    const plain = new Proxy(store, { get: (t, p) => (p === 'isWatched' ? undefined : Reflect.get(t, p)) }) as SessionStateStore;
    await store.watch({ watcherSessionKey: 'agent:main:coordinator', targetSessionKey: TARGET, agentId: A });
    const s = setup({ store: plain, demand: async () => true });
    await s.monitor.continueSession(s.input());
    s.fake.state.next = () => ({ status: 'found', turns: [{ text: 'a person typed this', occurredAt: 5 }], nextMarker: { pos: 1 }, position: 'p1' });
    const r = await s.monitor.tick();
    expect([r.recorded.map((e) => e.kind), r.passedOver]).toEqual([['human_direct_message'], 0]);
    // Recorded and kept: the link goes on (only the last miss removes one).
    expect(r.removed).toEqual([]);
    expect(await s.monitor.status()).toHaveLength(1);
  });
});

describe('U5: the watch state unavailable', () => {
  it('is inconclusive for the link and logged with the session, the agent and why', async () => {
    const store = createMemoryStore({ now: () => 0 });
    const failing = new Proxy(store, { get: (t, p) => (p === 'isWatched' ? () => Promise.reject(new Error('cursor table locked')) : Reflect.get(t, p)) }) as SessionStateStore;
    const s = setup({ store: failing });
    await s.monitor.continueSession(s.input());
    s.fake.state.next = () => ({ status: 'found', turns: [{ text: 'typed', occurredAt: 5 }], nextMarker: { pos: 1 }, position: 'p1' });
    const r = await s.monitor.tick();
    expect(r.recorded).toEqual([]);
    expect(s.logger.entries).toEqual([{ level: 'warn', message: 'upstream monitor: watch state unavailable', details: { sessionKey: TARGET, agentId: A, error: 'cursor table locked' } }]);
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'inconclusive', detail: 'watch state unavailable: cursor table locked' });
  });
});

describe('U8: a check leaves nothing behind on the monitor', () => {
  it('many checks add no lasting listener to the monitor\'s stop signal', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const s = setup();
      await s.monitor.continueSession(s.input());
      for (let i = 0; i < 30; i++) await s.monitor.tick();
      await new Promise((r) => setTimeout(r, 20));
      expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('U9, U10: Continue and unlink', () => {
  it('a machine-driven thread says which driver, in its detail', async () => {
    const s = setup();
    s.fake.s.machineDriven = async () => 'codex exec';
    expect(await s.monitor.continueSession(s.input())).toEqual({ linked: false, reason: 'machine-thread', detail: 'codex exec: no person types into it' });
  });

  it('an owner conflict is only another agent on the same key; a second session is linked on its own', async () => {
    const s = setup();
    // A key no agent is named in, so two agents may ask for it.
    const SHARED = 'adopted-thread-9';
    await s.monitor.continueSession(s.input({ sessionKey: SHARED }));
    const second = await s.monitor.continueSession(s.input({ sessionKey: OTHER, threadId: 'thread-2' }));
    expect(second).toMatchObject({ link: { state: 'new' } });
    // Another agent's link to another key is no conflict either.
    const other = createUpstreamMonitor({ store: s.store, links: s.links, now: s.clock.now, logger: memoryLogger(), sources: [s.fake.s] });
    expect(await other.continueSession(continueInput('/unused', { upstreamKind: 'fake', sessionKey: 'agent:ops:adopted:x', agentId: 'ops', threadId: 'thread-ops' }))).toMatchObject({ linked: true });
    expect(second).toMatchObject({ linked: true, created: true, link: { sessionKey: OTHER, threadId: 'thread-2', state: 'new' } });
    expect(await s.monitor.continueSession(continueInput('/unused', { upstreamKind: 'fake', sessionKey: SHARED, agentId: 'ops' }))).toEqual({
      linked: false,
      reason: 'owner-conflict',
      detail: 'the session key is already linked by another agent (one owner agent per adopted key)',
    });
  });

  it('a link store that always loses the race: Continue and unlink give up after three tries each', async () => {
    const base = createMemoryLinkStore();
    const calls = { list: 0, get: 0 };
    const links: UpstreamLinkStore = {
      list: () => (calls.list++, base.list()),
      get: (k, a) => (calls.get++, base.get(k, a)),
      nextSerial: () => base.nextSerial(),
      compareAndSet: () => Promise.resolve(false),
    };
    const s = setup({ links });
    expect(await s.monitor.continueSession(s.input())).toEqual({ linked: false, reason: 'raced', detail: 'the link kept changing during Continue' });
    expect(calls.list).toBe(3);
    // A link that exists, which this monitor can never change.
    const direct = createUpstreamMonitor({ store: s.store, links: base, now: s.clock.now, logger: memoryLogger(), sources: [s.fake.s] });
    expect((await direct.continueSession(s.input())).linked).toBe(true);
    expect(await s.monitor.unlink(TARGET, A)).toBe(false);
    expect(calls.get).toBe(3);
    calls.get = 0;
    s.fake.s.machineDriven = async () => 'a parent agent';
    expect(await s.monitor.continueSession(s.input())).toMatchObject({ linked: false, reason: 'machine-thread' });
    expect(calls.get).toBe(3);
    expect(await base.list()).toHaveLength(1);
  });

  it('a link store that fails during Continue: storage-error, logged with the session', async () => {
    const base = createMemoryLinkStore();
    const links: UpstreamLinkStore = { list: () => Promise.reject(new Error('disk gone')), get: (k, a) => base.get(k, a), nextSerial: () => base.nextSerial(), compareAndSet: (k, a, e, n) => base.compareAndSet(k, a, e, n) };
    const s = setup({ links });
    expect(await s.monitor.continueSession(s.input())).toEqual({ linked: false, reason: 'storage-error', detail: 'disk gone' });
    expect(s.logger.entries).toEqual([{ level: 'error', message: 'upstream monitor: continue failed', details: { sessionKey: TARGET, error: 'disk gone' } }]);
  });
});

describe('U9: order, and keys linked by two agents', () => {
  it('links are checked and shown in key order, whatever order the store lists them in', async () => {
    const base = createMemoryLinkStore();
    const links: UpstreamLinkStore = { list: async () => [...(await base.list())].reverse(), get: (k, a) => base.get(k, a), nextSerial: () => base.nextSerial(), compareAndSet: (k, a, e, n) => base.compareAndSet(k, a, e, n) };
    const s = setup({ links });
    await s.monitor.continueSession(s.input({ sessionKey: 'agent:main:adopted:a', threadId: 't-a' }));
    await s.monitor.continueSession(s.input({ sessionKey: 'agent:main:adopted:b', threadId: 't-b' }));
    await s.monitor.continueSession(s.input({ sessionKey: 'agent:main:adopted:c', threadId: 't-c' }));
    expect((await s.monitor.status()).map((v) => v.threadId)).toEqual(['t-a', 't-b', 't-c']);
    await s.monitor.tick();
    expect(s.fake.state.checks).toEqual(['t-a', 't-b', 't-c']);
  });

  it('a key linked by two agents is shown as ambiguous, saying why, skipped, and warned about once per tick', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    const mine = (await s.links.get(TARGET, A))!;
    await s.links.compareAndSet(TARGET, 'ops', undefined, { ...mine, agentId: 'ops', serial: mine.serial + 100 });
    const views = await s.monitor.status();
    expect(views.map((v) => [v.agentId, v.state, v.detail])).toEqual([
      [A, 'ambiguous', 'session key is linked by more than one agent; not checked'],
      ['ops', 'ambiguous', 'session key is linked by more than one agent; not checked'],
    ]);
    const r = await s.monitor.tick();
    expect(r.skipped.map((x) => x.reason)).toEqual(['ambiguous', 'ambiguous']);
    expect(s.logger.entries).toEqual([{ level: 'warn', message: 'upstream monitor: session keys linked by several agents were skipped', details: { sessionKeys: [TARGET] } }]);
  });
});

describe('start and stop', () => {
  it('a second start() adds no timer; stop() before the first tick, or after it, leaves nothing running', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const s = setup({ firstDelayMs: 1_000, intervalMs: 5_000 });
    await s.monitor.continueSession(s.input());
    s.monitor.start();
    s.monitor.start();
    expect(vi.getTimerCount()).toBe(1);
    s.monitor.stop();
    expect(vi.getTimerCount()).toBe(0);
    s.monitor.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.fake.state.checks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.fake.state.checks).toHaveLength(2);
    s.monitor.start();
    s.monitor.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.fake.state.checks).toHaveLength(2);
  });
});

describe('the link stores refuse a compare-and-set against a link that is not there', () => {
  it('memory and SQLite: an expected token with no link is false, not a throw', async () => {
    for (const links of [createMemoryLinkStore(), createSqliteLinkStore(new Database(':memory:'))]) {
      expect(await links.compareAndSet(TARGET, A, { serial: 1, revision: 1 }, null)).toBe(false);
    }
  });
});
