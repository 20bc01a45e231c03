import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every numbered rule of spec/PROTOCOL.md is cited by at least one test name (it/describe/property).
const root = join(import.meta.dirname, '..');
const protocol = readFileSync(join(root, 'spec/PROTOCOL.md'), 'utf8');
const ruleIds = [...new Set([...protocol.matchAll(/^- \*\*([RTU]\d+[a-z]?)\b/gm)].map((m) => m[1]!))];

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (/\.(test|props?|rules)\.ts$|rules\.ts$/.test(name) || /properties/.test(path)) out.push(path);
  }
  return out;
}

const sources = [...testFiles(join(root, 'test')), ...(safeDir(join(root, 'conformance')) ? testFiles(join(root, 'conformance')) : [])]
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

function safeDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

describe('spec coverage', () => {
  it('PROTOCOL.md has numbered rules', () => {
    expect(ruleIds.length).toBeGreaterThan(30);
  });
  it.each(ruleIds)('%s is cited by a test', (id) => {
    // A range like (R10-R18) does not count: each rule needs a test of its own.
    expect(new RegExp(`['"\`][^'"\`\\n]*(?<![-\\w])${id}\\b(?!-)`).test(sources), `no test name cites ${id}`).toBe(true);
  });
});

describe('every MUST and what can fail it (spec/MUSTS.md)', () => {
  it('the list is generated from PROTOCOL.md as it stands, and every contract MUST has a suite case or a reason it has none', async () => {
    const { renderMusts } = await import('../spec/musts.js');
    const { text, missing } = await renderMusts();
    expect(missing).toEqual([]);
    expect(readFileSync(join(root, 'spec/MUSTS.md'), 'utf8'), 'spec/MUSTS.md is stale: npx tsx spec/musts.ts').toBe(text);
  });
});
