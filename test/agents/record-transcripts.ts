import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeAnthropic } from '../integrations/fake-anthropic.js';
import { claudeEnv, codexProviderArgs, makeSandbox, runBinary, type BinaryInfo } from './binaries.js';
import { startFakeResponses, type ResponsesRequest } from './fake-responses.js';

/**
 * Scripted offline runs of the real binaries that leave a real transcript behind (U11): what the
 * upstream monitor reads in the field, written by the pinned binaries, not by us. The script for
 * each is fixed, so the number of prompts a person typed is known: the monitor must count exactly
 * that many.
 *
 * Codex is driven through `codex app-server`, the JSON-RPC door its IDE clients use: each
 * `turn/start` is a prompt a person typed into the editor. (`codex exec` writes an exec thread,
 * which U10 rightly never counts.) Claude Code is driven by `claude -p`, resumed with `--resume`.
 */

export interface Recording {
  /** The transcript's lines, as the binary wrote them. */
  text: string;
  /** A sub-agent's own transcript, when the run spawned one (it counts no human turn, U10). */
  subagentText?: string;
  /** How many prompts the script typed (the count the monitor must find). */
  typedPrompts: number;
  /** The package that shipped the binary and its version. */
  version: string;
  /** What the binary itself says (`--version`). */
  binaryVersion: string;
  /** What the script did, for the fixture's side file. */
  script: string[];
}

const CODEX_SCRIPT = ['turn: "start on the parser"', 'turn: "please list the files" (the model runs exec_command ls)', 'thread/compact/start (a manual compaction)', 'app-server restarted; thread/resume', 'turn: "now fix the failing test"', 'turn: "delegate: find the callers" (the model spawns a sub-agent, multi_agent_v1.spawn_agent)'];

/**
 * The model's side of every Codex run: a shell call when asked to list files, a sub-agent when
 * asked to delegate (and a wait for it), text otherwise.
 */
function codexModel(request: ResponsesRequest, index: number) {
  const input = JSON.stringify(request.json?.['input'] ?? []);
  const after = (marker: string) => {
    const at = input.lastIndexOf(marker);
    return at < 0 ? undefined : input.slice(at);
  };
  const listing = after('please list the files');
  if (listing !== undefined && !listing.includes('function_call_output')) return [{ type: 'function_call' as const, name: 'exec_command', arguments: { cmd: 'ls' } }];
  const delegating = after('delegate: find the callers');
  // The sub-agent's own thread starts from the message the parent gave it, and just answers.
  if (input.includes('find the callers of parse()') && !input.includes('delegate: find the callers')) return [{ type: 'message' as const, text: 'parse() has two callers' }];
  if (delegating !== undefined && !delegating.includes('function_call_output')) {
    return [{ type: 'function_call' as const, namespace: 'multi_agent_v1', name: 'spawn_agent', arguments: { message: 'find the callers of parse()' } }];
  }
  return [{ type: 'message' as const, text: `step ${index} done` }];
}

interface AppServer {
  call(method: string, params: unknown): Promise<Record<string, unknown>>;
  turn(threadId: string, text: string): Promise<void>;
  /** Calls `method` and waits for the notification `until`. */
  callUntil(method: string, params: unknown, until: string): Promise<void>;
  close(): void;
}

