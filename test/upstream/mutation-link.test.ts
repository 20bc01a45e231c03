import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MAX_LINK_JSON,
  ambiguousKeys,
  assertJson,
  canonicalJson,
  compareLinks,
  createLink,
  humanDedupeKey,
  linkHash,
  missingDedupeKey,
  positionToken,
  refreshLink,
  sameSource,
  structuredJson,
  validateContinueInput,
  type JsonObject,
  type UpstreamLink,
} from '../../src/core/upstream/index.js';
import { isValidationError } from '../../src/core/index.js';
import { A, T0, TARGET, continueInput } from './helpers.js';

/** Links, their validation and their dedupe keys (U1, U2, U3, U5), against the mutants the mutation run (mutation/) left alive. */

function rejects(fn: () => unknown): { field: string; code: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(isValidationError(error), String(error)).toBe(true);
    return error as { field: string; code: string; message: string };
  }
  throw new Error('expected a ValidationError');
}

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const base = () => createLink(continueInput('/tmp/a.jsonl'), { offset: 0, epoch: 0 }, 3, T0);

describe('U1 R9 a ref or marker must be plain JSON; the error names the path and the reason', () => {
  it('R9 an unknown Continue field is named (unknown-field)', () => {
    expect(rejects(() => validateContinueInput({ ...continueInput('/x'), extra: 1 } as never))).toMatchObject({ field: 'extra', code: 'unknown-field' });
  });

  it('R9 plain values pass', () => {
    for (const v of [null, true, false, 0, -1.5, '', 'text \u{1f600}', [], {}, { a: [1, { b: null }] }]) expect(() => assertJson(v, 'ref')).not.toThrow();
    expect(() => assertJson(Object.create(null) as object, 'ref')).toThrow();
  });

  it('R9 non-finite numbers are a type error at their path', () => {
    for (const n of [Number.NaN, Infinity, -Infinity]) expect(rejects(() => assertJson({ a: [0, n] }, 'ref'))).toMatchObject({ field: 'ref.a.1', code: 'type', message: expect.stringMatching(/finite/) });
  });

  it('R1 R9 a lone surrogate in a string (not in a pair) is a format error', () => {
    expect(rejects(() => assertJson({ p: 'x\ud800' }, 'ref'))).toMatchObject({ field: 'ref.p', code: 'format', message: expect.stringMatching(/surrogate/) });
    expect(rejects(() => assertJson(['ok', '\udc00'], 'marker'))).toMatchObject({ field: 'marker.1', code: 'format' });
  });

  it('R9 undefined, functions, symbols, bigints, dates, maps and class instances are not plain JSON', () => {
    class Thing {}
    for (const v of [undefined, () => 1, Symbol('s'), 1n, new Date(0), new Map(), new Thing(), Object.create(null)]) {
      expect(rejects(() => assertJson({ k: v }, 'ref'))).toMatchObject({ field: 'ref.k', code: 'type', message: 'ref.k: must be plain JSON' });
    }
  });
});

