import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { QWEN_CONTEXT_EVENTS, QWEN_HOOK_EVENTS, QWEN_SESSION_SOURCES } from '../../src/integrations/qwen/events.js';
import { binaryOrSkip, findQwen } from '../agents/binaries.js';
import { qwenCase, recordQwenPayloads, type QwenRecording } from './qwen-record.js';

/**
 * T56: the Qwen Code payload fixtures against what the pinned `@qwen-code/qwen-code` sends now.
 * Qwen ships no schema of its hook inputs (Codex does, T40), so the check is the recording itself:
 * the same script run again, and every fixture's case must come back with the same fields, of
 * the same types, with the same literal values. A missing binary skips with the reason; under
 * CI=true it fails, so CI cannot pass by skipping.
 */
const FIXTURES = join(import.meta.dirname, 'qwen-payloads');
const recordedWith = JSON.parse(readFileSync(join(FIXTURES, 'recorded-with.json'), 'utf8')) as { package: string; version: string; script: string[] };
const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json') && f !== 'recorded-with.json')
  .map((file) => ({ file, name: file.replace(/\.json$/, ''), payload: JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown> }));
const qwen = binaryOrSkip(findQwen(), 'T56 Qwen Code payloads against the pinned binary');

/** Fields whose value, not only its type, is part of the shape: the planner reads them, or they say which case a payload is. */
const LITERAL = ['hook_event_name', 'source', 'reason', 'trigger', 'agent_type', 'permission_mode'];
const shape = (p: Record<string, unknown>) => Object.fromEntries(Object.keys(p).sort().map((k) => [k, LITERAL.includes(k) ? p[k] : typeof p[k]]));
const PROMPT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}########\d+$/;

describe('T56 the Qwen Code fixtures', () => {
  it('T56 every event the kit handles has a fixture, every SessionStart source, a tool result continuing a turn, and the events that get no opinion', () => {
    const names = new Set(fixtures.map((f) => f.name));
    for (const event of QWEN_HOOK_EVENTS) expect(fixtures.some((f) => f.payload['hook_event_name'] === event), event).toBe(true);
    for (const source of QWEN_SESSION_SOURCES) expect(names.has(`session-start-${source}`), source).toBe(true);
    for (const name of ['user-prompt-submit-tool-result', 'session-end-clear', 'stop', 'pre-compact']) expect(names.has(name), name).toBe(true);
    // The file name is the case the payload is: the recorder and this test agree on it.
    for (const f of fixtures) expect(qwenCase(f.payload), f.file).toBe(f.name);
    // T57: only these two events' output reaches the model.
    expect([...QWEN_CONTEXT_EVENTS].sort()).toEqual(['SessionStart', 'UserPromptSubmit']);
  });

  it('T56 what the recording shows: a clear changes the session id, a resume keeps it, prompt_id is <session>########<n> and a tool result repeats its turn\'s', () => {
    const get = (name: string) => fixtures.find((f) => f.name === name)!.payload;
    const id = get('session-start-startup')['session_id'];
    expect(get('session-end-clear')['session_id']).toBe(id);
    expect(get('session-start-clear')['session_id']).not.toBe(id);
    expect(get('session-start-resume')['session_id']).toBe(id);
    expect(get('user-prompt-submit')['prompt_id']).toMatch(PROMPT_ID);
    expect(get('user-prompt-submit-tool-result')).toMatchObject({ prompt: '', prompt_id: get('subagent-start')['prompt_id'] });
    expect(get('user-prompt-submit-tool-result')).not.toHaveProperty('submitted_prompt');
  });
});

describe.skipIf(qwen === undefined)('T56 the fixtures against the pinned Qwen Code, run again offline', () => {
  let live: QwenRecording;
  beforeAll(async () => {
    live = await recordQwenPayloads(qwen!);
    console.log(`recorded ${live.payloads.length} Qwen Code payloads in ${live.ms} ms`);
  }, 300_000);

  it('T56 the fixtures were recorded with the pinned version', () => {
    expect(recordedWith).toMatchObject({ package: '@qwen-code/qwen-code', version: qwen!.packageVersion });
    expect(live.version).toBe(recordedWith.version);
  });

  it.each(fixtures)('T56 $name: the binary sends it again, with the same fields, types and literal values', ({ name, payload }) => {
    const again = live.payloads.find((p) => qwenCase(p) === name);
    expect(again, `the pinned binary sent no ${name} payload`).toBeDefined();
    expect(shape(again!)).toEqual(shape(payload));
  });

  it('T56 the relations the hook relies on hold in the live run too', () => {
    const first = (name: string) => live.payloads.find((p) => qwenCase(p) === name)!;
    const id = first('session-start-startup')['session_id'];
    expect(first('session-end-clear')['session_id']).toBe(id);
    expect(first('session-start-clear')['session_id']).not.toBe(id);
    expect(first('session-start-resume')['session_id']).toBe(id);
    for (const p of live.payloads.filter((q) => q['prompt_id'] !== undefined)) expect(p['prompt_id']).toMatch(PROMPT_ID);
    expect(first('user-prompt-submit-tool-result')['prompt_id']).toBe(first('subagent-start')['prompt_id']);
    // Every prompt the script typed came with its text; only the tool result came blank.
    const prompts = live.payloads.filter((p) => p['hook_event_name'] === 'UserPromptSubmit');
    expect(prompts.filter((p) => p['prompt'] === '')).toHaveLength(1);
    expect(prompts.map((p) => String(p['prompt']).slice(0, 12))).toEqual(['start on the', 'delegate: lo', '', 'first lorem ', 'second lorem', 'after the cl', 'carry on']);
  });
});
