import { fstatSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { CLAUDE_CODE_AGENT, CLAUDE_HOOK_EVENTS, planClaudeHookEvent, type ClaudeHookInput } from '../integrations/claude-agent-sdk/events.js';
import { CODEX_AGENT, CODEX_CONTEXT_EVENTS, planCodexHookEvent } from '../integrations/codex/events.js';
import { COPILOT_AGENT, COPILOT_CONTEXT_EVENTS, planCopilotHookEvent, sentByCopilot } from '../integrations/copilot/events.js';
import { GEMINI_AGENT, GEMINI_CONTEXT_EVENTS, planGeminiHookEvent } from '../integrations/gemini/events.js';
import { QWEN_AGENT, QWEN_CONTEXT_EVENTS, planQwenHookEvent } from '../integrations/qwen/events.js';
import type { HookPlan } from '../integrations/hook-plan.js';
import { applyHookPlan, HOOK_BUDGET_MS, HOOK_BUSY_MS, HOOK_MAX_NOTICES, hookContext, sharedDbProblem, type HookStore } from '../integrations/hook-apply.js';
import { parseCommand, wantsHelp } from './args.js';
import { EXIT, type ExitCode, type Io } from './io.js';
import { messageOf } from '../shared/logger.js';

// The store-side half of a run is shared with the OpenCode plugin (hook-apply.ts).
export { HOOK_BUDGET_MS, HOOK_BUSY_MS, HOOK_MAX_NOTICES, hookContext, sharedDbProblem, type HookStore };

export const HOOK_USAGE = `session-state-kit hook claude-code|codex|gemini|qwen|copilot --db <file> [--agent <id>]

A command hook for Claude Code (PROTOCOL.md T9, events as T30-T34), Codex CLI (T40-T44), Gemini
CLI (T48) or Qwen Code (T56-T57); all plan with one planner. Reads the hook's JSON payload on
stdin. Claude Code:

  SessionStart       registers the session (a "created" event, once per session) and tells the
                     model its session key, plus any pending notices
  UserPromptSubmit   records the person's turn on the session (if anyone watches it; not a turn
                     the runtime submits itself) and hands the model the session's pending notices
  SubagentStart      opens the sub-agent's own session, watched by its parent from its start, and
                     tells the sub-agent its key
  SubagentStop       records the sub-agent's run as completed (log-only)
  PostCompact        records that the context was compacted (log-only)
  SessionEnd         on /clear (reason "clear") records a reset and ends the session's own watches

A Claude Code session <session_id> is the session "agent:<agent>:<session_id>" (--agent, default
claude-code). At most ${HOOK_MAX_NOTICES} notices are shown per prompt (one line counts the rest), and
they are acknowledged only after they were printed to a reader (not when stdout is closed or
/dev/null). Input it cannot use (not JSON, not UTF-8, another event, a session id that is not a
valid key) is ignored: exit 0, nothing written, one line on stderr. A hook never blocks the
person's prompt: while another process holds the database's lock it waits at most ${HOOK_BUSY_MS} ms a
statement and stops after ${HOOK_BUDGET_MS} ms, printing nothing (the notices wait for the next prompt).

  --db <file>    SQLite state database (created if missing), shared with "session-state-kit mcp"
                 (a file: '' and :memory: share nothing and are refused)
  --agent <id>   agent id of the session keys (default: the runtime's name: claude-code, codex,
                 gemini, qwen or copilot)

Set it up with "session-state-kit init claude-code" (or codex, gemini, qwen, copilot): it writes each entry as
the absolute path of this Node and of this kit's CLI, never a package name resolved when the hook
runs. By hand, in .claude/settings.json:
  {"hooks": {
    "SessionStart": [{"hooks": [{"type": "command", "command": "/usr/bin/node /path/to/session-state-kit/dist/cli.js hook claude-code --db /tmp/team.db"}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/usr/bin/node /path/to/session-state-kit/dist/cli.js hook claude-code --db /tmp/team.db"}]}]
  }}
(SubagentStart, SubagentStop, PostCompact and SessionEnd take the same entry.)

Codex (0.171.0 payloads): SessionStart (startup, resume, fork, compact; "clear" also records a
reset), UserPromptSubmit (a person's turn, except inside a sub-agent thread), SubagentStart,
SubagentStop, PostCompact and SessionEnd, as above; Stop, PreCompact and tool events get "no
opinion". Sessions are "agent:codex:<session_id>" (--agent, default codex). Notices and the key
line go to the model as hookSpecificOutput.additionalContext of SessionStart, UserPromptSubmit and
SubagentStart. Codex runs a hook only once it is trusted: "session-state-kit init codex" writes the
entries, and with --trust records their trust.

Gemini CLI (0.61.0 payloads, T48): SessionStart, BeforeAgent (the person's prompt), PreCompress
(recorded as the compaction starts: Gemini has no event after it) and SessionEnd (reason "clear"
records a reset); notices go out as additionalContext of SessionStart and BeforeAgent. Sessions
are "agent:gemini:<session_id>".

Qwen Code (0.24.4 payloads, T56-T57): SessionStart (startup, resume, compact; a /clear starts a new
session id, and SessionEnd with reason "clear" records the old one's reset), UserPromptSubmit (a
person's prompt; the empty prompt Qwen submits when a tool result continues a turn is ignored),
SubagentStart, SubagentStop and PostCompact as above. The key line goes out with SessionStart
(Qwen puts it in the system instruction, so a resume tells it again), the notices with
UserPromptSubmit. Sessions are "agent:qwen:<session_id>".

GitHub Copilot CLI (1.0.102 payloads under PascalCase event names, T52-T54): SessionStart (new,
startup, resume), UserPromptSubmit (the person's prompt; a sub-agent's prompt is ignored) and
PreCompact (recorded as the compaction starts); SessionEnd records nothing (Copilot reports /clear
as an exit and goes on in a new session). Notices and the key line go out as {"additionalContext":
...} of SessionStart and UserPromptSubmit (a resume tells the key again: Copilot does not keep the
earlier start's). Sessions are "agent:copilot:<session_id>". Copilot also
runs a project's Claude Code hooks: "hook claude-code" ignores the payloads Copilot sends it.

Exit codes: 0 always, except 1 for a bad command line (never 2, which would block the prompt).`;

export { CLAUDE_CODE_AGENT };
const CHANNEL = 'claude-code';
/** Hook payloads are small; a prompt with a pasted file is the largest. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export interface ClaudeCodeHookRun {
  /** The raw stdin text. */
  input: string;
  /** T40: whose payload it is (default claude-code). */
  runtime?: HookRuntime;
  agentId: string;
  /** T54: the hook's environment, where Copilot marks the hooks it runs (default: none). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Opens the store; called only once the input is known to be usable (nothing is written otherwise). */
  openStore: () => HookStore | Promise<HookStore>;
  /** Writes stdout; resolves once the text was handed over, rejects if it could not be. */
  write: (text: string) => Promise<void>;
  /** One diagnostic line (stderr). */
  warn: (line: string) => void;
  /** T17: whether a successful write reached something that reads it (stdout closed or /dev/null: no). Default yes. */
  reachesReader?: () => boolean;
  /** T9: milliseconds since the run began; past HOOK_BUDGET_MS the run stops before its next step. Default: no budget. */
  elapsedMs?: () => number;
}

