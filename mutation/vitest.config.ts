import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { PARTS } from './parts.mjs';

/**
 * Rank of a test file: cheap in-process files first, so a mutant is usually killed by a
 * millisecond test before the slow files run (bail stops at the first failure; only a survivor
 * pays for every covering file). Within the in-process files, the targeted mutation-* files come
 * before the broad ones, and the files with second-long tests go last: 20 MiB transcript lines
 * (upstream/jsonl-source, upstream/skeleton), property runs over many inputs
 * (memory/record-validation, memory/record-many, harden/notice-text), SQLite files (the link
 * store, then the store's own files, the random differential programs and the lock tests last).
 * Timings from one run of this selection: most files take 5-80 ms, those ranked 4-6 0.5-4.4 s.
 */
const SLOW_IN_PROCESS = ['/test/upstream/jsonl-source.', '/test/upstream/skeleton.', '/test/memory/record-validation.', '/test/memory/record-many.', '/test/harden/notice-text.', '/test/upstream/link-store.'];
const SLOWEST_SQLITE = ['/test/sqlite/differential.', '/test/sqlite/failures.'];
function rank(file: string): number {
  if (SLOWEST_SQLITE.some((s) => file.includes(s))) return 6;
  if (file.includes('/test/sqlite/')) return 5;
  if (SLOW_IN_PROCESS.some((s) => file.includes(s))) return 4;
  if (file.includes('/test/core/')) return 0;
  if (file.includes('/mutation-')) return 1;
  if (file.includes('/test/memory')) return 2;
  return 3;
}

/** Same files as the default sequencer, ordered fast first (a kill stops the run, so order sets the cost). */
class FastFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => rank(a.moduleId) - rank(b.moduleId) || (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0));
  }
}

/**
 * Left out of the core and upstream parts: the SQLite failure file starts child processes (one as
 * another user) and the differential file runs random programs against two stores; every core
 * mutant they reach would pay seconds for them. Both stay in the sqlite part, whose code they test;
 * core mutants are reached by the core, memory and other SQLite files.
 */
const PART_EXCLUDES = ['core', 'upstream'].includes(process.env.SSK_MUTATION_PART ?? 'core') ? ['test/sqlite/failures.test.ts', 'test/sqlite/differential.test.ts'] : [];

/** A part's own tests (mutation/parts.mjs `tests`, `excludeTests`), in process: e.g. test/feed but the file that starts a second process. */
const PART = (PARTS as Record<string, { tests?: string[]; excludeTests?: string[]; ownTestsOnly?: boolean; postgres?: boolean }>)[process.env.SSK_MUTATION_PART ?? 'core'];
const PART_INCLUDES = PART?.tests ?? [];
/** `ownTestsOnly`: the part's own tests without the base selection, which reaches none of its code (a static mutant would run it all). */
const OWN_ONLY = PART?.ownTestsOnly === true;
const PART_OWN_EXCLUDES = PART?.excludeTests ?? [];

/**
 * The test selection mutation runs use: in-process tests only, so one mutant costs
 * milliseconds per covering test, not seconds. Left out on purpose: anything that starts another
 * OS process (SIGKILL, multi-process, other runtimes, CLI, MCP, hook), PostgreSQL (a server per
 * run), the packaging test and benchmarks' helpers. Those guard the edges; mutants in src/core,
 * src/memory and src/sqlite are reachable from the tests below.
 */
export default defineConfig({
  test: {
    include: OWN_ONLY
      ? PART_INCLUDES
      : [
        'test/core/**/*.test.ts',
        'test/upstream/*.test.ts',
        'test/memory-store.test.ts',
        'test/memory/*.test.ts',
        'test/sqlite/{contract,differential,prune,store,schema,failures}.test.ts',
        'test/sqlite/mutation-*.test.ts',
        'test/harden/{input-snapshot,notice-text}.test.ts',
        'test/feed/diff.test.ts',
        'test/mutation/**/*.test.ts',
        ...PART_INCLUDES,
      ],
    // Checks against a pinned agent binary start it (seconds) for every mutant they cover; their
    // fixtures stay in the run (test/agents/binaries.ts liveBinariesOff).
    env: { SSK_AGENT_BINARIES: 'off' },
    // A part over PostgreSQL: one server for the run (mutation/postgres-setup.ts), not one per file.
    ...(PART?.postgres === true ? { globalSetup: ['mutation/postgres-setup.ts'] } : {}),
    // These two start other OS processes (the CLI, a watcher of a real file), which every mutant they cover would pay for.
    exclude: ['test/upstream/scan-cli.test.ts', 'test/upstream/done-when.test.ts', 'test/feed/two-process.test.ts', ...PART_EXCLUDES, ...PART_OWN_EXCLUDES],
    sequence: { sequencer: FastFirst },
    // One module environment for all files of a mutant's run instead of a fresh one per file: most
    // of a mutant's time was loading modules again (the dry run: 44 s with 29 s of it overhead,
    // against 7 s with 2 s). A from-scratch core run took 24.4 min instead of 48.2, with the same
    // result for every mutant but two that only a property test's random inputs reach (2026-12-03).
    // No file in this selection mocks modules or stubs globals, and a file that fakes timers gives
    // the real ones back after each test. SSK_MUTATION_ISOLATE=1
    // gives each file its own environment again.
    isolate: process.env.SSK_MUTATION_ISOLATE === '1',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
