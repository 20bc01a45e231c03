import { rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS, type RecordInput, type SessionStateStore } from '../../spec/index.js';
import { isValidationError, memoryLogger } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import type { JsonValue, Observation } from '../../src/core/upstream/index.js';
import { createClaudeJsonlSource, createMemoryLinkStore, createUpstreamMonitor, type UpstreamMonitorOptions, type UpstreamSource } from '../../src/upstream/index.js';
import { A, COORD, PARENT, T0, TARGET, appendLines, continueInput, fakeClock, line, tempDir, writeLines } from './helpers.js';

const dir = tempDir('ssk-monitor-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `m${++n}.jsonl`);

type Step = Observation | Error | ((marker: JsonValue) => Promise<Observation>);

/** A source whose checks answer from a script (default: found, nothing new). */
function scripted(kind = 'fake') {
  const script: Step[] = [];
  const markers: JsonValue[] = [];
  let pos = 0;
  const source: UpstreamSource = {
    kind,
    baseline: async () => ({ pos }),
    async check({ marker }) {
      markers.push(marker);
      const step = script.shift();
      if (step === undefined) return { status: 'found', turns: [], nextMarker: marker, position: `p${pos}` };
      if (step instanceof Error) throw step;
      if (typeof step === 'function') return step(marker);
      return step;
    },
  };
  const human = (...texts: string[]): Observation => ({ status: 'found', turns: texts.map((text) => ({ text, occurredAt: T0 - 500 })), nextMarker: { pos: ++pos }, position: `p${pos}` });
  return { source, script, markers, human };
}

function setup(over: Partial<UpstreamMonitorOptions> & { sources?: UpstreamSource[] } = {}) {
  const clock = fakeClock();
  const store = createMemoryStore({ now: clock.now });
  const links = createMemoryLinkStore();
  const logger = memoryLogger();
  const fake = scripted();
  const monitor = createUpstreamMonitor({ store, links, now: clock.now, logger, sources: [fake.source], ...over });
  const link = (extra = {}) => continueInput('/unused', { upstreamKind: 'fake', ...extra });
  const tick = async () => {
    clock.advance(60_000);
    return monitor.tick();
  };
  const events = () => store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events;
  return { clock, store, links, logger, fake, monitor, link, tick, events };
}

describe('upstream monitor: human activity (U5)', () => {
  it('U5 records watched activity once, through record, and advances the marker only after it', async () => {
    const s = setup();
    expect(await s.monitor.continueSession(s.link())).toMatchObject({ linked: true, created: true });
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    s.fake.script.push(s.fake.human('hi there'));
    const r = await s.tick();
    expect(r.recorded).toHaveLength(1);
    expect(s.events()).toMatchObject([{ kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude', occurredAt: T0 - 500 }]);
    expect(s.events()[0]!.payload).toBeUndefined();
    expect(s.store.pendingNotices(COORD)).toHaveLength(1);
    await s.tick();
    expect(s.fake.markers).toEqual([{ pos: 0 }, { pos: 1 }]); // the second check starts from the advanced marker
    expect(s.events()).toHaveLength(1);
    const [status] = await s.monitor.status();
    expect(status).toMatchObject({ state: 'ok', missCount: 0, marker: { pos: 1 }, lastCheckedAt: s.clock.now() });
  });

  it('U5 a coalesced burst keeps its count; twenty fast turns are one event and one pending notice', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    s.fake.script.push(s.fake.human(...Array.from({ length: 20 }, (_, i) => `turn ${i}`)));
    await s.tick();
    expect(s.events()).toMatchObject([{ payload: { turns: 20 } }]);
    expect(s.store.pendingNotices(COORD)).toHaveLength(1);
  });

  it('U4: echoes of our own last 10 messages are not human activity (noteOwnUserMessage or ownTexts)', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    s.monitor.noteOwnUserMessage(TARGET, A, 'please run the tests');
    s.fake.script.push(s.fake.human('  please   run\nthe tests '));
    const r = await s.tick();
    expect(r.echoes).toBe(1);
    expect(s.events()).toEqual([]);
    expect(s.fake.markers.length).toBe(1);
    await s.tick();
    expect(s.fake.markers[1]).toEqual({ pos: 1 }); // marker advanced without a record

    const t = setup({ ownTexts: () => ['exact decorated prompt'] });
    await t.monitor.continueSession(t.link());
    t.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    t.fake.script.push(t.fake.human(' exact   decorated prompt '), t.fake.human('an external prompt'));
    await t.tick();
    await t.tick();
    expect(t.events()).toHaveLength(1);
  });

  it('U5 a failed marker write after a successful record replays into a dedupe hit: one event, one notice', async () => {
    const s = setup();
    let failNextWrite = false;
    const links = s.links;
    const flaky = Object.assign(Object.create(Object.getPrototypeOf(links)), links, {
      compareAndSet: (...args: Parameters<typeof links.compareAndSet>) => {
        if (failNextWrite) {
          failNextWrite = false;
          throw new Error('disk full');
        }
        return links.compareAndSet(...args);
      },
    });
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const fake = scripted();
    const monitor = createUpstreamMonitor({ store, links: flaky, now: clock.now, logger: memoryLogger(), sources: [fake.source] });
    await monitor.continueSession(continueInput('/unused', { upstreamKind: 'fake' }));
    store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    const burst: Observation = { status: 'found', turns: [{ text: 'hello' }], nextMarker: { pos: 1 }, position: 'p1' };
    fake.script.push(burst, burst);
    failNextWrite = true;
    await monitor.tick();
    await monitor.tick();
    expect(fake.markers).toEqual([{ pos: 0 }, { pos: 0 }]);
    expect(store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events).toHaveLength(1);
    expect(store.drainNotices(COORD)).toHaveLength(1);
    expect(store.pendingNotices(COORD)).toHaveLength(0);
  });

  it('U5 R9 a record that throws is logged, the marker waits', async () => {
    const s = setup();
    const broken: SessionStateStore = { ...s.store, record: () => Promise.reject(new Error('db locked')) } as never;
    const logger = memoryLogger();
    const monitor = createUpstreamMonitor({ store: broken, links: s.links, now: s.clock.now, logger, sources: [s.fake.source] });
    await monitor.continueSession(s.link());
    s.fake.script.push(s.fake.human('x'));
    await monitor.tick();
    expect((await monitor.status())[0]).toMatchObject({ state: 'record-pending', marker: { pos: 0 } });
    expect(logger.entries.some((e) => e.message.includes('record failed'))).toBe(true);
  });

  it('U9 U8 R9 a throwing logger never makes a check, a tick or a Continue throw (swallowed and counted)', async () => {
    const s = setup();
    const broken: SessionStateStore = { ...s.store, record: () => Promise.reject(new Error('db locked')) } as never;
    const throwing = { warn: () => { throw new Error('logger down'); }, error: () => { throw new Error('logger down'); } };
    let failLinks = false;
    const links = { ...s.links, list: () => (failLinks ? Promise.reject(new Error('links down')) : s.links.list()), get: s.links.get.bind(s.links), compareAndSet: s.links.compareAndSet.bind(s.links), nextSerial: s.links.nextSerial.bind(s.links) };
    const monitor = createUpstreamMonitor({ store: broken, links, now: s.clock.now, logger: throwing, sources: [s.fake.source] });
    await monitor.continueSession(s.link());
    s.fake.script.push(s.fake.human('x'));
    await expect(monitor.tick()).resolves.toMatchObject({ checked: 1, recorded: [] }); // record failed, logger threw
    expect((await monitor.status())[0]).toMatchObject({ state: 'record-pending', marker: { pos: 0 } });
    failLinks = true;
    await expect(monitor.tick()).resolves.toMatchObject({ checked: 0 }); // listing failed, logger threw
    await expect(monitor.continueSession(s.link({ threadId: 'other' }))).resolves.toMatchObject({ linked: false, reason: 'storage-error' });
    expect(monitor.droppedLogs()).toBe(3);
  });

  it('R6: a skewed upstream time is clamped by the store; bookkeeping uses the monitor clock', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    s.fake.script.push({ status: 'found', turns: [{ text: 'old', occurredAt: 5 }], nextMarker: { pos: 1 }, position: 'p1' });
    await s.tick();
    expect(s.events()[0]!.occurredAt).toBe(s.clock.now() - LIMITS.occurredAtSkewMs);
    expect((await s.monitor.status())[0]!.lastCheckedAt).toBe(s.clock.now());
  });
});

describe('upstream monitor: missing sources (U2)', () => {
  it('U2 three consecutive misses: exactly one upstream_missing, the link is deleted, no fourth check', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    s.fake.script.push({ status: 'missing' }, { status: 'missing' }, { status: 'missing' }, { status: 'missing' });
    await s.tick();
    await s.tick();
    expect(s.events()).toEqual([]);
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'missing', missCount: 2, detail: 'source not found (2/3)' });
    const third = await s.tick();
    expect(third.removed).toEqual([{ sessionKey: TARGET, agentId: A }]);
    await s.tick();
    expect(s.fake.markers).toHaveLength(3);
    expect(s.events()).toMatchObject([{ kind: 'upstream_missing', actorType: 'system', summary: 'upstream missing via claude', payload: { channel: 'claude' } }]);
    expect(s.store.pendingNotices(COORD)).toHaveLength(1);
    expect(await s.monitor.status()).toEqual([]);
  });

  it('U2 inconclusive checks neither count nor reset; a found source resets the streak', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    const miss: Observation = { status: 'missing' };
    s.fake.script.push(miss, new Error('EIO'), { status: 'inconclusive', detail: 'ambiguous' }, miss, { status: 'found', turns: [], nextMarker: { pos: 0 }, position: 'p0' }, miss, miss);
    for (let i = 0; i < 7; i++) await s.tick();
    expect(s.events()).toEqual([]);
    expect((await s.monitor.status())[0]).toMatchObject({ missCount: 2 });
    s.fake.script.push(miss);
    await s.tick();
    expect(s.events().map((e) => e.kind)).toEqual(['upstream_missing']);
  });

  it('U3 a same-source Continue starts a fresh streak; after deletion, Continue creates a new link', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    s.fake.script.push({ status: 'missing' }, { status: 'missing' });
    await s.tick();
    await s.tick();
    const again = await s.monitor.continueSession(s.link());
    expect(again).toMatchObject({ linked: true, created: false, link: { missCount: 0, generation: 2 } });
    s.fake.script.push({ status: 'missing' }, { status: 'missing' });
    await s.tick();
    await s.tick();
    expect(s.events()).toEqual([]);
    s.fake.script.push({ status: 'missing' });
    await s.tick();
    expect(s.events()).toHaveLength(1);
    const fresh = await s.monitor.continueSession(s.link());
    expect(fresh).toMatchObject({ linked: true, created: true, link: { missCount: 0, generation: 1 } });
    expect(fresh.linked && fresh.link.serial).toBe(2);
    s.fake.script.push({ status: 'missing' }, { status: 'missing' }, { status: 'missing' });
    for (let i = 0; i < 3; i++) await s.tick();
    expect(s.events().map((e) => e.kind)).toEqual(['upstream_missing', 'upstream_missing']);
    expect(new Set(s.events().map((e) => e.dedupeKey)).size).toBe(2);
  });

  it('U2 a failed upstream_missing record holds the count and retries; still exactly one event', async () => {
    const s = setup();
    let fail = true;
    const store: SessionStateStore = { ...s.store, record: (i: RecordInput) => (fail ? undefined : s.store.record(i)) } as never;
    const monitor = createUpstreamMonitor({ store, links: s.links, now: s.clock.now, logger: s.logger, sources: [s.fake.source] });
    await monitor.continueSession(s.link());
    for (let i = 0; i < 4; i++) s.fake.script.push({ status: 'missing' });
    for (let i = 0; i < 3; i++) await monitor.tick();
    expect(s.fake.markers).toHaveLength(3);
    expect((await monitor.status())[0]).toMatchObject({ missCount: 2, state: 'missing' });
    fail = false;
    await monitor.tick();
    expect(s.events().map((e) => e.kind)).toEqual(['upstream_missing']);
    expect(await monitor.status()).toEqual([]);
  });

  it('U8 a Continue that changes the source mid-check discards the result (no record, no deletion)', async () => {
    const s = setup();
    await s.monitor.continueSession(s.link());
    s.fake.script.push({ status: 'missing' }, { status: 'missing' });
    await s.tick();
    await s.tick();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    s.fake.script.push(async () => {
      await gate;
      return { status: 'missing' };
    });
    const ticking = s.tick();
    await new Promise((r) => setTimeout(r, 5));
    const moved = await s.monitor.continueSession(s.link({ threadId: 'thread-2' }));
    expect(moved).toMatchObject({ linked: true, created: true });
    release();
    const report = await ticking;
    expect(report.skipped).toContainEqual({ sessionKey: TARGET, agentId: A, reason: 'raced' });
    expect(s.events()).toEqual([]);
    expect((await s.monitor.status())[0]).toMatchObject({ threadId: 'thread-2', missCount: 0 });
  });
});

