/**
 * R1, R3, R4, R9, R9a, R27b, R30: what a caller learns from a refused input. Every refusal is a
 * ValidationError whose `field` is the dotted path of the offending value and whose `code` says
 * what kind of problem it is (a runtime maps codes to its own messages, the tools and the MCP
 * server pass them on), its message names the field, and a refused call writes nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  ValidationError,
  assertSchema,
  snapshotInput,
  validateChangesSinceRequest,
  validateIdentity,
  validateNoticeAcks,
  validateRecordInput,
  validateSessionKey,
  validateUnwatchRequest,
  validateVersion,
  validateWatchRequest,
} from '../../src/core/index.js';
import { validateContinueInput } from '../../src/core/upstream/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { AgentId, EVENT_KINDS, LIMITS, NoticeAcks, RecordInput, SessionKey, Version } from '../../spec/index.js';
import { A, CHILD, PARENT, T0, human } from '../contract/harness.js';

/** The refusal `fn` throws, as {field, code}; fails the test when it does not throw a ValidationError. */
function refusal(fn: () => unknown): { field: string; code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // The message names the field and then says something about it.
    expect(error.message.startsWith(`${error.field}: `), error.message).toBe(true);
    expect(error.message.length, error.message).toBeGreaterThan(error.field.length + 2);
    expect(error.name).toBe('ValidationError');
    return { field: error.field, code: error.code, message: error.message };
  }
  throw new Error('expected a ValidationError, got none');
}

const of = (fn: () => unknown) => {
  const { field, code } = refusal(fn);
  return { field, code };
};

const record = (extra: Record<string, unknown>) => () => validateRecordInput(human(CHILD, extra));

