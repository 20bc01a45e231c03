/**
 * `session-state-kit demo` from the built CLI: the SQLite adapter by default (':memory:'), the
 * reference store with --store memory (same story, line for line), and --db <file> with a real
 * close-and-reopen restart, leaving a file that inspect reads back.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangesSinceResponse, Notice } from '../../spec/index.js';
import { DEMO_CHILD, DEMO_MANAGER } from '../../src/cli/demo.js';
import { freePath } from '../../src/cli/demo-command.js';
import { runCli, runShell, tempDir, useBuiltCli } from './helpers.js';

const cli = useBuiltCli();
const dir = tempDir('demo');
const NOTICE = (since: number) =>
  `> Session "${DEMO_CHILD}" changed (other actor). Reconcile before acting: session_status sessionKey "${DEMO_CHILD}" changesSince ${since}.`;

/** The story without the header line that names the store. */
const story = (stdout: string) => stdout.split('\n').slice(1).join('\n');

describe.concurrent('demo', () => {
  it('runs on the SQLite adapter by default and tells the whole story in eight steps', async () => {
    const r = await runCli(cli.path(), ['demo']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toContain("SQLite adapter, database ':memory:'");
    for (let step = 1; step <= 8; step++) expect(r.stdout).toMatch(new RegExp(`^${step}\\. `, 'm'));
    const text = r.stdout;
    expect(text).toContain('pending notices: 1'); // one coalesced notice (R24)
    expect(text).toContain(`   ${NOTICE(1)}`);
    expect(text).toContain(`   ${NOTICE(2)}`); // the follow-up (R28)
    expect(text).toContain('"historyGap": false');
    expect(text).toContain('historyGap true'); // after pruning (R33)
    expect(text).toContain('restart(): the notice is the durable cursor itself');
    expect(text).toContain(`   ${NOTICE(5)}`); // still pending after the restart (R29)
    expect(text).toContain('pending after the restart: 1, byte-identical to the one before');
    // One to two screens.
    expect(text.split('\n').length).toBeLessThanOrEqual(60);
  });

  it('tells the same story, line for line, on the in-memory reference store', async () => {
    const [sqlite, memory] = await Promise.all([runCli(cli.path(), ['demo']), runCli(cli.path(), ['demo', '--store', 'memory'])]);
    expect(memory.code).toBe(0);
    expect(memory.stdout.split('\n')[0]).toContain('in-memory reference store');
    expect(story(memory.stdout)).toBe(story(sqlite.stdout));
  });

  it('--db runs on a new file with a real reopen, and inspect reads the result back', async () => {
    const file = join(dir, 'demo.db');
    const r = await runCli(cli.path(), ['demo', '--db', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('store closed and the file reopened: the notice is the durable cursor itself');
    expect(r.stdout).toContain(`   ${NOTICE(5)}`);
    expect(r.stdout).toContain(`inspect ${file} notices ${DEMO_MANAGER}`);
    expect(existsSync(file)).toBe(true);

    const notices = await runCli(cli.path(), ['inspect', file, 'notices', DEMO_MANAGER, '--json']);
    expect(notices.code).toBe(0);
    expect((JSON.parse(notices.stdout) as Notice[]).map((n) => `> ${n.text}`)).toEqual([NOTICE(5)]);
    const changes = JSON.parse((await runCli(cli.path(), ['inspect', file, 'changes', DEMO_CHILD, '--since', '0', '--json'])).stdout) as ChangesSinceResponse;
    expect(changes.stateVersion).toBe(6);
    expect(changes.stateChanges.historyGap).toBe(true);
    expect(changes.stateChanges.events.map((e) => e.sequence)).toEqual([6]);
  });

  it('refuses to write over an existing file (exit 2) and rejects --db with --store memory', async () => {
    const taken = join(dir, 'taken.db');
    writeFileSync(taken, 'mine');
    const r = await runCli(cli.path(), ['demo', '--db', taken]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('already exists; the demo writes a fresh database');
    // A deleted database's -wal and -shm would be read as the new file's own (a disk I/O error).
    writeFileSync(join(dir, 'gone.db-shm'), 'stale');
    const stale = await runCli(cli.path(), ['demo', '--db', join(dir, 'gone.db')]);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain(`${join(dir, 'gone.db-shm')} already exists`);
    expect(freePath(join(dir, 'gone.db'))).toBe(join(dir, 'gone-2.db'));
    const both = await runCli(cli.path(), ['demo', '--store', 'memory', '--db', join(dir, 'x.db')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--db needs the SQLite store');
  });

  it('every command the demo prints runs as printed, from where the demo ran: the built file run by node, and a fresh clone\'s `npm run demo`', async ({ onTestFinished }) => {
    const printed = (stdout: string) => stdout.split('\n').filter((l) => /^ {3}\S.* inspect /.test(l)).map((l) => l.trim());
    // A build run directly: `node <that file>`.
    const built = await runCli(cli.path(), ['demo', '--db', join(dir, 'printed.db')]);
    const builtLines = printed(built.stdout);
    expect(builtLines).toHaveLength(3);
    expect(builtLines[0]).toMatch(/^node \S+cli\.mjs inspect /);
    // From a checkout's sources, as `npm run demo` runs it: nothing is built or linked, so not `session-state-kit ...`.
    const source = await runShell('npm run -s demo');
    expect(source.code, source.stderr).toBe(0);
    const sourceLines = printed(source.stdout);
    const kept = /The state is kept in (\S+);/.exec(source.stdout)?.[1];
    if (kept) onTestFinished(() => rmSync(kept, { force: true }));
    expect(sourceLines).toHaveLength(3);
    expect(sourceLines[0]).toMatch(/^npm run -s cli -- inspect /);
    for (const line of [...builtLines, ...sourceLines]) {
      const r = await runShell(line);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      expect(r.stdout.length, line).toBeGreaterThan(0);
    }
  }, 240_000);
});

describe('what the demo suggests next', () => {
  it('a run in memory names the run that keeps a file; a kept file\'s ui line starts a live view that answers HTML', async () => {
    const memory = await runCli(cli.path(), ['demo']);
    expect(memory.stdout.trimEnd().split('\n').at(-1)).toMatch(/^This run kept nothing\. .* demo --keep$/);
    const db = join(dir, 'suggested.db');
    const kept = await runCli(cli.path(), ['demo', '--db', db]);
    const line = kept.stdout.split('\n').find((l) => / ui --db /.test(l))?.trim();
    expect(line).toBe(`${line!.slice(0, line!.indexOf(' ui --db '))} ui --db ${db}`);
    const { spawn } = await import('node:child_process');
    // As printed, but with the bundled CLI in place of the command that runs the checkout's sources.
    const child = spawn(process.execPath, [cli.path(), 'ui', '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const m = / at (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`ui exited ${String(code)}: ${out}`)));
      });
      // As a browser follows it: the token is traded for a cookie and a 303 to the page (R87).
      const traded = await fetch(url, { redirect: 'manual' });
      expect(traded.status).toBe(303);
      const cookie = traded.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(new URL(traded.headers.get('location')!, url), { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('<html');
    } finally {
      child.kill();
    }
  });
});
