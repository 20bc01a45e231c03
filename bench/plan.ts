import type { Mode } from './lib/args.js';
import type { Budget } from './lib/measure.js';

/**
 * Sizes and time budgets per mode. Smoke keeps every floor's case (bench/floors.ts) at a size
 * that exists in both modes, so CI checks the same ids the reference run reports.
 */
export interface Plan {
  /** Watchers on the appended-to target. */
  appendWatchers: number[];
  /** Existing rows before appending (growth check: no table scan per append). */
  appendSizes: number[];
  /** Events in the log read by changesSince (always over 10k sessions). */
  changesSinceSizes: number[];
  /** Rows a single prune removes (cap: above 50,000 rows; age: older than 30 days). */
  pruneRemoved: number[];
  /** Watcher/target pairs acked by one drain case. */
  drainPairs: number[];
  /** Cursors whose watchers read their pending notices (the pending group). */
  pendingCursors: number[];
  /** Appends in the memory run and how often heap/RSS are sampled. */
  memoryAppends: number;
  memorySampleEvery: number;
  /** Size of the transcript the upstream scan reads, MiB, and how many times it is read. */
  upstreamScanMiB: number;
  upstreamScanRounds: number;
  /** Hook processes (and as many bare node starts) the hook-start group times. */
  hookStartRuns: number;
  /** Short operations (append, changesSince). */
  fast: Budget;
  /** Operations that need fresh rows before each call (prune, pending reads). */
  heavy: Budget;
  /**
   * Drains and prunes of up to 1k rows: fresh rows before each call like `heavy`, but each call
   * takes milliseconds, so the full run takes 100 samples per side instead of 9 (with 9, one drain
   * case's ratio moved between 0.62 and 0.88 from run to run on an idle machine, 2026-12-03).
   */
  heavyShort: Budget;
}

export const PLANS: Record<Mode, Plan> = {
  full: {
    appendWatchers: [0, 1, 10, 100],
    appendSizes: [10_000, 100_000, 1_000_000],
    changesSinceSizes: [10_000, 100_000, 1_000_000],
    pruneRemoved: [1_000, 10_000, 100_000],
    drainPairs: [10, 100, 1_000],
    pendingCursors: [1_000, 10_000, 100_000],
    memoryAppends: 1_000_000,
    memorySampleEvery: 100_000,
    upstreamScanMiB: 100,
    upstreamScanRounds: 3,
    hookStartRuns: 30,
    fast: { rounds: 5, timeMs: 400, iterations: 50, warmupMs: 200, warmupIterations: 20 },
    heavy: { rounds: 3, timeMs: 0, iterations: 3, warmupMs: 0, warmupIterations: 1 },
    heavyShort: { rounds: 5, timeMs: 0, iterations: 20, warmupMs: 0, warmupIterations: 2 },
  },
  smoke: {
    appendWatchers: [0, 1, 10, 100],
    appendSizes: [10_000, 1_000_000],
    changesSinceSizes: [10_000, 1_000_000],
    pruneRemoved: [1_000, 10_000],
    drainPairs: [10, 1_000],
    pendingCursors: [1_000, 10_000],
    memoryAppends: 50_000,
    memorySampleEvery: 5_000,
    upstreamScanMiB: 8,
    upstreamScanRounds: 3,
    hookStartRuns: 12,
    fast: { rounds: 3, timeMs: 100, iterations: 20, warmupMs: 50, warmupIterations: 10 },
    heavy: { rounds: 2, timeMs: 0, iterations: 2, warmupMs: 0, warmupIterations: 1 },
    // 20 samples per side, not 4: with 4 the 10-pair drain's ratio read 0.32-0.42 in two smoke runs (2026-12-04).
    heavyShort: { rounds: 2, timeMs: 0, iterations: 10, warmupMs: 0, warmupIterations: 1 },
  },
};

/** `1000000` -> `1M`, `10000` -> `10k`: ids and size labels. */
export function shortCount(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}
