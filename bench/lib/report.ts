import { opsPerSecond, throughputRatio, type LatencySummary } from './stats.js';

/**
 * The result model, the human table and the floor check. Pure (no clock, no I/O), so
 * test/bench can pin the formatting and, above all, that a ratio under its floor fails the run.
 */

export interface CaseResult {
  /** Stable id `group/variant@size`; floors refer to it, so renaming one is a visible change. */
  id: string;
  /** Group, e.g. `append`; `--filter` matches it. */
  group: string;
  /** What was measured, e.g. `sqlite adapter` or `raw INSERT (baseline)`. */
  label: string;
  /** Human size label, e.g. `10 watchers` or `1M rows`. */
  size: string;
  /** What one unit of work is (`append`, `row`, `pair`, `cursor`, `read`); one timed call handles `unitsPerOp` of them. */
  unit: string;
  unitsPerOp: number;
  latency: LatencySummary;
  /** 1000 / p50: calls per second from the median (what the table and the floors use). */
  opsPerSec: number;
  /** 1000 / mean: includes the rare slow calls (WAL checkpoints with their fsync) that the median leaves out. */
  opsPerSecMean: number;
  /** Id of the result this one is compared with; absent on baselines. */
  baselineId?: string;
  /** ops/s(this) / ops/s(baseline), from the two medians of the same run. */
  ratio?: number;
  /** The same from the two means: how the slow tail (checkpoints) changes the picture. Reported, never checked. */
  ratioMean?: number;
  /** Case-specific figures (memory slopes, rows removed, ...). */
  extra?: Record<string, number>;
  /** Case-specific series (memory samples). */
  series?: Record<string, number>[];
  notes?: string;
}

export function makeResult(fields: Omit<CaseResult, 'opsPerSec' | 'opsPerSecMean' | 'ratio' | 'ratioMean'>): CaseResult {
  return { ...fields, opsPerSec: opsPerSecond(fields.latency.p50Ms), opsPerSecMean: opsPerSecond(fields.latency.meanMs) };
}

/** Fills `ratio` on every result whose baseline is present; a missing baseline is a harness bug. */
export function attachRatios(results: readonly CaseResult[]): CaseResult[] {
  const byId = new Map(results.map((r) => [r.id, r] as const));
  return results.map((r) => {
    if (r.baselineId === undefined) return r;
    const base = byId.get(r.baselineId);
    if (!base) throw new Error(`${r.id}: baseline ${r.baselineId} was not measured`);
    // Per-unit medians, so a baseline may batch differently (e.g. per pair acked).
    const ratio = throughputRatio(r.latency.p50Ms / r.unitsPerOp, base.latency.p50Ms / base.unitsPerOp);
    const ratioMean = throughputRatio(r.latency.meanMs / r.unitsPerOp, base.latency.meanMs / base.unitsPerOp);
    return { ...r, ratio, ratioMean };
  });
}

// ---------------------------------------------------------------------------------------------
// Formatting

/** A duration in ms with three significant digits and a readable unit. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const abs = Math.abs(ms);
  if (abs >= 1000) return `${sig(ms / 1000)} s`;
  if (abs >= 1) return `${sig(ms)} ms`;
  if (abs >= 0.001) return `${sig(ms * 1000)} µs`;
  return `${sig(ms * 1e6)} ns`;
}

/** A rate with k/M suffixes, three significant digits. */
export function formatRate(perSec: number): string {
  if (!Number.isFinite(perSec)) return String(perSec);
  const abs = Math.abs(perSec);
  if (abs >= 1e6) return `${sig(perSec / 1e6)}M`;
  if (abs >= 1e3) return `${sig(perSec / 1e3)}k`;
  return sig(perSec);
}

export function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined) return '';
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= 1024 * 1024) return `${sig(bytes / (1024 * 1024))} MiB`;
  if (abs >= 1024) return `${sig(bytes / 1024)} KiB`;
  return `${sig(bytes)} B`;
}

function sig(value: number): string {
  if (value === 0) return '0';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toFixed(digits);
}