describe('upstream monitor: scope, isolation and status (U1, U8, U9)', () => {
  it('U1 U3 only linked sessions are checked; Continue baselines at the current end, so earlier history is not activity', async () => {
    const p = freshPath();
    writeLines(p, [line.human('said before adoption')]);
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const monitor = createUpstreamMonitor({ store, now: clock.now, logger: memoryLogger(), sources: [createClaudeJsonlSource()] });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    expect((await monitor.tick()).checked).toBe(0); // adopted before the feature: no link, nothing checked
    await monitor.continueSession(continueInput(p));
    await monitor.tick();
    expect(store.stateVersion(TARGET, A)).toBe(0);
    appendLines(p, [line.human('said after adoption')]);
    await monitor.tick();
    expect(store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events.map((e) => e.kind)).toEqual(['human_direct_message']);
  });

  it('U1 one owner agent per key: a second agent cannot link the key; keys linked twice are skipped as ambiguous', async () => {
    const s = setup();
    expect(await s.monitor.continueSession(s.link({ sessionKey: 'global', agentId: 'alpha' }))).toMatchObject({ linked: true });
    expect(await s.monitor.continueSession(s.link({ sessionKey: 'global', agentId: 'beta' }))).toMatchObject({ linked: false, reason: 'owner-conflict' });
    // Two agents' rows written behind the monitor's back (e.g. by another process): neither is checked.
    const other = (await s.links.get('global', 'alpha'))!;
    s.links.compareAndSet('global', 'beta', undefined, { ...other, agentId: 'beta' });
    const r = await s.tick();
    expect(r.skipped.filter((x) => x.reason === 'ambiguous')).toHaveLength(2);
    expect(s.fake.markers).toHaveLength(0);
    expect((await s.monitor.status()).map((v) => v.state)).toEqual(['ambiguous', 'ambiguous']);
  });

  it('U3 R9 Continue: bad input throws a ValidationError; an unknown kind or a failed baseline links nothing', async () => {
    const s = setup();
    await expect(s.monitor.continueSession(s.link({ catalogId: '' }))).rejects.toSatisfy(isValidationError);
    expect(await s.monitor.continueSession(s.link({ upstreamKind: 'codex' }))).toMatchObject({ linked: false, reason: 'no-source' });
    const m = createUpstreamMonitor({ store: s.store, now: s.clock.now, logger: s.logger, sources: [createClaudeJsonlSource()] });
    expect(await m.continueSession(continueInput(join(dir, 'absent.jsonl')))).toMatchObject({ linked: false, reason: 'baseline-failed' });
    expect(await m.status()).toEqual([]);
  });

  it('U8 a failing source is isolated to its link and is inconclusive', async () => {
    const s = setup();
    const good = scripted('good');
    const monitor = createUpstreamMonitor({ store: s.store, links: s.links, now: s.clock.now, logger: s.logger, sources: [s.fake.source, good.source] });
    await monitor.continueSession(s.link());
    await monitor.continueSession(s.link({ sessionKey: PARENT, upstreamKind: 'good' }));
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: PARENT, agentId: A });
    s.fake.script.push(new Error('provider exploded'));
    good.script.push(good.human('fine'));
    await monitor.tick();
    expect(s.store.stateVersion(PARENT, A)).toBeGreaterThan(0);
    const byKey = Object.fromEntries((await monitor.status()).map((v) => [v.sessionKey, v]));
    expect(byKey[TARGET]).toMatchObject({ state: 'inconclusive', detail: 'check failed: provider exploded', missCount: 0 });
  });

  it('U8 a hung check times out as inconclusive', async () => {
    const s = setup({ checkTimeoutMs: 20 });
    await s.monitor.continueSession(s.link());
    s.fake.script.push(() => new Promise<Observation>(() => undefined));
    await s.tick();
    expect((await s.monitor.status())[0]).toMatchObject({ state: 'inconclusive', detail: 'check failed: check timed out after 20 ms' });
  });

  it('U8 busy sessions and own texts changing during the check defer without writes', async () => {
    let busy = true;
    const own: string[] = [];
    const s = setup({ isBusy: () => busy, ownTexts: () => own });
    await s.monitor.continueSession(s.link());
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    const before = (await s.monitor.status())[0]!;
    expect((await s.tick()).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'busy' }]);
    expect(s.fake.markers).toHaveLength(0);
    busy = false;
    s.fake.script.push(async () => {
      own.push('sent meanwhile');
      return s.fake.human('sent meanwhile');
    });
    expect((await s.tick()).skipped).toEqual([{ sessionKey: TARGET, agentId: A, reason: 'own-texts-changed' }]);
    expect((await s.monitor.status())[0]).toEqual(before);
    expect(s.events()).toEqual([]);
  });

  it('U9: a long line being read is visible in status() (state ok, with the progress)', async () => {
    const p = freshPath();
    writeFileSync(p, '');
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const monitor = createUpstreamMonitor({ store, now: clock.now, logger: memoryLogger(), sources: [createClaudeJsonlSource({ scanMaxBytes: 128 })] });
    await monitor.continueSession(continueInput(p));
    store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    appendLines(p, [line.human('q'.repeat(300))]);
    await monitor.tick();
    expect((await monitor.status())[0]).toMatchObject({ state: 'ok', detail: 'reading a line longer than 128 bytes at offset 0: 128 bytes so far', marker: { offset: 0, long: { scanned: 128 } } });
    unlinkSync(p);
    await monitor.tick();
    expect((await monitor.status())[0]).toMatchObject({ state: 'missing', missCount: 1 });
  });

  it('U8 start() ticks at the fixed interval; stop() ends it; tick() joins a running tick', async () => {
    const s = setup({ intervalMs: 15, firstDelayMs: 0 });
    await s.monitor.continueSession(s.link());
    s.monitor.start();
    const deadline = Date.now() + 5000;
    while (s.fake.markers.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    s.monitor.stop();
    await s.monitor.tick(); // joins a tick that was running; a stopped monitor checks nothing
    const count = s.fake.markers.length;
    expect(count).toBeGreaterThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 60));
    expect(s.fake.markers.length).toBe(count);
    const [a, b] = [s.monitor.tick(), s.monitor.tick()];
    expect(a).toBe(b);
    await a;
  });
});
