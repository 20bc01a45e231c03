/**
 * Exit codes and messages a person can act on, from the built CLI: 2 usage, 3 database problem,
 * 4 unknown session; and --help (exit 0, with the exit codes) on every command and subcommand.
 */
import { copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/sqlite/index.js';
import { CHILD_A, MANAGER, writeFixture } from './fixture.js';
import { fingerprint, runCli, tempDir, useBuiltCli, type Run } from './helpers.js';

const cli = useBuiltCli();
const dir = tempDir('errors');
const db = join(dir, 'state.db');
const run = (...args: string[]): Promise<Run> => runCli(cli.path(), args);

beforeAll(() => {
  writeFixture(db).store.close();
});

function expectExit(r: Run, code: number, ...stderr: (string | RegExp)[]): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code, stdout: '' });
  for (const s of stderr) expect(r.stderr).toMatch(s);
}

describe.concurrent('--help on every command and subcommand', () => {
  const helps: [string[], string][] = [
    [['--help'], 'session-state-kit <command>'],
    [['help'], 'session-state-kit <command>'],
    [[], 'session-state-kit <command>'],
    [['help', 'inspect'], 'session-state-kit inspect <db-file> <subcommand>'],
    [['demo', '--help'], 'session-state-kit demo ['],
    [['inspect', '--help'], 'session-state-kit inspect <db-file> <subcommand>'],
    [['inspect', 'heads', '--help'], 'session-state-kit inspect <db-file> heads'],
    [['inspect', 'x.db', 'changes', '-h'], 'session-state-kit inspect <db-file> changes <sessionKey>'],
    [['inspect', 'cursors', '--help'], 'session-state-kit inspect <db-file> cursors'],
    [['inspect', 'notices', '--help'], 'session-state-kit inspect <db-file> notices <watcher>'],
    [['inspect', 'stats', '--help', '--bogus'], 'session-state-kit inspect <db-file> stats'],
  ];
  for (const [args, first] of helps) {
    it(`${args.join(' ') || '(no arguments)'} prints help with the exit codes and exits 0`, async () => {
      const r = await run(...args);
      expect(r.code).toBe(0);
      expect(r.stdout.startsWith(first)).toBe(true);
      expect(r.stdout).toContain('4  not found (unknown session; upstream scan: no such transcript file)');
    });
  }

  it('conformance --help still comes from the conformance command', async () => {
    const r = await run('conformance', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('session-state-kit conformance <target>');
  });
});

describe('--version', () => {
  it('prints the version in package.json, and nothing else', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await run(flag);
      expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});

describe.concurrent('bench fronts bench/run.ts', () => {
  it('in this checkout: --help shows the runner\'s options, a bad flag is the runner\'s usage error (exit 2)', async () => {
    const help = await run('bench', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^session-state-kit bench: runs \S+bench\/run\.ts/);
    expect(help.stdout).toContain('--smoke');
    expect(help.stdout).toContain('2  usage error, or the benchmark runner is not available');
    const bad = await run('bench', '--no-such-flag');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--no-such-flag');
  });

  it('outside a checkout: "not available" and exit 2 (help still exits 0)', async () => {
    const elsewhere = join(dir, 'installed');
    cpSync(cli.dir(), elsewhere, { recursive: true });
    const r = await runCli(join(elsewhere, 'cli.mjs'), ['bench', '--smoke'], { cwd: dir });
    expectExit(r, 2, /bench is not available: this installation has no benchmark runner/, /hint: clone the repository/);
    const help = await runCli(join(elsewhere, 'cli.mjs'), ['bench', '--help'], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('(not available here: this installation has no benchmark runner');
  });
});

describe.concurrent('usage errors exit 2 with a message and a pointer to --help', () => {
  const cases: [string[], RegExp][] = [
    [['frobnicate'], /unknown command: frobnicate/],
    [['--frob'], /unknown option --frob/],
    [['help', 'frobnicate'], /no help for unknown command: frobnicate/],
    [['demo', '--frob'], /unknown option --frob for "demo"/],
    [['demo', '--store', 'postgres'], /--store must be sqlite or memory/],
    [['inspect'], /inspect needs a database file and a subcommand/],
    [['inspect', 'DB'], /needs a subcommand after the file/],
    [['inspect', 'heads'], /needs the database file first: inspect <db-file> heads/],
    [['inspect', 'DB', 'frob'], /unknown inspect subcommand: frob/],
    [['inspect', 'DB', 'heads', '--since', '3'], /--since is not an option of "inspect heads"/],
    [['inspect', 'DB', 'heads', 'extra'], /inspect heads takes no arguments, got extra: extra/],
    [['inspect', 'DB', 'changes'], /inspect changes needs <sessionKey>/],
    [['inspect', 'DB', 'changes', CHILD_A, '--since', 'x'], /--since must be an integer >= 0, got "x"/],
    [['inspect', 'DB', 'changes', CHILD_A, '--since', '-1'], /--since needs a value/],
    [['inspect', 'DB', 'changes', CHILD_A, '--limit', '0'], /--limit must be an integer >= 1/],
    [['inspect', 'DB', 'changes', 'bad"key'], /sessionKey: /],
    [['inspect', 'DB', 'changes', 'global'], /several agents \(main, ops\); pass --agent <id>/],
    [['inspect', 'DB', 'stats', '--now', 'yesterday'], /--now must be an ISO-8601 instant or epoch milliseconds/],
    [['inspect', 'DB', 'notices'], /inspect notices needs <watcher>/],
    // A poll interval past 2^31-1 ms would overflow into a 1 ms poll: bounded, a usage error.
    [['ui', '--db', 'DB', '--poll-ms', '4000000'], /--poll-ms must be an integer from 10 to 60000, got "4000000"/],
    [['mcp', '--db', 'DB', '--poll-ms', '4000000'], /--poll-ms must be an integer from 1 to 60000, got "4000000"/],
    [['ui', '--db', 'DB', '--host', ''], /--host needs an address or a host name/],
    [['ui', '--db', 'DB', '--host', 'no-such-host.invalid'], /--host no-such-host\.invalid: no such host/],
  ];
  for (const [args, message] of cases) {
    it(args.join(' ') || '(none)', async () => {
      const r = await run(...args.map((a) => (a === 'DB' ? db : a)));
      expectExit(r, 2, message, /hint|see|--agent|must|needs|sessionKey/);
    });
  }

  it('checks the arguments before the file: a bad flag on a missing file is still a usage error', async () => {
    expectExit(await run('inspect', join(dir, 'missing.db'), 'changes', CHILD_A, '--since', 'x'), 2, /--since must be an integer/);
  });
});

describe.concurrent('database problems exit 3 and say what is wrong with the file', () => {
  it('a missing file', async () => {
    expectExit(await run('inspect', join(dir, 'nope.db'), 'heads'), 3, /nope\.db: no such file/, /hint: /);
  });

  it('a directory', async () => {
    expectExit(await run('inspect', dir, 'stats'), 3, /not a regular file/);
  });

  it('a text file', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'these are not the rows you are looking for\n'.repeat(200));
    const before = fingerprint(text);
    expectExit(await run('inspect', text, 'heads'), 3, /notes\.txt is not a session-state database: the file is not a SQLite database/, /hint: inspect reads files/);
    expect(fingerprint(text)).toEqual(before);
    // The live view names itself in the hint, not inspect.
    expectExit(await run('ui', '--db', text), 3, /notes\.txt is not a session-state database/, /hint: ui reads files written by the SQLite adapter/);
  });

  it('an empty file', async () => {
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    expectExit(await run('inspect', empty, 'cursors'), 3, /empty\.db is not a session-state database: the database is empty/);
  });

  it("another application's SQLite database", async () => {
    const other = join(dir, 'other.sqlite');
    const o = new Database(other);
    o.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES (\'cat\');');
    o.close();
    const before = fingerprint(other);
    expectExit(await run('inspect', other, 'stats'), 3, /other\.sqlite is not a session-state database: it is a SQLite database of another application/);
    expect(fingerprint(other)).toEqual(before);
  });

  it('a state database of a newer schema version', async () => {
    const newer = join(dir, 'newer.db');
    copyFileSync(db, newer);
    const d = new Database(newer);
    d.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    d.close();
    expectExit(await run('inspect', newer, 'heads'), 3, new RegExp(`schema version ${SCHEMA_VERSION + 1}, but this version of session-state-kit only knows up to ${SCHEMA_VERSION}`), /upgrade/);
  });
});

describe.concurrent('unknown sessions exit 4 with a hint to list the known ones', () => {
  it('changes on a session the file does not have', async () => {
    const r = await run('inspect', db, 'changes', 'agent:main:ghost');
    expectExit(r, 4, /unknown session agent:main:ghost \(agent main\)/, new RegExp(`hint: list known sessions: session-state-kit inspect \\S+ heads`));
  });

  it('changes with the wrong agent names the agent that has the key', async () => {
    expectExit(await run('inspect', db, 'changes', 'global', '--agent', 'nobody'), 4, /unknown session global \(agent nobody\)/, /the key exists under agent main, ops: pass --agent main/);
  });

  it('notices and cursors for a session the file never mentions', async () => {
    expectExit(await run('inspect', db, 'notices', 'agent:main:ghost'), 4, /unknown session agent:main:ghost/, /inspect \S+ cursors/);
    expectExit(await run('inspect', db, 'cursors', '--watcher', 'agent:main:ghost'), 4, /unknown session agent:main:ghost/);
    expectExit(await run('inspect', db, 'cursors', '--target', 'agent:main:ghost'), 4, /unknown session agent:main:ghost/);
  });

  it('a known key is not "unknown": a watcher that is only a cursor holder', async () => {
    expect((await run('inspect', db, 'notices', MANAGER)).code).toBe(0);
  });
});

describe('first-contact edges: what a person sees instead of a raw error code', () => {
  it('upstream scan of a missing file: exit 4, "no such file", where transcripts live; the top-level help lists that exit', async () => {
    const r = await run('upstream', 'scan', join(dir, 'no-such.jsonl'));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`cannot open ${join(dir, 'no-such.jsonl')}: no such file`);
    expect(r.stderr).not.toContain('ENOENT');
    expect(r.stderr).toContain('~/.codex/sessions/');
    expect((await run('--help')).stdout).toContain('upstream scan: no such transcript file');
  });

  it('hook claude-code with empty input says why on stderr, once, and exits 0', async () => {
    const { runHook } = await import('../hook/run-hook.js');
    const r = await runHook(cli.path(), ['claude-code', '--db', join(dir, 'never.db')], '');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining('no input: the hook reads the payload Claude Code writes to stdin')]);
  });
});
