/**
 * R9e: MemoryStore.recordMany. Result i is what record(inputs[i]) returns after inputs 0..i-1 were
 * recorded one by one (checked against a twin store fed the same inputs sequentially); the whole
 * batch is validated first, so one bad input rejects it with nothing written; one clock reading,
 * one change signal, at most one prune, after the batch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, type RecordInput, type StateEvent } from '../../spec/index.js';
import { ValidationError } from '../../src/core/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { IDENTITIES, WATCHERS, ambientWatchDraft, recordDraft, spawnDraft, watchDraft } from '../../conformance/arbitraries.js';
import { A, CHILD, COORD, HOUR, PARENT, PEER, T0, human, spawn } from '../contract/harness.js';

function errorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

/** Everything a caller can observe of a store's state, for comparing a batch with its sequential twin. */
function observe(store: MemoryStore) {
  const watchers = [...WATCHERS, COORD];
  return {
    events: store.eventCount(),
    logs: IDENTITIES.map(([sessionKey, agentId]) => store.changesSince({ sessionKey, agentId, since: 0, limit: LIMITS.maxChangesPerRead })),
    heads: IDENTITIES.map(([sessionKey, agentId]) => store.stateVersion(sessionKey, agentId)),
    pending: watchers.map((w) => store.pendingNotices(w)),
    cursors: watchers.flatMap((w) => IDENTITIES.map(([sessionKey, agentId]) => store.cursor(w, sessionKey, agentId))),
  };
}

/** Nothing at all was written: no event, no head, no cursor, no change signal. */
function expectUntouched(store: MemoryStore, token: number, signals: number[]): void {
  expect(store.eventCount()).toBe(0);
  expect(IDENTITIES.map(([s, a]) => store.stateVersion(s, a))).toEqual(IDENTITIES.map(() => 0));
  expect(store.listPending()).toEqual([]);
  expect(store.changeToken()).toBe(token);
  expect(signals).toEqual([]);
}

const setupArb = fc.array(fc.oneof(watchDraft(), ambientWatchDraft()), { maxLength: 4 });
const batchArb = fc.array(fc.oneof({ weight: 4, arbitrary: recordDraft({ onlyIfWatched: true, skew: false }) }, { weight: 1, arbitrary: spawnDraft() }), {
  minLength: 1,
  maxLength: 25,
});