/** Plain text table: first row is the header; `right` marks right-aligned (numeric) columns. */
export function renderTable(rows: readonly (readonly string[])[], right: readonly boolean[] = []): string {
  if (rows.length === 0) return '';
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, [...cell].length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - [...cell].length);
        return right[i] ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  const [header, ...body] = rows;
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header!), rule, ...body.map(line)].join('\n');
}

export const TABLE_HEADER = ['case', 'size', 'p50', 'ops/s', 'per unit', 'ratio', 'vs'] as const;

/** The stdout table: one line per result, medians only (the JSON has the rest). */
export function resultTable(results: readonly CaseResult[]): string {
  const byId = new Map(results.map((r) => [r.id, r] as const));
  const rows: string[][] = [[...TABLE_HEADER]];
  for (const r of results) {
    const perUnit = r.unitsPerOp === 1 ? '' : `${formatDuration(r.latency.p50Ms / r.unitsPerOp)}/${r.unit}`;
    const b = r.baselineId === undefined ? undefined : byId.get(r.baselineId);
    const base = r.baselineId === undefined ? 'baseline' : !b ? r.baselineId : b.size === r.size ? b.label : `${b.label} @ ${b.size}`;
    rows.push([`${r.group}: ${r.label}`, r.size, formatDuration(r.latency.p50Ms), formatRate(r.opsPerSec), perUnit, formatRatio(r.ratio), base]);
  }
  return renderTable(rows, [false, false, true, true, true, true, false]);
}

// ---------------------------------------------------------------------------------------------
// Floors (CI check)

export interface Limit {
  /** Result id, exactly as in the JSON. */
  id: string;
  /** `ratio`, or a key of the result's `extra`. */
  metric: string;
  /** Fail when the value is below this (ratios). */
  min?: number;
  /** Fail when the value is above this (memory slopes). */
  max?: number;
  /** Why this number: what was measured and the margin taken. */
  why: string;
}

export type CheckStatus = 'pass' | 'fail' | 'missing' | 'skipped';

export interface CheckOutcome {
  limit: Limit;
  status: CheckStatus;
  value?: number;
  message: string;
}

/**
 * Compares results with limits. A limit whose result is absent fails as `missing` when its group
 * ran (a renamed case must not silently disable its floor) and is `skipped` when `--filter` left
 * the group out.
 */
export function checkLimits(results: readonly CaseResult[], limits: readonly Limit[], groupRan: (group: string) => boolean): CheckOutcome[] {
  const byId = new Map(results.map((r) => [r.id, r] as const));
  return limits.map((limit): CheckOutcome => {
    if (limit.min === undefined && limit.max === undefined) return { limit, status: 'fail', message: `${limit.id}: limit has neither min nor max` };
    const r = byId.get(limit.id);
    const group = limit.id.split('/')[0] ?? limit.id;
    if (!r) {
      return groupRan(group)
        ? { limit, status: 'missing', message: `${limit.id}: no such result in this run (renamed or not measured?)` }
        : { limit, status: 'skipped', message: `${limit.id}: group ${group} not run` };
    }
    const value = limit.metric === 'ratio' ? r.ratio : r.extra?.[limit.metric];
    if (value === undefined || Number.isNaN(value)) return { limit, status: 'missing', message: `${limit.id}: result has no ${limit.metric}` };
    if (limit.min !== undefined && value < limit.min) {
      return { limit, status: 'fail', value, message: `${limit.id}: ${limit.metric} ${round(value)} is below the floor ${limit.min}` };
    }
    if (limit.max !== undefined && value > limit.max) {
      return { limit, status: 'fail', value, message: `${limit.id}: ${limit.metric} ${round(value)} is above the ceiling ${limit.max}` };
    }
    const bound = limit.min !== undefined ? `>= ${limit.min}` : `<= ${limit.max}`;
    return { limit, status: 'pass', value, message: `${limit.id}: ${limit.metric} ${round(value)} ${bound}` };
  });
}

export function checkFailed(outcomes: readonly CheckOutcome[]): boolean {
  return outcomes.some((o) => o.status === 'fail' || o.status === 'missing');
}

function round(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(3);
}
