import { describe, expect, it } from 'vitest';
import { keyPart, planHookStep, quoteId, runtimeSessionKey, runtimeSubagentKey } from '../../src/integrations/hook-plan.js';

/**
 * T9, T17, T30-T34: the shared planner's own decisions: ids as key parts, the keys a runtime's ids
 * make (or cannot), ids quoted for one-line messages, and each refusal by its message.
 */
const o = { agentId: 'codex', channel: 'codex', dedupeSpace: 'codex' };

describe('T17 ids into keys', () => {
  it('T17 % and : are percent-encoded, nothing else', () => {
    expect(keyPart('a%b:c:%')).toBe('a%25b%3Ac%3A%25');
    expect(keyPart('019a-uuid_x.y')).toBe('019a-uuid_x.y');
  });

  it('T9 a session id makes agent:<agent>:<id> when R1 allows the key, and nothing otherwise', () => {
    expect(runtimeSessionKey('codex', 's-1')).toBe('agent:codex:s-1');
    expect(runtimeSessionKey('codex', 'a:b')).toBe('agent:codex:a%3Ab');
    for (const bad of ['', 7, undefined, 'say "hi"', 'x'.repeat(600), 'tab\there']) expect(runtimeSessionKey('codex', bad as string)).toBeUndefined();
    // An agent id R1 refuses makes no key either.
    expect(runtimeSessionKey('bad id', 's-1')).toBeUndefined();
    expect(runtimeSessionKey('-x', 's-1')).toBeUndefined();
  });

  it('T32 a sub-agent makes agent:<agent>:subagent:<session>:<agent id>, both ids present and R1-valid', () => {
    expect(runtimeSubagentKey('codex', 's:1', 'a%1')).toBe('agent:codex:subagent:s%3A1:a%251');
    for (const [session, sub] of [
      ['s', ''],
      ['s', 3],
      ['', 'a'],
      [4, 'a'],
      ['s', 'say "hi"'],
      ['say "hi"', 'a'],
      ['s', 'y'.repeat(600)],
    ] as const) {
      expect(runtimeSubagentKey('codex', session as string, sub as string)).toBeUndefined();
    }
    expect(runtimeSubagentKey('bad id', 's', 'a')).toBeUndefined();
  });

  it('T9 an id quoted for a message: JSON, cut at 40 characters of a string and 80 of the text', () => {
    expect(quoteId('abc')).toBe('"abc"');
    expect(quoteId('x'.repeat(40))).toBe(`"${'x'.repeat(40)}"`);
    expect(quoteId('x'.repeat(41))).toBe(`"${'x'.repeat(40)}…"`);
    expect(quoteId(42)).toBe('42');
    expect(quoteId(undefined)).toBe('undefined');
    expect(quoteId(null)).toBe('null');
    const long = { id: 'y'.repeat(100) };
    expect(quoteId(long)).toBe(`${JSON.stringify(long).slice(0, 80)}…`);
    // The text's own bound: 80 characters stay, 81 are cut.
    expect(quoteId({ id: 'y'.repeat(71) })).toBe(`{"id":"${'y'.repeat(71)}"}`);
    expect(quoteId({ id: 'y'.repeat(72) })).toBe(`${`{"id":"${'y'.repeat(72)}"}`.slice(0, 80)}…`);
  });
});

describe('T9 T30-T34 planHookStep refuses by name', () => {
  it('T9 a session id that makes no key, a sub-agent id that makes none', () => {
    expect(planHookStep({ type: 'prompt', hookEvent: 'UserPromptSubmit', sessionId: 'say "hi"', byPerson: true }, o)).toBe('session_id "say \\"hi\\"" does not make a session key (R1): ignored, nothing written');
    expect(planHookStep({ type: 'ended', hookEvent: 'SessionEnd', sessionId: 'x'.repeat(600) }, o)).toBe(`session_id "${'x'.repeat(40)}…" does not make a session key (R1): ignored, nothing written`);
    for (const type of ['subagent_start', 'subagent_stop'] as const) {
      expect(planHookStep({ type, hookEvent: 'SubagentStart', sessionId: 's', subagentId: '' }, o)).toBe('agent_id "" does not make a session key (R1): ignored, nothing written');
    }
  });

  it('T17 a prompt id makes the dedupe key only when it is a non-empty string', () => {
    const plan = (promptId?: string) => planHookStep({ type: 'prompt', hookEvent: 'UserPromptSubmit', sessionId: 's:1', byPerson: true, ...(promptId !== undefined ? { promptId } : {}) }, o, true);
    expect(plan('p:1')).toMatchObject({ records: [{ dedupeKey: 'codex:prompt:s%3A1:p%3A1' }] });
    for (const none of [undefined, '']) expect((plan(none) as { records: Record<string, unknown>[] }).records[0]).not.toHaveProperty('dedupeKey');
    // A turn the runtime submits itself records nothing, but still hands over and registers.
    expect(planHookStep({ type: 'prompt', hookEvent: 'UserPromptSubmit', sessionId: 's', byPerson: false }, o, true)).toEqual({ event: 'UserPromptSubmit', sessionKey: 'agent:codex:s', records: [], deliverTo: 'agent:codex:s' });
  });

  it('T9 a record the store would refuse ends the plan with its reason, before anything opens', () => {
    const long = planHookStep({ type: 'compacted', hookEvent: 'PreCompact', sessionId: 's', trigger: 'auto' }, { ...o, channel: 'c'.repeat(300) });
    expect(typeof long).toBe('string');
    expect(long).toMatch(/^PreCompact cannot be recorded: summary: /);
  });
});