describe('R9 record(): field and code of each refusal', () => {
  it('R9: a missing required field is code "required", named', () => {
    for (const key of ['sessionKey', 'agentId', 'kind', 'actorType', 'summary']) {
      const input: Record<string, unknown> = human(CHILD); // loses a required field on purpose
      delete input[key];
      expect(of(() => validateRecordInput(input)), key).toEqual({ field: key, code: 'required' });
    }
  });

  it('R1, R9: key and id lengths are code "range" at exactly one past the limit', () => {
    const key = (n: number) => `agent:main:${'k'.repeat(n - 'agent:main:'.length)}`;
    expect(validateRecordInput(human(key(LIMITS.keyMaxLength))).sessionKey).toHaveLength(LIMITS.keyMaxLength);
    expect(of(() => validateRecordInput(human(key(LIMITS.keyMaxLength + 1))))).toEqual({ field: 'sessionKey', code: 'range' });
    expect(of(record({ sessionKey: '' }))).toEqual({ field: 'sessionKey', code: 'range' });
    expect(of(record({ runId: 'r'.repeat(LIMITS.keyMaxLength + 1) }))).toEqual({ field: 'runId', code: 'range' });
    expect(validateRecordInput(human(CHILD, { runId: 'r'.repeat(LIMITS.keyMaxLength) })).runId).toHaveLength(LIMITS.keyMaxLength);
    const agent = 'a'.repeat(LIMITS.agentIdMaxLength);
    expect(validateRecordInput({ ...human('global'), agentId: agent }).agentId).toBe(agent);
    expect(of(() => validateRecordInput({ ...human('global'), agentId: `${agent}a` }))).toEqual({ field: 'agentId', code: 'range' });
  });

  it('R1, R9: a key or agent id of the wrong shape is code "format"', () => {
    expect(of(record({ sessionKey: 'agent:main:a\nb' }))).toEqual({ field: 'sessionKey', code: 'format' });
    expect(of(record({ sessionKey: 'agent:main:"x"' }))).toEqual({ field: 'sessionKey', code: 'format' });
    expect(of(() => validateRecordInput({ ...human('global'), agentId: '-lead' }))).toEqual({ field: 'agentId', code: 'format' });
    expect(of(record({ actorId: 'agent:main:\u202eevil' }))).toEqual({ field: 'actorId', code: 'format' });
  });

  it('R3: summary length boundaries (1..200) are code "range"; a newline or blank summary is "format"', () => {
    expect(validateRecordInput(human(CHILD, { summary: 'x' })).summary).toBe('x');
    expect(validateRecordInput(human(CHILD, { summary: 's'.repeat(LIMITS.summaryMaxLength) })).summary).toHaveLength(LIMITS.summaryMaxLength);
    expect(of(record({ summary: 's'.repeat(LIMITS.summaryMaxLength + 1) }))).toEqual({ field: 'summary', code: 'range' });
    expect(of(record({ summary: '' }))).toEqual({ field: 'summary', code: 'range' });
    expect(of(record({ summary: 'two\nlines' }))).toEqual({ field: 'summary', code: 'format' });
    expect(of(record({ summary: '   ' }))).toEqual({ field: 'summary', code: 'format' });
  });

  it('R1, R3: a lone surrogate is code "format" on the field that holds it, in a key, an id, a summary or a watcher', () => {
    for (const [key, value] of [
      ['sessionKey', 'agent:main:\uD800x'],
      ['actorId', 'agent:main:x\uDC00'],
      ['runId', 'run\uD83D'],
      ['summary', 'half an emoji \uD83D'],
      ['dedupeKey', '\uDE00'],
    ] as const) {
      expect(of(record({ [key]: value })), key).toEqual({ field: key, code: 'format' });
    }
    expect(of(record({ watchers: [PARENT, 'agent:main:ok', 'agent:main:\uDBFF'] }))).toEqual({ field: 'watchers.2', code: 'format' });
    // A surrogate pair is a character, not an error.
    expect(validateRecordInput(human('agent:main:😀', { summary: 'emoji 😀', watchers: ['agent:main:😀x'] })).sessionKey).toBe('agent:main:😀');
  });

  it('R6, R9: occurredAt is an integer of epoch ms in 0..2^53-1: below is "range", past is "range", a fraction or a string is "type"', () => {
    expect(validateRecordInput(human(CHILD, { occurredAt: 0 })).occurredAt).toBe(0);
    expect(validateRecordInput(human(CHILD, { occurredAt: Number.MAX_SAFE_INTEGER })).occurredAt).toBe(Number.MAX_SAFE_INTEGER);
    expect(of(record({ occurredAt: -1 }))).toEqual({ field: 'occurredAt', code: 'range' });
    expect(of(record({ occurredAt: Number.MAX_SAFE_INTEGER + 1 }))).toEqual({ field: 'occurredAt', code: 'range' });
    expect(of(record({ occurredAt: 1.5 }))).toEqual({ field: 'occurredAt', code: 'type' });
    expect(of(record({ occurredAt: '1' }))).toEqual({ field: 'occurredAt', code: 'type' });
    expect(of(record({ occurredAt: Number.NaN }))).toEqual({ field: 'occurredAt', code: 'type' });
  });

  it('R2, R9: an unknown actorType is code "type" and the message lists the allowed actors', () => {
    const r = refusal(record({ actorType: 'robot' }));
    expect({ field: r.field, code: r.code }).toEqual({ field: 'actorType', code: 'type' });
    for (const actor of ['human', 'agent', 'system']) expect(r.message).toContain(actor);
  });

  it('R10, R9: an unknown kind is code "type" on kind and the message lists every kind', () => {
    const r = refusal(record({ kind: 'telepathy' }));
    expect({ field: r.field, code: r.code }).toEqual({ field: 'kind', code: 'type' });
    for (const kind of EVENT_KINDS) expect(r.message).toContain(kind);
    expect(r.message).toContain('telepathy');
    expect(of(record({ kind: 5 }))).toEqual({ field: 'kind', code: 'type' });
  });

  it('R4: payload refusals: forbidden is "not-allowed", missing is "required", a bad value names the payload field', () => {
    expect(of(record({ kind: 'agent_message', actorType: 'agent', payload: {} }))).toEqual({ field: 'payload', code: 'not-allowed' });
    expect(of(record({ kind: 'run_failed', actorType: 'system' }))).toEqual({ field: 'payload', code: 'required' });
    expect(of(record({ kind: 'upstream_missing', actorType: 'system' }))).toEqual({ field: 'payload', code: 'required' });
    expect(of(record({ kind: 'adopted', actorType: 'system' }))).toEqual({ field: 'payload', code: 'required' });
    expect(of(record({ kind: 'run_failed', actorType: 'system', payload: {} }))).toEqual({ field: 'payload.outcome', code: 'required' });
    expect(of(record({ kind: 'adopted', actorType: 'system', payload: { catalogId: 'claude' } }))).toEqual({ field: 'payload.hostId', code: 'required' });
    expect(of(record({ payload: { turns: 0 } }))).toEqual({ field: 'payload.turns', code: 'range' });
    expect(of(record({ payload: { turns: 1.5 } }))).toEqual({ field: 'payload.turns', code: 'type' });
    expect(of(record({ payload: { channel: 'two words' } }))).toEqual({ field: 'payload.channel', code: 'format' });
    expect(of(record({ payload: 'telegram' }))).toEqual({ field: 'payload', code: 'type' });
    const outcome = refusal(record({ kind: 'run_failed', actorType: 'system', payload: { outcome: 'exploded' } }));
    expect({ field: outcome.field, code: outcome.code }).toEqual({ field: 'payload.outcome', code: 'type' });
    for (const allowed of ['cancelled', 'timeout', 'error']) expect(outcome.message).toContain(allowed);
    // Optional payloads may be absent, and an optional field of one is optional.
    expect(validateRecordInput(human(CHILD)).payload).toBeUndefined();
    expect(validateRecordInput(human(CHILD, { kind: 'goal_changed', actorType: 'agent', payload: {} })).payload).toEqual({});
  });

  it('R4, R9: an unknown payload field is code "unknown-field", named inside the payload', () => {
    expect(of(record({ payload: { channel: 'telegram', text: 'hello' } }))).toEqual({ field: 'payload.text', code: 'unknown-field' });
    expect(of(record({ kind: 'run_failed', actorType: 'system', payload: { outcome: 'error', why: 'x' } }))).toEqual({ field: 'payload.why', code: 'unknown-field' });
  });

  it('R4, R9: an unknown payload field whose name holds "/" or "~" is named as written', () => {
    expect(of(record({ payload: { 'a/b/c': 1 } }))).toEqual({ field: 'payload.a/b/c', code: 'unknown-field' });
    expect(of(record({ payload: { 'x~y~0': 1 } }))).toEqual({ field: 'payload.x~y~0', code: 'unknown-field' });
    expect(of(record({ payload: { '~1': 1 } }))).toEqual({ field: 'payload.~1', code: 'unknown-field' });
  });

  it('R9: an unknown top-level field is code "unknown-field"; watchers and onlyIfWatched of the wrong type are "type"', () => {
    expect(of(record({ message: 'hello' }))).toEqual({ field: 'message', code: 'unknown-field' });
    expect(of(record({ watchers: PARENT }))).toEqual({ field: 'watchers', code: 'type' });
    expect(of(record({ watchers: [PARENT, 7] }))).toEqual({ field: 'watchers.1', code: 'type' });
    expect(of(record({ onlyIfWatched: 'yes' }))).toEqual({ field: 'onlyIfWatched', code: 'type' });
  });

  it('R9: optional fields given as undefined count as absent', () => {
    const valid = validateRecordInput(human(CHILD, { runId: undefined, payload: undefined, watchers: undefined }));
    expect(valid.summary).toBe('human message via telegram');
    expect(validateRecordInput(human(CHILD, { kind: 'run_failed', actorType: 'system', payload: { outcome: 'timeout' } })).payload).toEqual({ outcome: 'timeout' });
  });

  it('R1: an agent-scoped key naming another agent is code "mismatch" on agentId; a bare key takes any agent', () => {
    expect(of(() => validateRecordInput({ ...human(CHILD), agentId: 'other' }))).toEqual({ field: 'agentId', code: 'mismatch' });
    expect(validateRecordInput({ ...human('global'), agentId: 'other' }).agentId).toBe('other');
    expect(validateRecordInput({ ...human('agent:other:x'), agentId: 'other' }).agentId).toBe('other');
  });

  it('R9a: the snapshot is what validation returns: nested plain objects and arrays are copies', () => {
    const payload = { channel: 'telegram' };
    const watchers = [PARENT];
    const valid = validateRecordInput(human(CHILD, { payload, watchers }));
    expect(valid.payload).toEqual(payload);
    expect(valid.payload).not.toBe(payload);
    expect(valid.watchers).toEqual(watchers);
    expect(valid.watchers).not.toBe(watchers);
    const nullProto = Object.assign(Object.create(null), { channel: 'telegram' });
    expect(validateRecordInput(human(CHILD, { payload: nullProto })).payload).toEqual({ channel: 'telegram' });
  });

  it('R9a, R4: a payload that is not a plain object (Date, Map, class instance) is code "type" on payload', () => {
    class Payload {
      channel = 'telegram';
    }
    expect(of(record({ payload: new Date(0) }))).toEqual({ field: 'payload', code: 'type' });
    expect(of(record({ payload: new Map([['channel', 'telegram']]) }))).toEqual({ field: 'payload', code: 'type' });
    expect(of(record({ payload: new Payload() }))).toEqual({ field: 'payload', code: 'type' });
  });
});

