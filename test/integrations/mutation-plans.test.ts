import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planCodexHookEvent } from '../../src/integrations/codex/events.js';
import { planCopilotHookEvent, sentByCopilot } from '../../src/integrations/copilot/events.js';
import { planGeminiHookEvent } from '../../src/integrations/gemini/events.js';
import { planQwenHookEvent } from '../../src/integrations/qwen/events.js';

/**
 * T40-T43, T48, T52-T53, T56: what each runtime's payload asks of the store, as the shared planner
 * says it, for every recorded payload (test/hook/*-payloads, checked against the pinned binaries
 * by the files beside them) and for Gemini CLI's shapes (its binary's run is
 * test/agents/gemini.test.ts), under the runtime's own agent and under another (`ops`: another
 * dedupe space), as a first run and as a run after the session registered. The plans are kept in
 * the snapshot beside this file, read once when written: every record's kind, actor, summary,
 * payload and dedupe key, the reset, whose notices go out and the key line.
 */
const HOOK = join(import.meta.dirname, '..', 'hook');
const fixtures = (dir: string) =>
  readdirSync(join(HOOK, dir))
    .filter((f) => f.endsWith('.json') && f !== 'recorded-with.json')
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), payload: JSON.parse(readFileSync(join(HOOK, dir, f), 'utf8')) as Record<string, unknown> }));

const gemini = (event: string, extra: Record<string, unknown> = {}) => ({ session_id: 'g-1', transcript_path: '/t/g-1.json', cwd: '/p', hook_event_name: event, timestamp: '2026-01-01T00:00:00.000Z', ...extra });
const GEMINI = [
  { name: 'session-start-startup', payload: gemini('SessionStart', { source: 'startup' }) },
  { name: 'session-start-resume', payload: gemini('SessionStart', { source: 'resume' }) },
  { name: 'before-agent', payload: gemini('BeforeAgent', { prompt: 'hello' }) },
  { name: 'pre-compress-manual', payload: gemini('PreCompress', { trigger: 'manual' }) },
  { name: 'pre-compress-auto', payload: gemini('PreCompress', { trigger: 'auto' }) },
  { name: 'pre-compress-unknown', payload: gemini('PreCompress', {}) },
  { name: 'session-end-clear', payload: gemini('SessionEnd', { reason: 'clear' }) },
  { name: 'session-end-exit', payload: gemini('SessionEnd', { reason: 'exit' }) },
  { name: 'after-agent', payload: gemini('AfterAgent') },
  { name: 'no-session', payload: gemini('BeforeAgent', { session_id: '' }) },
];

const RUNTIMES = [
  { runtime: 'codex', cases: fixtures('codex-payloads'), plan: (p: Record<string, unknown>, agentId: string, registered: boolean) => planCodexHookEvent(p, { agentId }, registered) },
  { runtime: 'qwen', cases: fixtures('qwen-payloads'), plan: (p: Record<string, unknown>, agentId: string, registered: boolean) => planQwenHookEvent(p, { agentId }, registered) },
  { runtime: 'copilot', cases: fixtures('copilot-payloads'), plan: (p: Record<string, unknown>, agentId: string) => planCopilotHookEvent(p, { agentId }) },
  { runtime: 'gemini', cases: GEMINI, plan: (p: Record<string, unknown>, agentId: string, registered: boolean) => planGeminiHookEvent(p, { agentId }, registered) },
] as const;

describe('T40 T48 T52 T56 each runtime\'s payloads as plans', () => {
  for (const { runtime, cases, plan } of RUNTIMES) {
    it(`${runtime}: every payload, under its own agent and another, first run and registered`, () => {
      expect(cases.length).toBeGreaterThan(5);
      const out: Record<string, unknown> = {};
      for (const c of cases) {
        for (const agent of [runtime, 'ops']) {
          for (const registered of [false, true]) out[`${c.name} ${agent}${registered ? ' registered' : ''}`] = plan(c.payload, agent, registered);
        }
      }
      expect(out).toMatchSnapshot();
    });
  }

  it('T40 T48 T52 T56 a payload without an event, an unknown event or a bad session id is ignored with its reason', () => {
    const out: Record<string, unknown> = {};
    for (const { runtime, plan } of RUNTIMES) {
      for (const [name, payload] of Object.entries({
        'no event': { session_id: 's' },
        'unknown event': { session_id: 's', hook_event_name: 'Notification' },
        'numeric session': { session_id: 7, hook_event_name: 'SessionStart', source: 'startup' },
        'empty session': { session_id: '', hook_event_name: 'UserPromptSubmit', prompt: 'x' },
      })) {
        out[`${runtime} ${name}`] = plan(payload, runtime, true);
      }
    }
    for (const v of Object.values(out)) expect(typeof v).toBe('string');
    expect(out).toMatchSnapshot();
  });
});

