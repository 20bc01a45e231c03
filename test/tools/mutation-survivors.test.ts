/**
 * mutation/survivors.mjs (mutation/) lists what a part's Stryker report left alive: the list each
 * mutation/survivors/<part>.md accounts for. Run on a hand-made report in a temp directory.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = resolve('mutation/survivors.mjs');

function run(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function mutant(id: string, status: string, line: number, mutatorName: string, replacement: string, extra: Record<string, unknown> = {}) {
  return { id, status, mutatorName, replacement, location: { start: { line, column: 1 }, end: { line, column: 9 } }, ...extra };
}

describe('mutation/survivors.mjs', () => {
  it('lists survived and uncovered mutants in file and line order, and leaves out killed and timed-out ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-survivors-'));
    mkdirSync(join(dir, 'mutation', 'reports'), { recursive: true });
    const report = {
      files: {
        'src/core/b.ts': { source: 'const x = 1;\nif (a) {\n  go();\n}', mutants: [mutant('4', 'Survived', 2, 'ConditionalExpression', 'true'), mutant('5', 'Killed', 1, 'ArithmeticOperator', '-')] },
        'src/core/a.ts': {
          source: 'one\ntwo\nthree',
          mutants: [
            mutant('1', 'NoCoverage', 3, 'StringLiteral', '""'),
            mutant('2', 'Survived', 1, 'BlockStatement', '{\n  }', { static: true }),
            mutant('3', 'Timeout', 2, 'EqualityOperator', '<='),
          ],
        },
      },
    };
    writeFileSync(join(dir, 'mutation', 'reports', 'core.json'), JSON.stringify(report));
    const r = run(dir, 'core', '--with-source');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'src/core/a.ts:1 BlockStatement `{ }` static',
      '    one',
      'src/core/a.ts:3 StringLiteral `""` (no coverage)',
      '    three',
      'src/core/b.ts:2 ConditionalExpression `true`',
      '    if (a) {',
      '',
    ]);
    expect(r.stderr).toContain('3 mutant(s) left in mutation/reports/core.json');
  });

  it('an unknown part or a missing report is a clear error with a non-zero exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-survivors-'));
    const unknown = run(dir, 'nope');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/parts: core, upstream, memory, sqlite, feed, monitor, ui, tools, mcp, integrations, cli, postgres, clock/);
    const missing = run(dir, 'memory');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no readable report at mutation/reports/memory.json');
  });
});
