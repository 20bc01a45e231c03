import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { useBuiltCli } from '../cli/helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../integrations/fake-anthropic.js';
import { QWEN_AUTH_ARGS, QWEN_OFFLINE_SETTINGS, binaryOrSkip, claudeEnv, findClaude, findQwen, loopbackOnlyEnv, makeSandbox, qwenEnv, runBinary, type BinaryInfo, type Sandbox } from './binaries.js';
import { startFakeChatCompletions, type ChatReply, type ChatRequest, type FakeChatCompletions } from './fake-chat-completions.js';
import { runQwenSession } from './qwen-run.js';

/**
 * T56-T59: Qwen Code as a participant, with the real binary (`@qwen-code/qwen-code` 0.24.4)
 * offline against a loopback chat-completions stand-in and the real Claude Code against a Messages
 * stand-in, both set up by `init` in a throwaway project and home, on one SQLite file. What reaches
 * a model is read off the requests its binary sends to its stand-in. Every Qwen process, and the
 * hooks and MCP server it starts, runs with loopback-only.cjs: a run that reached past loopback fails.
 */
const qwen = binaryOrSkip(findQwen(), 'Qwen Code as a participant');
const claude = binaryOrSkip(findClaude(), 'Qwen Code with Claude Code');
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const keyLine = (key: string) => `Session-state key of this session: "${key}"`;
const changed = (key: string) => `Session "${key}" changed (other actor)`;

