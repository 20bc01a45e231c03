/**
 * U5 Decision (PROTOCOL.md section 9): activity that happened while nobody watched is not news to a
 * later watcher (a watch starts at the target's current version, R22). The monitor still checks
 * unwatched links, moves the marker past what it read and records nothing; U2 keeps working.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordInput, SessionStateStore } from '../../spec/index.js';
import { noticeText } from '../../src/core/index.js';
import type { JsonValue, Observation } from '../../src/core/upstream/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createClaudeJsonlSource, createUpstreamMonitor, type UpstreamMonitorOptions, type UpstreamSource } from '../../src/upstream/index.js';
import { A, COORD, PARENT, TARGET, appendLines, continueInput, fakeClock, line, tempDir } from './helpers.js';

const dir = tempDir('ssk-watch-state-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The store seen through a wrapper: `over` replaces members; `undefined` hides one (e.g. isWatched). */
function wrap(inner: MemoryStore, over: Record<string, unknown>): SessionStateStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in over) return over[prop];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, prop) => (typeof prop === 'string' && prop in over ? over[prop] !== undefined : Reflect.has(target, prop)),
  }) as unknown as SessionStateStore;
}

/** A real transcript read by the real JSONL adapter; `store` wraps the memory store when asked. */
function jsonlSetup(opts: { over?: Record<string, unknown>; monitor?: Partial<UpstreamMonitorOptions> } = {}) {
  const file = join(dir, `t${++n}.jsonl`);
  writeFileSync(file, `${line.assistant('before adoption')}\n`);
  const clock = fakeClock();
  const inner = createMemoryStore({ now: clock.now });
  const store = opts.over ? wrap(inner, opts.over) : inner;
  const logger = memoryLogger();
  const monitor = createUpstreamMonitor({ store, now: clock.now, logger, sources: [createClaudeJsonlSource()], ...opts.monitor });
  const tick = async () => {
    clock.advance(60_000);
    return monitor.tick();
  };
  const events = () => inner.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events;
  const watch = (watcher = COORD) => inner.watch({ watcherSessionKey: watcher, targetSessionKey: TARGET, agentId: A });
  const offset = async () => ((await monitor.status())[0]!.marker as { offset: number }).offset;
  return { file, clock, inner, store, logger, monitor, tick, events, watch, offset };
}

/** A source answering from a script of observations (or functions), default: found, nothing new. */
function scripted() {
  const script: (Observation | (() => Promise<Observation>))[] = [];
  let checks = 0;
  let pos = 0;
  const source: UpstreamSource = {
    kind: 'fake',
    baseline: async () => ({ pos }),
    async check({ marker }) {
      checks++;
      const step = script.shift();
      if (step === undefined) return { status: 'found', turns: [], nextMarker: marker, position: `p${pos}` };
      return typeof step === 'function' ? step() : step;
    },
  };
  const human = (text: string): Observation => ({ status: 'found', turns: [{ text }], nextMarker: { pos: ++pos } as JsonValue, position: `p${pos}` });
  return { source, script, human, checks: () => checks };
}

function fakeSetup(monitor: Partial<UpstreamMonitorOptions> = {}, over?: Record<string, unknown>) {
  const clock = fakeClock();
  const inner = createMemoryStore({ now: clock.now });
  const store = over ? wrap(inner, over) : inner;
  const fake = scripted();
  const logger = memoryLogger();
  const m = createUpstreamMonitor({ store, now: clock.now, logger, sources: [fake.source], ...monitor });
  const tick = async () => {
    clock.advance(60_000);
    return m.tick();
  };
  const events = () => inner.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events;
  const watch = (watcher = COORD) => inner.watch({ watcherSessionKey: watcher, targetSessionKey: TARGET, agentId: A });
  return { inner, fake, logger, monitor: m, tick, events, watch, link: () => continueInput('/unused', { upstreamKind: 'fake' }) };
}

