import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Bundles a child-process fixture once per test file, so spawning it costs a plain `node` start
 * (no tsx per spawn). The bundle lives under node_modules/.cache so `better-sqlite3` (external:
 * a native addon) resolves from the repository's node_modules.
 */
export async function bundleFixture(name: string): Promise<string> {
  const outDir = join(root, 'node_modules', '.cache', 'ssk-sqlite-tests');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${name}-${process.pid}.mjs`);
  await build({
    entryPoints: [join(root, 'test', 'sqlite', 'fixtures', `${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'],
    logLevel: 'error',
  });
  return outfile;
}
