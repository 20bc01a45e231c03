/**
 * The fast acceptance check of record() input (mutation/). It may answer "not sure" for any input, and
 * the exhaustive check then decides, so no result tells a stricter fast check from the real one:
 * only the time does. These tests pin what it must accept by itself, through the probe
 * `recordFastPathAccepts` (not package API): every valid input a producer typically sends, and
 * each field at both ends of its limits. The other direction (it never accepts what the exhaustive
 * check refuses) is held by test/memory/record-validation.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { EVENT_KINDS, LIMITS, PAYLOAD_REQUIRED, PAYLOAD_SCHEMAS, Payload } from '../../spec/index.js';
import { ValidationError, checkRecordInputInOrder, snapshotInput, validateRecordFields } from '../../src/core/index.js';
import { recordFastPathAccepts } from '../../src/core/validate.js';
import { recordDraft } from '../../conformance/arbitraries.js';

const BOTH = { validateRecordInput: true, validateRecordFields: true };
const base = { sessionKey: 'agent:main:worker', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via web' };

/** Valid by the exhaustive check (a test that relies on an invalid input would prove nothing). */
function valid(input: Record<string, unknown>): Record<string, unknown> {
  checkRecordInputInOrder(snapshotInput(input));
  return input;
}

describe('the fast check accepts valid inputs by itself', () => {
  it('every valid input of the conformance generator (all kinds, payloads, optional fields, watchers)', () => {
    const seenKinds = new Set<string>();
    fc.assert(
      fc.property(recordDraft({ onlyIfWatched: true, skew: false }), (draft) => {
        const input = valid(draft.cmd.args[0] as Record<string, unknown>);
        seenKinds.add(input['kind'] as string);
        expect(recordFastPathAccepts(input), JSON.stringify(input)).toEqual(BOTH);
      }),
      { numRuns: 600 },
    );
    expect([...seenKinds].sort()).toEqual([...EVENT_KINDS].sort());
  });

  it('each string field at one character and at its maximum length (UTF-16 units of ASCII)', () => {
    const cases: [string, string][] = [
      ['sessionKey', 'g'],
      ['sessionKey', `agent:main:${'k'.repeat(LIMITS.keyMaxLength - 'agent:main:'.length)}`],
      ['sessionKey', 'g'.repeat(LIMITS.keyMaxLength)],
      ['sessionId', 's'],
      ['sessionId', 's'.repeat(LIMITS.keyMaxLength)],
      ['actorId', 'a'],
      ['actorId', 'a'.repeat(LIMITS.keyMaxLength)],
      ['runId', 'r'],
      ['runId', 'r'.repeat(LIMITS.keyMaxLength)],
      ['summary', 'x'],
      ['summary', 'x'.repeat(LIMITS.summaryMaxLength)],
      ['dedupeKey', 'd'],
      ['dedupeKey', 'd'.repeat(LIMITS.keyMaxLength)],
    ];
    for (const [field, value] of cases) {
      const input = valid({ ...base, [field]: value });
      expect(recordFastPathAccepts(input), `${field} of ${value.length}`).toEqual(BOTH);
    }
    // agentId at both ends, with a bare session key (an agent-scoped one must name the same agent).
    for (const agentId of ['m', 'm'.repeat(LIMITS.agentIdMaxLength)]) {
      expect(recordFastPathAccepts(valid({ ...base, sessionKey: 'global', agentId })), `agentId of ${agentId.length}`).toEqual(BOTH);
    }
  });

  it('occurredAt at 0 and at 2^53 - 1; onlyIfWatched true and false; watchers empty, one, and at the maximum count', () => {
    for (const occurredAt of [0, 1, Number.MAX_SAFE_INTEGER]) expect(recordFastPathAccepts(valid({ ...base, occurredAt })), String(occurredAt)).toEqual(BOTH);
    for (const onlyIfWatched of [true, false]) expect(recordFastPathAccepts(valid({ ...base, onlyIfWatched })), String(onlyIfWatched)).toEqual(BOTH);
    const many = Array.from({ length: LIMITS.maxWatchersPerRecord }, (_, i) => `agent:main:w${i}`);
    for (const watchers of [[], ['agent:main:lead'], many]) {
      expect(recordFastPathAccepts(valid({ ...base, watchers })), `${watchers.length} watchers`).toEqual(BOTH);
    }
  });

  it('each field alone as the only optional one, in any key order', () => {
    const optional: Record<string, unknown> = { sessionId: 's1', actorId: 'agent:main:lead', runId: 'r1', occurredAt: 5, dedupeKey: 'd1', watchers: ['agent:main:lead'], onlyIfWatched: true };
    for (const [key, value] of Object.entries(optional)) {
      const forward = valid({ ...base, [key]: value });
      const reversed = valid(Object.fromEntries(Object.entries(forward).reverse()));
      expect([recordFastPathAccepts(forward), recordFastPathAccepts(reversed)], key).toEqual([BOTH, BOTH]);
    }
  });
});

