import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyPart, planHookStep, runtimeSessionKey, runtimeSubagentKey, type HookPlan } from '../../src/integrations/hook-plan.js';

/** T17: keys and dedupe keys built from runtime ids are unambiguous (ids are encoded, not just joined). */
const o = { agentId: 'claude-code', channel: 'claude-code', dedupeSpace: 'claude-code' };
const spawnPlan = (sessionId: string, subagentId: string) => planHookStep({ type: 'subagent_start', hookEvent: 'SubagentStart', sessionId, subagentId }, o) as HookPlan;

describe('T17 key encoding', () => {
  it('T17 session "s1:x" with sub-agent "y" and session "s1" with sub-agent "x:y" are two sessions with two dedupe keys', () => {
    const a = spawnPlan('s1:x', 'y');
    const b = spawnPlan('s1', 'x:y');
    expect(a.sessionKey).not.toBe(b.sessionKey);
    expect(a.records[0]!.dedupeKey).not.toBe(b.records[0]!.dedupeKey);
  });

  it('T17 a main session id cannot spell a sub-agent\'s key', () => {
    expect(runtimeSessionKey('claude-code', 'subagent:s1:y')).not.toBe(runtimeSubagentKey('claude-code', 's1', 'y'));
  });

  it('T17 ids without ":" or "%" (UUIDs, thread ids) keep the keys they always had', () => {
    expect(runtimeSessionKey('codex', '019a7c2e-5b1d-7f30-9c4e-2d8a6b1f0e93')).toBe('agent:codex:019a7c2e-5b1d-7f30-9c4e-2d8a6b1f0e93');
    expect(runtimeSubagentKey('claude-code', 'abc', 'def')).toBe('agent:claude-code:subagent:abc:def');
  });

  it('T17 property: moving a ":" between the session id and the sub-agent id never yields the same child key or dedupe key', () => {
    const part = fc.stringMatching(/^[a-z0-9%]{1,5}$/);
    fc.assert(
      fc.property(part, part, part, (x, y, z) => {
        const p = spawnPlan(`${x}:${y}`, z);
        const q = spawnPlan(x, `${y}:${z}`);
        expect(p.sessionKey).not.toBe(q.sessionKey);
        expect(p.records[0]!.dedupeKey).not.toBe(q.records[0]!.dedupeKey);
        expect(keyPart(`${x}:${y}`)).not.toBe(`${keyPart(x)}:${keyPart(y)}`);
      }),
      { numRuns: 300, seed: 17 },
    );
  });
});
