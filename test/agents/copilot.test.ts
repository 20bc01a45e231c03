import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { useBuiltCli } from '../cli/helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../integrations/fake-anthropic.js';
import { binaryOrSkip, claudeEnv, copilotEnv, findClaude, findCopilot, makeSandbox, runBinary, traceConnects, type BinaryInfo, type ConnectTrace, type Sandbox } from './binaries.js';
import { chatTexts, startFakeChatCompletions, type ChatRequest, type FakeChatCompletions } from './fake-chat-completions.js';

/**
 * T52-T55 with the real binaries, offline: a person works in GitHub Copilot CLI
 * (`@github/copilot` 1.0.102), a manager runs in Claude Code, both on one SQLite file, both set up
 * by `init` in a throwaway project and home. Copilot talks to a loopback chat-completions
 * stand-in (a custom provider, COPILOT_OFFLINE), Claude Code to a Messages stand-in; what reaches
 * each model is read off the requests it sends there. The project is set up for both, so Copilot
 * also runs Claude Code's project hooks (T54) and reads Claude Code's `.mcp.json` (T55).
 */
const copilot = binaryOrSkip(findCopilot(), 'Copilot CLI as a participant');
const claude = binaryOrSkip(findClaude(), 'Copilot CLI with Claude Code');
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
/** Every text a chat-completions request carries to the model, in order. */
const sent = (requests: readonly ChatRequest[]) => requests.map((q) => chatTexts(q).join('\n')).join('\n');