function appServer(codex: BinaryInfo, baseUrl: string, cwd: string, env: Record<string, string>): AppServer {
  const providerArgs = codexProviderArgs(baseUrl).filter((a, i, all) => a !== '-m' && all[i - 1] !== '-m');
  const child = spawn(codex.command[0]!, [...codex.command.slice(1), 'app-server', ...providerArgs], { cwd, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  const listeners: ((m: Record<string, unknown>) => void)[] = [];
  let buffer = '';
  let next = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const m = JSON.parse(buffer.slice(0, i)) as Record<string, unknown>;
      buffer = buffer.slice(i + 1);
      if (typeof m['id'] === 'number' && m['method'] === undefined) waiting.get(m['id'])?.(m);
      else if (typeof m['method'] === 'string') {
        // A request from the server (an approval): accept, as a person would.
        if (m['id'] !== undefined) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: m['id'], result: { decision: 'accept' } })}\n`);
        for (const l of listeners) l(m);
      }
    }
  });
  const call = (method: string, params: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`codex app-server: no answer to ${method}`)), 120_000);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        if (m['error'] !== undefined) reject(new Error(`codex app-server ${method}: ${JSON.stringify(m['error'])}`));
        else resolve(m['result'] as Record<string, unknown>);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    call,
    async turn(threadId, text) {
      await this.callUntil('turn/start', { threadId, input: [{ type: 'text', text }] }, 'turn/completed');
    },
    async callUntil(method, params, until) {
      const done = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`codex app-server: ${method} never sent ${until}`)), 120_000);
        listeners.push((m) => {
          if (m['method'] === until) (clearTimeout(timer), resolve());
        });
      });
      await call(method, params);
      await done;
      listeners.length = 0;
    },
    close: () => void child.kill(),
  };
}

/** The binary's own `--version` line. */
export async function binaryVersion(binary: BinaryInfo): Promise<string> {
  const r = await runBinary(binary.command, ['--version'], { cwd: process.cwd(), env: { HOME: process.env['HOME'] ?? '/tmp' } });
  return r.stdout.trim().split('\n')[0] ?? '';
}

function onlyFile(dir: string, suffix: string): string {
  const found = allFiles(dir, suffix);
  if (found.length !== 1) throw new Error(`expected one ${suffix} under ${dir}, found ${found.length}: ${found.join(', ')}`);
  return found[0]!;
}

function allFiles(dir: string, suffix: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(suffix)) found.push(p);
    }
  };
  walk(dir);
  return found.sort();
}

/** U11: a Codex rollout with three typed prompts, a tool call and a resume, written by the real binary. */
export async function recordCodexRollout(codex: BinaryInfo): Promise<Recording> {
  const box = makeSandbox('record-codex');
  const api = await startFakeResponses(codexModel);
  const env = { HOME: box.home, CODEX_HOME: box.codexHome };
  try {
    const start = async () => {
      const s = appServer(codex, api.baseUrl, box.project, env);
      await s.call('initialize', { clientInfo: { name: 'session-state-kit-record', version: '0' } });
      return s;
    };
    let server = await start();
    const thread = (await server.call('thread/start', { cwd: box.project, model: 'standin-model' }))['thread'] as { id: string };
    await server.turn(thread.id, 'start on the parser');
    await server.turn(thread.id, 'please list the files');
    await server.callUntil('thread/compact/start', { threadId: thread.id }, 'turn/completed');
    server.close();
    server = await start();
    await server.call('thread/resume', { threadId: thread.id, cwd: box.project, model: 'standin-model' });
    await server.turn(thread.id, 'now fix the failing test');
    await server.turn(thread.id, 'delegate: find the callers');
    // The sub-agent runs on in its own thread; give it a moment to write its rollout.
    await new Promise((r) => setTimeout(r, 1500));
    server.close();
    const rollouts = allFiles(join(box.codexHome, 'sessions'), '.jsonl');
    const parent = rollouts.find((f) => f.endsWith(`${thread.id}.jsonl`));
    if (parent === undefined) throw new Error(`no rollout for thread ${thread.id} among ${rollouts.join(', ')}`);
    const child = rollouts.find((f) => f !== parent);
    return { text: readFileSync(parent, 'utf8'), ...(child !== undefined ? { subagentText: readFileSync(child, 'utf8') } : {}), typedPrompts: 4, version: `${codex.packageName}@${codex.packageVersion}`, binaryVersion: await binaryVersion(codex), script: CODEX_SCRIPT };
  } finally {
    await api.close();
    box.remove();
  }
}

const CLAUDE_SCRIPT = ['claude -p "start on the parser" --session-id <id> (the model runs Bash ls)', 'claude -p "now fix the failing test" --resume <id>'];

/** U11: a Claude Code transcript with two typed prompts, a tool call and a resume, written by the real binary. */
export async function recordClaudeTranscript(claude: BinaryInfo): Promise<Recording> {
  const box = makeSandbox('record-claude');
  const api = await startFakeAnthropic(async (request) => {
    const asked = request.body.includes('start on the parser');
    const answered = request.body.includes('tool_result');
    if (asked && !answered) return { content: [{ type: 'tool_use', id: 'toolu_record_1', name: 'Bash', input: { command: 'ls', description: 'List files' } }], stop: 'tool_use' };
    return { content: [{ type: 'text', text: 'done' }], stop: 'end_turn' };
  });
  const env = claudeEnv(box, api.url, { CLAUDE_CONFIG_DIR: join(box.home, '.claude') });
  const session = '5b7e0c1d-2f3a-4b5c-8d6e-7f8091a2b3c4';
  try {
    for (const args of [
      ['-p', 'start on the parser', '--session-id', session, '--allowedTools', 'Bash(ls)'],
      ['-p', 'now fix the failing test', '--resume', session],
    ]) {
      const r = await runBinary(claude.command, [...args, '--output-format', 'json'], { cwd: box.project, env });
      if (r.code !== 0) throw new Error(`claude ${args.join(' ')} exited ${String(r.code)}: ${r.stderr.slice(-1000)}`);
    }
    return { text: readFileSync(onlyFile(join(box.home, '.claude', 'projects'), `${session}.jsonl`), 'utf8'), typedPrompts: 2, version: `${claude.packageName}@${claude.packageVersion}`, binaryVersion: await binaryVersion(claude), script: CLAUDE_SCRIPT };
  } finally {
    await api.close();
    box.remove();
  }
}

/** U11: a record's shape, as the drift check compares them: its type and the type inside its payload. */
export function recordShape(line: string): string {
  const r = JSON.parse(line) as Record<string, unknown>;
  const payload = r['payload'];
  const inner = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>)['type'] : undefined;
  const message = r['message'];
  const role = message !== null && typeof message === 'object' ? (message as Record<string, unknown>)['role'] : undefined;
  return [r['type'], inner ?? role ?? (typeof r['subtype'] === 'string' ? r['subtype'] : undefined)].filter((x) => x !== undefined).join('/');
}
