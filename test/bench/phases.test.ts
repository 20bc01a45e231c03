import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The diagnostics scripts run end to end at tiny sizes: every line does the whole job (each line's
// untimed check throws otherwise) and the table lists every line. No timing is asserted.

function run(script: string, args: string[]): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 180_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** The first column of each table row after the header rule. */
function lineNames(table: string): string[] {
  return table
    .split('\n')
    .filter((l) => /\d\.\d\d  /.test(l))
    .map((l) => l.trim().split(/\s{2,}/)[0]!);
}

describe('bench phases scripts', () => {
  it('phases-drain-prune.ts prices every drain, prune and pending-read step at small sizes', () => {
    const out = run('bench/phases-drain-prune.ts', ['--pairs', '20', '--removed', '20', '--pending', '50', '--quick', '--rounds', '1']);
    const names = lineNames(out);
    expect(names).toContain('raw UPDATE per pair');
    expect(names).toContain('adapter drainNotices()');
    expect(names).toContain('… counted, then through the watcher index');
    expect(names).toContain('raw DELETE older than 30 days');
    expect(names).toContain('adapter prune()');
    expect(names).toContain('… rows loaded by a second connection');
    expect(names).toContain('raw DELETE, rows loaded by a second connection');
    expect(names).toContain('… rows read as objects instead of arrays');
    expect(names).toContain('adapter pendingNotices()');
    expect(names).toHaveLength(23);
  }, 240_000);

  it('phases-drain-prune.ts --part prune prices the prune steps alone', () => {
    const names = lineNames(run('bench/phases-drain-prune.ts', ['--part', 'prune', '--removed', '20', '--quick', '--rounds', '1']));
    expect(names).toContain('… + the head writes alone (heads known)');
    expect(names).not.toContain('raw UPDATE per pair');
    expect(names).toHaveLength(10);
  }, 240_000);

  it('phases-drain-prune.ts --part pending prices the pending read alone, fewer notices than watchers too', () => {
    const out = run('bench/phases-drain-prune.ts', ['--part', 'pending', '--pending', '30', '--quick', '--rounds', '1']);
    expect(out).toContain('pending read, 30 notices over 30 watchers');
    const names = lineNames(out);
    expect(names).toEqual(['raw pending read per watcher', '… + each notice built', '… + sorted (R26)', 'adapter pendingNotices()', '… context keys one character at a time']);
  }, 240_000);

  it('phases-drain-prune.ts refuses a bad count, naming the flag', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/phases-drain-prune.ts', '--pairs', '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--pairs takes a positive integer/);
    const part = spawnSync(process.execPath, ['--import', 'tsx', 'bench/phases-drain-prune.ts', '--part', 'both'], { encoding: 'utf8', timeout: 60_000 });
    expect(part.status).not.toBe(0);
    expect(part.stderr).toMatch(/--part takes drain, prune, pending/);
  }, 90_000);
});
