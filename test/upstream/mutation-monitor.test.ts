/**
 * The upstream monitor's driver decisions by their effects (U1, U2, U4, U8, U9): a kind with no
 * source, a busy session, a stop in the middle of a check, own texts that change during it,
 * unlinking, a link store that fails, and what the status view carries.
 */
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import type { JsonValue, Observation } from '../../src/core/upstream/index.js';
import { createMemoryLinkStore, createUpstreamMonitor, type UpstreamLinkStore as LinkStore, type OwnMessage, type UpstreamMonitorOptions, type UpstreamSource } from '../../src/upstream/index.js';
import { A, T0, TARGET, continueInput, fakeClock } from './helpers.js';

/** A source whose checks answer found-nothing-new, or wait for `gate` when one is set. */
function source(kind = 'fake') {
  const state = { checks: 0, gate: undefined as Promise<void> | undefined, onCheck: undefined as (() => void) | undefined };
  const s: UpstreamSource = {
    kind,
    baseline: async () => ({ pos: 0 }),
    async check({ marker }, signal): Promise<Observation> {
      state.checks++;
      state.onCheck?.();
      if (state.gate) await state.gate;
      signal?.throwIfAborted();
      return { status: 'found', turns: [], nextMarker: marker as JsonValue, position: 'p' };
    },
  };
  return { s, state };
}

function setup(over: Partial<UpstreamMonitorOptions> = {}) {
  const clock = fakeClock();
  const store = createMemoryStore({ now: clock.now });
  const links = (over.links ?? createMemoryLinkStore()) as LinkStore;
  const logger = memoryLogger();
  const fake = source();
  const monitor = createUpstreamMonitor({ store, links, now: clock.now, logger, sources: [fake.s], ...over });
  return { clock, store, links, logger, fake, monitor, input: (extra = {}) => continueInput('/unused', { upstreamKind: 'fake', ...extra }) };
}

describe('U1, U9: sources and links', () => {
  it('two sources of one kind are refused; a Continue for a kind without a source says so and links nothing', async () => {
    expect(() => createUpstreamMonitor({ store: createMemoryStore({ now: () => T0 }), now: () => T0, sources: [source().s, source().s] })).toThrow('two sources for upstream kind fake');
    const s = setup();
    expect(await s.monitor.continueSession(s.input({ upstreamKind: 'nope' }))).toEqual({ linked: false, reason: 'no-source', detail: 'no source adapter for upstream kind nope' });
    expect(await s.monitor.status()).toEqual([]);
  });

  it('a link whose kind lost its source is checked as inconclusive, saying why, and never counts as a miss', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    const without = createUpstreamMonitor({ store: s.store, links: s.links, now: s.clock.now, logger: s.logger, sources: [] });
    for (let i = 0; i < 4; i++) {
      s.clock.advance(60_000);
      const r = await without.tick();
      expect(r.removed).toEqual([]);
    }
    const [v] = await without.status();
    expect(v).toMatchObject({ state: 'inconclusive', missCount: 0, detail: 'no source adapter for upstream kind fake', lastCheckedAt: s.clock.now() });
  });

  it('unlink removes the link once; a session never linked is no link', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    expect(await s.monitor.unlink(TARGET, A)).toBe(true);
    expect(await s.monitor.status()).toEqual([]);
    expect(await s.monitor.unlink(TARGET, A)).toBe(false);
    expect(await s.monitor.unlink('agent:main:never', A)).toBe(false);
  });

  it('the status view of a link never checked has no detail and no lastCheckedAt', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    const [v] = await s.monitor.status();
    expect(v).toMatchObject({ sessionKey: TARGET, agentId: A, upstreamKind: 'fake', state: 'new', missCount: 0 });
    expect('detail' in v!).toBe(false);
    expect('lastCheckedAt' in v!).toBe(false);
  });
});

