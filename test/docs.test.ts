/**
 * The docs as a newcomer uses them: the README is a front door (short, the two commands first), every
 * relative link goes somewhere, every guide starts from an example, and the example at the top of
 * each guide runs as printed from a checkout (the TypeScript blocks are compiled and run against the
 * packed package by test/harden/package.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const guides = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const pages = ['README.md', 'CHANGELOG.md', 'bench/HISTORY.md', ...guides];

/** The first fenced block of a page: its info string, its first line number and its lines. */
function firstBlock(text: string): { info: string; line: number; body: string[] } | undefined {
  const lines = text.split('\n');
  const open = lines.findIndex((l) => /^\s*```/.test(l));
  if (open < 0) return undefined;
  const close = lines.findIndex((l, i) => i > open && /^\s*```\s*$/.test(l));
  return { info: lines[open]!.trim().slice(3), line: open + 1, body: lines.slice(open + 1, close) };
}

describe('docs', () => {
  it('the README is a front door: at most 300 lines, the two commands in its first block, a map to every guide', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const first = firstBlock(readme)!;
    expect(first.line).toBeLessThanOrEqual(15);
    expect(first.body.join('\n')).toMatch(/^npm ci && npm run demo\b/m);
    expect(first.body.join('\n')).toMatch(/^npm test\b/m);
    for (const guide of guides) expect(readme, `README links ${guide}`).toContain(`(${guide})`);
  });

  it('every relative link of the README, the CHANGELOG and the guides names a file that exists', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const m of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(resolve(root, dirname(page), target))) broken.push(`${page}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  // Reference pages (the policy, the map, the measured curves) have no example of their own.
  it.each(guides.filter((g) => !/versioning|layout|scaling/.test(g)))('%s starts from an example near its top', (guide) => {
    const first = firstBlock(read(guide));
    expect(first, guide).toBeDefined();
    expect(first!.line, guide).toBeLessThanOrEqual(25);
  });

  // The live view is a server (its browser tests run it) and the runtimes' examples are files (examples.test.ts runs them).
  it.each(['docs/agents.md', 'docs/operating.md', 'docs/implementing.md', 'docs/upstream.md', 'docs/mutation.md'])('the shell example at the top of %s runs as printed from a checkout', (guide) => {
    const first = firstBlock(read(guide))!;
    if (!/^(sh|console)\b/.test(first.info) || /\bno-run\b/.test(first.info)) return; // a TypeScript block: the package test runs it
    for (const line of first.body.map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '' && !l.startsWith('#'))) {
      const r = spawnSync('/bin/sh', ['-c', line], { cwd: root, encoding: 'utf8', timeout: 480_000, env: { ...process.env, NO_COLOR: '1' } });
      expect(r.status, `${guide}: ${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
    }
  }, 1_200_000);
});
