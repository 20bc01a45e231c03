import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/**
 * For a child that runs as another user (root tests drop to "nobody"): the bundle and a minimal
 * copy of the better-sqlite3 driver (lib, native addon, and its `bindings` loader) go into a fresh
 * directory under the system temp dir, mode 0755, so the child depends on no permission of the
 * directories above the checkout (a checkout under a 0700 home made the child fail with
 * MODULE_NOT_FOUND). Returns the bundle's path and the directory, which the caller removes.
 */
export async function bundleFixtureForAnyUser(name: string): Promise<{ file: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ssk-any-user-'));
  chmodSync(dir, 0o755);
  const modules = join(root, 'node_modules');
  const copy = (from: string, to = from) => cpSync(join(modules, from), join(dir, 'node_modules', to), { recursive: true, dereference: true });
  if (existsSync(join(modules, 'better-sqlite3'))) {
    for (const part of ['package.json', 'lib', 'build/Release/better_sqlite3.node']) copy(join('better-sqlite3', part));
    for (const dep of ['bindings', 'file-uri-to-path']) if (existsSync(join(modules, dep))) copy(dep);
  }
  for (const p of walk(dir)) chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
  const file = await bundleFixture(name, dir);
  chmodSync(file, 0o644);
  return { file, dir };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    out.push(p);
    if (entry.isDirectory()) out.push(...walk(p));
  }
  return out;
}
