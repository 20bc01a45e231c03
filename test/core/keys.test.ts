import { describe, expect, it } from 'vitest';
import { decodeContextKey, encodeContextKey, isAgentScopedKey, isSubagentKey, isWellFormed, parseAgentScopedKey } from '../../src/core/index.js';

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
  it('matches the protocol encoding exactly (UTF-8 hex, lowercase)', () => {
    expect(encodeContextKey('main', 'é')).toBe('session-state:6d61696e:c3a9');
    expect(decodeContextKey('SESSION-STATE:6D61696E:C3A9')).toEqual({ targetAgentId: 'main', targetSessionKey: 'é' });
  });
});
