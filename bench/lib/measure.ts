import { Bench } from 'tinybench';
import { summarize, type LatencySummary } from './stats.js';

/**
 * tinybench, run in interleaved rounds. On a shared two-core machine a neighbour's burst can
 * land on one task and not the other; running subject and baseline alternately, several short
 * rounds each, and taking the median of the merged samples keeps the *ratio* honest even when
 * absolute times wander.
 */

export interface TaskSpec {
  name: string;
  /** The timed call; must be synchronous (runSync). */
  fn: () => void;
  /** Untimed setup before every call (e.g. loading the rows a prune will remove). */
  beforeEach?: () => void;
  /** Untimed check after every call. */
  afterEach?: () => void;
  /** Untimed, once per round before this task's first call. */
  beforeRound?: () => void;
}

export interface Budget {
  rounds: number;
  /** Time per task per round, ms (tinybench `time`). */
  timeMs: number;
  /** Minimum calls per task per round (tinybench `iterations`). */
  iterations: number;
  /** Warm-up before the first round only. */
  warmupMs: number;
  warmupIterations: number;
}

export type Progress = (message: string) => void;

/**
 * Runs every task for `budget.rounds` rounds (the order rotates each round so no task always
 * follows the same neighbour) and returns the merged latency summary per task name.
 */
export function measureInterleaved(tasks: readonly TaskSpec[], budget: Budget, progress: Progress): Map<string, LatencySummary> {
  const samples = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  if (samples.size !== tasks.length) throw new Error('task names must be unique: samples are merged by name');
  for (let round = 0; round < budget.rounds; round++) {
    const order = tasks.map((_, i) => tasks[(i + round) % tasks.length]!);
    for (const task of order) {
      progress(`${task.name} (round ${round + 1}/${budget.rounds})`);
      task.beforeRound?.();
      const bench = new Bench({
        time: budget.timeMs,
        iterations: budget.iterations,
        warmup: round === 0,
        warmupTime: budget.warmupMs,
        warmupIterations: budget.warmupIterations,
        retainSamples: true,
        throws: true,
        timestampProvider: 'hrtimeNow',
      });
      bench.add(task.name, task.fn, {
        ...(task.beforeEach ? { beforeEach: task.beforeEach } : {}),
        ...(task.afterEach ? { afterEach: task.afterEach } : {}),
      });
      const [ran] = bench.runSync();
      const result = ran?.result;
      if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
        const error = result && result.state === 'errored' ? result.error : undefined;
        throw new Error(`task ${task.name} did not complete (${result?.state ?? 'no result'})`, { cause: error });
      }
      const got = result.latency.samples;
      if (!got || got.length === 0) throw new Error(`task ${task.name} kept no samples`);
      const into = samples.get(task.name)!;
      for (const x of got) into.push(x); // not push(...got): fast tasks keep >100k samples
    }
  }
  return new Map([...samples].map(([name, s]) => [name, summarize(s)]));
}

export interface AsyncTaskSpec {
  name: string;
  /** The timed call; awaited (the feed answers a commit on later microtasks, not inside the call). */
  fn: () => unknown;
  /** Untimed, before every call (e.g. the commit whose news the timed call reads). */
  beforeEach?: () => unknown;
  /** Untimed check after every call. */
  afterEach?: () => unknown;
  /** Untimed, once per round before this task's first call. */
  beforeRound?: () => unknown;
  /** Calls per round for this task, instead of the budget's (a slow reference path takes fewer). */
  iterations?: number;
  /** Runs in the first this-many rounds only, and without warm-up when set (a call of seconds needs neither). */
  rounds?: number;
}

/** Calls per task per round, and untimed warm-up calls before the first round. */
export interface CountBudget {
  rounds: number;
  iterations: number;
  warmupIterations: number;
}

/**
 * measureInterleaved for awaited calls: the same interleaved rounds (the order rotates each
 * round), a fixed number of calls per task per round, each timed alone with the monotonic clock.
 * No time budget: the feed's calls range from microseconds to seconds across sizes, so the plan
 * gives counts per size instead.
 */
export async function measureInterleavedAsync(tasks: readonly AsyncTaskSpec[], budget: CountBudget, progress: Progress): Promise<Map<string, LatencySummary>> {
  const samples = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  if (samples.size !== tasks.length) throw new Error('task names must be unique: samples are merged by name');
  for (const task of tasks) {
    if (task.rounds !== undefined) continue;
    for (let i = 0; i < Math.min(budget.warmupIterations, task.iterations ?? budget.warmupIterations); i++) {
      await task.beforeEach?.();
      await task.fn();
      await task.afterEach?.();
    }
  }
  for (let round = 0; round < budget.rounds; round++) {
    const order = tasks.map((_, i) => tasks[(i + round) % tasks.length]!);
    for (const task of order) {
      if (task.rounds !== undefined && round >= task.rounds) continue;
      progress(`${task.name} (round ${round + 1}/${budget.rounds})`);
      const into = samples.get(task.name)!;
      await task.beforeRound?.();
      for (let i = 0; i < (task.iterations ?? budget.iterations); i++) {
        await task.beforeEach?.();
        const t0 = process.hrtime.bigint();
        await task.fn();
        into.push(Number(process.hrtime.bigint() - t0) / 1e6);
        await task.afterEach?.();
      }
    }
  }
  return new Map([...samples].map(([name, s]) => [name, summarize(s)]));
}