describe('U5 Decision: activity while nobody watched is not news to a later watcher', () => {
  it("R22 the reviewer's repro: unwatched activity, tick, watch, tick: no notice, no event; status says unwatched", async () => {
    const s = jsonlSetup();
    expect(await s.monitor.continueSession(continueInput(s.file))).toMatchObject({ linked: true });
    const baseline = await s.offset();
    appendLines(s.file, [line.human('typed while nobody watched')]);
    const first = await s.tick();
    expect(first).toMatchObject({ checked: 1, recorded: [], passedOver: 1 });
    expect(await s.offset()).toBeGreaterThan(baseline); // re-baselined past the unwatched turn
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'unwatched', missCount: 0, detail: 'nobody watches: 1 human turn(s) passed over, not recorded' });

    expect(s.watch()).toEqual({ watched: true });
    const second = await s.tick();
    expect(second).toMatchObject({ checked: 1, recorded: [], passedOver: 0 });
    expect(s.events()).toEqual([]);
    expect(s.inner.pendingNotices(COORD)).toEqual([]);
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'ok' });
  });

  it('activity after the watch notifies exactly once, and only that activity is in the event', async () => {
    const s = jsonlSetup();
    await s.monitor.continueSession(continueInput(s.file));
    appendLines(s.file, [line.human('old one', '2026-01-01T00:00:10.000Z'), line.human('old two', '2026-01-01T00:00:11.000Z')]);
    await s.tick();
    s.watch();
    appendLines(s.file, [line.human('after the watch', '2026-01-01T00:00:50.000Z')]);
    const r = await s.tick();
    expect(r.recorded).toHaveLength(1);
    await s.tick();
    await s.tick();
    const events = s.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'human_direct_message', occurredAt: Date.parse('2026-01-01T00:00:50.000Z') });
    expect(events[0]!.payload ?? {}).not.toHaveProperty('turns'); // one turn: the two old ones are not in it
    expect(s.inner.pendingNotices(COORD)).toEqual([expect.objectContaining({ lastSeenSequence: 0, text: noticeText(TARGET, 0) })]);
  });

  it('v1 limit: the watch state is judged when the monitor reads, so a turn written just before a watch and read after it is reported', async () => {
    const s = jsonlSetup();
    await s.monitor.continueSession(continueInput(s.file));
    appendLines(s.file, [line.human('written before the watch, not yet read')]);
    s.watch();
    await s.tick();
    expect(s.events()).toHaveLength(1);
    expect(s.inner.pendingNotices(COORD)).toHaveLength(1);
  });

  it('judged after the read: a watcher arriving during the read gets the activity; one leaving during it does not', async () => {
    const s = fakeSetup();
    await s.monitor.continueSession(s.link());
    const arriving = s.fake.human('read while the watch began');
    s.fake.script.push(async () => {
      s.watch();
      return arriving;
    });
    await s.tick();
    expect(s.events()).toHaveLength(1);

    const t = fakeSetup();
    await t.monitor.continueSession(t.link());
    t.watch(PARENT);
    const leaving = t.fake.human('read while the watch ended');
    t.fake.script.push(async () => {
      t.inner.resetSession(PARENT); // R50: the watcher's cursors end
      return leaving;
    });
    const r = await t.tick();
    expect(r.passedOver).toBe(1);
    expect(t.events()).toEqual([]);
    expect((await t.monitor.status())[0]).toMatchObject({ state: 'unwatched', marker: { pos: 1 } });
  });
});

describe('U5: a storage failure while watched keeps the marker, so nothing is lost', () => {
  it('record returns undefined while watched: record-pending, marker waits; recorded exactly once when the log recovers', async () => {
    let down = true;
    const holder: { inner?: MemoryStore } = {};
    const s = jsonlSetup({ over: { record: (input: RecordInput) => (down ? undefined : holder.inner!.record(input)) } });
    holder.inner = s.inner;
    await s.monitor.continueSession(continueInput(s.file));
    const baseline = await s.offset();
    s.watch();
    appendLines(s.file, [line.human('typed while the log was down')]);
    const r = await s.tick();
    expect(r).toMatchObject({ recorded: [], passedOver: 0 });
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'record-pending' });
    expect(await s.offset()).toBe(baseline);
    await s.tick();
    expect(await s.offset()).toBe(baseline);
    down = false;
    await s.tick();
    await s.tick();
    expect(s.events()).toHaveLength(1);
    expect(s.inner.pendingNotices(COORD)).toHaveLength(1);
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'ok' });
    expect(await s.offset()).toBeGreaterThan(baseline);
  });

  it('a pending record whose watcher left meanwhile is re-baselined by the next check, not replayed to a later watcher', async () => {
    let down = true;
    const holder: { inner?: MemoryStore } = {};
    const s = jsonlSetup({ over: { record: (input: RecordInput) => (down ? undefined : holder.inner!.record(input)) } });
    holder.inner = s.inner;
    await s.monitor.continueSession(continueInput(s.file));
    s.watch(PARENT);
    appendLines(s.file, [line.human('lost with the watcher')]);
    await s.tick();
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'record-pending' });
    s.inner.resetSession(PARENT);
    down = false;
    expect(await s.tick()).toMatchObject({ passedOver: 1 });
    s.watch();
    await s.tick();
    expect(s.events()).toEqual([]);
    expect(s.inner.pendingNotices(COORD)).toEqual([]);
  });
});

