import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planCodexHookEvent } from '../../src/integrations/codex/events.js';
import { planCopilotHookEvent } from '../../src/integrations/copilot/events.js';
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
