import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_RUNTIMES, HOOK_USAGE, hookCommand, runClaudeCodeHook, type HookRuntime, type HookStore } from '../../src/cli/hook.js';
import { EXIT } from '../../src/cli/io.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { hookStoreOver } from '../hook/memory-hook-store.js';

/**
 * T9, T17, T40, T48, T53, T56: the `hook` command in process: its command-line refusals, and one
 * run per runtime from a recorded payload to the output that runtime reads, with what is
 * acknowledged and what is left pending when the output cannot reach a reader. The runs as
 * processes (stdin, stdout, exit codes) are in test/hook.
 */
const HOOK_DIR = join(import.meta.dirname, '..', 'hook');
const fixture = (dir: string, name: string) => readFileSync(join(HOOK_DIR, dir, `${name}.json`), 'utf8');
const T0 = 1_767_225_600_000;
const OTHER = 'agent:main:other';

interface Run {
  out: string[];
  warnings: string[];
  opened: number;
  closed: number;
}

/** One hook run against a memory store; `store` overrides parts of the store the hook sees. */
async function run(runtime: HookRuntime, input: string, memory: MemoryStore, o: { write?: (t: string) => Promise<void>; reachesReader?: () => boolean; store?: Partial<HookStore>; env?: Record<string, string>; openStore?: () => HookStore } = {}): Promise<Run> {
  const r: Run = { out: [], warnings: [], opened: 0, closed: 0 };
  const base = hookStoreOver(memory, { close: () => void r.closed++ });
  await runClaudeCodeHook({
    input,
    runtime,
    agentId: HOOK_RUNTIMES[runtime].defaultAgent,
    ...(o.env !== undefined ? { env: o.env } : {}),
    openStore:
      o.openStore ??
      (() => {
        r.opened++;
        return { ...base, ...o.store };
      }),
    write: o.write ?? (async (text) => void r.out.push(text)),
    warn: (line) => void r.warnings.push(line),
    ...(o.reachesReader !== undefined ? { reachesReader: o.reachesReader } : {}),
  });
  return r;
}

/** The context text of a run's one output line, in the shape its runtime reads. */
function contextOf(runtime: HookRuntime, r: Run, event: string): string {
  expect(r.out).toHaveLength(1);
  expect(r.out[0]!.endsWith('\n')).toBe(true);
  const parsed = JSON.parse(r.out[0]!) as Record<string, unknown>;
  // T53: Copilot reads a top-level additionalContext; the others hookSpecificOutput.
  if (runtime === 'copilot') {
    expect(Object.keys(parsed)).toEqual(['additionalContext']);
    return parsed['additionalContext'] as string;
  }
  expect(parsed).toEqual({ hookSpecificOutput: { hookEventName: event, additionalContext: expect.any(String) } });
  return (parsed['hookSpecificOutput'] as { additionalContext: string }).additionalContext;
}

const keyIn = (text: string) => /Session-state key of this session: "([^"]+)"/.exec(text)![1]!;

const RUNTIMES: { runtime: HookRuntime; dir: string; start: string; prompt: string; silent: string; silentEvent: string }[] = [
  { runtime: 'claude-code', dir: 'payloads', start: 'session-start-startup', prompt: 'user-prompt-submit', silent: 'session-end-exit', silentEvent: 'SessionEnd' },
  { runtime: 'codex', dir: 'codex-payloads', start: 'session-start-startup', prompt: 'user-prompt-submit', silent: 'subagent-stop', silentEvent: 'SubagentStop' },
  { runtime: 'qwen', dir: 'qwen-payloads', start: 'session-start-startup', prompt: 'user-prompt-submit', silent: 'subagent-stop', silentEvent: 'SubagentStop' },
  { runtime: 'copilot', dir: 'copilot-payloads', start: 'session-start-new', prompt: 'user-prompt-submit', silent: 'subagent-stop', silentEvent: 'SubagentStop' },
];

