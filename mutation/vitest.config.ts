import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Rank of a test file: cheap in-process files first, so a mutant is usually killed before the slow SQLite files run. */
function rank(file: string): number {
  if (file.includes('/test/core/')) return 0;
  if (file.includes('/test/memory')) return 1;
  if (file.includes('/test/sqlite/')) return 3;
  return 2;
}

/** Same files as the default sequencer, ordered fast first (a kill stops the run, so order sets the cost). */
class FastFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => rank(a.moduleId) - rank(b.moduleId));
  }
}

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
      'test/memory/*.test.ts',
      'test/sqlite/{contract,differential,prune,store,schema,failures}.test.ts',
      'test/sqlite/mutation-*.test.ts',
      'test/harden/{input-snapshot,notice-text}.test.ts',
      'test/feed/diff.test.ts',
      'test/mutation/**/*.test.ts',
    ],
    // These two start other OS processes (the CLI, a watcher of a real file), which every mutant they cover would pay for.
    exclude: ['test/upstream/scan-cli.test.ts', 'test/upstream/done-when.test.ts'],
    sequence: { sequencer: FastFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
