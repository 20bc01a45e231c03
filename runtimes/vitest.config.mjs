// The suites runtimes/run.sh runs again on Node 22 and Node 24 (node:sqlite). The repository root is the
// vitest root, so paths below are the same as in the main suite.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: [
      'test/memory-store.test.ts',
      'test/sqlite/contract.test.ts',
      'test/sqlite/driver.test.ts',
      'test/sqlite/store.test.ts',
      'test/sqlite/schema.test.ts',
      'test/sqlite/prune.test.ts',
      'test/sqlite/differential.test.ts',
      'test/sqlite/failures.test.ts',
      'test/sqlite/kill.test.ts',
      'test/runtimes/conformance.suite.ts',
      'test/harden/sqlite-edges.test.ts',
    ],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