describe('T9 T40 T53 T56 one hook run per runtime, from a recorded payload', () => {
  for (const { runtime, dir, start, prompt, silent } of RUNTIMES) {
    it(`${runtime}: the start tells the key; the prompt hands over the notices and acks exactly them once written to a reader`, async () => {
      let t = T0;
      const memory = createMemoryStore({ now: () => t++ });
      const started = await run(runtime, fixture(dir, start), memory);
      expect(started.warnings).toEqual([]);
      const key = keyIn(contextOf(runtime, started, 'SessionStart'));
      expect(key.startsWith(`agent:${HOOK_RUNTIMES[runtime].defaultAgent}:`)).toBe(true);
      expect(started.closed).toBe(1);

      memory.watch({ watcherSessionKey: key, targetSessionKey: OTHER, agentId: 'main' });
      memory.record({ sessionKey: OTHER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person typed' });
      expect(memory.pendingNotices(key)).toHaveLength(1);

      // A write that fails is not a delivery: the notice stays.
      const failed = await run(runtime, fixture(dir, prompt), memory, { write: () => Promise.reject(new Error('EPIPE')) });
      expect(failed.warnings).toEqual(['could not write the hook output: EPIPE']);
      expect(memory.pendingNotices(key)).toHaveLength(1);
      // T17: written, but to nobody (stdout closed): not acknowledged.
      const nobody = await run(runtime, fixture(dir, prompt), memory, { reachesReader: () => false });
      expect(nobody.warnings).toEqual(['stdout reaches no reader (closed or /dev/null): 1 notice(s) left pending, not acknowledged']);
      expect(memory.pendingNotices(key)).toHaveLength(1);

      const prompted = await run(runtime, fixture(dir, prompt), memory, { reachesReader: () => true });
      expect(prompted.warnings).toEqual([]);
      expect(contextOf(runtime, prompted, 'UserPromptSubmit')).toContain(`Session "${OTHER}" changed (other actor).`);
      expect(memory.pendingNotices(key)).toEqual([]);

      // An event whose output the runtime does not read as context hands nothing over.
      memory.record({ sessionKey: OTHER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'again' });
      const quiet = await run(runtime, fixture(dir, silent), memory);
      expect(quiet.out).toEqual([]);
      expect(memory.pendingNotices(key)).toHaveLength(1);
    });
  }

  it('T9 an event with nothing to record, reset, hand over or introduce opens no store', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const r = await run('claude-code', fixture('payloads', 'session-end-exit'), memory);
    expect(r).toEqual({ out: [], warnings: [], opened: 0, closed: 0 });
  });

  it('T9 input that cannot be planned is one line, and no store is opened', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    // Each runtime's name, as its messages give it (here and in mutation-hook-process.test.ts).
    const names = Object.fromEntries(Object.entries(HOOK_RUNTIMES).map(([runtime, r]) => [runtime, r.name]));
    expect(names).toEqual({ 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', copilot: 'GitHub Copilot CLI' });
    for (const runtime of Object.keys(HOOK_RUNTIMES) as HookRuntime[]) {
      for (const [input, warning] of [
        [' \n', `no input: the hook reads the payload ${names[runtime]} writes to stdin (run it from a hook entry, or pipe a payload in)`],
        ['{"hook_event_name":', 'input is not JSON'],
        ['[1, 2]', 'input is not a JSON object'],
        ['null', 'input is not a JSON object'],
        ['"SessionStart"', 'input is not a JSON object'],
      ] as const) {
        const r = await run(runtime, input, memory);
        expect({ runtime, input, r }).toEqual({ runtime, input, r: { out: [], warnings: [warning], opened: 0, closed: 0 } });
      }
    }
    const claude = JSON.parse(fixture('payloads', 'user-prompt-submit')) as Record<string, unknown>;
    expect((await run('claude-code', JSON.stringify({ ...claude, hook_event_name: 'Notification' }), memory)).warnings).toEqual([
      'ignored hook event "Notification" (handles SessionStart, UserPromptSubmit, SubagentStart, SubagentStop, PostCompact, SessionEnd)',
    ]);
    for (const id of [undefined, '', 42]) {
      expect((await run('claude-code', JSON.stringify({ ...claude, session_id: id }), memory)).warnings).toEqual(['session_id is missing or not a string']);
    }
  });

  it('T54 a Claude Code hook that GitHub Copilot CLI runs writes nothing', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const input = JSON.stringify({ ...(JSON.parse(fixture('payloads', 'session-start-startup')) as Record<string, unknown>), transcript_path: undefined });
    const r = await run('claude-code', input, memory, { env: { COPILOT_CLI: '1' } });
    expect(r).toEqual({ out: [], warnings: ['run by GitHub Copilot CLI, whose sessions take part through "hook copilot" (init copilot): ignored, nothing written'], opened: 0, closed: 0 });
    // Without Copilot's mark the same payload is Claude Code's own.
    expect((await run('claude-code', input, memory, { env: { COPILOT_CLI: '0' } })).opened).toBe(1);
  });

  it('T9 a store that cannot open, or fails inside the run, is one line; the store is closed, and a failing close is no failure', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const start = fixture('payloads', 'session-start-startup');
    const unavailable = await run('claude-code', start, memory, {
      openStore: () => {
        throw new Error('SQLITE_CANTOPEN');
      },
    });
    expect(unavailable.warnings).toEqual(['state database unavailable: SQLITE_CANTOPEN']);
    const failing = await run('claude-code', fixture('payloads', 'user-prompt-submit'), memory, {
      store: {
        pendingNotices: () => {
          throw new Error('disk I/O error');
        },
      },
    });
    expect(failing).toEqual({ out: [], warnings: ['hook failed: disk I/O error'], opened: 1, closed: 1 });
    const badClose = await run('claude-code', start, memory, {
      store: {
        close: () => {
          throw new Error('busy');
        },
      },
    });
    expect(badClose.warnings).toEqual([]);
    expect(badClose.out).toHaveLength(1);
  });
});