describe('R9a nesting and holes', () => {
  const nest = (levels: number, leaf: unknown, wrap: (v: unknown) => unknown) => {
    let v = leaf;
    for (let i = 0; i < levels; i++) v = wrap(v);
    return v;
  };

  it('R9a: objects nested 17 deep are copied; one level more is code "type" naming the too-deep path', () => {
    expect(snapshotInput(nest(17, 'x', (v) => ({ a: v })))).toEqual(nest(17, 'x', (v) => ({ a: v })));
    expect(of(() => snapshotInput(nest(18, 'x', (v) => ({ a: v }))))).toEqual({ field: Array(17).fill('a').join('.'), code: 'type' });
    expect(of(() => snapshotInput(nest(18, 'x', (v) => [v])))).toEqual({ field: Array(17).fill('0').join('.'), code: 'type' });
    expect(of(() => snapshotInput(nest(18, 'x', (v) => [v]), 'watchers'))).toEqual({ field: `watchers.${Array(17).fill('0').join('.')}`, code: 'type' });
  });

  it('R9a: a cyclic input is refused, never walked forever', () => {
    const cyclic: Record<string, unknown> = { ...human(CHILD) };
    cyclic['payload'] = cyclic;
    expect(of(() => validateRecordInput(cyclic)).code).toBe('type');
  });

  it('R9a: a hole names its index under the field, or the bare index at the top', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(of(record({ watchers: [PARENT, , 'agent:main:x'] }))).toEqual({ field: 'watchers.1', code: 'type' });
    // eslint-disable-next-line no-sparse-arrays
    expect(of(() => snapshotInput([1, 2, , 4]))).toEqual({ field: '2', code: 'type' });
    expect(snapshotInput([1, [2, 3], { a: [4] }])).toEqual([1, [2, 3], { a: [4] }]);
  });

  it('R9a: the depth limit holds for a caller that starts deeper, and the error still names a field', () => {
    expect(snapshotInput('x', '', 17)).toBe('x');
    expect(of(() => snapshotInput({ a: 1 }, '', 17))).toEqual({ field: '(input)', code: 'type' });
    expect(of(() => snapshotInput({ a: 1 }, 'ref', 17))).toEqual({ field: 'ref', code: 'type' });
    expect(snapshotInput({ a: 1 }, '', 16)).toEqual({ a: 1 });
  });

  it('R1, R9a: a lone surrogate inside a nested object is named by its path (upstream Continue ref)', () => {
    const input = { sessionKey: CHILD, agentId: A, catalogId: 'claude', hostId: 'local', threadId: 't1', upstreamKind: 'claude-jsonl', ref: { filePath: '/x' } };
    expect(validateContinueInput(input).ref).toEqual({ filePath: '/x' });
    expect(of(() => validateContinueInput({ ...input, ref: { filePath: '/x\uD800' } }))).toEqual({ field: 'ref.filePath', code: 'format' });
    expect(of(() => validateContinueInput({ ...input, ref: { parts: ['ok', '\uDC00'] } }))).toEqual({ field: 'ref.parts.1', code: 'format' });
    expect(of(() => validateContinueInput({ ...input, ref: { at: new Date(0) } }))).toEqual({ field: 'ref.at', code: 'type' });
  });

  it('R9a: scalars pass through unchanged', () => {
    for (const v of [null, undefined, 0, 'x', true]) expect(snapshotInput(v)).toBe(v);
  });
});

