import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_HOOK_EVENTS } from '../../src/integrations/gemini/events.js';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { useBuiltCli } from '../cli/helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../integrations/fake-anthropic.js';
import { GEMINI_MODEL_ARGS, GEMINI_OFFLINE_SETTINGS, binaryOrSkip, claudeEnv, findClaude, findGemini, geminiEnv, makeSandbox, runBinary, type BinaryInfo, type Sandbox } from './binaries.js';
import { startFakeGemini, type FakeGemini } from './fake-gemini.js';

/**
 * T48: Gemini CLI as a participant, with the real binary (`@google/gemini-cli` 0.61.0) offline
 * against a loopback stand-in for the Gemini API, set up by `init gemini`.
 */
const gemini = binaryOrSkip(findGemini(), 'Gemini CLI as a participant');
const claude = binaryOrSkip(findClaude(), 'Gemini CLI with Claude Code');
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe.skipIf(gemini === undefined)('T48 the payloads the real Gemini CLI sends its hooks', () => {
  it('T48 every event the kit handles arrives with the fields the planner reads', async () => {
    const box = makeSandbox('gemini-payloads');
    const api = await startFakeGemini();
    try {
      const captured = join(box.root, 'payloads.jsonl');
      const capture = box.write('capture.mjs', `import { appendFileSync, readFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(captured)}, readFileSync(0, 'utf8').trim() + '\\n');\n`);
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(capture)}`;
      box.write('home/.gemini/settings.json', JSON.stringify({ ...GEMINI_OFFLINE_SETTINGS, hooks: Object.fromEntries(GEMINI_HOOK_EVENTS.map((e) => [e, [{ hooks: [{ type: 'command', command }] }]])) }));
      const r = await runBinary((gemini as BinaryInfo).command, ['-p', 'hello there', ...GEMINI_MODEL_ARGS], { cwd: box.project, env: geminiEnv(box, api.url) });
      expect(r.code, r.stderr.slice(-1500)).toBe(0);
      const payloads = readFileSync(captured, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const byEvent = new Map(payloads.map((p) => [p['hook_event_name'], p]));
      expect(byEvent.get('SessionStart')).toMatchObject({ session_id: expect.any(String), source: 'startup', cwd: expect.any(String) });
      expect(byEvent.get('BeforeAgent')).toMatchObject({ session_id: byEvent.get('SessionStart')!['session_id'], prompt: 'hello there' });
      expect(byEvent.get('SessionEnd')).toMatchObject({ session_id: byEvent.get('SessionStart')!['session_id'], reason: expect.any(String) });
    } finally {
      await api.close();
      box.remove();
    }
  });
});

describe.skipIf(gemini === undefined || claude === undefined)('T48 a person in Gemini CLI, a manager in Claude Code, one file', () => {
  const cli = useBuiltCli();
  let box: Sandbox;
  let api: FakeGemini;
  let anthropic: FakeAnthropic;
  let db: string;
  const geminiSession = '0d9c8b7a-6543-4210-9fed-cba987654321';
  const claudeSession = '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d';
  const geminiKey = `agent:gemini:${geminiSession}`;
  const lead = `agent:claude-code:${claudeSession}`;
  const open = (): SqliteStore => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
  const runGemini = async (args: string[]) => {
    const r = await runBinary((gemini as BinaryInfo).command, ['-p', ...args, ...GEMINI_MODEL_ARGS], { cwd: box.project, env: geminiEnv(box, api.url) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
  };
  const runClaude = async (args: string[]) => {
    const r = await runBinary((claude as BinaryInfo).command, ['-p', ...args, '--output-format', 'json'], { cwd: box.project, env: claudeEnv(box, anthropic.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') }) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
  };

  beforeAll(async () => {
    box = makeSandbox('gemini-team');
    db = join(box.root, 'team.db');
    api = await startFakeGemini();
    anthropic = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' }));
    box.write('home/.gemini/settings.json', JSON.stringify(GEMINI_OFFLINE_SETTINGS, null, 2));
    for (const args of [
      ['init', 'gemini', '--user', '--db', db],
      ['init', 'claude-code', '--db', db],
    ]) {
      const r = await runBinary([process.execPath, cli.path()], args, { cwd: box.project, env: { HOME: box.home } });
      expect(r.code, r.stderr).toBe(0);
    }
    // init kept the user's own settings (their auth choice) beside its entries.
    expect(JSON.parse(readFileSync(join(box.home, '.gemini', 'settings.json'), 'utf8'))).toMatchObject({ security: { auth: { selectedType: 'gemini-api-key' } }, mcpServers: { 'session-state-kit': expect.any(Object) } });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await anthropic?.close();
    box?.remove();
  });

  it('T48 a person\'s prompt in Gemini CLI is one notice for the Claude Code session watching it, and reaches its next request', async () => {
    let store = open();
    store.watch({ watcherSessionKey: lead, targetSessionKey: geminiKey, agentId: 'gemini' });
    store.close();
    await runGemini(['the person: rename the config flag', '--session-id', geminiSession]);
    // The SessionStart hook told Gemini's model its key.
    expect(api.requests.some((q) => q.body.includes(`Session-state key of this session: \\"${geminiKey}\\"`))).toBe(true);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toHaveLength(1);
    } finally {
      store.close();
    }
    const before = anthropic.requests.length;
    await runClaude(['what changed?', '--session-id', claudeSession]);
    expect(count(anthropic.requests.slice(before).map((q) => q.body).join('\n'), `Session \\"${geminiKey}\\" changed (other actor)`)).toBe(1);
  });

  it('T48 the other way round: a person\'s prompt in Claude Code reaches the resumed Gemini session\'s model once', async () => {
    let store = open();
    store.watch({ watcherSessionKey: geminiKey, targetSessionKey: lead, agentId: 'claude-code' });
    store.close();
    await runClaude(['the person: keep the old flag as an alias', '--resume', claudeSession]);
    const before = api.requests.length;
    await runGemini(['carry on', '--resume', 'latest']);
    expect(count(api.requests.slice(before).map((q) => q.body).join('\n'), `Session \\"${lead}\\" changed (other actor)`)).toBe(1);
    store = open();
    try {
      expect(store.pendingNotices(geminiKey)).toEqual([]);
    } finally {
      store.close();
    }
  });
});

