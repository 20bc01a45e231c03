import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COPILOT_CONTEXT_EVENTS, COPILOT_HOOK_EVENTS, COPILOT_SESSION_SOURCES } from '../../src/integrations/copilot/events.js';
import { binaryOrSkip, findCopilot } from '../agents/binaries.js';
import { recordCopilotPayloads, shape, type RecordedPayload } from './copilot-record.js';

/**
 * T52: the Copilot payload fixtures are what the pinned `@github/copilot` binary sends, not shapes
 * written for the kit. This test records the payloads again from the real binary, offline, and
 * checks each fixture against them field by field (the type of every field, the value of the fields
 * that name the event's kind), and that every case the binary sent has a fixture.
 * SSK_RECORD_COPILOT=1 writes the fixtures anew from the run (one per case, the sandbox path as
 * /sandbox). A missing binary skips with the reason; under CI=true it fails.
 */
const FIXTURES = join(import.meta.dirname, 'copilot-payloads');
const copilot = binaryOrSkip(findCopilot(), 'T52 Copilot payload fixtures');
const VERSION_FILE = 'recorded-with.json';

const fixtures = () =>
  readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && f !== VERSION_FILE)
    .map((file) => ({ case: file.replace(/\.json$/, ''), payload: JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown> }));

describe.skipIf(copilot === undefined)('T52 Copilot hook payloads against the pinned binary', () => {
  let live: RecordedPayload[] = [];
  let version = '';
  beforeAll(async () => {
    ({ payloads: live, version } = await recordCopilotPayloads(copilot!));
    if (process.env['SSK_RECORD_COPILOT'] === '1') {
      rmSync(FIXTURES, { recursive: true, force: true });
      mkdirSync(FIXTURES, { recursive: true });
      const written = new Set<string>();
      for (const p of live) if (!written.has(p.case)) written.add(p.case), writeFileSync(join(FIXTURES, `${p.case}.json`), `${JSON.stringify(p.payload)}\n`);
      writeFileSync(join(FIXTURES, VERSION_FILE), `${JSON.stringify({ package: copilot!.packageName, version, recordedBy: 'test/hook/copilot-payloads.test.ts' }, null, 2)}\n`);
    }
  }, 180_000);

  it('T52 the fixtures were recorded with the pinned version, and it is the binary that runs', () => {
    const recorded = JSON.parse(readFileSync(join(FIXTURES, VERSION_FILE), 'utf8')) as { package: string; version: string };
    expect(recorded).toMatchObject({ package: '@github/copilot', version: copilot!.packageVersion });
    expect(version).toBe(copilot!.packageVersion);
  });

  it('T52 every fixture has the shape of a payload the binary sent for that case', () => {
    const byCase = new Map<string, Set<string>>();
    for (const p of live) byCase.set(p.case, (byCase.get(p.case) ?? new Set()).add(JSON.stringify(shape(p.payload))));
    for (const f of fixtures()) {
      expect(byCase.has(f.case), `the binary sent no ${f.case}`).toBe(true);
      expect([...byCase.get(f.case)!], f.case).toContain(JSON.stringify(shape(f.payload)));
    }
  });

  it('T52 every case the binary sent has a fixture, and each event the kit handles is among them', () => {
    const cases = new Set(fixtures().map((f) => f.case));
    expect([...new Set(live.map((p) => p.case))].filter((c) => !cases.has(c))).toEqual([]);
    const events = new Set(fixtures().map((f) => f.payload['hook_event_name']));
    for (const event of COPILOT_HOOK_EVENTS) expect(events.has(event), event).toBe(true);
    for (const event of COPILOT_CONTEXT_EVENTS) expect(events.has(event), event).toBe(true);
  });

  it('T52 the sources the planner accepts include every source the binary sent', () => {
    const sources = live.filter((p) => p.event === 'SessionStart').map((p) => p.payload['source']);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(COPILOT_SESSION_SOURCES as readonly unknown[]).toContain(source);
  });

  it('T52 a sub-agent\'s prompt names the sub-agent (agent_id), and its start names no event (1.0.102)', () => {
    const sub = live.find((p) => p.case === 'user-prompt-submit-subagent');
    expect(sub?.payload).toMatchObject({ hook_event_name: 'UserPromptSubmit', agent_id: expect.any(String) });
    expect(live.filter((p) => p.case === 'user-prompt-submit').every((p) => p.payload['agent_id'] === undefined)).toBe(true);
    const start = live.find((p) => p.event === 'SubagentStart');
    expect(start?.payload['hook_event_name']).toBeUndefined();
  });
});