describe('R9 watch, unwatch, changesSince, positional keys', () => {
  const req = { watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A };

  it('R21, R52, R1: watch and unwatch name the bad field and check the target agent', () => {
    for (const validate of [validateWatchRequest, validateUnwatchRequest]) {
      expect(validate({ ...req })).toEqual(req);
      expect(of(() => validate({ ...req, agentId: 'other' }))).toEqual({ field: 'agentId', code: 'mismatch' });
      expect(of(() => validate({ ...req, watcherSessionKey: 'agent:main:\uD800' }))).toEqual({ field: 'watcherSessionKey', code: 'format' });
      expect(of(() => validate({ ...req, targetSessionKey: '' }))).toEqual({ field: 'targetSessionKey', code: 'range' });
      expect(of(() => validate({ watcherSessionKey: PARENT, agentId: A }))).toEqual({ field: 'targetSessionKey', code: 'required' });
      expect(of(() => validate({ ...req, note: 'x' }))).toEqual({ field: 'note', code: 'unknown-field' });
      expect(of(() => validate(null))).toEqual({ field: '(input)', code: 'type' });
      // A bare target takes any agent.
      expect(validate({ ...req, targetSessionKey: 'global', agentId: 'other' }).agentId).toBe('other');
    }
    expect(of(() => validateWatchRequest({ ...req, provenance: 'implicit' }))).toEqual({ field: 'provenance', code: 'type' });
    expect(of(() => validateUnwatchRequest({ ...req, provenance: 'explicit' }))).toEqual({ field: 'provenance', code: 'unknown-field' });
  });

  it('R30: since is an integer >= 0 and limit an integer >= 1; each refusal names its field', () => {
    const base = { sessionKey: CHILD, agentId: A };
    expect(validateChangesSinceRequest({ ...base, since: 0 })).toEqual({ ...base, since: 0 });
    expect(validateChangesSinceRequest({ ...base, since: Number.MAX_SAFE_INTEGER, limit: 1 }).limit).toBe(1);
    expect(of(() => validateChangesSinceRequest({ ...base, since: -1 }))).toEqual({ field: 'since', code: 'range' });
    expect(of(() => validateChangesSinceRequest({ ...base, since: Number.MAX_SAFE_INTEGER + 1 }))).toEqual({ field: 'since', code: 'range' });
    expect(of(() => validateChangesSinceRequest({ ...base, since: 0.5 }))).toEqual({ field: 'since', code: 'type' });
    expect(of(() => validateChangesSinceRequest({ ...base }))).toEqual({ field: 'since', code: 'required' });
    expect(of(() => validateChangesSinceRequest({ ...base, since: 0, limit: 0 }))).toEqual({ field: 'limit', code: 'range' });
    expect(of(() => validateChangesSinceRequest({ ...base, agentId: 'other', since: 0 }))).toEqual({ field: 'agentId', code: 'mismatch' });
  });

  it('R1: positional identities are checked left to right: key first, then agent, then their agreement', () => {
    expect(() => validateIdentity(CHILD, A)).not.toThrow();
    expect(() => validateIdentity('global', 'any')).not.toThrow();
    expect(of(() => validateIdentity('agent:main:\uDC00', 5))).toEqual({ field: 'sessionKey', code: 'format' });
    expect(of(() => validateIdentity(7, 5))).toEqual({ field: 'sessionKey', code: 'type' });
    expect(of(() => validateIdentity(CHILD, 5))).toEqual({ field: 'agentId', code: 'type' });
    expect(of(() => validateIdentity(CHILD, 'bad id'))).toEqual({ field: 'agentId', code: 'format' });
    expect(of(() => validateIdentity(CHILD, 'other'))).toEqual({ field: 'agentId', code: 'mismatch' });
  });

  it('R1: validateSessionKey names the field it is given (default sessionKey)', () => {
    expect(() => validateSessionKey(CHILD)).not.toThrow();
    expect(of(() => validateSessionKey('\uD800'))).toEqual({ field: 'sessionKey', code: 'format' });
    expect(of(() => validateSessionKey('a\u200bb', 'watcher'))).toEqual({ field: 'watcher', code: 'format' });
    expect(of(() => validateSessionKey('x\uDFFF', 'watcher'))).toEqual({ field: 'watcher', code: 'format' });
    expect(of(() => validateSessionKey(undefined, 'watcher'))).toEqual({ field: 'watcher', code: 'type' });
  });

  it('R30, R9: validateVersion takes 0..2^53-1 integers and names the given field', () => {
    expect(() => validateVersion(0, 'since')).not.toThrow();
    expect(() => validateVersion(Number.MAX_SAFE_INTEGER, 'since')).not.toThrow();
    expect(of(() => validateVersion(-1, 'since'))).toEqual({ field: 'since', code: 'range' });
    expect(of(() => validateVersion('3', 'since'))).toEqual({ field: 'since', code: 'type' });
  });
});

