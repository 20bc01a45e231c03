import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The design card: src/core imports nothing from storage, Node, the clock or randomness.
// Subfolders too (src/core/upstream): purity is a property of the whole core.
const coreDir = join(import.meta.dirname, '../../src/core');
const specDir = join(import.meta.dirname, '../../spec');
const files = readdirSync(coreDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

describe('src/core is pure', () => {
  it.each(files)('%s imports only core, spec and typebox, and reads no clock or randomness', (file) => {
    const text = readFileSync(join(coreDir, file), 'utf8');
    const imports = [...text.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]!);
    for (const spec of imports) {
      // A relative import must stay inside src/core or land in spec/.
      const target = spec.startsWith('.') ? resolve(dirname(join(coreDir, file)), spec) : undefined;
      const inside = (dir: string) => target !== undefined && !relative(dir, target).startsWith('..');
      const ok = inside(coreDir) || inside(specDir) || spec === 'typebox' || spec.startsWith('typebox/');
      expect(ok, `${file} imports ${spec}`).toBe(true);
    }
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const banned of ['Date.now', 'new Date', 'Math.random', 'performance.now', 'process.', 'require(', 'crypto.', 'setTimeout', 'setInterval']) {
      expect(code.includes(banned), `${file} uses ${banned}`).toBe(false);
    }
  });
});
