import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { decodeContextKey, encodeContextKey, isValidAgentId, isValidSessionKey } from '../../src/core/keys.js';

/**
 * R1, R9d, R24: the key checks a value read back from a shared file must pass, and the context
 * key's decode refusing anything encodeContextKey cannot have written. Exact answers, by case.
 */
describe('R1 R9d the key checks for values read back', () => {
  it('R1 a session key: a string of 1 to keyMaxLength well-formed characters without controls or quotation marks', () => {
    for (const ok of ['a', 'agent:main:x', 'x'.repeat(LIMITS.keyMaxLength), 'agent:main:é', 'agent:main:日本', 'é'.repeat(LIMITS.keyMaxLength), 'agent:main:😀']) expect(isValidSessionKey(ok)).toBe(true);
    for (const bad of [undefined, null, 7, {}, '', 'x'.repeat(LIMITS.keyMaxLength + 1), 'é'.repeat(LIMITS.keyMaxLength + 1), 'é\ud800', '\udc00x', 'say "hi"', 'é"', 'tab\there', 'é\n', 'é\u2028', "it's", "é'", 'a"b', '"ab', 'ab"']) {
      expect({ bad, valid: isValidSessionKey(bad) }).toEqual({ bad, valid: false });
    }
  });

  it('R1 an agent id: a letter or digit, then up to 63 of letters, digits, _ . -', () => {
    for (const ok of ['main', 'A', '9', 'a_b.c-d', `a${'b'.repeat(63)}`]) expect(isValidAgentId(ok)).toBe(true);
    for (const bad of [undefined, 3, '', '-a', '_a', 'a b', 'a:b', `a${'b'.repeat(64)}`, 'é']) expect(isValidAgentId(bad)).toBe(false);
  });
});

describe('R24 decodeContextKey takes back only what encodeContextKey writes', () => {
  it('R24 round trip (upper-case hex read as lower), and refusal of empty, odd or non-hex parts and of bad UTF-8', () => {
    const key = encodeContextKey('main', 'agent:main:é😀');
    expect(decodeContextKey(key)).toEqual({ targetAgentId: 'main', targetSessionKey: 'agent:main:é😀' });
    const [prefix, agent, target] = [key.slice(0, key.indexOf(':') + 1), key.split(':')[1]!, key.split(':')[2]!];
    expect(prefix).toBe('session-state:');
    expect(decodeContextKey(key.toUpperCase())).toEqual({ targetAgentId: 'main', targetSessionKey: 'agent:main:é😀' });
    for (const bad of [`${prefix}:${target}`, `${prefix}${agent}:`, `${prefix}${agent}:${target}0`, `${prefix}${agent}:${target.slice(0, -2)}zz`, `${prefix}${agent}:ff`, `${prefix}${agent}:c3`]) {
      expect(decodeContextKey(bad)).toBeUndefined();
    }
  });
});