describe('R27b ackNotices arguments', () => {
  it('R27b: each bad entry is named by index and field; a non-array is "type" on notices', () => {
    expect(of(() => validateNoticeAcks('', []))).toEqual({ field: 'watcherSessionKey', code: 'range' });
    expect(of(() => validateNoticeAcks('agent:main:\uD800', []))).toEqual({ field: 'watcherSessionKey', code: 'format' });
    expect(of(() => validateNoticeAcks(PARENT, {}))).toEqual({ field: 'notices', code: 'type' });
    expect(of(() => validateNoticeAcks(PARENT, [{ contextKey: 'k', lastSeenSequence: 0 }, { contextKey: 'k' }]))).toEqual({ field: 'notices.1.lastSeenSequence', code: 'required' });
    expect(of(() => validateNoticeAcks(PARENT, [{ contextKey: 'k', lastSeenSequence: -1 }]))).toEqual({ field: 'notices.0.lastSeenSequence', code: 'range' });
    expect(of(() => validateNoticeAcks(PARENT, [{ contextKey: 5, lastSeenSequence: 1 }]))).toEqual({ field: 'notices.0.contextKey', code: 'type' });
    expect(of(() => validateNoticeAcks(PARENT, [{ contextKey: 'k'.repeat(4097), lastSeenSequence: 1 }]))).toEqual({ field: 'notices.0.contextKey', code: 'range' });
  });

  it('R27b: only contextKey and lastSeenSequence are kept, copied, so later edits by the caller change nothing', () => {
    const notice = { contextKey: 'session-state:6d:6d', lastSeenSequence: 3, text: 'x', wake: 'immediate', watcherSessionKey: PARENT };
    const list: unknown[] = [notice];
    const valid = validateNoticeAcks(PARENT, list);
    expect(valid).toEqual({ watcherSessionKey: PARENT, notices: [{ contextKey: 'session-state:6d:6d', lastSeenSequence: 3 }] });
    notice.lastSeenSequence = 9;
    list.push({ contextKey: 'other', lastSeenSequence: 1 });
    expect(valid.notices).toEqual([{ contextKey: 'session-state:6d:6d', lastSeenSequence: 3 }]);
  });

  it('R27b: the most notices one call takes is maxNoticesPerAck; one more is "range" on notices', () => {
    const ack = { contextKey: 'k', lastSeenSequence: 1 };
    expect(validateNoticeAcks(PARENT, Array(LIMITS.maxNoticesPerAck).fill(ack)).notices).toHaveLength(LIMITS.maxNoticesPerAck);
    expect(of(() => validateNoticeAcks(PARENT, Array(LIMITS.maxNoticesPerAck + 1).fill(ack)))).toEqual({ field: 'notices', code: 'range' });
  });
});

