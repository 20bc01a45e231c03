import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { useBuiltCli } from '../cli/helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../integrations/fake-anthropic.js';
import type { PersonCliName } from '../../examples/mixed-team.js';
import { binaryOrSkip, claudeEnv, codexEnv, codexProviderArgs, copilotEnv, findClaude, findCodex, findCopilot, findQwen, makeSandbox, QWEN_AUTH_ARGS, QWEN_OFFLINE_SETTINGS, qwenEnv, runBinary, type BinaryInfo, type Sandbox } from './binaries.js';
import { startFakeChatCompletions } from './fake-chat-completions.js';
import { startFakeResponses, type FakeResponses, type ResponsesRequest } from './fake-responses.js';

/**
 * T40-T46 with the real binaries, offline: a person works in a Codex session, a manager runs in
 * Claude Code, both on one SQLite file, both set up by `init` in a throwaway project and home
 * (Codex's hooks trusted by `init codex --trust`, so Codex runs them without any bypass flag).
 * Each binary talks to a loopback stand-in for its model API; what reaches the model is read off
 * the requests the binary sends there.
 */
const codex = binaryOrSkip(findCodex(), 'the mixed Codex + Claude Code team');
const claude = binaryOrSkip(findClaude(), 'the mixed Codex + Claude Code team');