describe('U3 canonical JSON: equal refs compare and hash equal, whatever their key order', () => {
  it('U3 sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).toBe('[2,1]');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('s"q')).toBe('"s\\"q"');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });

  it('U3 structuredJson is a deep copy', () => {
    const v: JsonObject = { a: [1, { b: 2 }] };
    const c = structuredJson(v) as JsonObject;
    expect(c).toEqual(v);
    ((c['a'] as JsonObject[])[1] as JsonObject)['b'] = 9;
    expect(v).toEqual({ a: [1, { b: 2 }] });
  });
});

describe('U1 U3 R9 validating a Continue', () => {
  it('R1 a lone surrogate in the thread id is a format error naming threadId', () => {
    expect(rejects(() => validateContinueInput({ ...continueInput('/x'), threadId: 'th\udfffread' }))).toMatchObject({ field: 'threadId', code: 'format', message: expect.stringMatching(/surrogate/) });
    expect(rejects(() => validateContinueInput({ ...continueInput('/x'), sessionKey: 'agent:main:a\ud800b' }))).toMatchObject({ field: 'sessionKey' });
  });

  it('R1 U1 an agent-scoped key must name the same agent (code mismatch); a key without agent scope takes any agent', () => {
    const e = rejects(() => validateContinueInput({ ...continueInput('/x'), agentId: 'other' }));
    expect(e).toMatchObject({ field: 'agentId', code: 'mismatch' });
    expect(e.message).toContain('"other"');
    expect(validateContinueInput({ ...continueInput('/x'), sessionKey: 'global-key', agentId: 'other' }).agentId).toBe('other');
  });

  it('U3 R9 a ref up to 4096 characters of canonical JSON is accepted; one more is a range error', () => {
    const refOf = (n: number) => ({ p: 'x'.repeat(n - '{"p":""}'.length) });
    expect(canonicalJson(refOf(MAX_LINK_JSON)).length).toBe(4096);
    expect(validateContinueInput({ ...continueInput('/x'), ref: refOf(MAX_LINK_JSON) }).ref).toEqual(refOf(MAX_LINK_JSON));
    // The message names the limit, so the caller knows how far over it is.
    expect(rejects(() => validateContinueInput({ ...continueInput('/x'), ref: refOf(MAX_LINK_JSON + 1) }))).toMatchObject({ field: 'ref', code: 'range', message: expect.stringMatching(/4096/) });
  });

  it('R9a the result is a copy: changing the caller object afterwards changes nothing', () => {
    const raw = continueInput('/x');
    const v = validateContinueInput(raw);
    (raw.ref as { filePath: string }).filePath = '/changed';
    expect(v.ref).toEqual({ filePath: '/x' });
  });
});

describe('U3 same source, refresh and new incarnations', () => {
  it('U3 host, thread, kind and ref each change the source; the catalog and the ref key order do not', () => {
    const l = createLink(continueInput('/tmp/a.jsonl', { ref: { filePath: '/a', n: 1 } }), null, 1, T0);
    const same = continueInput('/tmp/a.jsonl', { ref: { n: 1, filePath: '/a' }, catalogId: 'other-catalog' });
    expect(sameSource(l, same)).toBe(true);
    expect(sameSource(l, { ...same, hostId: 'node:2' })).toBe(false);
    expect(sameSource(l, { ...same, threadId: 't2' })).toBe(false);
    expect(sameSource(l, { ...same, upstreamKind: 'codex-jsonl' })).toBe(false);
    expect(sameSource(l, { ...same, ref: { filePath: '/a', n: 2 } })).toBe(false);
  });

  it('U3 a refresh takes the new catalog, clears the status note and keeps a blocked cursor blocked (with its note)', () => {
    const l: UpstreamLink = { ...base(), status: 'inconclusive', statusDetail: 'EIO', lastCheckedAt: T0 + 1 };
    const r = refreshLink(l, continueInput('/tmp/a.jsonl', { catalogId: 'claude2' }), T0 + 9);
    expect(r).toEqual({ ...l, catalogId: 'claude2', generation: 2, revision: l.revision + 1, missCount: 0, status: 'new', updatedAt: T0 + 9, statusDetail: undefined });
    expect('statusDetail' in r).toBe(false);
    expect(r.createdAt).toBe(T0);
    const b = refreshLink({ ...l, status: 'blocked', statusDetail: 'blocked: line exceeds 1 MiB at offset 5', missCount: 2 }, continueInput('/tmp/a.jsonl'), T0 + 9);
    expect(b).toMatchObject({ status: 'blocked', statusDetail: 'blocked: line exceeds 1 MiB at offset 5', missCount: 0 });
  });

  it('U3 a new incarnation: generation 1, miss count 0, status new, revision after the previous link, no check time', () => {
    const input = continueInput('/tmp/a.jsonl');
    const l = createLink(input, { offset: 9, epoch: 0 }, 5, T0);
    expect(l).toEqual({
      sessionKey: TARGET,
      agentId: A,
      catalogId: 'claude',
      hostId: 'gateway:local',
      threadId: 'thread-1',
      upstreamKind: 'claude-jsonl',
      ref: { filePath: '/tmp/a.jsonl' },
      marker: { offset: 9, epoch: 0 },
      serial: 5,
      generation: 1,
      revision: 1,
      missCount: 0,
      status: 'new',
      createdAt: T0,
      updatedAt: T0,
    });
    expect(createLink(input, null, 6, T0, { ...l, revision: 41 }).revision).toBe(42);
    // Copies: the caller's ref and marker objects stay the caller's.
    const marker = { offset: 1, epoch: 0 };
    const c = createLink(input, marker, 7, T0);
    marker.offset = 99;
    (input.ref as { filePath: string }).filePath = '/changed';
    expect(c.marker).toEqual({ offset: 1, epoch: 0 });
    expect(c.ref).toEqual({ filePath: '/tmp/a.jsonl' });
  });

  it('U3 R9 the serial must be a positive safe integer; the marker plain JSON of at most 4096 characters', () => {
    for (const s of [0, -1, 1.5, 2 ** 53, Number.NaN]) expect(rejects(() => createLink(continueInput('/a'), null, s, T0))).toMatchObject({ field: 'serial', code: 'range', message: expect.stringMatching(/positive/) });
    expect(createLink(continueInput('/a'), null, 1, T0).serial).toBe(1);
    expect(createLink(continueInput('/a'), null, 2 ** 53 - 1, T0).serial).toBe(2 ** 53 - 1);
    expect(rejects(() => createLink(continueInput('/a'), { offset: Number.NaN } as never, 1, T0))).toMatchObject({ field: 'marker.offset', code: 'type' });
    const markerOf = (n: number) => ({ p: 'x'.repeat(n - '{"p":""}'.length) });
    expect(createLink(continueInput('/a'), markerOf(MAX_LINK_JSON), 1, T0).marker).toEqual(markerOf(MAX_LINK_JSON));
    expect(rejects(() => createLink(continueInput('/a'), markerOf(MAX_LINK_JSON + 1), 1, T0))).toMatchObject({ field: 'marker', code: 'range', message: expect.stringMatching(/4096/) });
  });
});

describe('U1 U8 ownership and check order', () => {
  it('U1 a key is ambiguous only when two different agents link it', () => {
    expect([...ambiguousKeys([{ sessionKey: 'k', agentId: 'a' }, { sessionKey: 'k', agentId: 'a' }])]).toEqual([]);
    expect([...ambiguousKeys([])]).toEqual([]);
    const three = ambiguousKeys([
      { sessionKey: 'k1', agentId: 'a' },
      { sessionKey: 'k2', agentId: 'a' },
      { sessionKey: 'k1', agentId: 'b' },
      { sessionKey: 'k2', agentId: 'a' },
      { sessionKey: 'k3', agentId: 'c' },
      { sessionKey: 'k3', agentId: 'd' },
    ]);
    expect([...three].sort()).toEqual(['k1', 'k3']);
  });

  it('U8 links are checked by catalog, then session key, then agent; ties are 0', () => {
    const l = (catalogId: string, sessionKey: string, agentId: string) => ({ ...base(), catalogId, sessionKey, agentId });
    expect(compareLinks(l('a', 'z', 'z'), l('b', 'a', 'a'))).toBe(-1);
    expect(compareLinks(l('b', 'a', 'a'), l('a', 'z', 'z'))).toBe(1);
    expect(compareLinks(l('a', 'k1', 'z'), l('a', 'k2', 'a'))).toBe(-1);
    expect(compareLinks(l('a', 'k2', 'a'), l('a', 'k1', 'z'))).toBe(1);
    expect(compareLinks(l('a', 'k', 'x'), l('a', 'k', 'y'))).toBe(-1);
    expect(compareLinks(l('a', 'k', 'y'), l('a', 'k', 'x'))).toBe(1);
    expect(compareLinks(l('a', 'k', 'x'), l('a', 'k', 'x'))).toBe(0);
    // UTF-16 code units, not locale order: 'B' < 'a'.
    expect([l('a', 'k', 'a'), l('a', 'k', 'B')].sort(compareLinks).map((x) => x.agentId)).toEqual(['B', 'a']);
  });
});

describe('U2 U5 dedupe keys', () => {
  it('U5 linkHash is 16 hex digits of SHA-256 over agent, key, host, thread, kind and canonical ref joined by U+0000', () => {
    const l = { ...base(), ref: { z: 1, a: 2 } };
    const expected = sha([A, TARGET, 'gateway:local', 'thread-1', 'claude-jsonl', '{"a":2,"z":1}'].join('\u0000')).slice(0, 16);
    expect(linkHash(l)).toBe(expected);
    expect(humanDedupeKey(l, '0.120')).toBe(`upstream:${expected}:3:0.120`);
    expect(missingDedupeKey({ ...l, generation: 4 })).toBe(`upstream-missing:${expected}:3:4`);
    // Every part separates: no two of these collide.
    const variants = [l, { ...l, agentId: 'b' }, { ...l, sessionKey: 'other' }, { ...l, hostId: 'h2' }, { ...l, threadId: 't2' }, { ...l, upstreamKind: 'k2' }, { ...l, ref: { z: 1, a: 3 } }];
    expect(new Set(variants.map(linkHash)).size).toBe(variants.length);
  });

  it('U5 a position is used verbatim when it is 1..128 of [A-Za-z0-9._:-], otherwise h + 32 hex of its SHA-256', () => {
    for (const p of ['a', 'A-z_9.:-', '0.0', 'x'.repeat(128), 'msg_01:abc']) expect(positionToken(p)).toBe(p);
    for (const p of ['', 'x'.repeat(129), 'a b', 'a/b', 'a+b', 'é', 'ab\n', '\nab', 'id~before']) expect(positionToken(p)).toBe(`h${sha(p).slice(0, 32)}`);
  });
});