describe('U8: a check left alone', () => {
  it('a busy session is skipped before its source is read, and again if it became busy during the read', async () => {
    let busy = true;
    const s = setup({ isBusy: async () => busy });
    await s.monitor.continueSession(s.input());
    s.clock.advance(60_000);
    expect((await s.monitor.tick()).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'busy' }]);
    expect(s.fake.state.checks).toBe(0);
    busy = false;
    s.fake.state.onCheck = () => (busy = true);
    const r = await s.monitor.tick();
    expect(s.fake.state.checks).toBe(1);
    expect(r).toMatchObject({ checked: 1, skipped: [{ sessionKey: TARGET, agentId: A, reason: 'busy' }] });
  });

  it('own texts that change during the read: skipped, nothing written', async () => {
    const own: OwnMessage[] = ['hello'];
    const s = setup({ ownTexts: () => [...own] });
    await s.monitor.continueSession(s.input());
    const before = (await s.monitor.status())[0]!;
    s.fake.state.onCheck = () => void own.push('sent meanwhile');
    s.clock.advance(60_000);
    expect((await s.monitor.tick()).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'own-texts-changed' }]);
    expect((await s.monitor.status())[0]).toEqual(before);
    // Same length, another text: changed too.
    s.fake.state.onCheck = () => void (own[own.length - 1] = 'another');
    expect((await s.monitor.tick()).skipped[0]!.reason).toBe('own-texts-changed');
    s.fake.state.onCheck = undefined;
    expect((await s.monitor.tick()).skipped).toEqual([]);
  });

  it('stop() during a check: that link is skipped as stopped and nothing is written; the next tick checks nothing until start()', async () => {
    const s = setup();
    await s.monitor.continueSession(s.input());
    let open!: () => void;
    let entered!: () => void;
    const inCheck = new Promise<void>((r) => (entered = r));
    s.fake.state.gate = new Promise<void>((r) => (open = r));
    s.fake.state.onCheck = () => entered();
    s.clock.advance(60_000);
    const running = s.monitor.tick();
    await inCheck; // the source is being read now
    s.fake.state.onCheck = undefined;
    s.monitor.stop();
    open();
    expect((await running).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'stopped' }]);
    s.fake.state.gate = undefined;
    const checks = s.fake.state.checks;
    expect(await s.monitor.tick()).toMatchObject({ checked: 0 });
    expect(s.fake.state.checks).toBe(checks);
    s.monitor.start();
    s.monitor.stop();
    s.monitor.start();
    expect(await s.monitor.tick()).toMatchObject({ checked: 1 });
    s.monitor.stop();
  });
});

describe('U8: failures stay with their link', () => {
  it('a link store that cannot list: an empty report and one error logged', async () => {
    const links = createMemoryLinkStore();
    const s = setup({ links: { ...links, list: () => Promise.reject(new Error('disk gone')) } as LinkStore });
    const r = await s.monitor.tick();
    expect(r).toEqual({ checked: 0, recorded: [], removed: [], skipped: [], echoes: 0, passedOver: 0 });
    expect(s.logger.entries).toMatchObject([{ level: 'error', message: 'upstream monitor: cannot list links', details: { error: 'disk gone' } }]);
  });

  it('one link whose check throws is logged by name; the next link is still checked', async () => {
    const base = createMemoryLinkStore();
    const failing: LinkStore = {
      list: () => base.list(),
      get: (k, a) => (k === TARGET ? Promise.reject(new Error('row unreadable')) : base.get(k, a)),
      compareAndSet: (k, a, e, n) => base.compareAndSet(k, a, e, n),
      nextSerial: () => base.nextSerial(),
    };
    const s = setup({ links: failing });
    const direct = createUpstreamMonitor({ store: s.store, links: base, now: s.clock.now, logger: memoryLogger(), sources: [s.fake.s] });
    await direct.continueSession(s.input());
    await direct.continueSession(s.input({ sessionKey: 'agent:main:adopted:claude-2', threadId: 'thread-2' }));
    s.clock.advance(60_000);
    const r = await s.monitor.tick();
    expect(r.checked).toBe(2);
    expect(s.logger.entries.filter((e) => e.level === 'error')).toMatchObject([{ message: 'upstream monitor: link check failed', details: { sessionKey: TARGET, agentId: A, error: 'row unreadable' } }]);
  });
});