describe('R9e recordMany on the memory store', () => {
  it('R9e: results and state equal sequential record() calls on a twin store (property)', () => {
    fc.assert(
      fc.property(setupArb, batchArb, (setup, batch) => {
        const many = createMemoryStore({ now: () => T0 });
        const twin = createMemoryStore({ now: () => T0 });
        for (const { cmd } of setup) {
          many.watch(cmd.args[0] as never);
          twin.watch(cmd.args[0] as never);
        }
        const inputs = batch.map(({ cmd }) => cmd.args[0] as RecordInput);
        const got = many.recordMany(inputs);
        const want = inputs.map((input) => twin.record(input));
        expect(got).toEqual(want);
        expect(observe(many)).toEqual(observe(twin));
      }),
      { numRuns: 150 },
    );
  });

  it('R9e: a dedupe key repeated inside the batch returns the earlier item\'s event (R8), stored once', () => {
    const store = createMemoryStore({ now: () => T0 });
    const [first, second, third] = store.recordMany([
      human(CHILD, { dedupeKey: 'd1' }),
      human(CHILD, { dedupeKey: 'd1', summary: 'another summary' }),
      human(CHILD, { dedupeKey: 'd2' }),
    ]);
    expect(second).toBe(first);
    expect(third!.sequence).toBe(first!.sequence + 1);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events.map((e) => e.summary)).toEqual([
      'human message via telegram',
      'human message via telegram',
    ]);
  });

  it('R9e: onlyIfWatched sees the cursor an earlier item of the batch created (R9b, R14)', () => {
    const alone = createMemoryStore({ now: () => T0 });
    expect(alone.recordMany([human(CHILD, { onlyIfWatched: true })])).toEqual([undefined]);
    expect(alone.eventCount()).toBe(0);

    const store = createMemoryStore({ now: () => T0 });
    const [spawned, gated] = store.recordMany([spawn(CHILD, PARENT), human(CHILD, { onlyIfWatched: true })]);
    expect(gated).toBeDefined();
    expect(gated!.sequence).toBe(spawned!.sequence + 1);
    expect(store.pendingNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([spawned!.sequence]);
  });

  it('R9e: a bad input at index k rejects the whole batch naming k.<field>, with the code record() gives, and nothing is written', () => {
    const store = createMemoryStore({ now: () => T0 });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    const token = store.changeToken();
    const signals: number[] = [];
    store.onLocalChange(() => signals.push(1));
    const bad = human(PEER, { summary: '' });
    const single = errorOf(() => store.record(bad));
    const e = errorOf(() => store.recordMany([spawn(CHILD, PARENT), human(CHILD), bad, human(PEER)]));
    expect([e.field, e.code]).toEqual([`2.${single.field}`, single.code]);
    expect(e.field).toBe('2.summary');
    // Unknown field and R1 agent agreement, later in the batch, are named the same way.
    expect(errorOf(() => store.recordMany([human(), { ...human(), zzz: 1 } as never])).field).toBe('1.zzz');
    expect(errorOf(() => store.recordMany([human(), human(), human(CHILD, { agentId: 'ops' })])).field).toBe('2.agentId');
    // An element that is not an object is named by its index alone.
    for (const notObject of [null, 42, 'x', [human()]]) {
      const got = errorOf(() => store.recordMany([human(), notObject as never]));
      expect([got.field, got.code]).toEqual(['1', 'type']);
    }
    expect(store.eventCount()).toBe(0);
    expect(store.stateVersion(CHILD, A)).toBe(0);
    expect(store.stateVersion(PEER, A)).toBe(0);
    expect(store.cursor(PARENT, CHILD, A)).toBeUndefined();
    expect(store.pendingNotices(COORD)).toEqual([]);
    expect(store.changeToken()).toBe(token);
    expect(signals).toEqual([]);
  });

  it('R9e: not an array is (input)/type; more than maxRecordsPerBatch is (input)/range; a hole is i/required; nothing written', () => {
    const store = createMemoryStore({ now: () => T0 });
    const token = store.changeToken();
    const signals: number[] = [];
    store.onLocalChange(() => signals.push(1));
    for (const notArray of [undefined, null, human(), 'x', { length: 1, 0: human() }]) {
      const e = errorOf(() => store.recordMany(notArray as never));
      expect([e.field, e.code]).toEqual(['(input)', 'type']);
    }
    const tooMany = Array.from({ length: LIMITS.maxRecordsPerBatch + 1 }, () => human());
    const e = errorOf(() => store.recordMany(tooMany));
    expect([e.field, e.code]).toEqual(['(input)', 'range']);
    // eslint-disable-next-line no-sparse-arrays
    const holey = [human(), , human()] as RecordInput[];
    const h = errorOf(() => store.recordMany(holey));
    expect([h.field, h.code]).toEqual(['1', 'required']);
    expectUntouched(store, token, signals);
    // The limit itself is allowed.
    expect(store.recordMany(tooMany.slice(1)).every((r) => r !== undefined)).toBe(true);
    expect(store.eventCount()).toBe(LIMITS.maxRecordsPerBatch);
  });

  it('R9e: an empty array returns [] and writes nothing', () => {
    let reads = 0;
    const store = createMemoryStore({ now: () => (reads++, T0) });
    const token = store.changeToken();
    const signals: number[] = [];
    store.onLocalChange(() => signals.push(1));
    expect(store.recordMany([])).toEqual([]);
    expectUntouched(store, token, signals);
    expect(reads).toBe(2); // construction and the one reading of this call
  });

  it('R9e: one clock reading per call: every event of the batch has the same recordedAt', () => {
    let t = T0;
    let reads = 0;
    const store = createMemoryStore({ now: () => (reads++, t++) });
    const before = reads;
    const got = store.recordMany([human(CHILD), human(PEER), spawn(CHILD, PARENT)]);
    expect(reads - before).toBe(1);
    expect(new Set(got.map((e) => e!.recordedAt)).size).toBe(1);
    expect(got.map((e) => e!.sequence)).toEqual([1, 2, 3]);
  });

  it('R9e: change listeners hear of a batch once, and only when it wrote a cursor', () => {
    const store = createMemoryStore({ now: () => T0 });
    let signals = 0;
    store.onLocalChange(() => signals++);
    store.recordMany([human(CHILD), human(PEER)]); // nobody watches: no cursor written
    expect(signals).toBe(0);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    store.recordMany([spawn(CHILD, PARENT), human(CHILD), human(PEER), human(CHILD)]);
    expect(signals).toBe(1);
    expect(store.pendingNotices(COORD)).toHaveLength(1);
    expect(store.pendingNotices(PARENT)).toHaveLength(1);
  });

  it('R9e, R43: a due prune runs once, after the whole batch, with the batch\'s clock reading', () => {
    let t = T0;
    const store = createMemoryStore({ now: () => t, maxRows: 2 });
    const twin = createMemoryStore({ now: () => t, maxRows: 2 });
    store.record(human(CHILD));
    twin.record(human(CHILD));
    t += LIMITS.pruneIntervalMs + HOUR;
    const batch = [human(CHILD), human(PEER), human(PARENT)];
    const got = store.recordMany(batch);
    expect(got.every((e) => e !== undefined)).toBe(true);
    // After the batch the cap holds: the prune saw all three new rows.
    expect(store.eventCount()).toBe(2);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.historyGap).toBe(true);
    // One by one, the prune runs after the first record and is not due again for the others.
    for (const input of batch) twin.record(input);
    expect(twin.eventCount()).toBe(4);
  });

  it('R9e: stored events are frozen, and editing an input after the call changes nothing', () => {
    const store = createMemoryStore({ now: () => T0 });
    const payload = { channel: 'web' };
    const watchers = [COORD];
    const input = human(CHILD, { payload, watchers });
    const [e] = store.recordMany([input]) as [StateEvent];
    expect(Object.isFrozen(e)).toBe(true);
    expect(Object.isFrozen(e.payload)).toBe(true);
    payload.channel = 'telegram';
    watchers.push(PEER);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events[0]!.payload).toEqual({ channel: 'web' });
    expect(store.pendingNotices(PEER)).toEqual([]);
  });

  it('R9e: a closed store refuses a batch', () => {
    const store = createMemoryStore({ now: () => T0 });
    store.close();
    expect(() => store.recordMany([human()])).toThrow(/closed/);
  });
});