/** T9, T40: a hook run's plan is the shared planner's (hook-plan.ts), the one the Agent SDK hooks make too. */
export type PlannedHook = HookPlan;

type Env = Readonly<Record<string, string | undefined>>;

/** Each runtime as its messages name it. */
const RUNTIME_NAMES = { 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', copilot: 'GitHub Copilot CLI' } as const;

/** T9: the reason to ignore an empty stdin, naming the runtime whose payload was expected. */
const noInput = (runtime: keyof typeof RUNTIME_NAMES) =>
  `no input: the hook reads the payload ${RUNTIME_NAMES[runtime]} writes to stdin (run it from a hook entry, or pipe a payload in)`;
/** T9, T43: the output Claude Code, Codex and Gemini CLI read added context from. */
const hookSpecificOutput = (event: string, text: string) => JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });

/** T9, T40: the runtimes `hook` serves: each one's name, how it plans a payload, which events may carry context, and in what output. */
export const HOOK_RUNTIMES = {
  'claude-code': { name: RUNTIME_NAMES['claude-code'], defaultAgent: CLAUDE_CODE_AGENT, plan: (input: string, agentId: string, env: Env = {}) => planClaudeCodeHook(input, agentId, env), carriesContext: (_event: string) => true, output: hookSpecificOutput },
  codex: { name: RUNTIME_NAMES.codex, defaultAgent: CODEX_AGENT, plan: (input: string, agentId: string, _env: Env = {}) => planCodexHook(input, agentId), carriesContext: (event: string) => CODEX_CONTEXT_EVENTS.has(event), output: hookSpecificOutput },
  qwen: { name: RUNTIME_NAMES.qwen, defaultAgent: QWEN_AGENT, plan: (input: string, agentId: string, _env: Env = {}) => planQwenHook(input, agentId), carriesContext: (event: string) => QWEN_CONTEXT_EVENTS.has(event), output: hookSpecificOutput },
  gemini: { name: RUNTIME_NAMES.gemini, defaultAgent: GEMINI_AGENT, plan: (input: string, agentId: string, _env: Env = {}) => planGeminiHook(input, agentId), carriesContext: (event: string) => GEMINI_CONTEXT_EVENTS.has(event), output: hookSpecificOutput },
  // T53: Copilot reads a top-level additionalContext and ignores hookSpecificOutput (checked with 1.0.102).
  copilot: { name: RUNTIME_NAMES.copilot, defaultAgent: COPILOT_AGENT, plan: (input: string, agentId: string, _env: Env = {}) => planCopilotHook(input, agentId), carriesContext: (event: string) => COPILOT_CONTEXT_EVENTS.has(event), output: (_event: string, text: string) => JSON.stringify({ additionalContext: text }) },
} as const;
export type HookRuntime = keyof typeof HOOK_RUNTIMES;