describe('T40 T52 T56 each runtime refuses what it cannot use, by name', () => {
  const s = { session_id: 's-1' };
  it('T40 T52 T56 a SessionStart source outside the runtime\'s list, a sub-agent event without its agent id', () => {
    expect(planCodexHookEvent({ ...s, hook_event_name: 'SessionStart', source: 'teleport' }, { agentId: 'codex' })).toMatch(/^SessionStart source "teleport" is not one of /);
    expect(planQwenHookEvent({ ...s, hook_event_name: 'SessionStart', source: 'teleport' }, { agentId: 'qwen' })).toMatch(/^SessionStart source "teleport" is not one of /);
    expect(planCopilotHookEvent({ ...s, hook_event_name: 'SessionStart' }, { agentId: 'copilot' })).toBe('SessionStart source undefined is not one of new, startup, resume');
    for (const event of ['SubagentStart', 'SubagentStop']) {
      expect(planCodexHookEvent({ ...s, hook_event_name: event, agent_id: '' }, { agentId: 'codex' })).toBe(`${event} agent_id is missing or not a string`);
      expect(planQwenHookEvent({ ...s, hook_event_name: event }, { agentId: 'qwen' })).toBe(`${event} agent_id is missing or not a string`);
    }
  });

  it('T52 T56 a prompt no person typed is ignored with its reason', () => {
    expect(planCopilotHookEvent({ ...s, hook_event_name: 'UserPromptSubmit', agent_id: 'a-1', prompt: 'do it' }, { agentId: 'copilot' })).toBe('UserPromptSubmit of sub-agent "a-1": the parent model\'s instruction, not a person\'s turn; ignored');
    expect(planQwenHookEvent({ ...s, hook_event_name: 'UserPromptSubmit', agent_id: 'a-1', prompt: 'do it' }, { agentId: 'qwen' })).toBe('UserPromptSubmit inside sub-agent "a-1" is no person\'s prompt: ignored');
    for (const prompt of ['', '  ', undefined, 7]) {
      expect(planQwenHookEvent({ ...s, hook_event_name: 'UserPromptSubmit', prompt }, { agentId: 'qwen' })).toBe('UserPromptSubmit with an empty prompt (a tool result continuing the turn): ignored, notices wait for the next prompt');
    }
  });
});

describe('T54 sentByCopilot: a Claude Code payload Copilot sent', () => {
  it('T54 only under COPILOT_CLI=1, and only with no transcript or one of Copilot\'s own', () => {
    const yes = ['/home/u/.copilot/session-state/0a1b/events.jsonl', 'C:\\Users\\u\\.copilot\\session-state\\0a1b\\events.jsonl', undefined];
    const no = ['/home/u/.claude/projects/p/0a1b.jsonl', '/x/session-state/a/b/events.jsonl', '/x/session-state//events.jsonl', 'session-state/a/events.jsonl', '/x/session-stateX/a/events.jsonl', '/x/session-state/a/events.jsonl.bak', '/x/session-state/a/xevents.jsonl', 5];
    for (const t of yes) expect({ t, sent: sentByCopilot(t === undefined ? {} : { transcript_path: t }, { COPILOT_CLI: '1' }) }).toEqual({ t, sent: true });
    for (const t of no) expect({ t, sent: sentByCopilot({ transcript_path: t }, { COPILOT_CLI: '1' }) }).toEqual({ t, sent: false });
    for (const env of [{}, { COPILOT_CLI: '0' }, { COPILOT_CLI: 'true' }]) expect(sentByCopilot({}, env)).toBe(false);
  });
});
