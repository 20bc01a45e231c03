/**
 * R1-R4, R9, R9a: record() validates a valid input in one fast pass and hands anything else to
 * the exhaustive field-by-field check. The fast pass may only ever accept what the exhaustive
 * check accepts, so for any input the outcome (the snapshot returned, or the error's field, code
 * and message) must be the exhaustive check's. Inputs here are valid ones with a few fields
 * replaced by awkward values, so both sides of every rule are exercised.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { ValidationError, checkRecordInputInOrder, snapshotInput, validateRecordFields, validateRecordInput } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { recordDraft } from '../../conformance/arbitraries.js';
import { T0 } from '../contract/harness.js';

type Outcome = { ok: [string, unknown][] } | { field: string; code: string; message: string };

/** The accepted snapshot as its own entries: an input with an own `constructor` or `__proto__` key
 * (accepted by the exhaustive check, which asks `key in properties`) defeats deep equality of the objects themselves. */
function outcome(fn: () => unknown): Outcome {
  try {
    const value = fn();
    return { ok: value !== null && typeof value === 'object' ? Object.entries(value) : [['(value)', value]] };
  } catch (error) {
    if (error instanceof ValidationError) return { field: error.field, code: error.code, message: error.message };
    throw error;
  }
}

const FIELDS = ['sessionKey', 'agentId', 'sessionId', 'kind', 'actorType', 'actorId', 'runId', 'occurredAt', 'summary', 'payload', 'dedupeKey', 'watchers', 'onlyIfWatched'];

const awkwardString = fc.constantFrom(
  '',
  ' ',
  'x',
  'agent:main:x',
  'agent:ops:x',
  'agent:main:',
  'global',
  'main',
  'ops',
  'line\nbreak',
  'tab\there',
  'quote"d',
  'nbsp\u00a0x',
  'zero\u200bwidth',
  'lone\ud800',
  'lone\udc00x',
  'pair\ud83d\ude00',
  '\ud83d\ude00'.repeat(LIMITS.summaryMaxLength),
  'a'.repeat(LIMITS.summaryMaxLength + 1),
  'a'.repeat(LIMITS.keyMaxLength),
  'a'.repeat(LIMITS.keyMaxLength + 1),
  'a'.repeat(LIMITS.agentIdMaxLength + 1),
  'human_direct_message',
  'run_failed',
  'adopted',
  'created',
  'human',
  'toString',
  '   ',
);

const awkward: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: awkwardString },
  fc.constantFrom(undefined, null, true, false, 0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2, T0, 2 ** 53),
  fc.constantFrom({}, { channel: 'web' }, { channel: 'we b' }, { outcome: 'error' }, { catalogId: 'c', hostId: 'h' }, { turns: 0 }, { extra: 1 }),
  fc.array(awkwardString, { maxLength: 3 }),
  fc.constant(new Date(0)),
  fc.constant(Object.create(null) as object),
);

const mutation = fc.oneof(
  { weight: 6, arbitrary: fc.record({ key: fc.constantFrom(...FIELDS), value: awkward }) },
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom('zzz', '__proto__', 'constructor', 'payloads'), value: awkward }) },
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom(...FIELDS), value: fc.constant(Symbol.for('delete')) }) },
);

const inputArb = fc
  .tuple(recordDraft({ onlyIfWatched: true, skew: false }), fc.array(mutation, { maxLength: 3 }))
  .map(([draft, mutations]) => {
    const input: Record<string, unknown> = { ...(draft.cmd.args[0] as Record<string, unknown>) };
    for (const { key, value } of mutations) {
      if (value === Symbol.for('delete')) delete input[key];
      else Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return input;
  });

describe('R9a record() validation: the fast pass never decides differently from the exhaustive check', () => {
  it('R1 R2 R3 R4 R9 R9a: for mutated inputs, validateRecordInput returns or throws exactly what the exhaustive check does', () => {
    let accepted = 0;
    fc.assert(
      fc.property(inputArb, (input) => {
        const fast = outcome(() => validateRecordInput(input));
        const exhaustive = outcome(() => checkRecordInputInOrder(snapshotInput(input)));
        expect(fast).toEqual(exhaustive);
        if ('ok' in fast) accepted++;
      }),
      { numRuns: 3000 },
    );
    // The generator must reach both sides, or the property says little.
    expect(accepted).toBeGreaterThan(100);
  });

  it('R1 R2 R3 R4 R9 R9a: the record path\'s fixed-shape snapshot (validateRecordFields) decides as the exhaustive check, field for field', () => {
    // Same error; an accepted input has the same fields and values (its absent fields are undefined
    // and its fields in schema order, which no reader of a RecordInput can tell apart).
    const definedEntries = (o: Outcome): Outcome => ('ok' in o ? { ok: o.ok.filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)) } : o);
    let accepted = 0;
    fc.assert(
      fc.property(inputArb, (input) => {
        const fields = definedEntries(outcome(() => validateRecordFields(input)));
        expect(fields).toEqual(definedEntries(outcome(() => checkRecordInputInOrder(snapshotInput(input)))));
        if ('ok' in fields) {
          accepted++;
          const payload = (validateRecordFields(input) as { payload?: object }).payload;
          if (payload !== undefined) expect(Object.isFrozen(payload)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('R9a: the store reports the exhaustive check\'s error and writes nothing for the same inputs', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const store = createMemoryStore({ now: () => T0 });
        const exhaustive = outcome(() => checkRecordInputInOrder(snapshotInput(input)));
        const got = outcome(() => store.record(input as never));
        if ('ok' in exhaustive) {
          expect('ok' in got).toBe(true);
        } else {
          expect(got).toEqual(exhaustive);
          expect(store.eventCount()).toBe(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('R9a: a valid input is returned as a copy, not the caller\'s object', () => {
    const input = { sessionKey: 'agent:main:x', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 's', payload: { channel: 'web' }, watchers: ['agent:main:w'] };
    const got = validateRecordInput(input);
    expect(got).toEqual(input);
    expect(got).not.toBe(input);
    expect(got.payload).not.toBe(input.payload);
    expect(got.watchers).not.toBe(input.watchers);
  });
});