/** Every text a Responses request carries to the model (developer and user messages). */
function responsesTexts(request: ResponsesRequest): string[] {
  const input = request.json?.['input'];
  if (!Array.isArray(input)) return [];
  return (input as { content?: { text?: unknown }[] }[]).flatMap((item) => (Array.isArray(item.content) ? item.content.map((c) => c.text).filter((t): t is string => typeof t === 'string') : []));
}
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe.skipIf(codex === undefined || claude === undefined)('T41 a mixed team: Codex and Claude Code on one file, real binaries, offline', () => {
  const cli = useBuiltCli();
  let box: Sandbox;
  let responses: FakeResponses;
  let anthropic: FakeAnthropic;
  let db: string;
  const claudeSession = '6f1c2b3a-1111-4222-8333-944455556666';
  const lead = `agent:claude-code:${claudeSession}`;
  let thread = '';
  const open = (): SqliteStore => createSqliteStore({ path: db, now: () => Date.now(), logger: silentLogger });

  const runCodex = async (args: string[]) => {
    const r = await runBinary((codex as BinaryInfo).command, ['exec', '--skip-git-repo-check', ...codexProviderArgs(responses.baseUrl), ...args], { cwd: box.project, env: codexEnv(box) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    return r;
  };
  const runClaude = async (args: string[]) => {
    const r = await runBinary((claude as BinaryInfo).command, ['-p', ...args, '--output-format', 'json'], { cwd: box.project, env: claudeEnv(box, anthropic.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') }) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    return r;
  };

  beforeAll(async () => {
    box = makeSandbox('mixed');
    db = join(box.root, 'team.db');
    responses = await startFakeResponses(() => [{ type: 'message', text: 'On it.' }]);
    anthropic = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' }));
    // As a user sets it up: one command per CLI, the same database for both.
    for (const args of [
      ['init', 'codex', '--user', '--trust', '--db', db],
      ['init', 'claude-code', '--db', db],
    ]) {
      const r = await runBinary([process.execPath, cli.path()], args, { cwd: box.project, env: { HOME: box.home, CODEX_HOME: box.codexHome } });
      expect(r.code, r.stderr).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await responses?.close();
    await anthropic?.close();
    box?.remove();
  });

  it('T39 T40 T46 Codex runs the trusted hooks init wrote: its first request tells the model its session key', async () => {
    const r = await runCodex(['start on the parser']);
    thread = /session id: ([0-9a-f-]{36})/.exec(r.stderr + r.stdout)?.[1] ?? '';
    expect(thread).not.toBe('');
    const texts = responsesTexts(responses.turns().at(-1)!).join('\n');
    expect(texts).toContain(`Session-state key of this session: "agent:codex:${thread}"`);
    // T39: Codex gives hook context the developer role, not the system one.
    const carrying = (responses.turns().at(-1)!.json!['input'] as { role?: string; content?: { text?: string }[] }[]).filter((i) => i.content?.some((c) => c.text?.includes('Session-state key of this session')));
    expect(carrying.map((i) => i.role)).toEqual(['developer']);
    const store = open();
    try {
      expect(store.stateVersion(`agent:codex:${thread}`, 'codex')).toBeGreaterThanOrEqual(1);
    } finally {
      store.close();
    }
  });

  it('T41 a person\'s prompt in the resumed Codex session is exactly one notice for the Claude Code session watching it, and its text reaches the next request Claude Code sends', async () => {
    expect(thread).not.toBe('');
    const codexKey = `agent:codex:${thread}`;
    let store = open();
    store.watch({ watcherSessionKey: lead, targetSessionKey: codexKey, agentId: 'codex' });
    store.close();

    await runCodex(['resume', thread, 'the person: also handle empty input']);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toHaveLength(1);
    } finally {
      store.close();
    }

    const before = anthropic.requests.length;
    await runClaude(['what changed?', '--session-id', claudeSession]);
    const sent = anthropic.requests.slice(before).map((q) => q.body).join('\n');
    expect(count(sent, `Session \\"${codexKey}\\" changed (other actor)`)).toBe(1);
    store = open();
    try {
      expect(store.pendingNotices(lead)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('T41 the other way round: a person\'s prompt in Claude Code is one notice for the Codex session watching it, read by the model on the next Codex resume', async () => {
    expect(thread).not.toBe('');
    const codexKey = `agent:codex:${thread}`;
    let store = open();
    store.watch({ watcherSessionKey: codexKey, targetSessionKey: lead, agentId: 'claude-code' });
    store.close();

    const claudeBefore = anthropic.requests.length;
    await runClaude(['the person: switch to the v2 API', '--resume', claudeSession]);
    // T51: a resumed Claude Code session is not told its key again (its transcript has it).
    const resumedClaude = anthropic.requests.slice(claudeBefore).at(-1)!.body;
    expect(count(resumedClaude, `Session-state key of this session: \\"${lead}\\"`)).toBe(1);
    // A second prompt of the person before Codex looks: the pair's cursor moves on (M > N).
    await runClaude(['the person: and keep the old endpoint', '--resume', claudeSession]);
    store = open();
    try {
      expect(store.pendingNotices(codexKey)).toHaveLength(1);
    } finally {
      store.close();
    }

    const before = responses.turns().length;
    await runCodex(['resume', thread, 'carry on']);
    // T51: one notice for the pair in the resumed turn's request (the start drains nothing, so no
    // follow-up reopens and reaches the same request), and the key line once in the conversation.
    const request = responses.turns().slice(before).at(-1)!;
    const texts = responsesTexts(request).join('\n');
    expect(count(texts, `Session "${lead}" changed (other actor)`)).toBe(1);
    expect(count(texts, `Session-state key of this session: "${codexKey}"`)).toBe(1);
    store = open();
    try {
      // R28: the second prompt came after the notice was frozen, so the ack reopened exactly one
      // follow-up, for the next turn, not this one.
      const followUp = store.pendingNotices(codexKey);
      expect(followUp).toHaveLength(1);
      expect(texts).not.toContain(followUp[0]!.text);
    } finally {
      store.close();
    }
  });
});

describe.skipIf(codex === undefined)('T44 what Codex tells an MCP server about its session', () => {
  it('T44 nothing: the server Codex starts has no variable naming the thread, so init registers it unbound', async () => {
    const box = makeSandbox('mcp-env');
    const responses = await startFakeResponses(() => [{ type: 'message', text: 'ok' }]);
    try {
      const dump = box.write('dump-env.mjs', `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(box.root, 'env.json'))}, JSON.stringify(process.env));\nprocess.exit(1);\n`);
      writeFileSync(join(box.codexHome, 'config.toml'), `[mcp_servers.envdump]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(dump)}]\n`);
      const r = await runBinary((codex as BinaryInfo).command, ['exec', '--skip-git-repo-check', ...codexProviderArgs(responses.baseUrl), 'hello'], { cwd: box.project, env: codexEnv(box) });
      const thread = /session id: ([0-9a-f-]{36})/.exec(r.stderr + r.stdout)?.[1];
      expect(thread).toBeDefined();
      const env = JSON.parse(readFileSync(join(box.root, 'env.json'), 'utf8')) as Record<string, string>;
      expect(Object.entries(env).filter(([, v]) => v.includes(thread!))).toEqual([]);
      expect(Object.keys(env).filter((k) => /THREAD|SESSION/i.test(k))).toEqual([]);
    } finally {
      await responses.close();
      box.remove();
    }
  });
});

/**
 * examples/mixed-team.ts as written, with the person in each CLI it knows, against loopback
 * stand-ins. What each needs to run offline is the test's (the environment and arguments the
 * example takes); the example's own steps are unchanged.
 */
const qwen = binaryOrSkip(findQwen(), 'the mixed-team example with Qwen Code');
const copilot = binaryOrSkip(findCopilot(), 'the mixed-team example with Copilot CLI');
type Standin = { personCommand: string[]; personArgs: string[]; personEnv: Record<string, string>; env: Record<string, string>; close: () => Promise<void> };
const persons: { name: PersonCliName; binary: BinaryInfo | undefined; standin: (box: Sandbox) => Promise<Standin> }[] = [
  {
    name: 'codex',
    binary: codex,
    standin: async (box) => {
      const responses = await startFakeResponses(() => [{ type: 'message', text: 'ok' }]);
      return { personCommand: codex!.command, personArgs: codexProviderArgs(responses.baseUrl), personEnv: {}, env: { HOME: box.home, CODEX_HOME: box.codexHome }, close: () => responses.close() };
    },
  },
  {
    name: 'qwen',
    binary: qwen,
    standin: async (box) => {
      const api = await startFakeChatCompletions(() => ({ text: 'ok' }));
      box.write('home/.qwen/settings.json', JSON.stringify(QWEN_OFFLINE_SETTINGS, null, 2));
      return { personCommand: qwen!.command, personArgs: QWEN_AUTH_ARGS, personEnv: qwenEnv(box, api.baseUrl), env: { HOME: box.home }, close: () => api.close() };
    },
  },
  {
    name: 'copilot',
    binary: copilot,
    standin: async (box) => {
      const api = await startFakeChatCompletions(() => ({ text: 'ok' }));
      // The person trusted the folder when Copilot asked, as the example's header says.
      box.write('home/.copilot/config.json', JSON.stringify({ trustedFolders: [box.project] }, null, 2));
      return { personCommand: copilot!.command, personArgs: [], personEnv: copilotEnv(box, api.baseUrl), env: { HOME: box.home }, close: () => api.close() };
    },
  },
];

for (const p of persons) {
  describe.skipIf(p.binary === undefined || claude === undefined)(`examples/mixed-team.ts with the person in ${p.name}, offline`, () => {
    const cli = useBuiltCli();
    it(`T41 T52 T56 the example runs as written against loopback stand-ins: one notice for the manager, handed to its model (${p.name})`, async () => {
      const { main } = await import('../../examples/mixed-team.js');
      const box = makeSandbox(`example-${p.name}`);
      const standin = await p.standin(box);
      const anthropic = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'ok' }], stop: 'end_turn' }));
      try {
        const lines: string[] = [];
        const result = await main({
          project: box.project,
          person: p.name,
          kit: [process.execPath, cli.path()],
          personCommand: standin.personCommand,
          claude: (claude as BinaryInfo).command,
          personArgs: standin.personArgs,
          env: standin.env,
          personEnv: standin.personEnv,
          claudeEnv: claudeEnv(box, anthropic.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') }),
          log: (l) => lines.push(l),
        });
        expect(result.personSession).toMatch(new RegExp(`^agent:${p.name}:[0-9a-f-]{36}$`));
        expect(result.noticesHanded).toBe(1);
        expect(count(anthropic.requests.map((q) => q.body).join('\n'), `Session \\"${result.personSession}\\" changed`)).toBe(1);
        expect(lines).toEqual([`${result.managerSession} watches ${result.personSession}`, 'pending for the manager: 1', 'the manager was told; it reconciles with session_status before acting']);
      } finally {
        await standin.close();
        await anthropic.close();
        box.remove();
      }
    }, 240_000);
  });
}
