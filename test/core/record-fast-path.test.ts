/**
 * The record() fast path remembers answers (accepted payloads, identity keys, agent-scoped keys)
 * and snapshots a record input into one fixed-shape object. None of that may change an answer:
 * these tests hold each shortcut to what the plain computation says, around its edges.
 */
import { describe, expect, it } from 'vitest';
import { RecordInput } from '../../spec/index.js';
import { ValidationError, checkRecordInputInOrder, identityKey, isAgentScopedKey, parseAgentScopedKey, snapshotInput, validateRecordFields, validateRecordInput } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { A, CHILD, PARENT, human } from '../contract/harness.js';

const T0 = 1_780_000_000_000;

function refusal(fn: () => unknown): { field: string; code: string } | 'accepted' {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { field: error.field, code: error.code };
  }
}

/** What validateRecordInput returned, without the absent (undefined) fields of the fixed-shape snapshot. */
function defined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

describe('R9a the record snapshot', () => {
  it('R9a: every RecordInput field given is returned, with its value, and nothing else', () => {
    const full = {
      sessionKey: CHILD,
      agentId: A,
      sessionId: 'sid-1',
      kind: 'human_direct_message',
      actorType: 'agent',
      actorId: PARENT,
      runId: 'run-1',
      occurredAt: T0,
      summary: 'human message via web',
      payload: { channel: 'web', turns: 2 },
      dedupeKey: 'dk-1',
      watchers: [PARENT],
      onlyIfWatched: false,
    };
    // The fixture names every field of the schema, so a field the snapshot forgot would show here.
    expect(Object.keys(full)).toEqual(Object.keys(RecordInput.properties));
    for (const validate of [validateRecordInput, validateRecordFields]) {
      const got = validate(full);
      expect(defined(got)).toEqual(full);
      expect(Object.keys(defined(got)).sort()).toEqual(Object.keys(full).sort());
      // Each field alone beside the required ones, too (the required five are in `human`).
      for (const [key, value] of Object.entries(full)) {
        const input = { ...human(CHILD), [key]: value };
        expect(defined(validate(input)), key).toEqual(defined(checkRecordInputInOrder(snapshotInput(input))));
      }
    }
    // The record path's snapshot has every field, absent ones undefined (one object shape).
    expect(Object.keys(validateRecordFields(human(CHILD)))).toEqual(Object.keys(RecordInput.properties));
  });

  it('R9 R9a: an unknown key, or an own __proto__ key, is still named in the input\'s own key order', () => {
    expect(refusal(() => validateRecordInput({ zzz: 1, ...human(CHILD), yyy: 2 }))).toEqual({ field: 'zzz', code: 'unknown-field' });
    expect(refusal(() => validateRecordFields({ zzz: 1, ...human(CHILD), yyy: 2 }))).toEqual({ field: 'zzz', code: 'unknown-field' });
    expect(refusal(() => validateRecordFields({ ...human(CHILD), summary: '', yyy: 2 }))).toEqual({ field: 'summary', code: 'range' });
    expect(refusal(() => validateRecordInput(JSON.parse(`{"__proto__": 1, "sessionKey": "${CHILD}"}`)))).toEqual({ field: 'agentId', code: 'required' });
    expect(refusal(() => validateRecordInput(JSON.parse(JSON.stringify({ ...human(CHILD) }).replace('{', '{"__proto__": 1,'))))).toEqual({ field: '__proto__', code: 'unknown-field' });
  });
});

