import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { NOTICES_PREAMBLE } from '../../src/tools/text.js';
import { useBuiltCli } from '../cli/helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../integrations/fake-anthropic.js';
import {
  binaryOrSkip,
  claudeEnv,
  findClaude,
  findOpencode,
  makeSandbox,
  opencodeConfigDir,
  opencodeEnv,
  opencodeUserConfig,
  runBinary,
  seedOpencodeConfigDir,
  traceConnects,
  type BinaryInfo,
  type ConnectTrace,
  type Sandbox,
} from './binaries.js';
import { startFakeChatCompletions, type ChatReply, type ChatRequest, type FakeChatCompletions } from './fake-chat-completions.js';

/**
 * T61-T64 with the real binaries, offline: a person works in OpenCode (`opencode-ai` 1.18.33), a
 * manager runs in Claude Code, both on one SQLite file, both set up by `init` in a blank project.
 * OpenCode talks to a loopback chat-completions stand-in through its bundled openai-compatible
 * provider, Claude Code to a Messages stand-in; what reaches each model is read off the requests.
 * OpenCode would install its plugin package with npm into each config folder it reads: the user's
 * and the project's `.opencode` are seeded with it, so it installs nothing, and strace (where it
 * can trace) sees every process the runs started connect to loopback only (OpenCode is a Bun
 * program: NODE_OPTIONS and loopback-only.cjs do not reach it).
 */
const opencode = binaryOrSkip(findOpencode(), 'OpenCode as a participant');
const claude = binaryOrSkip(findClaude(), 'OpenCode with Claude Code');
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const keyLine = (key: string) => `Session-state key of this session: "${key}"`;
const changed = (key: string) => `Session "${key}" changed (other actor)`;

type Message = { role: string; content: unknown };
const messagesOf = (r: ChatRequest) => (r.json?.['messages'] ?? []) as Message[];
/** A message's text parts, one string each. */
const partsOf = (m: Message): string[] => (typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? (m.content as { text?: unknown }[]).map((p) => (typeof p.text === 'string' ? p.text : '')) : []);
/** Every text a request carries, of the given roles. */
const sent = (r: ChatRequest, roles: string[] = ['system', 'user', 'assistant', 'tool']) => messagesOf(r).filter((m) => roles.includes(m.role)).flatMap(partsOf).join('\n');
/** The model's turns of a run: OpenCode also asks the same model for a session title, with no tools. */
const modelTurns = (requests: readonly ChatRequest[]) => requests.filter((r) => Array.isArray(r.json?.['tools']));