describe('R9 assertSchema on its own (rows read back, tool arguments)', () => {
  it('R9: without a prefix the field is the path inside the value, or "(input)" for the value itself', () => {
    expect(of(() => assertSchema(SessionKey, 5))).toEqual({ field: '(input)', code: 'type' });
    expect(of(() => assertSchema(AgentId, ''))).toEqual({ field: '(input)', code: 'range' });
    expect(of(() => assertSchema(RecordInput, {}))).toEqual({ field: 'sessionKey', code: 'required' });
    expect(of(() => assertSchema(RecordInput, { ...human(CHILD), note: 1 }))).toEqual({ field: 'note', code: 'unknown-field' });
    expect(of(() => assertSchema(RecordInput, { ...human(CHILD), watchers: [PARENT, 5] }))).toEqual({ field: 'watchers.1', code: 'type' });
    expect(of(() => assertSchema(NoticeAcks, [{ contextKey: 'k' }]))).toEqual({ field: '0.lastSeenSequence', code: 'required' });
  });

  it('R9: a closed-set refusal lists the allowed values of the field it names, and only those', () => {
    const r = refusal(() => assertSchema(RecordInput, { ...human(CHILD), actorType: 'robot', payload: { outcome: 'exploded' } }));
    expect({ field: r.field, code: r.code }).toEqual({ field: 'actorType', code: 'type' });
    for (const actor of ['human', 'agent', 'system']) expect(r.message).toContain(actor);
    expect(r.message).not.toContain('cancelled');
    expect(r.message).not.toContain('undefined');
  });

  it('R9: with a prefix the field is prefix.path; a valid value passes', () => {
    expect(() => assertSchema(NoticeAcks, [{ contextKey: 'k', lastSeenSequence: 1 }], 'notices')).not.toThrow();
    expect(of(() => assertSchema(Version, 'x', 'since'))).toEqual({ field: 'since', code: 'type' });
    expect(of(() => assertSchema(NoticeAcks, [{ contextKey: 'k', lastSeenSequence: 1 }, { contextKey: 'k', lastSeenSequence: 'x' }], 'acks'))).toEqual({ field: 'acks.1.lastSeenSequence', code: 'type' });
    expect(of(() => assertSchema(RecordInput, {}, 'input'))).toEqual({ field: 'input.sessionKey', code: 'required' });
  });
});

describe('R9 a refused record writes nothing', () => {
  it('R9: a refused record with watchers leaves no event, no head and no notice', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
    for (const bad of [
      { payload: { channel: 'telegram', text: 'hello' } },
      { watchers: ['agent:main:w', 'agent:main:\uD800'] },
      { agentId: 'other' },
      { summary: 'x'.repeat(201) },
      { payload: new Date(0) },
    ]) {
      expect(() => store.record(human(CHILD, { watchers: ['agent:main:w'], ...bad })), JSON.stringify(bad)).toThrow(ValidationError);
    }
    expect(await store.stateVersion(CHILD, A)).toBe(0);
    expect(await store.pendingNotices(PARENT)).toEqual([]);
    expect(await store.pendingNotices('agent:main:w')).toEqual([]);
    expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events).toEqual([]);
  });

  it('R27b: refused acks ack nothing', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
    await store.record(human(CHILD));
    const [notice] = await store.pendingNotices(PARENT);
    expect(notice).toBeDefined();
    expect(() => store.ackNotices(PARENT, [notice!, { contextKey: notice!.contextKey, lastSeenSequence: -1 }])).toThrow(ValidationError);
    expect(await store.pendingNotices(PARENT)).toEqual([notice]);
  });
});
