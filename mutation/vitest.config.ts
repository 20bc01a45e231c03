import { defineConfig } from 'vitest/config';

/**
 * The test selection mutation runs use (#19): in-process tests only, so one mutant costs
 * milliseconds per covering test, not seconds. Left out on purpose: anything that starts another
 * OS process (SIGKILL, multi-process, other runtimes, CLI, MCP, hook), PostgreSQL (a server per
 * run), the packaging test and benchmarks' helpers. Those guard the edges; mutants in src/core,
 * src/memory and src/sqlite are reachable from the tests below.
 */
export default defineConfig({
  test: {
    include: [
      'test/core/**/*.test.ts',
      'test/upstream/*.test.ts',
      'test/memory-store.test.ts',
      'test/sqlite/{contract,differential,prune,store,schema,failures}.test.ts',
      'test/harden/{input-snapshot,notice-text}.test.ts',
      'test/feed/diff.test.ts',
      'test/mutation/**/*.test.ts',
    ],
    // These two start other OS processes (the CLI, a watcher of a real file), which every mutant they cover would pay for.
    exclude: ['test/upstream/scan-cli.test.ts', 'test/upstream/done-when.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