describe('the fast check refuses, and the exhaustive check decides', () => {
  it('an unknown field, a non-object, an array, a missing required payload: neither entry point accepts by itself (an inherited field is not read at all)', () => {
    const refused = { validateRecordInput: false, validateRecordFields: false };
    expect(recordFastPathAccepts({ ...base, extra: 1 })).toEqual(refused);
    expect(recordFastPathAccepts(Object.assign(Object.create({ inherited: 1 }) as object, base))).toEqual({ validateRecordInput: true, validateRecordFields: true });
    for (const raw of [null, undefined, 'text', 7, [base]]) expect(recordFastPathAccepts(raw), String(raw)).toEqual(refused);
    // A payload the kind requires, missing: not accepted fast (the exhaustive check names it).
    const required = [...PAYLOAD_REQUIRED][0]!;
    expect(recordFastPathAccepts({ ...base, kind: required })).toEqual(refused);
  });

  it('one watcher over the maximum count: not accepted fast, and refused naming watchers (range)', () => {
    const watchers = Array.from({ length: LIMITS.maxWatchersPerRecord + 1 }, (_, i) => `agent:main:w${i}`);
    const input = { ...base, watchers };
    expect(recordFastPathAccepts(input)).toEqual({ validateRecordInput: false, validateRecordFields: false });
    let error: unknown;
    try {
      validateRecordFields(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect([(error as ValidationError).field, (error as ValidationError).code]).toEqual(['watchers', 'range']);
  });

  it('an input only the exhaustive check accepts still comes back with its payload frozen (validateRecordFields)', () => {
    // Astral characters: within the summary limit in code points, above it in UTF-16 units, which
    // is all the fast check counts, so it says "not sure".
    const summary = '\ud83d\ude00'.repeat(LIMITS.summaryMaxLength);
    const input = valid({ ...base, summary, payload: { channel: 'web' } });
    expect(recordFastPathAccepts(input)).toEqual({ validateRecordInput: false, validateRecordFields: false });
    const out = validateRecordFields(input);
    expect(out.summary).toBe(summary);
    expect(out.payload).toEqual({ channel: 'web' });
    expect(Object.isFrozen(out.payload)).toBe(true);
    expect(out.payload).not.toBe(input['payload']);
  });
});

describe('the fast check applies only the kind\'s payload schema', () => {
  // R4: the exhaustive check applies the union `Payload` (RecordInput's payload field) and then the
  // kind's own schema; the fast check applies the kind's alone. That is only sound while every
  // per-kind schema narrows the union, which this property holds for all kinds.
  it('R4: every payload a kind accepts, the union Payload accepts too', () => {
    const union = Compile(Payload);
    const kinds = EVENT_KINDS.filter((k) => PAYLOAD_SCHEMAS[k] !== null);
    const perKind = new Map(kinds.map((k) => [k, Compile(PAYLOAD_SCHEMAS[k]!)] as const));
    const value = fc.oneof(
      fc.constantFrom('web', 'a', 'x:y-z_1.2', 'created', 'updated', 'cleared', 'completed', 'cancelled', 'timeout', 'error', '', ' ', 'a b', '\ud800'),
      fc.string(),
      fc.integer({ min: -2, max: 3 }),
      fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 1.5, Number.NaN),
      fc.boolean(),
      fc.constant(null),
    );
    const payload = fc.dictionary(fc.constantFrom('channel', 'turns', 'action', 'outcome', 'catalogId', 'hostId', 'other'), value, { maxKeys: 3 });
    let accepted = 0;
    fc.assert(
      fc.property(fc.constantFrom(...kinds), payload, (kind, p) => {
        if (!perKind.get(kind)!.Check(p)) return;
        accepted++;
        expect(union.Check(p), `${kind} ${JSON.stringify(p)}`).toBe(true);
      }),
      { numRuns: 5000 },
    );
    // Not a vacuous property: the generator reaches accepted payloads of the kinds.
    expect(accepted).toBeGreaterThan(100);
  });
});

