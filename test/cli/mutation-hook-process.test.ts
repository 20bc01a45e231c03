import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_BUDGET_MS, HOOK_RUNTIMES, hookCommand, readHookInput, stdoutReachesReader, type HookProcess, type HookRuntime } from '../../src/cli/hook.js';
import { EXIT } from '../../src/cli/io.js';
import { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';

/**
 * T9, T17: the process side of `hook`, in process: what it reads from stdin (whole, bounded, strict
 * UTF-8), when it reads nothing (a terminal), what it writes and when stdout counts as read, and a
 * run from the command line to a real SQLite file. test/hook runs the same as other processes.
 */
const HOOK_DIR = join(import.meta.dirname, '..', 'hook');
const payload = (name: string) => readFileSync(join(HOOK_DIR, 'payloads', `${name}.json`), 'utf8');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-hook-process-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stdin that delivers `chunks` one by one, then ends (or fails with `error`). */
function stdinOf(chunks: readonly (string | Buffer)[], o: { tty?: boolean; error?: Error } = {}): PassThrough & { isTTY?: boolean } {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (o.tty !== undefined) stream.isTTY = o.tty;
  queueMicrotask(() => {
    for (const chunk of chunks) stream.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (o.error !== undefined) stream.destroy(o.error);
    else stream.end();
  });
  return stream;
}

interface Ran {
  code: number;
  out: string[];
  err: string[];
  written: string[];
}

async function hook(argv: string[], proc: Partial<HookProcess> & { stdin: HookProcess['stdin'] }): Promise<Ran> {
  const r: Ran = { code: -1, out: [], err: [], written: [] };
  r.code = await hookCommand(argv, { out: (l) => r.out.push(l), err: (t) => r.err.push(t) }, {
    env: {},
    write: async (text) => void r.written.push(text),
    reachesReader: () => true,
    now: () => 0,
    ...proc,
  });
  return r;
}

const line = (text: string) => `session-state-kit hook: ${text}\n`;

describe('T17 readHookInput: the whole payload, bounded, strict UTF-8', () => {
  it('joins the chunks before decoding (a character split across two chunks stays one)', async () => {
    const bytes = Buffer.from('{"a":"é✓"}');
    const at = bytes.indexOf(0xc3) + 1;
    expect(await readHookInput(stdinOf([bytes.subarray(0, at), bytes.subarray(at, at + 2), bytes.subarray(at + 2)]))).toBe('{"a":"é✓"}');
    expect(await readHookInput(stdinOf([]))).toBe('');
  });

  it('takes exactly the limit and refuses one byte more, stopping the stream', async () => {
    expect(await readHookInput(stdinOf(['abc', 'de']), 5)).toBe('abcde');
    const over = stdinOf(['abc', 'def', 'ghi']);
    await expect(readHookInput(over, 5)).rejects.toThrow(/^input is larger than 5 bytes$/);
    expect(over.destroyed).toBe(true);
  });

  it('refuses bytes that are not UTF-8 rather than replacing them, and drops a leading BOM', async () => {
    await expect(readHookInput(stdinOf([Buffer.from([0x7b, 0xff, 0x7d])]))).rejects.toThrow(/^input is not valid UTF-8$/);
    await expect(readHookInput(stdinOf([Buffer.from([0xe2, 0x9c])]))).rejects.toThrow(/^input is not valid UTF-8$/);
    expect(await readHookInput(stdinOf([Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])]))).toBe('{}');
  });

  it('passes a read error on', async () => {
    await expect(readHookInput(stdinOf(['{"a"'], { error: new Error('EIO: i/o error') }))).rejects.toThrow('EIO: i/o error');
  });
});

