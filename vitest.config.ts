import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // The examples import the package by name, as users do (tsconfig.json "paths" says the same).
  resolve: {
    alias: [
      { find: /^session-state-kit\/claude-agent-sdk$/, replacement: source('./src/integrations/claude-agent-sdk/index.ts') },
      { find: /^session-state-kit\/openai-agents$/, replacement: source('./src/integrations/openai-agents/index.ts') },
      { find: /^session-state-kit\/memory$/, replacement: source('./src/memory/index.ts') },
      { find: /^session-state-kit\/sqlite$/, replacement: source('./src/sqlite/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores here and in CI: keep parallelism modest so timing-sensitive child-process tests stay stable.
    maxWorkers: 2,
  },
});
