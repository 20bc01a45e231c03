/**
 * Pure statistics for the benchmark report. No clock, no I/O: test/bench covers these.
 * Every latency is in milliseconds; every rate is per second.
 */

/** Linear-interpolated percentile of ascending samples (q in [0, 1]); the same rule tinybench uses. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no samples');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile q must be in [0, 1], got ${q}`);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export interface LatencySummary {
  /** Median latency of one operation, ms: the figure every ratio is computed from. */
  p50Ms: number;
  meanMs: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
  samples: number;
}

/** Summarizes raw samples (any order). Merging rounds is just concatenating their samples first. */
export function summarize(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) throw new RangeError('no samples to summarize');
  const sorted = [...samples].sort((a, b) => a - b);
  let sum = 0;
  for (const s of sorted) sum += s;
  return {
    p50Ms: percentile(sorted, 0.5),
    meanMs: sum / sorted.length,
    p99Ms: percentile(sorted, 0.99),
    minMs: sorted[0]!,
    maxMs: sorted[sorted.length - 1]!,
    samples: sorted.length,
  };
}

/** Operations per second implied by a median latency in ms. */
export function opsPerSecond(p50Ms: number): number {
  if (!(p50Ms > 0)) return Number.POSITIVE_INFINITY;
  return 1000 / p50Ms;
}

/**
 * Throughput ratio subject/baseline from the two medians: ops/s(subject) / ops/s(baseline), which
 * equals baseline p50 / subject p50. 1 means "as fast as the baseline", 0.5 "half its rate".
 */
export function throughputRatio(subjectP50Ms: number, baselineP50Ms: number): number {
  if (!(subjectP50Ms > 0) || !(baselineP50Ms > 0)) throw new RangeError('ratios need positive medians');
  return baselineP50Ms / subjectP50Ms;
}

/** Least-squares slope dy/dx (e.g. heap bytes per append). Needs two distinct x values. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length) throw new RangeError('slope needs as many x as y values');
  if (xs.length < 2) throw new RangeError('slope needs at least two points');
  const n = xs.length;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i]!;
    my += ys[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    sxy += dx * (ys[i]! - my);
    sxx += dx * dx;
  }
  if (sxx === 0) throw new RangeError('slope needs two distinct x values');
  return sxy / sxx;
}
