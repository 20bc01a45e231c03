/**
 * R1, R24, R25: key grammar edges and strict context-key decoding. A context key that does not
 * decode strictly is foreign and must name no target (so an ack by it acks nothing): malformed
 * hex, bytes that are not strict UTF-8 (overlong forms, surrogates, past U+10FFFF, truncated
 * sequences, stray continuation bytes), an empty part or a third part.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeContextKey,
  encodeContextKey,
  identityKey,
  isAgentScopedKey,
  isSubagentKey,
  isWellFormed,
  parseAgentScopedKey,
} from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { T0, human } from '../contract/harness.js';

const ck = (agentHex: string, keyHex: string) => `session-state:${agentHex}:${keyHex}`;
const MAIN = '6d61696e'; // "main"

describe('R24 UTF-8 encoding at every length boundary', () => {
  it('R24: code points at the 1/2/3/4-byte boundaries encode to their exact UTF-8 bytes and decode back', () => {
    const cases: [string, string][] = [
      ['\u0001', '01'],
      ['\u007f', '7f'],
      ['\u0080', 'c280'],
      ['\u07ff', 'dfbf'],
      ['\u0800', 'e0a080'],
      ['\ud7ff', 'ed9fbf'],
      ['\ue000', 'ee8080'],
      ['\uffff', 'efbfbf'],
      ['\u{10000}', 'f0908080'],
      ['\u{10ffff}', 'f48fbfbf'],
      ['\u{1f600}', 'f09f9880'],
    ];
    for (const [text, hex] of cases) {
      expect(encodeContextKey('main', text), hex).toBe(ck(MAIN, hex));
      expect(decodeContextKey(ck(MAIN, hex)), hex).toEqual({ targetAgentId: 'main', targetSessionKey: text });
    }
    const all = cases.map(([t]) => t).join('');
    expect(decodeContextKey(encodeContextKey('A.b-c_9', `agent:x:${all}`))).toEqual({ targetAgentId: 'A.b-c_9', targetSessionKey: `agent:x:${all}` });
  });

  it('R24: the agent id and the key are encoded separately, agent first', () => {
    expect(encodeContextKey('a', 'b')).toBe('session-state:61:62');
    expect(decodeContextKey('session-state:61:62')).toEqual({ targetAgentId: 'a', targetSessionKey: 'b' });
  });
});

describe('R24 strict decoding fails closed', () => {
  it('R24: malformed hex names nothing: empty part, odd length, non-hex digit, sign or space', () => {
    for (const bad of [
      ck('', '6d'),
      ck(MAIN, ''),
      ck(MAIN, '6'),
      ck(MAIN, '6d6'),
      ck('6', '6d'),
      ck(MAIN, '6g'),
      ck(MAIN, 'g6'),
      ck(MAIN, '-1'),
      ck(MAIN, ' 6d'),
      ck(MAIN, '6d '),
      ck(MAIN, '0x6d'),
      ck(`${MAIN}zz`, '6d'),
    ]) {
      expect(decodeContextKey(bad), bad).toBeUndefined();
    }
  });

  it('R24: a wrong prefix or a third part names nothing', () => {
    for (const bad of ['session-state/6d:6d', 'session_state:6d:6d', 'session-state', 'session-stat:6d:6d', 'xsession-state:6d:6d', ` ${ck(MAIN, '6d')}`, `${ck(MAIN, '6d')}:6d`, 'session-state:6d6d', ck(MAIN, '6d') + ':']) {
      expect(decodeContextKey(bad), bad).toBeUndefined();
    }
  });

  it('R24: bytes that are not strict UTF-8 name nothing', () => {
    for (const [bytes, why] of [
      ['80', 'a lone continuation byte'],
      ['bf', 'a lone continuation byte'],
      ['c0af', 'overlong 2-byte lead c0'],
      ['c1bf', 'overlong 2-byte lead c1'],
      ['c2', 'truncated 2-byte'],
      ['c228', 'a 2-byte lead followed by ASCII'],
      ['c2c0', 'a 2-byte lead followed by a lead'],
      ['e080af', 'overlong 3-byte'],
      ['e09fbf', 'overlong 3-byte, just below U+0800'],
      ['eda080', 'UTF-16 high surrogate U+D800'],
      ['edbfbf', 'UTF-16 low surrogate U+DFFF'],
      ['e282', 'truncated 3-byte'],
      ['e28228', '3-byte with an ASCII third byte'],
      ['f08f bfbf'.replace(' ', ''), 'overlong 4-byte, just below U+10000'],
      ['f4908080', 'past U+10FFFF'],
      ['f5808080', 'lead f5'],
      ['f8', 'lead f8'],
      ['ff', 'lead ff'],
      ['fe', 'lead fe'],
      ['f09f98', 'truncated 4-byte'],
      ['f09f9828', '4-byte with an ASCII last byte'],
      ['6dc2', 'valid text then a truncated sequence'],
      ['bf80', 'a continuation byte used as a 2-byte lead'],
      ['bfbfbf', 'a continuation byte used as a 3-byte lead'],
      ['81808080', 'a continuation byte used as a 4-byte lead'],
      ['f9808080', 'lead f9 (would be U+40000 if taken as a 4-byte lead)'],
    ] as const) {
      expect(decodeContextKey(ck(MAIN, bytes)), `${bytes}: ${why}`).toBeUndefined();
      expect(decodeContextKey(ck(bytes, '6d')), `agent ${bytes}: ${why}`).toBeUndefined();
    }
  });

  it('R24: upper-case hex and prefix decode to the same target (the key is case-insensitive hex)', () => {
    expect(decodeContextKey('Session-State:6D61696E:C3A9')).toEqual({ targetAgentId: 'main', targetSessionKey: 'é' });
  });

  it('R24, R27b: an ack by a foreign or corrupt context key acks nothing in a store', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const W = 'agent:main:main';
    const T = 'agent:main:peer';
    await store.watch({ watcherSessionKey: W, targetSessionKey: T, agentId: 'main' });
    await store.record(human(T));
    const [notice] = await store.pendingNotices(W);
    expect(notice).toBeDefined();
    const good = notice!.contextKey;
    // The same target's key with a byte changed into an overlong or truncated form.
    const corrupt = [good + '80', good.slice(0, -1), good.replace('session-state:', 'session-state:c0'), `${good}:00`];
    expect(await store.ackNotices(W, corrupt.map((contextKey) => ({ contextKey, lastSeenSequence: notice!.lastSeenSequence })))).toEqual([]);
    expect(await store.pendingNotices(W)).toEqual([notice]);
    expect(await store.ackNotices(W, [{ contextKey: good.toUpperCase(), lastSeenSequence: notice!.lastSeenSequence }])).toEqual([notice]);
  });
});

describe('R1, R13, R25 key grammar edges', () => {
  it('R1: the agent segment is 1..64 characters of the agent-id grammar', () => {
    const a64 = `a${'b'.repeat(63)}`;
    expect(parseAgentScopedKey(`agent:${a64}:x`)).toEqual({ agentId: a64, rest: 'x' });
    expect(parseAgentScopedKey(`agent:${a64}b:x`)).toBeUndefined();
    expect(parseAgentScopedKey('agent:a:x')).toEqual({ agentId: 'a', rest: 'x' });
    expect(parseAgentScopedKey('agent:A.b_c-9:x:y')).toEqual({ agentId: 'A.b_c-9', rest: 'x:y' });
    for (const bad of ['agent:.a:x', 'agent:-a:x', 'agent:_a:x', 'agent:a b:x', 'agent:a/b:x', 'agent:é:x']) expect(parseAgentScopedKey(bad), bad).toBeUndefined();
  });

  it('R1: the rest is everything after the second colon, colons included, and must be non-empty', () => {
    expect(parseAgentScopedKey('agent:main::')).toEqual({ agentId: 'main', rest: ':' });
    expect(parseAgentScopedKey('agent:main: ')).toEqual({ agentId: 'main', rest: ' ' });
    expect(isAgentScopedKey('agent:main:')).toBe(false);
    expect(isAgentScopedKey('agent:main:x')).toBe(true);
  });

  it('R25: a sub-agent key is one whose rest starts with "subagent:"', () => {
    expect(isSubagentKey('agent:main:subagent:')).toBe(true);
    expect(isSubagentKey('agent:main:subagentx')).toBe(false);
    expect(isSubagentKey('agent:main:x:subagent:y')).toBe(false);
    expect(isSubagentKey('global')).toBe(false);
  });

  it('R1: a surrogate pair is well-formed anywhere; a lone half is not, at any position', () => {
    expect(isWellFormed('')).toBe(true);
    expect(isWellFormed('\ud800\udc00')).toBe(true);
    expect(isWellFormed('\udbff\udfff')).toBe(true);
    expect(isWellFormed('a\ud7ffb\ue000')).toBe(true); // neighbours of the surrogate block
    expect(isWellFormed('\ud800\ue000')).toBe(false); // a high surrogate before a non-surrogate above the block
    for (const bad of ['\ud800', '\udbff', '\udc00', '\udfff', 'a\udc00\ud800b', '\ud800\ud800\udc00', '\ud800a', '\udbffx']) expect(isWellFormed(bad), JSON.stringify(bad)).toBe(false);
  });

  it('R20: identity keys of different (key, agent) pairs never collide', () => {
    expect(identityKey('a', 'b')).not.toBe(identityKey('b', 'a'));
    expect(identityKey('x:y', 'a')).not.toBe(identityKey('y', 'a:x'));
    expect(identityKey('k', 'a')).toBe(identityKey('k', 'a'));
  });
});