describe.skipIf(copilot === undefined || claude === undefined)('T52-T55 a person in Copilot CLI, a manager in Claude Code, one file, real binaries, offline', () => {
  const cli = useBuiltCli();
  let box: Sandbox;
  let api: FakeChatCompletions;
  let anthropic: FakeAnthropic;
  let db: string;
  /** strace of every binary run (and the hooks and servers it starts), where strace can trace. */
  let trace: ConnectTrace | undefined;
  const traced = (command: readonly string[]) => trace?.wrap(command) ?? [...command];
  const copilotSession = '4d5e6f70-8192-4a3b-9c4d-5e6f708192a3';
  const claudeSession = '8e9fa0b1-c2d3-4e5f-8a6b-7c8d9e0fa1b2';
  const copilotKey = `agent:copilot:${copilotSession}`;
  const lead = `agent:claude-code:${claudeSession}`;
  const open = (): SqliteStore => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
  const kit = (args: string[]) => runBinary([process.execPath, cli.path()], args, { cwd: box.project, env: { HOME: box.home } });
  const runCopilot = async (args: string[]) => {
    const r = await runBinary(traced((copilot as BinaryInfo).command), ['-p', ...args], { cwd: box.project, env: copilotEnv(box, api.baseUrl) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    return r;
  };
  const runClaude = async (args: string[]) => {
    const r = await runBinary(traced((claude as BinaryInfo).command), ['-p', ...args, '--output-format', 'json'], { cwd: box.project, env: claudeEnv(box, anthropic.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') }) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    return r;
  };

  beforeAll(async () => {
    box = makeSandbox('copilot-team');
    db = join(box.root, 'team.db');
    trace = traceConnects(join(box.root, 'strace'));
    if (trace === undefined) console.warn('strace cannot trace here: the runs are offline by their settings only, unchecked');
    api = await startFakeChatCompletions(() => ({ text: 'On it.' }));
    anthropic = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' }));
    // A blank project: init copilot writes its own files there.
    const first = await kit(['init', 'copilot', '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`wrote ${join(box.project, '.github', 'hooks', 'session-state-kit.json')}`);
    expect(first.stdout).toContain(`wrote ${join(box.project, '.github', 'mcp.json')}`);
    // Claude Code set up after it: its .mcp.json is now the file Copilot reads, so init copilot
    // again moves its entry there, as doctor asks.
    for (const args of [
      ['init', 'claude-code', '--db', db],
      ['init', 'copilot', '--db', db],
    ]) {
      const r = await kit(args);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(Object.keys((JSON.parse(readFileSync(join(box.project, '.mcp.json'), 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['session-state-kit', 'session-state-kit-copilot']);
    // The person trusts the folder when Copilot asks ("remember this folder"); init never does.
    box.write('home/.copilot/config.json', JSON.stringify({ trustedFolders: [box.project] }, null, 2));
    const doctor = await kit(['doctor']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/^ok {4}copilot {5}project hooks installed +.*: 3\/3$/m);
    expect(doctor.stdout).toMatch(/^ok {4}copilot {5}project folder trusted /m);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await anthropic?.close();
    box?.remove();
  });

  it('T52 T55 Copilot runs the hooks init wrote: the session is registered as agent:copilot:<id> and its model is told its key once', async () => {
    const before = api.turns().length;
    await runCopilot(['get the lay of the land', '--session-id', copilotSession]);
    const turns = api.turns().slice(before);
    expect(turns.length).toBeGreaterThan(0);
    expect(count(sent(turns.slice(-1)), `Session-state key of this session: "${copilotKey}"`)).toBe(1);
    const store = open();
    try {
      expect(store.stateVersion(copilotKey, 'copilot')).toBeGreaterThanOrEqual(1);
      // T54: Copilot also ran Claude Code's project hooks, which left no session of their own.
      expect(store.sessionsPage({ limit: 100 }).map((r) => r.sessionKey)).toEqual([copilotKey]);
    } finally {
      store.close();
    }
  });

  it('T52 T54 a person\'s prompt in Copilot is exactly one notice for the Claude Code session watching it, and its text reaches the next request Claude Code sends', async () => {
    let store = open();
    store.watch({ watcherSessionKey: lead, targetSessionKey: copilotKey, agentId: 'copilot' });
    store.close();
    await runCopilot(['the person: rename the config flag', '--resume', copilotSession]);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toHaveLength(1);
    } finally {
      store.close();
    }
    const before = anthropic.requests.length;
    await runClaude(['what changed?', '--session-id', claudeSession]);
    expect(count(anthropic.requests.slice(before).map((q) => q.body).join('\n'), `Session \\"${copilotKey}\\" changed (other actor)`)).toBe(1);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('T53 the other way round: a person\'s prompt in Claude Code reaches the resumed Copilot session\'s model request as one notice', async () => {
    let store = open();
    store.watch({ watcherSessionKey: copilotKey, targetSessionKey: lead, agentId: 'claude-code' });
    store.close();
    await runClaude(['the person: keep the old flag as an alias', '--resume', claudeSession]);
    store = open();
    try {
      expect(store.pendingNotices(copilotKey)).toHaveLength(1);
    } finally {
      store.close();
    }
    const before = api.turns().length;
    await runCopilot(['carry on', '--resume', copilotSession]);
    const turns = api.turns().slice(before);
    expect(turns.length).toBeGreaterThan(0);
    // One notice in the request of the turn, and the key line once in the conversation (T51).
    const request = sent(turns.slice(-1));
    expect(count(request, `Session "${lead}" changed (other actor)`)).toBe(1);
    expect(count(request, `Session-state key of this session: "${copilotKey}"`)).toBe(1);
    // Each request of the run (one per model turn) carries it once, in the person's message.
    expect(count(sent(turns), `Session "${lead}" changed (other actor)`)).toBe(turns.length);
    store = open();
    try {
      expect(store.pendingNotices(copilotKey)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('nothing reached a network: every internet address the binaries, their hooks and servers connected or sent to is loopback', ({ skip }) => {
    if (trace === undefined) return skip('strace cannot trace here');
    const peers = trace.peers();
    // The stand-ins were reached, so the trace saw the runs.
    expect(peers).toContain('127.0.0.1');
    expect(peers.filter((a) => a !== '127.0.0.1' && a !== '::1' && a !== '::ffff:127.0.0.1')).toEqual([]);
  });
});