describe('T17 stdoutReachesReader: /dev/null (given, or in place of a closed stdout) reaches nobody', () => {
  const cases: [string, () => number, boolean][] = [
    ['a regular file', () => openSync(join(dir, 'out.txt'), 'w'), true],
    ['/dev/null', () => openSync('/dev/null', 'w'), false],
    ['another character device (/dev/zero)', () => openSync('/dev/zero', 'r'), true],
  ];
  it.each(cases)('%s', (_what, open, reaches) => {
    const fd = open();
    try {
      expect(stdoutReachesReader(fd)).toBe(reaches);
    } finally {
      closeSync(fd);
    }
  });

  it('a descriptor that cannot be read counts as a reader', () => {
    const fd = openSync(join(dir, 'gone.txt'), 'w');
    closeSync(fd);
    expect(stdoutReachesReader(fd)).toBe(true);
  });
});

describe('T9 the hook command over its process', () => {
  // The names themselves are held by mutation-hook.test.ts.
  it.each(Object.entries(HOOK_RUNTIMES).map(([runtime, r]) => [runtime, r.name]))('%s: a terminal on stdin is one line, exit 0, nothing read or written', async (runtime, name) => {
    const db = join(dir, 'state.db');
    const stdin = stdinOf(['{}'], { tty: true });
    const r = await hook([runtime, '--db', db], { stdin });
    expect(r).toEqual({ code: EXIT.ok, out: [], err: [line(`reads a ${name} hook payload (JSON) on stdin; nothing to read from a terminal`)], written: [] });
    expect(existsSync(db)).toBe(false);
    // A stdin that says it is no terminal is read.
    expect((await hook([runtime, '--db', db], { stdin: stdinOf(['nope'], { tty: false }) })).err).toEqual([line('input is not JSON')]);
  });

  it('stdin that cannot be read is one line and exit 0; nothing is written', async () => {
    const db = join(dir, 'state.db');
    const r = await hook(['claude-code', '--db', db], { stdin: stdinOf([Buffer.from([0xc3, 0x28])]) });
    expect(r).toEqual({ code: EXIT.ok, out: [], err: [line('could not read stdin: input is not valid UTF-8')], written: [] });
    expect(existsSync(db)).toBe(false);
  });

  it('a run records into the SQLite file, prints through the process, and acknowledges only what reached a reader', async () => {
    const db = join(dir, 'state.db');
    const start = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('session-start-startup')]) });
    expect(start.code).toBe(EXIT.ok);
    expect(start.err).toEqual([]);
    expect(start.written).toHaveLength(1);
    const context = (JSON.parse(start.written[0]!) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    const key = /Session-state key of this session: "([^"]+)"/.exec(context)![1]!;
    expect(key.startsWith('agent:claude-code:')).toBe(true);

    // The hook's store prunes by Date.now (R40): this one writes on the same clock.
    const store = new SqliteStore({ path: db, logger: silentLogger, now: Date.now });
    try {
      expect(store.stateVersion(key, 'claude-code')).toBeGreaterThan(0);
      store.watch({ watcherSessionKey: key, targetSessionKey: 'agent:main:other', agentId: 'main' });
      store.record({ sessionKey: 'agent:main:other', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person typed' });
      expect(store.pendingNotices(key)).toHaveLength(1);

      // Written, but to nobody: the notice stays.
      const nobody = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('user-prompt-submit')]), reachesReader: () => false });
      expect(nobody.err).toEqual([line('stdout reaches no reader (closed or /dev/null): 1 notice(s) left pending, not acknowledged')]);
      expect(nobody.written).toHaveLength(1);
      expect(store.pendingNotices(key)).toHaveLength(1);
      // The environment is the process's: Copilot's mark makes the run write nothing.
      const asCopilot = JSON.stringify({ ...(JSON.parse(payload('user-prompt-submit')) as object), transcript_path: undefined });
      const copilot = await hook(['claude-code', '--db', db], { stdin: stdinOf([asCopilot]), env: { COPILOT_CLI: '1' } });
      expect(copilot.err).toEqual([line('run by GitHub Copilot CLI, whose sessions take part through "hook copilot" (init copilot): ignored, nothing written')]);
      expect(copilot.written).toEqual([]);
      expect(store.pendingNotices(key)).toHaveLength(1);

      const read = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('user-prompt-submit')]) });
      expect(read.err).toEqual([]);
      expect(read.written).toEqual([
        `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'Session "agent:main:other" changed (other actor). Reconcile before acting: session_status sessionKey "agent:main:other" changesSince 0.' } })}\n`,
      ]);
      expect(store.pendingNotices(key)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('T9 the budget counts on the process clock from the run start: past it, nothing is printed', async () => {
    const db = join(dir, 'state.db');
    let t = 1_000_000;
    const r = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('session-start-startup')]), now: () => (t += HOOK_BUDGET_MS + 1) });
    expect(r.written).toEqual([]);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^session-state-kit hook: gave up before (recording|reading notices|printing) after \d+ ms/);
    // Within the budget on the same clock origin, the same run prints.
    let u = 1_000_000;
    const ok = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('session-start-resume')]), now: () => (u += 1) });
    expect(ok.err).toEqual([]);
    expect(ok.written).toHaveLength(1);
  });

  it("the store's own log lines reach stderr with their cause, one line each", async () => {
    const db = join(dir, 'state.db');
    // The file and its schema exist; a second connection then holds the write lock.
    await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('session-start-startup')]) });
    const holder = new Database(db);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const r = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('user-prompt-submit')]) });
      expect(r.code).toBe(EXIT.ok);
      expect(r.err.length).toBeGreaterThan(0);
      for (const e of r.err) {
        expect(e).toMatch(/^session-state-kit hook: sqlite store: \w+ failed: database is locked\n$/);
      }
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('a store that cannot be opened is one line with its reason', async () => {
    const r = await hook(['claude-code', '--db', join(dir, 'missing', 'state.db')], { stdin: stdinOf([payload('session-start-startup')]) });
    expect(r.code).toBe(EXIT.ok);
    expect(r.written).toEqual([]);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^session-state-kit hook: state database unavailable: \S/);
  });

  it('T40 with no --agent, each runtime writes under its own agent id', async () => {
    const starts: [string, string, string][] = [
      ['claude-code', 'payloads', 'session-start-startup'],
      ['codex', 'codex-payloads', 'session-start-startup'],
      ['qwen', 'qwen-payloads', 'session-start-startup'],
      ['copilot', 'copilot-payloads', 'session-start-new'],
    ];
    for (const [runtime, folder, name] of starts) {
      const db = join(dir, `${runtime}.db`);
      const text = readFileSync(join(HOOK_DIR, folder, `${name}.json`), 'utf8');
      const r = await hook([runtime, '--db', db], { stdin: stdinOf([text]) });
      expect({ runtime, err: r.err }).toEqual({ runtime, err: [] });
      expect(r.written.join('')).toContain(`Session-state key of this session: \\"agent:${HOOK_RUNTIMES[runtime as HookRuntime].defaultAgent}:`);
    }
  });

  it('T17 a start shows no notices: with stdout reaching nobody there is nothing to leave pending, and no warning', async () => {
    const db = join(dir, 'state.db');
    const r = await hook(['claude-code', '--db', db], { stdin: stdinOf([payload('session-start-startup')]), reachesReader: () => false });
    expect(r.err).toEqual([]);
    expect(r.written).toHaveLength(1);
  });

  it('T9 a warning is one line: line breaks in what it quotes become one space each run', async () => {
    const r = await hook(['claude-code', '--db', join(dir, 'x.db'), '--ag\r\n\nent=x'], { stdin: stdinOf(['{}']) });
    expect(r.code).toBe(EXIT.failure);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]!.endsWith('\n')).toBe(true);
    expect(r.err[0]!.slice(0, -1)).not.toMatch(/[\r\n]/);
    expect(r.err[0]).toContain('--ag ent');
  });
});