function parseObject(input: string): Record<string, unknown> | string {
  let payload: unknown;
  try {
    payload = JSON.parse(input);
  } catch {
    return 'input is not JSON';
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return 'input is not a JSON object';
  return payload as Record<string, unknown>;
}

/** T56: what a Qwen Code payload asks for, decided before anything is opened, or the reason to ignore it. */
export function planQwenHook(input: string, agentId: string): PlannedHook | string {
  if (input.trim() === '') return noInput('qwen');
  const p = parseObject(input);
  if (typeof p === 'string') return p;
  // As T9: each hook run is its own process and SessionStart registered the session.
  return planQwenHookEvent(p, { agentId }, true);
}

/** T48: what a Gemini CLI payload asks for, decided before anything is opened, or the reason to ignore it. */
export function planGeminiHook(input: string, agentId: string): PlannedHook | string {
  if (input.trim() === '') return noInput('gemini');
  const p = parseObject(input);
  if (typeof p === 'string') return p;
  return planGeminiHookEvent(p, { agentId }, true);
}

/** T52-T53: what a Copilot CLI payload asks for, decided before anything is opened, or the reason to ignore it. */
export function planCopilotHook(input: string, agentId: string): PlannedHook | string {
  if (input.trim() === '') return noInput('copilot');
  const p = parseObject(input);
  if (typeof p === 'string') return p;
  return planCopilotHookEvent(p, { agentId });
}

/** T40-T43: what a Codex payload asks for, decided before anything is opened, or the reason to ignore it. */
export function planCodexHook(input: string, agentId: string): PlannedHook | string {
  if (input.trim() === '') return noInput('codex');
  const p = parseObject(input);
  if (typeof p === 'string') return p;
  // As T9: each hook run is its own process and SessionStart registered the session.
  return planCodexHookEvent(p, { agentId }, true);
}

/**
 * T9: what a payload asks for, decided before anything is opened, or the one-line reason to
 * ignore it. The JSON is checked here as far as the shared planner reads it; the planner
 * validates every record (R1-R4), so a payload the store would reject writes nothing at all,
 * not even a new database file.
 */
export function planClaudeCodeHook(input: string, agentId: string, env: Env = {}): PlannedHook | string {
  if (input.trim() === '') return noInput('claude-code');
  const p = parseObject(input);
  if (typeof p === 'string') return p;
  // T54: Copilot runs a project's Claude Code hooks too, with its own session ids; its sessions take
  // part through "hook copilot", so this run writes nothing and hands nothing over a second time.
  if (sentByCopilot(p, env)) return 'run by GitHub Copilot CLI, whose sessions take part through "hook copilot" (init copilot): ignored, nothing written';
  const event = p['hook_event_name'];
  if (!(CLAUDE_HOOK_EVENTS as readonly unknown[]).includes(event)) return `ignored hook event ${JSON.stringify(event)} (handles ${CLAUDE_HOOK_EVENTS.join(', ')})`;
  const sessionId = p['session_id'];
  if (typeof sessionId !== 'string' || sessionId.length === 0) return 'session_id is missing or not a string';
  // T9: Claude Code runs SessionStart before a session's first prompt, and each hook run is its own
  // process: the prompt counts as registered, so it records only the person's turn (no `created`
  // per prompt, no key line per prompt), as the hook always did.
  return planClaudeHookEvent(p as unknown as ClaudeHookInput, { agentId, channel: CHANNEL }, true);
}

/** T9: one hook run. Never throws: every failure is one line through `warn`, and the prompt goes on. */
export async function runClaudeCodeHook(run: ClaudeCodeHookRun): Promise<void> {
  const runtime = HOOK_RUNTIMES[run.runtime ?? 'claude-code'];
  const plan = runtime.plan(run.input, run.agentId, run.env ?? {});
  if (typeof plan === 'string') return run.warn(plan);
  // SessionEnd for another reason than clear: nothing to record, nothing to say (T34).
  if (plan.records.length === 0 && plan.resetSession === undefined && plan.deliverTo === undefined && plan.introduce === undefined) return;
  let store: HookStore;
  try {
    store = await run.openStore();
  } catch (error) {
    return run.warn(`state database unavailable: ${messageOf(error)}`);
  }
  try {
    const applied = await applyHookPlan(plan, store, { agentId: run.agentId, carriesContext: runtime.carriesContext(plan.event), warn: run.warn, ...(run.elapsedMs !== undefined ? { elapsedMs: run.elapsedMs } : {}) });
    const context = applied?.context;
    if (context === undefined) return;
    const deliverTo = applied!.deliverTo;
    const output = runtime.output(plan.event, context.text);
    try {
      await run.write(`${output}\n`);
    } catch (error) {
      // Not printed, so not delivered: the notices stay pending for the next prompt.
      return run.warn(`could not write the hook output: ${messageOf(error)}`);
    }
    if (context.shown.length === 0 || deliverTo === undefined) return;
    // T17: a write to a closed stdout (the OS hands the process /dev/null) succeeds, yet nobody read it.
    if (run.reachesReader !== undefined && !run.reachesReader()) {
      return run.warn(`stdout reaches no reader (closed or /dev/null): ${context.shown.length} notice(s) left pending, not acknowledged`);
    }
    // T9: one process per event, so no later Stop to wait for (T30): printed to a reader is delivered.
    // Acknowledge exactly the notices printed (a newer one, or one not shown, stays pending).
    await store.ackNotices(deliverTo, context.shown);
  } catch (error) {
    run.warn(`hook failed: ${messageOf(error)}`);
  } finally {
    try {
      await store.close();
    } catch {
      // Closing a store we only read from cannot lose anything the person needs.
    }
  }
}

/** A store's log line with the reason it carries (one line: the hook prints one per problem). */
function withCause(message: string, details?: Record<string, unknown>): string {
  const cause = details?.['error'];
  const text = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : undefined;
  return text === undefined ? message : `${message}: ${text.split('\n')[0]!.slice(0, 160)}`;
}

/**
 * What `hook` takes from its process: stdin, stdout, the environment and a clock. The command passes
 * its own process's; in-process tests pass streams and descriptors of their own.
 */
export interface HookProcess {
  stdin: Readable & { isTTY?: boolean };
  env: Env;
  /** Resolves once the text was handed over, rejects if it could not be. */
  write: (text: string) => Promise<void>;
  /** T17: whether stdout leads to a reader. */
  reachesReader: () => boolean;
  /** Milliseconds from an arbitrary origin (T9's budget counts from the first reading). */
  now: () => number;
}

const ownProcess = (): HookProcess => ({
  stdin: process.stdin,
  env: process.env,
  write: (text) =>
    new Promise((resolve, reject) => {
      process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
    }),
  reachesReader: () => stdoutReachesReader(1),
  now: () => performance.now(),
});

/** T17: the whole payload, refused past MAX_INPUT_BYTES or when it is not valid UTF-8. */
export function readHookInput(stdin: Readable, maxBytes = MAX_INPUT_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stdin.destroy();
        reject(new Error(`input is larger than ${maxBytes} bytes`));
      } else chunks.push(chunk);
    });
    stdin.on('end', () => {
      // T17: a lossy decode would turn distinct session ids into one key (each bad byte becomes U+FFFD).
      try {
        resolve(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(Buffer.concat(chunks)));
      } catch {
        reject(new Error('input is not valid UTF-8'));
      }
    });
    stdin.on('error', reject);
  });
}

