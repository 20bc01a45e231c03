/**
 * A clone before any build: the README's tour and the guides' runnable examples import the
 * package by name, as a user's code does. In the repository tsconfig.json maps each public
 * subpath to its source, so `npx tsx` runs them without a `dist/`; without that mapping the name
 * resolves through package.json's exports to `dist/index.js`, which a fresh clone does not have.
 * The clone here is a folder with the sources linked in and no `dist/`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { entries } from '../../tsup.config.js';
import { readmeBlocks } from './markdown-blocks.js';
import { run } from './packed-kit.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const clone = mkdtempSync(join(tmpdir(), 'ssk-clone-'));
afterAll(() => rmSync(clone, { recursive: true, force: true }));

/** tsconfig.json with its comments taken out (it is JSONC). */
function tsconfigPaths(): Record<string, string[]> {
  const text = readFileSync(join(root, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '');
  return (JSON.parse(text) as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;
}

describe('a fresh clone, before npm run build', () => {
  it('tsconfig.json maps every public subpath of the package to the source tsup builds it from', () => {
    const paths = tsconfigPaths();
    for (const [entry, source] of Object.entries(entries)) {
      const name = entry === 'index' ? 'session-state-kit' : `session-state-kit/${entry}`;
      expect(paths[name], name).toEqual([`./${source}`]);
    }
  });

  it("the README's tour and every runnable TypeScript block of the guides run with `npx tsx`, no dist/ present", () => {
    for (const dir of ['src', 'spec', 'conformance', 'node_modules']) symlinkSync(join(root, dir), join(clone, dir), 'dir');
    for (const file of ['package.json', 'tsconfig.json']) copyFileSync(join(root, file), join(clone, file));
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const runnable = pages.flatMap((page) => readmeBlocks(readFileSync(join(root, page), 'utf8')).filter((b) => b.run).map((b) => ({ ...b, page })));
    expect(runnable.some((b) => b.page === 'README.md')).toBe(true);
    expect(runnable.some((b) => b.page === 'docs/embedding.md')).toBe(true);
    for (const [i, b] of runnable.entries()) {
      const file = `block-${i + 1}.ts`;
      writeFileSync(join(clone, file), `${b.code}\nexport {};\n`);
      const r = run(join(root, 'node_modules', '.bin', 'tsx'), [file], { cwd: clone });
      expect(r.status, `${b.page} line ${b.line}:\n${r.out}`).toBe(0);
    }
  }, 300_000);
});
