/**
 * Leftovers of a mutation run must not be committed. Stryker's in-place mode (mutation/run.mjs
 * --inPlace) rewrites the source and test files themselves: it puts a ts-nocheck directive at the
 * top of each (which silently switches off type checking for that file) and instruments the
 * mutated code with its own helpers. An interrupted run leaves them behind, and they were committed
 * once by mistake. This walks the source folders and names every file that still has either.
 *
 * The markers are built from pieces here, so this file does not flag itself.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The folders that hold the repository's own code (runtimes: its config, not its node_modules). */
const FOLDERS = ['spec', 'src', 'conformance', 'bench', 'test', 'mutation', 'runtimes'];
/** Never walked: installed or built code, and the mutation run's own output and sandbox. */
const SKIP_ANYWHERE = new Set(['node_modules', 'dist', '.stryker-tmp']);
const SKIP_PATHS = new Set(['mutation/reports', 'mutation/.stryker-tmp', 'runtimes/node_modules']);
const SOURCE = /\.(ts|mts|js|mjs)$/;

const NOCHECK = new RegExp(`^\\s*//\\s*@ts-${'no'}check\\b`);
const STRYKER_MARKERS = ['stryMutAct_' + '9fa48', '__' + 'stryker' + '__'];

/** Repository-relative paths ('/'-separated) of the source files under the folders, sorted; walked once for every check. */
let walked: string[] | undefined;
function sourceFiles(): string[] {
  return (walked ??= walkSources());
}

/** Each file's lines, read once for every check below. */
const linesRead = new Map<string, string[]>();
function linesOf(path: string): string[] {
  let lines = linesRead.get(path);
  if (lines === undefined) linesRead.set(path, (lines = readFileSync(join(ROOT, path), 'utf8').split('\n')));
  return lines;
}

function walkSources(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIP_ANYWHERE.has(entry.name) && !SKIP_PATHS.has(path)) walk(path);
      } else if (entry.isFile() && SOURCE.test(entry.name)) {
        found.push(path);
      }
    }
  };
  for (const folder of FOLDERS) walk(folder);
  // The configuration files at the top level (vitest.config.ts, tsup.config.ts, ...).
  for (const entry of readdirSync(ROOT, { withFileTypes: true })) {
    if (entry.isFile() && SOURCE.test(entry.name)) found.push(entry.name);
  }
  return found.sort();
}

/** 'path:line: what' for each leftover in one file. */
function leftovers(path: string): string[] {
  const found: string[] = [];
  linesOf(path).forEach((line, i) => {
    if (NOCHECK.test(line)) found.push(`${path}:${i + 1}: a ts-nocheck directive (type checking is off for this file)`);
    for (const marker of STRYKER_MARKERS) {
      if (line.includes(marker)) found.push(`${path}:${i + 1}: Stryker instrumentation (${marker})`);
    }
  });
  return found;
}

/** A static import of a `.test` file ('path:line: the import'): vitest would register the imported file's tests again, in the importer. */
const TEST_FILE_IMPORT = /\bfrom\s+['"][^'"]*\.test(\.[cm]?[jt]s)?['"]|\bimport\s+['"][^'"]*\.test(\.[cm]?[jt]s)?['"]/;
function testFileImports(path: string): string[] {
  return linesOf(path).flatMap((line, i) => (TEST_FILE_IMPORT.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe('repository hygiene', () => {
  it('no source file carries a ts-nocheck directive or Stryker instrumentation (leftovers of an in-place mutation run)', () => {
    const files = sourceFiles();
    // The walk found the code: a wrong root or a renamed folder must not pass by checking nothing.
    expect(files).toContain('src/index.ts');
    expect(files).toContain('test/repo-hygiene.test.ts');
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap(leftovers)).toEqual([]);
  });

  it('the directive is matched as a line comment only', () => {
    const nocheck = `// @ts-${'no'}check`;
    expect(NOCHECK.test(nocheck)).toBe(true);
    expect(NOCHECK.test(`  ${nocheck}`)).toBe(true);
    expect(NOCHECK.test(`const note = 'no ${nocheck.slice(3)} here';`)).toBe(false);
    expect(NOCHECK.test(`// @ts-${'no'}checked`)).toBe(false);
  });

  it('no file imports a test file: the imported file\'s tests would run again inside the importer (shared helpers live in files of their own)', () => {
    expect(sourceFiles().flatMap(testFileImports)).toEqual([]);
    // Built from pieces, so this file does not flag itself.
    const test = '.' + 'test';
    expect(TEST_FILE_IMPORT.test(`import { readmeBlocks } from './package${test}.js';`)).toBe(true);
    expect(TEST_FILE_IMPORT.test(`import './other${test}.ts';`)).toBe(true);
    expect(TEST_FILE_IMPORT.test("import { x } from './markdown-blocks.js';")).toBe(false);
    expect(TEST_FILE_IMPORT.test("import { x } from './test-helpers.js';")).toBe(false);
  });
});