/**
 * T17: whether a descriptor (stdout: 1) leads anywhere. Node gives a process whose stdout was closed
 * /dev/null in its place, where every write succeeds; that device (and /dev/null given explicitly)
 * reaches nobody. A descriptor that cannot be read counts as a reader: the notices are then
 * acknowledged as printed, as before T17.
 */
export function stdoutReachesReader(fd: number): boolean {
  try {
    const out = fstatSync(fd);
    if (!out.isCharacterDevice()) return true;
    const devNull = statSync('/dev/null');
    return !(out.rdev === devNull.rdev && out.ino === devNull.ino && out.dev === devNull.dev);
  } catch {
    return true;
  }
}

/** `session-state-kit hook claude-code ...`: exits 0 whatever the input (1 only for a bad command line). */
export async function hookCommand(argv: readonly string[], io: Io, proc: HookProcess = ownProcess()): Promise<ExitCode> {
  if (wantsHelp(argv)) return (io.out(HOOK_USAGE), EXIT.ok);
  const warn = (line: string) => io.err(`session-state-kit hook: ${line.replace(/[\r\n]+/g, ' ')}\n`);
  let values: { db?: string | undefined; agent?: string | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseCommand(argv, { db: { type: 'string' }, agent: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'hook'));
  } catch (error) {
    warn(messageOf(error));
    return EXIT.failure;
  }
  const [runtime, ...extra] = positionals;
  const known = runtime !== undefined && Object.hasOwn(HOOK_RUNTIMES, runtime) ? (runtime as HookRuntime) : undefined;
  const agentId = values.agent ?? (known === undefined ? CLAUDE_CODE_AGENT : HOOK_RUNTIMES[known].defaultAgent);
  const problem =
    known === undefined
      ? `unknown hook runtime ${JSON.stringify(runtime ?? '')} (supported: ${Object.keys(HOOK_RUNTIMES).join(', ')})`
      : extra.length > 0
        ? `unexpected arguments: ${extra.join(' ')}`
        : values.db === undefined
          ? 'needs --db <file>'
          : sharedDbProblem(values.db) !== undefined
            ? sharedDbProblem(values.db)
          : !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(agentId)
            ? `--agent must be an agent id, got ${JSON.stringify(agentId)}`
            : undefined;
  if (problem !== undefined) {
    warn(`${problem}; see: session-state-kit hook --help`);
    return EXIT.failure;
  }
  if (proc.stdin.isTTY === true) {
    warn(`reads a ${RUNTIME_NAMES[known ?? 'claude-code']} hook payload (JSON) on stdin; nothing to read from a terminal`);
    return EXIT.ok;
  }
  let input: string;
  try {
    input = await readHookInput(proc.stdin);
  } catch (error) {
    warn(`could not read stdin: ${messageOf(error)}`);
    return EXIT.ok;
  }
  const path = values.db!;
  const started = proc.now();
  await runClaudeCodeHook({
    elapsedMs: () => proc.now() - started,
    input,
    runtime: known,
    agentId,
    env: proc.env,
    warn,
    write: proc.write,
    reachesReader: proc.reachesReader,
    openStore: async () => {
      const { loadSqlite } = await import('./load-sqlite.js');
      const { createSqliteStore } = await loadSqlite();
      return createSqliteStore({ path, now: Date.now, busyTimeoutMs: HOOK_BUSY_MS, logger: { warn: (m, d) => warn(withCause(m, d)), error: (m, d) => warn(withCause(m, d)) } });
    },
  });
  return EXIT.ok;
}