describe('U5: how the monitor knows a link is unwatched', () => {
  it('demand false wins even when the store has a watcher', async () => {
    const s = fakeSetup({ demand: () => false });
    await s.monitor.continueSession(s.link());
    s.watch();
    s.fake.script.push(s.fake.human('runtime says nobody needs this'));
    expect(await s.tick()).toMatchObject({ checked: 1, passedOver: 1, recorded: [] });
    expect(s.events()).toEqual([]);
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'unwatched', marker: { pos: 1 } });
  });

  it('demand true still asks the store: with no cursor the record could not be written (R9b), so it is passed over', async () => {
    const s = fakeSetup({ demand: () => true });
    await s.monitor.continueSession(s.link());
    s.fake.script.push(s.fake.human('demand says yes, store says nobody'));
    expect(await s.tick()).toMatchObject({ passedOver: 1 });
    s.watch();
    await s.tick();
    expect(s.events()).toEqual([]);
    s.fake.script.push(s.fake.human('now both agree'));
    await s.tick();
    expect(s.events()).toHaveLength(1);
  });

  it('demand false with a store that has no isWatched: passed over', async () => {
    const s = fakeSetup({ demand: () => false }, { isWatched: undefined });
    await s.monitor.continueSession(s.link());
    s.watch();
    s.fake.script.push(s.fake.human('x'));
    expect(await s.tick()).toMatchObject({ passedOver: 1 });
    expect(s.events()).toEqual([]);
  });

  it('v1 limit: neither demand nor store isWatched: every check records and R9b decides, so the marker waits while unwatched', async () => {
    const s = jsonlSetup({ over: { isWatched: undefined } });
    expect('isWatched' in s.store).toBe(false);
    await s.monitor.continueSession(continueInput(s.file));
    const baseline = await s.offset();
    appendLines(s.file, [line.human('nobody is watching')]);
    await s.tick();
    expect(s.events()).toEqual([]);
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'record-pending' });
    expect(await s.offset()).toBe(baseline);
    s.watch();
    await s.tick();
    expect(s.events()).toHaveLength(1); // the documented limit: old activity reaches the new watcher
  });

  it('an unavailable watch state (isWatched throws, answers a non-boolean, or demand throws) makes a found check inconclusive; misses still count (U2)', async () => {
    const cases: [Partial<UpstreamMonitorOptions>, Record<string, unknown> | undefined, string][] = [
      [{}, { isWatched: () => { throw new Error('db locked'); } }, 'watch state unavailable: db locked'],
      [{}, { isWatched: () => 'yes' }, 'watch state unavailable: store.isWatched returned string, not a boolean'],
      [{ demand: () => Promise.reject(new Error('runtime down')) }, undefined, 'watch state unavailable: runtime down'],
    ];
    for (const [monitor, over, detail] of cases) {
      const s = fakeSetup(monitor, over);
      await s.monitor.continueSession(s.link());
      s.watch();
      s.fake.script.push({ status: 'missing' }, s.fake.human('unknown audience'));
      await s.tick();
      await s.tick();
      expect(s.events(), detail).toEqual([]);
      // Neither recorded nor passed over; the found source did not reset the streak either.
      expect((await s.monitor.status())[0], detail).toMatchObject({ state: 'inconclusive', detail, missCount: 1, marker: { pos: 0 } });
      expect(s.logger.entries.some((e) => e.level === 'warn' && e.message.includes('watch state unavailable')), detail).toBe(true);
      s.fake.script.push({ status: 'missing' }, { status: 'missing' });
      await s.tick();
      await s.tick();
      expect(s.events().map((e) => e.kind), detail).toEqual(['upstream_missing']);
    }
  });
});

describe('U2 on unwatched links', () => {
  for (const mode of ['store isWatched', 'demand'] as const) {
    it(`(${mode}) three misses record one upstream_missing and delete the link; a later watcher is not notified (R22) but can reconcile it`, async () => {
      const s = fakeSetup(mode === 'demand' ? { demand: () => false } : {});
      await s.monitor.continueSession(s.link());
      s.fake.script.push({ status: 'missing' }, { status: 'missing' }, { status: 'missing' }, { status: 'missing' });
      await s.tick();
      await s.tick();
      expect((await s.monitor.status())[0]).toMatchObject({ state: 'missing', missCount: 2 });
      const third = await s.tick();
      expect(third.removed).toEqual([{ sessionKey: TARGET, agentId: A }]);
      await s.tick();
      expect(s.fake.checks()).toBe(3);
      expect(s.events()).toMatchObject([{ kind: 'upstream_missing', actorType: 'system', payload: { channel: 'claude' } }]);
      expect(await s.monitor.status()).toEqual([]);
      s.watch();
      expect(s.inner.pendingNotices(COORD)).toEqual([]);
      expect(s.inner.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events.map((e) => e.kind)).toEqual(['upstream_missing']);
    });
  }

  it('the miss streak runs on across watched and unwatched checks', async () => {
    let watching = true;
    const s = fakeSetup({ demand: () => watching });
    await s.monitor.continueSession(s.link());
    s.watch();
    s.fake.script.push({ status: 'missing' }, { status: 'missing' }, { status: 'missing' });
    await s.tick();
    await s.tick();
    watching = false;
    await s.tick();
    expect(s.events().map((e) => e.kind)).toEqual(['upstream_missing']);
    expect(s.inner.pendingNotices(COORD)).toHaveLength(1); // COORD still has its cursor: the store notifies it (R13)
    expect(await s.monitor.status()).toEqual([]);
  });
});
