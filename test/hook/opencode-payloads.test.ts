import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { opencodeEventMeaning } from '../../src/integrations/opencode/events.js';
import { binaryOrSkip, findOpencode } from '../agents/binaries.js';
import { RECORDED_EVENTS, recordOpencodePayloads, shape, type RecordedPayload } from './opencode-record.js';

/**
 * T61: the OpenCode payload fixtures are what the pinned `opencode-ai` binary handed a plugin, not
 * shapes written for the kit. This test records them again from the real binary, offline (the
 * plugin package pre-seeded, strace where it can trace), and checks each fixture against them field
 * by field (the type of every field, the value of the fields that name an event's or a part's
 * kind), and that every case the binary sent has a fixture. SSK_RECORD_OPENCODE=1 writes the
 * fixtures anew (one per case, the sandbox path as /sandbox). A missing binary skips with the
 * reason; under CI=true it fails.
 */
const FIXTURES = join(import.meta.dirname, 'opencode-payloads');
const opencode = binaryOrSkip(findOpencode(), 'T61 OpenCode payload fixtures');
const VERSION_FILE = 'recorded-with.json';

const fixtures = () =>
  readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && f !== VERSION_FILE)
    .map((file) => ({ case: file.replace(/\.json$/, ''), payload: JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown> }));

describe.skipIf(opencode === undefined)('T61 OpenCode plugin payloads against the pinned binary', () => {
  let live: RecordedPayload[] = [];
  let version = '';
  let peers: string[] | undefined;
  beforeAll(async () => {
    ({ payloads: live, version, peers } = await recordOpencodePayloads(opencode!));
    if (process.env['SSK_RECORD_OPENCODE'] === '1') {
      rmSync(FIXTURES, { recursive: true, force: true });
      mkdirSync(FIXTURES, { recursive: true });
      const written = new Set<string>();
      for (const p of live) if (!written.has(p.case)) written.add(p.case), writeFileSync(join(FIXTURES, `${p.case}.json`), `${JSON.stringify(p.payload, null, 2)}\n`);
      writeFileSync(join(FIXTURES, VERSION_FILE), `${JSON.stringify({ package: opencode!.packageName, version, recordedBy: 'test/hook/opencode-payloads.test.ts' }, null, 2)}\n`);
    }
  }, 600_000);

  it('T61 the fixtures were recorded with the pinned version, and it is the binary that runs', () => {
    const recorded = JSON.parse(readFileSync(join(FIXTURES, VERSION_FILE), 'utf8')) as { package: string; version: string };
    expect(recorded).toMatchObject({ package: 'opencode-ai', version: opencode!.packageVersion });
    expect(version).toBe(opencode!.packageVersion);
  });

  it('T61 the recording runs reached nothing past loopback (strace, where it can trace)', ({ skip }) => {
    if (peers === undefined) return skip('strace cannot trace here');
    expect(peers).toContain('127.0.0.1');
    expect(peers.filter((a) => a !== '127.0.0.1' && a !== '::1' && a !== '::ffff:127.0.0.1')).toEqual([]);
  });

  it('T61 every fixture has the shape of a payload the binary sent for that case', () => {
    const byCase = new Map<string, Set<string>>();
    for (const p of live) byCase.set(p.case, (byCase.get(p.case) ?? new Set()).add(JSON.stringify(shape(p.payload))));
    for (const f of fixtures()) {
      expect(byCase.has(f.case), `the binary sent no ${f.case}`).toBe(true);
      expect([...byCase.get(f.case)!], f.case).toContain(JSON.stringify(shape(f.payload)));
    }
  });

  it('T61 every case the binary sent has a fixture, and each event the kit reads is among them', () => {
    const cases = new Set(fixtures().map((f) => f.case));
    expect([...new Set(live.map((p) => p.case))].filter((c) => !cases.has(c))).toEqual([]);
    for (const c of ['session-created', 'session-created-subagent', 'chat-message', 'chat-message-subagent', 'session-compacted', 'session-idle', 'message-part-updated-compaction', 'message-part-updated-plugin-text']) expect(cases.has(c), c).toBe(true);
    for (const type of RECORDED_EVENTS) expect(live.some((p) => (p.payload['event'] as { type?: string } | undefined)?.type === type), type).toBe(true);
  });

  it('T61 T62 the kit reads each event as the binary sent it: a sub-agent session names its parent, a compaction part says it was automatic, the part a plugin added is stored under its own id', () => {
    const meaning = (c: string) => live.filter((p) => p.case === c).map((p) => opencodeEventMeaning((p.payload as { event: never }).event));
    expect(meaning('session-created').every((m) => m?.kind === 'created' && m.parentId === undefined)).toBe(true);
    expect(meaning('session-created-subagent').every((m) => m?.kind === 'created' && typeof m.parentId === 'string')).toBe(true);
    expect(meaning('message-part-updated-compaction')).toContainEqual(expect.objectContaining({ kind: 'part-stored', compaction: { auto: true } }));
    expect(meaning('session-compacted').every((m) => m?.kind === 'compacted')).toBe(true);
    const added = live.filter((p) => p.case === 'message-part-updated-plugin-text').map((p) => (p.payload as { event: { properties: { part: { id: string } } } }).event.properties.part.id);
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((id) => /^prt_[0-9a-f]{12}Recorder\d{6}$/.test(id))).toBe(true);
  });

  it('T61 a person\'s prompt names only its session; a sub-agent\'s names the agent, model and message, and its session was created with a parent first', () => {
    const person = live.find((p) => p.case === 'chat-message')!.payload as { input: Record<string, unknown> };
    expect(Object.keys(person.input)).toEqual(['sessionID']);
    const sub = live.find((p) => p.case === 'chat-message-subagent')!.payload as { input: Record<string, unknown> };
    expect(sub.input).toMatchObject({ sessionID: expect.any(String), agent: 'general', messageID: expect.any(String) });
  });
});