describe('T9 the hook command line, in process', () => {
  async function hook(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await hookCommand(argv, { out: (l) => out.push(l), err: (t) => err.push(t) });
    return { code, out, err };
  }
  const line = (text: string) => `session-state-kit hook: ${text}; see: session-state-kit hook --help\n`;

  it('T9 a bad command line is one line and exit 1 (never 2, which would block the prompt)', async () => {
    expect(await hook()).toEqual({ code: EXIT.failure, out: [], err: [line('unknown hook runtime "" (supported: claude-code, codex, qwen, gemini, copilot)')] });
    expect((await hook('cursor', '--db', 'x.db')).err).toEqual([line('unknown hook runtime "cursor" (supported: claude-code, codex, qwen, gemini, copilot)')]);
    expect((await hook('toString', '--db', 'x.db')).err).toEqual([line('unknown hook runtime "toString" (supported: claude-code, codex, qwen, gemini, copilot)')]);
    expect((await hook('codex', 'more', '--db', 'x.db')).err).toEqual([line('unexpected arguments: more')]);
    expect((await hook('qwen')).err).toEqual([line('needs --db <file>')]);
    expect((await hook('gemini', '--db', ':memory:')).err).toEqual([line('--db ":memory:" is an in-memory database: nothing would be stored or shared with other sessions; pass a file path')]);
    expect((await hook('gemini', '--db', 'file:x?mode=memory')).err).toEqual([line('--db "file:x?mode=memory" is an in-memory database: nothing would be stored or shared with other sessions; pass a file path')]);
    expect((await hook('copilot', '--db', ' ')).err).toEqual([line('--db needs a file path; an empty path opens a private temporary database that no other process shares')]);
    for (const agent of ['-lead', 'a b', 'x'.repeat(65), '']) {
      expect((await hook('codex', '--db', 'x.db', `--agent=${agent}`)).err).toEqual([line(`--agent must be an agent id, got ${JSON.stringify(agent)}`)]);
    }
    const unknownFlag = await hook('codex', '--db', 'x.db', '--verbose');
    expect(unknownFlag.code).toBe(EXIT.failure);
    expect(unknownFlag.err).toHaveLength(1);
    expect(unknownFlag.err[0]).toMatch(/^session-state-kit hook: .*--verbose.*\n$/);
  });

  it('T9 --help prints the usage and exits 0', async () => {
    expect(await hook('--help')).toEqual({ code: EXIT.ok, out: [HOOK_USAGE], err: [] });
    expect(await hook('codex', '-h')).toEqual({ code: EXIT.ok, out: [HOOK_USAGE], err: [] });
  });
});

describe('T9 a prompt in a session no start registered', () => {
  // Each hook run is its own process: the session was registered (and its key told) by the start
  // event's run, so a prompt records only the person's message, where it is watched, and
  // introduces nothing. (The SDK hooks, one process for the session, register on a first prompt.)
  const gemini = JSON.stringify({ session_id: 'g-1', transcript_path: '/tmp/t.json', cwd: '/tmp', hook_event_name: 'BeforeAgent', timestamp: '2026-01-01T00:00:00Z', prompt: 'hello' });
  it.each([
    ['codex', fixture('codex-payloads', 'user-prompt-submit')],
    ['qwen', fixture('qwen-payloads', 'user-prompt-submit')],
    ['gemini', gemini],
  ] as const)('%s', async (runtime, input) => {
    const plan = HOOK_RUNTIMES[runtime].plan(input, HOOK_RUNTIMES[runtime].defaultAgent);
    if (typeof plan === 'string') throw new Error(plan);
    expect(plan.records.map((r) => [r.kind, r.onlyIfWatched])).toEqual([['human_direct_message', true]]);
    expect(plan.introduce).toBeUndefined();
    expect(plan.deliverTo).toBe(plan.sessionKey);
    // Run against a store that never saw the session: nothing is written, no key is told.
    const memory = createMemoryStore({ now: () => T0 });
    const r = await run(runtime, input, memory);
    expect(r.warnings).toEqual([]);
    expect(memory.stateVersion(plan.sessionKey, HOOK_RUNTIMES[runtime].defaultAgent)).toBe(0);
    expect(r.out.join('')).not.toContain('Session-state key');
  });
});
