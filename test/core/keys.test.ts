import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextKeyEncoder, decodeContextKey, encodeContextKey, isAgentScopedKey, isSubagentKey, isWellFormed, parseAgentScopedKey } from '../../src/core/index.js';

describe('R1 key grammar', () => {
  it('agent-scoped keys are agent:<agentId>:<rest>', () => {
    expect(parseAgentScopedKey('agent:main:subagent:x')).toEqual({ agentId: 'main', rest: 'subagent:x' });
    for (const bare of ['global', 'main', 'agent:', 'agent:main', 'agent:main:', 'agent::x', 'Agent:main:x', ' agent:main:x']) {
      expect(isAgentScopedKey(bare), bare).toBe(false);
    }
  });
  it('R25 sub-agent keys', () => {
    expect(isSubagentKey('agent:main:subagent:x')).toBe(true);
    expect(isSubagentKey('agent:main:main')).toBe(false);
    expect(isSubagentKey('subagent:x')).toBe(false);
  });
  it('well-formedness rejects lone surrogates only', () => {
    expect(isWellFormed('a😀b')).toBe(true);
    expect(isWellFormed('a\uD83Db')).toBe(false);
    expect(isWellFormed('\uDE00')).toBe(false);
    expect(isWellFormed('end\uD83D')).toBe(false);
  });
});

describe('R24 context keys', () => {
  it('round-trip keys, including multi-byte text and a leading BOM', () => {
    for (const key of ['agent:main:subagent:child', 'agent:main:дочерний', 'agent:main:😀', '\uFEFFagent:main:x']) {
      const ck = encodeContextKey('main', key);
      expect(ck).toMatch(/^session-state:[0-9a-f]+:[0-9a-f]+$/);
      expect(decodeContextKey(ck)).toEqual({ targetAgentId: 'main', targetSessionKey: key });
    }
  });
  it('fails closed on foreign or corrupt keys', () => {
    for (const bad of ['other:6d:6d', 'session-state:', 'session-state:6d', 'session-state:6d:abc', 'session-state:6d:zz', 'session-state:6d:ff', 'session-state:6d:c0af', 'session-state:6d:eda080', 'session-state:6d:f4908080', 'session-state:6d:e282']) {
      expect(decodeContextKey(bad), bad).toBeUndefined();
    }
  });
  // The encoder reads ASCII two characters at a time and hands the rest to the UTF-8 path: odd
  // lengths, a non-ASCII unit at an odd or even place, and astral characters are the edges.
  it('is the lowercase hex of the UTF-8 bytes for any well-formed text (a host encoder as oracle)', () => {
    const utf8Hex = (s: string) => Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, '0')).join('');
    const text = fc.array(fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 5 }), fc.string({ unit: 'grapheme', maxLength: 3 })), { maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text.filter((s) => s.length > 0), text.filter((s) => s.length > 0), (agentId, key) => {
        const expected = `session-state:${utf8Hex(agentId)}:${utf8Hex(key)}`;
        expect(encodeContextKey(agentId, key)).toBe(expected);
        const encode = contextKeyEncoder();
        expect(encode(agentId, key)).toBe(expected);
        expect(encode(agentId, `${key}x`)).toBe(`${expected}78`); // the kept agent prefix
        expect(encode('main', key)).toBe(`session-state:6d61696e:${utf8Hex(key)}`); // and a changed one
      }),
      { numRuns: 2000 },
    );
    expect(encodeContextKey('main', 'a\u00e9')).toBe('session-state:6d61696e:61c3a9');
    expect(encodeContextKey('main', 'ab\u{1F600}c')).toBe('session-state:6d61696e:6162f09f988063');
    expect(encodeContextKey('m', 'abc')).toBe('session-state:6d:616263');
    // The ASCII boundary, in a pair and alone at the end: U+007F is one byte, U+0080 two.
    expect(encodeContextKey('m', 'a\u007f')).toBe('session-state:6d:617f');
    expect(encodeContextKey('m', 'a\u0080')).toBe('session-state:6d:61c280');
    expect(encodeContextKey('m', '\u0080a')).toBe('session-state:6d:c28061');
    expect(encodeContextKey('m', 'ab\u0080')).toBe('session-state:6d:6162c280');
    expect(encodeContextKey('m', 'ab\u007f')).toBe('session-state:6d:61627f');
    expect(encodeContextKey('m', '\u0080\u0080')).toBe('session-state:6d:c280c280'); // the pair's OR is exactly 0x80
    // Every pair of the table, U+0000 included (R1 keeps it out of keys, but the encoding is exact).
    for (const pair of ['a\u0000', '\u0000a', '\u007f\u0000', '\u0001\u007f']) {
      expect(encodeContextKey('m', pair)).toBe(`session-state:6d:${Array.from(pair, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('')}`);
    }
  });
  it('matches the protocol encoding exactly (UTF-8 hex, lowercase)', () => {
    expect(encodeContextKey('main', 'é')).toBe('session-state:6d61696e:c3a9');
    expect(decodeContextKey('SESSION-STATE:6D61696E:C3A9')).toEqual({ targetAgentId: 'main', targetSessionKey: 'é' });
  });
});