describe('R4 payloads on the fast path', () => {
  it('R4: a payload accepted for one kind is not thereby accepted for another', () => {
    expect(validateRecordInput(human(CHILD, { payload: { channel: 'web' } })).payload).toEqual({ channel: 'web' });
    const goal = { ...human(CHILD), kind: 'goal_changed', actorType: 'agent', payload: { channel: 'web' } };
    expect(refusal(() => validateRecordInput(goal))).toMatchObject({ field: 'payload.channel' });
    expect(refusal(() => validateRecordInput(goal))).toEqual(refusal(() => checkRecordInputInOrder(snapshotInput(goal))));
    const upstream = { ...human(CHILD), kind: 'upstream_missing', actorType: 'system', payload: { channel: 'web' } };
    expect(validateRecordInput(upstream).payload).toEqual({ channel: 'web' });
  });

  it('R4 R9: a number is not a string of the same digits, nor -0 a 0, however often each is sent', () => {
    expect(validateRecordInput(human(CHILD, { payload: { turns: 1 } })).payload).toEqual({ turns: 1 });
    expect(refusal(() => validateRecordInput(human(CHILD, { payload: { turns: '1' } })))).toEqual({ field: 'payload.turns', code: 'type' });
    expect(validateRecordInput(human(CHILD, { payload: { channel: 'x1' } })).payload).toEqual({ channel: 'x1' });
    expect(refusal(() => validateRecordInput(human(CHILD, { payload: { channel: 1 } })))).toMatchObject({ field: 'payload.channel' });
    expect(refusal(() => validateRecordInput(human(CHILD, { payload: { turns: 0 } })))).toMatchObject({ field: 'payload.turns' });
    expect(refusal(() => validateRecordInput(human(CHILD, { payload: { turns: -0 } })))).toMatchObject({ field: 'payload.turns' });
  });

  it('R4: one more or one fewer field is another payload; the stored one keeps the input\'s key order', () => {
    expect(validateRecordInput(human(CHILD, { payload: { channel: 'web', turns: 3 } })).payload).toEqual({ channel: 'web', turns: 3 });
    expect(refusal(() => validateRecordInput(human(CHILD, { payload: { channel: 'web', turns: 3, extra: 'x' } })))).toEqual({ field: 'payload.extra', code: 'unknown-field' });
    expect(Object.keys(validateRecordInput(human(CHILD, { payload: { turns: 3, channel: 'web' } })).payload!)).toEqual(['turns', 'channel']);
    expect(Object.keys(validateRecordInput(human(CHILD, { payload: { channel: 'web', turns: 3 } })).payload!)).toEqual(['channel', 'turns']);
    expect(refusal(() => validateRecordInput({ ...human(CHILD), kind: 'run_failed', actorType: 'system', payload: {} }))).toEqual({ field: 'payload.outcome', code: 'required' });
  });

  it('R30b: each event holds a frozen payload of its own, never the caller\'s, and a later edit of the input changes nothing', () => {
    const store = createMemoryStore({ now: () => T0 });
    const p1 = { channel: 'shared-1' };
    const p2 = { channel: 'shared-1' };
    const e1 = store.record(human(CHILD, { payload: p1 }))!;
    const e2 = store.record(human(CHILD, { payload: p2 }))!;
    expect(e1.payload).not.toBe(p1);
    expect(e2.payload).not.toBe(p2);
    expect(Object.isFrozen(e1.payload)).toBe(true);
    expect(Object.isFrozen(e2.payload)).toBe(true);
    expect(e2.payload).toEqual(e1.payload);
    p1.channel = 'edited';
    p2.channel = 'edited';
    expect(e1.payload).toEqual({ channel: 'shared-1' });
    expect(store.record(human(CHILD, { payload: { channel: 'edited' } }))!.payload).toEqual({ channel: 'edited' });
  });

  it('R4: many distinct payloads are each checked and stored as given', () => {
    const store = createMemoryStore({ now: () => T0 });
    for (let i = 0; i < 2500; i++) {
      expect(store.record(human(CHILD, { payload: { channel: `c${i}`, turns: (i % 7) + 1 } }))!.payload).toEqual({ channel: `c${i}`, turns: (i % 7) + 1 });
    }
    expect(refusal(() => validateRecordInput(human(CHILD, { payload: { channel: 'c1', turns: 0 } })))).toMatchObject({ field: 'payload.turns' });
  });
});

describe('R1 R13 remembered keys', () => {
  it('R1: one session key under two agents gives two identity keys, alternately and past the cap', () => {
    for (let i = 0; i < 3000; i++) {
      const key = `global-${i % 1500}`;
      expect(identityKey(key, 'a')).toBe(`a\u0000${key}`);
      expect(identityKey(key, 'b')).toBe(`b\u0000${key}`);
    }
  });

  it('R13: a key is agent-scoped exactly when it parses, however often it is asked, past the cap', () => {
    const keys = ['global', 'main', 'agent:main:', 'agent::x', 'agent:main:x', 'Agent:main:x', 'agent:-bad:x'];
    for (let i = 0; i < 2100; i++) keys.push(i % 2 ? `agent:main:k${i}` : `agent:main${i}`);
    for (let round = 0; round < 2; round++) {
      for (const key of keys) expect(isAgentScopedKey(key), key).toBe(parseAgentScopedKey(key) !== undefined);
    }
  });
});
