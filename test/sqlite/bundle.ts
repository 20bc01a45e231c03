import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = join(root, 'node_modules', '.cache', 'ssk-sqlite-tests');

/**
 * Bundles a child-process fixture once per test file, so spawning it costs a plain runtime start
 * (no tsx per spawn; the same bundle runs on Node 20, Node 22 and Bun). By default the bundle lives
 * under node_modules/.cache so `better-sqlite3` (external: a native addon, loaded lazily) resolves
 * from the repository's node_modules; pass another `outDir` to run it where it does not.
 */
export async function bundleFixture(name: string, outDir = CACHE): Promise<string> {
  return bundleEntry(join(root, 'test', 'sqlite', 'fixtures', `${name}.ts`), name, outDir);
}

/** Bundles any TypeScript entry point (as bundleFixture does) and returns the bundle's path. */
export async function bundleEntry(entry: string, name: string, outDir = CACHE): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${name}-${process.pid}.mjs`);
  await build({
    entryPoints: [entry],
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