type Message = { role: string; content: unknown };
const messagesOf = (r: ChatRequest) => (r.json?.['messages'] ?? []) as Message[];
/** A message's text parts; quotes escaped inside them (a tool's error quoting JSON) read as plain quotes. */
const textOf = (m: Message) => {
  const text = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? (m.content as { text?: unknown }[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n') : '';
  return text.replace(/\\+"/g, '"');
};
/** Every text a request carries to the model, of the given roles. */
const sent = (r: ChatRequest, roles: string[] = ['system', 'user', 'assistant', 'tool']) => messagesOf(r).filter((m) => roles.includes(m.role)).map(textOf).join('\n');
const MCP = 'mcp__session-state-kit__';

describe.skipIf(qwen === undefined || claude === undefined)('T56-T59 a person in Qwen Code, a manager in Claude Code, one file, real binaries, offline', () => {
  const cli = useBuiltCli();
  let box: Sandbox;
  let api: FakeChatCompletions;
  let anthropic: FakeAnthropic;
  let db: string;
  const qwenSession = '5e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
  const claudeSession = '8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d';
  const qwenKey = `agent:qwen:${qwenSession}`;
  const lead = `agent:claude-code:${claudeSession}`;
  /** The stand-in's answers for the next requests, in order (each may act first, as a person would meanwhile); then "Noted.". */
  const script: ((r: ChatRequest) => ChatReply)[] = [];
  const open = (): SqliteStore => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });
  const personInClaude = (summary: string) => {
    const store = open();
    store.record({ sessionKey: lead, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary });
    store.close();
  };
  let netLog: string;
  const env = () => qwenEnv(box, api.baseUrl, loopbackOnlyEnv(netLog));
  /** Nothing a Qwen run started tried to reach past loopback (the guard logs every attempt it refused). */
  const offline = () => expect(existsSync(netLog) ? readFileSync(netLog, 'utf8') : '').toBe('');
  const runQwen = async (args: string[]) => {
    const r = await runBinary((qwen as BinaryInfo).command, [...QWEN_AUTH_ARGS, ...args], { cwd: box.project, env: env() });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    offline();
    return r;
  };
  const runClaude = async (args: string[]) => {
    const r = await runBinary((claude as BinaryInfo).command, ['-p', ...args, '--output-format', 'json'], { cwd: box.project, env: claudeEnv(box, anthropic.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') }) });
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    return r;
  };
  const times: string[] = [];

  beforeAll(async () => {
    box = makeSandbox('qwen-team');
    db = join(box.root, 'team.db');
    netLog = join(box.root, 'network.log');
    api = await startFakeChatCompletions((request) => (script.shift() ?? (() => ({ text: 'Noted.' })))(request));
    anthropic = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' }));
    const userSettings = box.write('home/.qwen/settings.json', JSON.stringify(QWEN_OFFLINE_SETTINGS, null, 2));
    // A blank project: nothing in it until init writes the settings.
    expect(readdirSync(box.project)).toEqual([]);
    // As a person sets it up: one command per CLI, the same database for both, in the project.
    const outputs: string[] = [];
    for (const args of [
      ['init', 'qwen', '--db', db],
      ['init', 'claude-code', '--db', db],
    ]) {
      const r = await runBinary([process.execPath, cli.path()], args, { cwd: box.project, env: { HOME: box.home } });
      expect(r.code, r.stderr).toBe(0);
      outputs.push(r.stdout);
    }
    expect(existsSync(join(box.project, '.qwen', 'settings.json'))).toBe(true);
    // T58: the project's server approved for this folder, so Qwen starts it without --yolo (the MCP tests below use it).
    expect(outputs[0]).toContain(`init approved exactly the "session-state-kit" entry it wrote, for ${realpathSync(box.project)}`);
    // A project install leaves the person's own settings as they were.
    expect(readFileSync(userSettings, 'utf8')).toBe(JSON.stringify(QWEN_OFFLINE_SETTINGS, null, 2));
  }, 120_000);
  afterAll(async () => {
    if (times.length > 0) console.log(`Qwen Code runs: ${times.join(', ')}`);
    await api?.close();
    await anthropic?.close();
    box?.remove();
  });

  it('T56 T57 a person\'s prompt in Qwen Code is exactly one notice for the Claude Code session watching it, and its text reaches Claude\'s next request; Qwen\'s model got its key in the system instruction', async () => {
    let store = open();
    store.watch({ watcherSessionKey: lead, targetSessionKey: qwenKey, agentId: 'qwen' });
    store.close();
    const before = api.turns().length;
    const r = await runQwen(['-p', 'the person: rename the config flag', '--session-id', qwenSession]);
    times.push(`prompt ${r.ms} ms`);
    const request = api.turns().slice(before).at(-1)!;
    // T57, T39: the key line is in the system instruction, once, and in no user message.
    expect(count(sent(request, ['system']), keyLine(qwenKey))).toBe(1);
    expect(sent(request, ['user'])).not.toContain(keyLine(qwenKey));
    store = open();
    try {
      expect(store.pendingNotices(lead)).toHaveLength(1);
    } finally {
      store.close();
    }
    const claudeBefore = anthropic.requests.length;
    await runClaude(['what changed?', '--session-id', claudeSession]);
    expect(count(anthropic.requests.slice(claudeBefore).map((q) => q.body).join('\n'), `Session \\"${qwenKey}\\" changed (other actor)`)).toBe(1);
    store = open();
    try {
      // Handed over once, and acked: nothing left for Claude's next turn.
      expect(store.pendingNotices(lead)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('U6 the upstream monitor does not read Qwen Code\'s saved chat: `upstream scan` takes it for a Claude Code transcript and finds no person in it (the limit the guides state)', async () => {
    // Where 0.24.4 saves the session of the first test: the project path with every other character as "-".
    const chat = join(box.home, '.qwen', 'projects', box.project.replace(/[^A-Za-z0-9]/g, '-'), 'chats', `${qwenSession}.jsonl`);
    const records = readFileSync(chat, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // The person's prompt is there, marked as theirs, in Qwen's own shape (parts, not content).
    expect(records[0]).toMatchObject({ type: 'user', provenance: 'real_user', sessionId: qwenSession, message: { role: 'user', parts: [{ text: 'the person: rename the config flag' }] } });
    const r = await runBinary([process.execPath, cli.path()], ['upstream', 'scan', chat, '--json'], { cwd: box.project, env: { HOME: box.home } });
    expect(r.code, r.stderr).toBe(0);
    const summary = (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { summary: { dialect: string; humanTurns: number } }).summary;
    expect(summary).toMatchObject({ dialect: 'claude', humanTurns: 0 });
  });

  it('T56 T51 the other way round: a person\'s prompts in Claude Code reach the resumed Qwen session\'s model as one notice, with the key line once (told again: the resume rebuilt the system instruction)', async () => {
    let store = open();
    store.watch({ watcherSessionKey: qwenKey, targetSessionKey: lead, agentId: 'claude-code' });
    store.close();
    await runClaude(['the person: keep the old flag as an alias', '--resume', claudeSession]);
    // A second prompt before Qwen looks: the pair's cursor moves on (M > N).
    await runClaude(['the person: and document it', '--resume', claudeSession]);
    const before = api.turns().length;
    const r = await runQwen(['-p', 'carry on', '--resume', qwenSession]);
    times.push(`resume ${r.ms} ms`);
    const request = api.turns().slice(before).at(-1)!;
    expect(count(sent(request), changed(lead))).toBe(1);
    expect(count(sent(request), keyLine(qwenKey))).toBe(1);
    expect(count(sent(request, ['system']), keyLine(qwenKey))).toBe(1);
    store = open();
    try {
      // R28: the second prompt came after the notice was frozen: one follow-up, for the next turn.
      const followUp = store.pendingNotices(qwenKey);
      expect(followUp).toHaveLength(1);
      expect(sent(request)).not.toContain(followUp[0]!.text);
    } finally {
      store.close();
    }
  });

  it('T56 T51 a tool result continuing Qwen\'s turn hands over nothing: a change made while the model worked waits for the next prompt', async () => {
    let store = open();
    const pending = store.pendingNotices(qwenKey);
    store.close();
    expect(pending).toHaveLength(1);
    script.push(() => {
      // While the model works, the person writes in Claude Code again.
      personInClaude('human message via claude-code');
      return { toolCall: { name: 'glob', arguments: { pattern: '*' } } };
    });
    const before = api.turns().length;
    const r = await runQwen(['-p', 'look at the files', '--resume', qwenSession, '--allowed-tools', 'glob']);
    times.push(`tool turn ${r.ms} ms`);
    const turn = api.turns().slice(before);
    expect(turn).toHaveLength(2);
    // The prompt carried the pending notice; the continuation added the tool's result and no notice.
    expect(textOf(messagesOf(turn[0]!).at(-1)!)).toContain(pending[0]!.text);
    const added = messagesOf(turn[1]!).slice(messagesOf(turn[0]!).length);
    expect(added.map((m) => m.role)).toContain('tool');
    expect(added.map(textOf).join('\n')).not.toContain(changed(lead));
    expect(count(sent(turn[1]!), changed(lead))).toBe(count(sent(turn[0]!), changed(lead)));
    store = open();
    try {
      // The change made meanwhile is one notice, waiting for the next prompt.
      const next = store.pendingNotices(qwenKey);
      expect(next).toHaveLength(1);
      expect(sent(turn[1]!)).not.toContain(next[0]!.text);
    } finally {
      store.close();
    }
  });

  it('T59 the MCP server Qwen Code starts (approved by init, no --yolo) is bound to the Qwen session: it hands that session its notices and refuses another\'s', async () => {
    // The person writes in Claude Code after the prompt's hook ran: only the tool can tell the model.
    script.push(() => {
      personInClaude('human message via claude-code');
      return { toolCall: { name: 'tool_call', arguments: { name: `${MCP}session_notices`, arguments: {} } } };
    });
    script.push(() => ({ toolCall: { name: 'tool_call', arguments: { name: `${MCP}session_notices`, arguments: { watcherSessionKey: lead } } } }));
    const before = api.turns().length;
    const r = await runQwen(['-p', 'anything new?', '--resume', qwenSession, '--allowed-tools', `${MCP}session_notices`]);
    times.push(`MCP turn ${r.ms} ms`);
    const turn = api.turns().slice(before);
    expect(turn).toHaveLength(3);
    const [own, other] = [messagesOf(turn[1]!).filter((m) => m.role === 'tool').at(-1)!, messagesOf(turn[2]!).filter((m) => m.role === 'tool').at(-1)!];
    expect(textOf(own)).toContain(changed(lead));
    expect(textOf(other)).toContain('Forbidden: watcherSessionKey');
    expect(textOf(other)).toContain(`bound to session "${qwenKey}"`);
    const store = open();
    try {
      expect(store.pendingNotices(qwenKey)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('T56 two prompts of one session with the same prompt_id (no saved transcript) are two turns: two notices, none swallowed by a dedupe key', async () => {
    const session = '7d6c5b4a-3e2f-4a1b-8c9d-1a2b3c4d5e6f';
    const key = `agent:qwen:${session}`;
    // A hook of the person's own beside init's, which writes down what Qwen sends (and prints nothing).
    const captured = join(box.root, 'prompts.jsonl');
    const capture = box.write('capture.mjs', `import { appendFileSync, readFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(captured)}, readFileSync(0, 'utf8').trim() + '\\n');\n`);
    const userSettings = join(box.home, '.qwen', 'settings.json');
    const own = readFileSync(userSettings, 'utf8');
    box.write('home/.qwen/settings.json', JSON.stringify({ ...QWEN_OFFLINE_SETTINGS, hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `${JSON.stringify(process.execPath)} ${JSON.stringify(capture)}` }] }] } }));
    let store = open();
    store.watch({ watcherSessionKey: lead, targetSessionKey: key, agentId: 'qwen' });
    store.close();
    try {
      for (const prompt of ['the person: first', 'the person: second']) {
        await runQwen(['-p', prompt, '--session-id', session, '--chat-recording', 'false']);
        store = open();
        try {
          // Each prompt is one notice for the watcher, handed over (acked) before the next.
          const notices = store.pendingNotices(lead).filter((n) => n.targetSessionKey === key);
          expect(notices, prompt).toHaveLength(1);
          store.ackNotices(lead, notices);
        } finally {
          store.close();
        }
      }
    } finally {
      box.write('home/.qwen/settings.json', own);
    }
    // What makes a dedupe key on prompt_id wrong: both prompts came with the same one.
    const payloads = readFileSync(captured, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(payloads.map((p) => p['prompt'])).toEqual(['the person: first', 'the person: second']);
    expect(payloads[0]!['prompt_id']).toBe(`${session}########0`);
    expect(payloads[1]!['prompt_id']).toBe(payloads[0]!['prompt_id']);
    store = open();
    try {
      expect(store.changesSince({ sessionKey: key, since: 0, agentId: 'qwen' }).stateChanges.events.filter((e) => e.kind === 'human_direct_message')).toHaveLength(2);
    } finally {
      store.close();
    }
  });

  it('T56 T59 /clear in a running Qwen Code: the old session is reset, the hooks follow the new session id, and the MCP server still serves the old one (the T59 limit, observed)', async () => {
    const startKey = (r: ChatRequest) => /Session-state key of this session: "(agent:qwen:[^"]+)"/.exec(sent(r, ['system']))?.[1];
    let asked: string | undefined;
    script.push((request) => {
      asked = startKey(request);
      // The manager starts watching the new session as soon as it exists (its key is in the request).
      const store = open();
      if (asked !== undefined) store.watch({ watcherSessionKey: lead, targetSessionKey: asked, agentId: 'qwen' });
      store.close();
      return { toolCall: { name: 'tool_call', arguments: { name: `${MCP}session_notices`, arguments: { watcherSessionKey: asked } } } };
    });
    let store = open();
    store.ackNotices(lead, store.pendingNotices(lead));
    store.close();
    const before = api.turns().length;
    const run = await runQwenSession(qwen as BinaryInfo, ['/clear', 'after the clear: anything new?', 'the person: one more'], {
      cwd: box.project,
      env: env(),
      args: ['--resume', qwenSession, '--allowed-tools', `${MCP}session_notices`],
    });
    times.push(`clear session ${run.ms} ms`);
    expect(run.code, run.stderr.slice(-1500)).toBe(0);
    offline();
    expect(run.results.map((r) => r.subtype)).toEqual(['success', 'success', 'success']);
    const fresh = run.results[0]!.session_id;
    expect(fresh).not.toBe(qwenSession);
    expect(run.results.map((r) => r.session_id)).toEqual([fresh, fresh, fresh]);
    // The start after the clear told the model its new key, in the system instruction.
    expect(asked).toBe(`agent:qwen:${fresh}`);
    // T59's limit: the server Qwen started for the resumed session was not restarted by the clear.
    // It is still bound to the old key and refuses the new session its own notices.
    const tool = messagesOf(api.turns().slice(before)[1]!).filter((m) => m.role === 'tool').at(-1)!;
    expect(textOf(tool)).toContain(`bound to session "${qwenKey}"`);
    expect(textOf(tool)).toContain(`not on "agent:qwen:${fresh}"`);
    store = open();
    try {
      expect(store.changesSince({ sessionKey: qwenKey, since: 0, agentId: 'qwen' }).stateChanges.events.at(-1)!.kind).toBe('session_reset');
      // The hooks, unlike the server, follow the clear: the person's prompt in the new session is the
      // one notice for its watcher; the old session's reset is the manager's other one.
      const notices = store.pendingNotices(lead);
      expect(notices.map((n) => n.targetSessionKey).sort()).toEqual([`agent:qwen:${fresh}`, qwenKey].sort());
    } finally {
      store.close();
    }
  });
});
