import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_RUNTIMES, type HookRuntime } from '../../src/cli/hook.js';

/**
 * T9, T40, T53, T56: every recorded payload of every runtime, planned: a plan names the event it
 * was made from (what decides whether its output carries context, T43), or the payload is refused
 * with one line. Which payloads plan and which are refused is each runtime's own test's; here the
 * event a plan carries is held, payload by payload.
 */
const FOLDERS: Record<Exclude<HookRuntime, 'gemini'>, string> = { 'claude-code': 'payloads', codex: 'codex-payloads', qwen: 'qwen-payloads', copilot: 'copilot-payloads' };

const recorded = Object.entries(FOLDERS).flatMap(([runtime, folder]) =>
  readdirSync(join(import.meta.dirname, folder))
    .filter((f) => f.endsWith('.json') && f !== 'recorded-with.json')
    .map((f) => [runtime as HookRuntime, f, readFileSync(join(import.meta.dirname, folder, f), 'utf8')] as const),
);

describe('T40 a plan carries the event of its payload', () => {
  it.each(recorded)('%s %s', (runtime, _file, text) => {
    const event = (JSON.parse(text) as { hook_event_name: string }).hook_event_name;
    const plan = HOOK_RUNTIMES[runtime].plan(text, HOOK_RUNTIMES[runtime].defaultAgent, {});
    if (typeof plan === 'string') {
      expect(plan).not.toContain('\n');
      return;
    }
    expect(plan.event).toBe(event);
  });

  it('the recorded payloads plan more often than not (the test above is not all refusals)', () => {
    const planned = recorded.filter(([runtime, , text]) => typeof HOOK_RUNTIMES[runtime].plan(text, HOOK_RUNTIMES[runtime].defaultAgent, {}) !== 'string');
    expect(planned.length).toBeGreaterThan(recorded.length / 2);
  });

  it('Gemini CLI: each event it handles, planned from a payload of its shape', () => {
    const base = { session_id: 'g-1', transcript_path: '/t.json', cwd: '/w', timestamp: '2026-12-06T00:00:00Z' };
    for (const [event, extra] of [
      ['SessionStart', { source: 'startup' }],
      ['BeforeAgent', { prompt: 'hi' }],
      ['PreCompress', { trigger: 'auto' }],
      ['SessionEnd', { reason: 'exit' }],
    ] as const) {
      const plan = HOOK_RUNTIMES.gemini.plan(JSON.stringify({ ...base, hook_event_name: event, ...extra }), 'gemini', {});
      if (typeof plan !== 'string') expect(plan.event).toBe(event);
    }
    const start = HOOK_RUNTIMES.gemini.plan(JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }), 'gemini', {});
    expect(typeof start).toBe('object');
  });

  it('T33 a compaction says whether it was manual or automatic, as the payload\'s trigger says', () => {
    for (const [runtime, file] of [
      ['claude-code', 'post-compact'],
      ['codex', 'post-compact'],
      ['qwen', 'post-compact'],
      ['copilot', 'pre-compact-auto'],
    ] as const) {
      const payload = JSON.parse(readFileSync(join(import.meta.dirname, FOLDERS[runtime], `${file}.json`), 'utf8')) as Record<string, unknown>;
      for (const [trigger, said] of [['manual', 'manual'], ['auto', 'auto'], [undefined, 'auto'], ['other', 'auto']] as const) {
        const plan = HOOK_RUNTIMES[runtime].plan(JSON.stringify({ ...payload, trigger }), HOOK_RUNTIMES[runtime].defaultAgent, {});
        expect(typeof plan).toBe('object');
        const summaries = (plan as { records: { kind: string; summary: string }[] }).records.filter((r) => r.kind === 'compacted').map((r) => r.summary);
        expect({ runtime, trigger, summaries }).toEqual({ runtime, trigger, summaries: [expect.stringContaining(`(${said})`)] });
      }
    }
  });
});