describe.skipIf(opencode === undefined || claude === undefined)('T61-T64 a person in OpenCode, a manager in Claude Code, one file, real binaries, offline', () => {
  const cli = useBuiltCli();
  let box: Sandbox;
  let api: FakeChatCompletions;
  let anthropic: FakeAnthropic;
  let db: string;
  let trace: ConnectTrace | undefined;
  const traced = (command: readonly string[]) => trace?.wrap(command) ?? [...command];
  const claudeSession = '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d';
  const lead = `agent:claude-code:${claudeSession}`;
  let sessionId = '';
  let key = '';
  /** The stand-in's answers for the next model turns, in order; then "Noted.". */
  const script: ((r: ChatRequest) => ChatReply)[] = [];
  const open = (): SqliteStore => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
  const kit = (args: string[]) => runBinary([process.execPath, cli.path()], args, { cwd: box.project, env: { HOME: box.home } });
  /** The lines the plugin wrote to OpenCode's log ($XDG_DATA_HOME/opencode/log), each naming the kit (T62). */
  const kitLog = () => {
    const dir = join(box.home, '.local', 'share', 'opencode', 'log');
    return (existsSync(dir) ? readdirSync(dir) : []).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n')).filter((l) => l.includes('message="session-state-kit: '));
  };
  const runOpencode = async (args: string[], options: { kitMayLog?: boolean } = {}) => {
    const logged = kitLog().length;
    const r = await runBinary(traced((opencode as BinaryInfo).command), ['run', ...args], { cwd: box.project, env: opencodeEnv(box) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    // T62: the plugin logged no failure of the store.
    if (!options.kitMayLog) expect(kitLog().slice(logged)).toEqual([]);
    return { ...r, kitLog: kitLog().slice(logged) };
  };
  const runClaude = async (args: string[]) => {
    const r = await runBinary(traced((claude as BinaryInfo).command), ['-p', ...args, '--output-format', 'json'], { cwd: box.project, env: claudeEnv(box, anthropic.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') }) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    return r;
  };

  beforeAll(async () => {
    box = makeSandbox('opencode-team');
    db = join(box.root, 'team.db');
    trace = traceConnects(join(box.root, 'strace'));
    if (trace === undefined) console.warn('strace cannot trace here: the OpenCode runs are offline by their settings and the seeded plugin package only, unchecked');
    api = await startFakeChatCompletions((request) => (Array.isArray(request.json?.['tools']) ? (script.shift() ?? (() => ({ text: 'Noted.' })))(request) : { text: 'A title' }));
    anthropic = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' }));
    // The person's own OpenCode: a provider (the stand-in), and the plugin package OpenCode would install.
    seedOpencodeConfigDir(opencodeConfigDir(box));
    box.write('home/.config/opencode/opencode.json', JSON.stringify(opencodeUserConfig(api.baseUrl), null, 2));
    // A blank project: init writes its files there, one command per CLI, the same database for both.
    expect(readdirSync(box.project)).toEqual([]);
    for (const args of [
      ['init', 'opencode', '--db', db],
      ['init', 'claude-code', '--db', db],
    ]) {
      const r = await kit(args);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(existsSync(join(box.project, '.opencode', 'plugins', 'session-state-kit.js'))).toBe(true);
    // T63: init created .opencode/, where OpenCode would now install its plugin package: seeded too.
    seedOpencodeConfigDir(join(box.project, '.opencode'));
    const doctor = await kit(['doctor']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/^ok {4}opencode {4}project plugin loads /m);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await anthropic?.close();
    box?.remove();
  });

  it('T61 T62 T63 OpenCode loads the plugin init wrote: its session is registered as agent:opencode:<id>, and its model is told the key once, as a part of the person\'s message, never in the system text', async () => {
    const before = api.requests.length;
    await runOpencode(['get the lay of the land']);
    const store = open();
    try {
      const sessions = store.sessionsPage({ limit: 100 }).map((r) => r.sessionKey);
      expect(sessions).toHaveLength(1);
      key = sessions[0]!;
      expect(key).toMatch(/^agent:opencode:ses_[0-9A-Za-z]+$/);
      sessionId = key.slice('agent:opencode:'.length);
      expect(store.changesSince({ sessionKey: key, agentId: 'opencode', since: 0 }).stateChanges.events.map((e) => e.summary)).toEqual(['session started via opencode']);
    } finally {
      store.close();
    }
    const turns = modelTurns(api.requests.slice(before));
    expect(turns.length).toBeGreaterThan(0);
    const request = turns.at(-1)!;
    expect(count(sent(request, ['user']), keyLine(key))).toBe(1);
    expect(sent(request, ['system'])).not.toContain(keyLine(key));
    // The person's words, then the kit's part: its own text part of the same user message.
    const user = messagesOf(request).filter((m) => m.role === 'user').at(-1)!;
    expect(partsOf(user)).toEqual([expect.stringContaining('get the lay of the land'), expect.stringMatching(/^Session-state key of this session: /)]);
  });

  it('T61 a person\'s prompt in OpenCode is exactly one notice for the Claude Code session watching it, and its text reaches the next request Claude Code sends', async () => {
    let store = open();
    store.watch({ watcherSessionKey: lead, targetSessionKey: key, agentId: 'opencode' });
    store.close();
    await runOpencode(['--session', sessionId, 'the person: rename the config flag']);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toHaveLength(1);
      expect(store.changesSince({ sessionKey: key, agentId: 'opencode', since: 0 }).stateChanges.events.at(-1)).toMatchObject({ kind: 'human_direct_message', actorType: 'human', summary: 'human message via opencode', payload: { channel: 'opencode' } });
    } finally {
      store.close();
    }
    const claudeBefore = anthropic.requests.length;
    await runClaude(['what changed?', '--session-id', claudeSession]);
    expect(count(anthropic.requests.slice(claudeBefore).map((q) => q.body).join('\n'), `Session \\"${key}\\" changed (other actor)`)).toBe(1);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('T62 T39 the other way round: a person\'s prompt in Claude Code reaches the resumed OpenCode session\'s model as one notice, in a part of the person\'s message after the data line, not in the system text; the key line stays once; acked once stored', async () => {
    let store = open();
    store.watch({ watcherSessionKey: key, targetSessionKey: lead, agentId: 'claude-code' });
    store.close();
    await runClaude(['the person: keep the old flag as an alias', '--resume', claudeSession]);
    store = open();
    try {
      expect(store.pendingNotices(key)).toHaveLength(1);
    } finally {
      store.close();
    }
    const before = api.requests.length;
    await runOpencode(['--session', sessionId, 'carry on']);
    const turns = modelTurns(api.requests.slice(before));
    expect(turns.length).toBeGreaterThan(0);
    const request = turns.at(-1)!;
    expect(count(sent(request), changed(lead))).toBe(1);
    expect(sent(request, ['system'])).not.toContain(changed(lead));
    const user = messagesOf(request).filter((m) => m.role === 'user').at(-1)!;
    expect(partsOf(user)).toEqual([expect.stringContaining('carry on'), expect.stringMatching(new RegExp(`^${NOTICES_PREAMBLE.replace(/[()]/g, '\\$&')}\\nSession "${lead}" changed \\(other actor\\)`))]);
    // T51: the resumed conversation holds the key line from the first prompt; the resume told it no more.
    expect(count(sent(request), keyLine(key))).toBe(1);
    store = open();
    try {
      expect(store.pendingNotices(key)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('T64 the MCP server init registered for OpenCode is started and called without asking, unbound: session_status answers for the key the model was told', async () => {
    const before = api.requests.length;
    script.push(() => ({ toolCall: { name: 'session-state-kit_session_status', arguments: { sessionKey: key } } }));
    await runOpencode(['--session', sessionId, 'what is our state?']);
    const turns = modelTurns(api.requests.slice(before));
    const tools = ((turns[0]!.json!['tools'] ?? []) as { function?: { name?: string } }[]).map((t) => t.function?.name);
    expect(tools).toEqual(expect.arrayContaining(['session-state-kit_session_status', 'session-state-kit_session_notices', 'session-state-kit_sessions_list']));
    const result = messagesOf(turns.at(-1)!).filter((m) => m.role === 'tool').flatMap(partsOf).join('\n');
    expect(result).toMatch(new RegExp(`^Session "${key}": stateVersion \\d+\\.`));
  });

  it('T62 a state database that cannot open never fails the person\'s turn: OpenCode answers, the model gets the person\'s words alone, the plugin says why in OpenCode\'s log; the next turn with the database back hands over what waited', async () => {
    let store = open();
    store.record({ sessionKey: lead, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'while the file was away' });
    store.close();
    const moved = `${db}.away`;
    renameSync(db, moved);
    for (const side of ['-wal', '-shm']) if (existsSync(`${db}${side}`)) renameSync(`${db}${side}`, `${moved}${side}`);
    writeFileSync(db, 'this is not a SQLite database, and the kit must not make it one\n');
    try {
      const before = api.requests.length;
      const r = await runOpencode(['--session', sessionId, 'keep going'], { kitMayLog: true });
      const request = modelTurns(api.requests.slice(before)).at(-1)!;
      expect(partsOf(messagesOf(request).filter((m) => m.role === 'user').at(-1)!)).toEqual([expect.stringContaining('keep going')]);
      expect(r.kitLog).toEqual([expect.stringMatching(/level=WARN .*message="session-state-kit: chat\.message: .*not a .*; the turn goes on without the session-state log"/)]);
      expect(readFileSync(db, 'utf8')).toBe('this is not a SQLite database, and the kit must not make it one\n');
    } finally {
      rmSync(db);
      renameSync(moved, db);
      for (const side of ['-wal', '-shm']) if (existsSync(`${moved}${side}`)) renameSync(`${moved}${side}`, `${db}${side}`);
    }
    const before = api.requests.length;
    await runOpencode(['--session', sessionId, 'and now?']);
    // The notice that waited, in this prompt's message (the earlier one is still in the history).
    const last = messagesOf(modelTurns(api.requests.slice(before)).at(-1)!).filter((m) => m.role === 'user').at(-1)!;
    expect(count(partsOf(last).join('\n'), changed(lead))).toBe(1);
    store = open();
    try {
      expect(store.pendingNotices(key)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('U6 the upstream monitor does not read OpenCode\'s sessions: they live in SQLite ($XDG_DATA_HOME/opencode/opencode.db), which `upstream scan` takes for a transcript with no person in it (the limit the guides state)', async () => {
    const sessions = join(box.home, '.local', 'share', 'opencode', 'opencode.db');
    expect(readFileSync(sessions).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    const r = await kit(['upstream', 'scan', sessions, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { summary: { humanTurns: number } }).summary;
    expect(summary.humanTurns).toBe(0);
  });

  it('nothing reached a network: every internet address OpenCode, Claude Code, the plugin and the servers they started connected or sent to is loopback, and OpenCode installed nothing', ({ skip }) => {
    // The seeded folders are as seeded: no npm cache, no lock rewritten by an install.
    expect(existsSync(join(box.home, '.npm'))).toBe(false);
    for (const dir of [opencodeConfigDir(box), join(box.project, '.opencode')]) expect(readdirSync(join(dir, 'node_modules'))).toEqual(['@opencode-ai']);
    if (trace === undefined) return skip('strace cannot trace here');
    const peers = trace.peers();
    expect(peers).toContain('127.0.0.1');
    expect(peers.filter((a) => a !== '127.0.0.1' && a !== '::1' && a !== '::ffff:127.0.0.1')).toEqual([]);
  });
});
