import fc from 'fast-check';
import type { SessionStateStore, WireCapability } from '../spec/index.js';
import { DEFAULT_HANDLES, MEMORY_HANDLES, asHandleFactory, type ConformanceTarget, type HandleFactory } from './handles.js';
import { offersRecordMany } from './properties/batch-r9e.js';
import { withoutLacking } from './capabilities.js';
import { renameTarget } from './renumber.js';
import { PROPERTIES, type ConformanceProperty, type PropertyContext } from './properties/index.js';
import { ConformanceFailure, closeQuietly, formatScript, T0, type Scenario } from './script.js';

/**
 * Options of runConformance: cases per property, the seed and path that replay a run, which properties, shrinking, handles and progress.
 */
export interface ConformanceOptions {
  /** Generated cases per property (fixed properties always run once). Default: each property's own. */
  runs?: number;
  /** fast-check seed; one seed drives every property, so one number replays a whole run. */
  seed?: number;
  /** fast-check counterexample path: with `seed` and one property, replays exactly that case. */
  path?: string;
  /** Property names, or rule numbers (`R24`) selecting every property tied to that rule. */
  properties?: string[];
  /** Ten times the cases and longer scripts. */
  thorough?: boolean;
  /** Shrink counterexamples (default true). Off makes failing runs faster and scripts longer. */
  shrink?: boolean;
  /** The oracle of the `model` property; default: the in-memory reference store (with handles). */
  reference?: ConformanceTarget;
  /**
   * Multi-handle mode (conformance/handles.ts): handles per store, over which `model` and the
   * multi-handle properties spread their commands. Default: 3 when the target has openHandle,
   * else 1 (the multi-handle properties are then not run, and the result says so). More than 1
   * needs a target with openHandle.
   */
  handles?: number;
  /**
   * Why the target can only run with one handle, when the caller probed it (the CLI does for
   * `--exec`); said in the result and the report's summary line.
   */
  singleHandleReason?: string;
  /**
   * W4: what the implementation said it lacks (its `hello`'s `lacks`). Scenarios lose the calls
   * and options that need it; properties and vectors that judge it are reported as not run.
   */
  lacks?: readonly WireCapability[];
  /** Told when each property starts and ends, and every so many cases in between (for a progress display). */
  onProgress?: (event: ConformanceProgress) => void;
}

/** What runConformance tells `onProgress`: a property started, made progress, or ended with its result. */
export type ConformanceProgress =
  | { type: 'start'; property: string; index: number; total: number; runs: number }
  | { type: 'progress'; property: string; done: number; runs: number }
  | { type: 'end'; property: string; index: number; total: number; result: PropertyResult };

/** How a property failed: the message, the shrunk counterexample script and how to replay exactly that case. */
export interface PropertyFailure {
  message: string;
  /** 1-based step of the script after which the property failed (0: setup or epilogue). */
  step: number;
  /** The shrunk counterexample as a numbered script, one command per line. */
  script: string;
  scenario: Scenario | undefined;
  seed: number;
  path: string | null;
  shrinks: number;
  /** How to replay exactly this case. */
  replay: { property: string; seed: number; path: string | null; cli: string; api: string };
}

/** The result of one property: passed or not, cases run, time taken, the seed, and the failure if any. */
export interface PropertyResult {
  name: string;
  rules: string[];
  title: string;
  passed: boolean;
  /** Cases run (up to and including the first failure). */
  runs: number;
  durationMs: number;
  seed: number;
  failure?: PropertyFailure;
}

/** The result of a conformance run: passed iff every selected property passed; each property's result and what could not run. */
export interface ConformanceResult {
  passed: boolean;
  seed: number;
  durationMs: number;
  /** Handles per store the run used (1: the ordinary mode). */
  handles: number;
  properties: PropertyResult[];
  /** Selected properties that could not run, and why (multi-handle properties with one handle). */
  notRun: { name: string; reason: string }[];
  /**
   * Set when the run was single-handle and so skipped the multi-handle properties: why (the
   * target cannot open handles, or the caller asked for one). Absent for a multi-handle run.
   */
  singleHandle?: string;
}

/** Every property of the suite with its rules, title, default runs and mode, in suite order (for listings). */
export function listProperties(): { name: string; rules: string[]; title: string; runs: number; fixed: boolean; multiHandle: boolean }[] {
  return PROPERTIES.map((p) => ({ name: p.name, rules: p.rules, title: p.title, runs: p.runs, fixed: p.fixed === true, multiHandle: p.multiHandle === true }));
}

/** Resolves names and rule numbers (`R24`, `r28`) to properties, in suite order. */
export function selectProperties(selectors: readonly string[] | undefined): ConformanceProperty[] {
  if (!selectors || selectors.length === 0) return [...PROPERTIES];
  const wanted = new Set<ConformanceProperty>();
  for (const raw of selectors) {
    const s = raw.trim();
    const exact = PROPERTIES.find((p) => p.name.toLowerCase() === s.toLowerCase());
    const byRule = /^[ru]\d+[a-z]?$/i.test(s) ? PROPERTIES.filter((p) => p.rules.some((r) => r.toUpperCase() === s.toUpperCase()) || p.name.toUpperCase().split('-').includes(s.toUpperCase())) : [];
    const found = exact ? [exact] : byRule;
    if (found.length === 0) throw new Error(`unknown property ${JSON.stringify(s)}; known: ${PROPERTIES.map((p) => p.name).join(', ')}`);
    for (const p of found) wanted.add(p);
  }
  return PROPERTIES.filter((p) => wanted.has(p));
}

/** A fresh random fast-check seed (a non-negative 31-bit integer), used when no seed is given. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/**
 * Runs the conformance suite against `target`: a contract StoreFactory (spec/schemas/contract.ts),
 * or `{create, openHandle?}` whose openHandle opens more handles on one store (multi-handle mode,
 * conformance/handles.ts). Never throws for a failing implementation: the result says which
 * property failed, with a shrunk, numbered counterexample script and the seed and path that replay it.
 */
export async function runConformance(target: ConformanceTarget, options: ConformanceOptions = {}): Promise<ConformanceResult> {
  const started = Date.now();
  const seed = options.seed ?? randomSeed();
  const thorough = options.thorough === true;
  // W6: sequences are compared up to an order-preserving renaming (R7 does not ask for dense ones).
  const sub = renameTarget(asHandleFactory(target));
  const reference = asHandleFactory(options.reference ?? MEMORY_HANDLES);
  const handles = Math.floor(options.handles ?? (sub.openHandle ? DEFAULT_HANDLES : 1));
  if (!(handles >= 1)) throw new RangeError(`handles must be at least 1, got ${options.handles}`);
  if (handles > 1 && !sub.openHandle) throw new TypeError(`handles: ${handles} needs a target with openHandle(first, options) (conformance/handles.ts)`);
  if (handles > 1 && !reference.openHandle) throw new TypeError(`handles: ${handles} needs a reference with openHandle`);
  const notRun: { name: string; reason: string }[] = [];
  const singleHandle = handles > 1 ? undefined : (options.singleHandleReason ?? (sub.openHandle ? 'asked for one handle per store' : 'the implementation cannot open more handles on one store (no openHandle)'));
  let selected = selectProperties(options.properties).filter((p) => {
    if (!p.multiHandle || handles > 1) return true;
    notRun.push({ name: p.name, reason: sub.openHandle ? 'runs with handles > 1 only' : 'needs a target with openHandle (multi-handle mode)' });
    return false;
  });
  const lacks = options.lacks ?? [];
  selected = selected.filter((p) => {
    const missing = (p.needs ?? []).filter((n) => lacks.includes(n));
    if (missing.length === 0) return true;
    notRun.push({ name: p.name, reason: `the implementation lacks ${missing.join(' and ')} (W4)` });
    return false;
  });
  // Optional methods (R9e): a property judging one runs only when a probe store offers it.
  if (selected.some((p) => p.optionalMethod === 'recordMany') && !(await probeRecordMany(sub))) {
    for (const p of selected.filter((q) => q.optionalMethod === 'recordMany')) notRun.push({ name: p.name, reason: 'the implementation does not offer the optional recordMany (R9e)' });
    selected = selected.filter((p) => p.optionalMethod !== 'recordMany');
  }
  const ctx: PropertyContext = { factory: sub.create, target: sub, reference, handles, thorough, lacks, skip: (name, reason) => notRun.push({ name, reason }) };
  const results: PropertyResult[] = [];
  for (const [index, p] of selected.entries()) {
    const runs = p.fixed ? 1 : Math.max(1, Math.floor(options.runs ?? (thorough ? p.runs * 10 : p.runs)));
    options.onProgress?.({ type: 'start', property: p.name, index, total: selected.length, runs });
    const t0 = Date.now();
    let done = 0;
    const every = Math.max(1, Math.floor(runs / 10));
    const property = fc.asyncProperty(p.arbitrary({ thorough, handles }).map((sc) => withoutLacking(sc, lacks)), async (sc) => {
      try {
        await p.check(sc, ctx);
      } finally {
        done++;
        if (done <= runs && done % every === 0) options.onProgress?.({ type: 'progress', property: p.name, done, runs });
      }
    });
    const params: fc.Parameters<[Scenario]> = { numRuns: runs, seed, endOnFailure: options.shrink === false };
    if (options.path !== undefined) params.path = options.path;
    let details: fc.RunDetails<[Scenario]>;
    try {
      details = await fc.check(property, params);
    } catch (error) {
      details = { failed: true, interrupted: false, counterexample: null, counterexamplePath: null, errorInstance: error, numRuns: done, numSkips: 0, numShrinks: 0, seed, failures: [], executionSummary: [], verbose: 0, runConfiguration: params } as unknown as fc.RunDetails<[Scenario]>;
    }
    const result: PropertyResult = {
      name: p.name,
      rules: p.rules,
      title: p.title,
      passed: !details.failed,
      runs: details.numRuns,
      durationMs: Date.now() - t0,
      seed,
    };
    if (details.failed) result.failure = describeFailure(p, details, seed, handles);
    results.push(result);
    options.onProgress?.({ type: 'end', property: p.name, index, total: selected.length, result });
  }
  const out: ConformanceResult = { passed: results.every((r) => r.passed), seed, durationMs: Date.now() - started, handles, properties: results, notRun };
  if (singleHandle !== undefined) out.singleHandle = singleHandle;
  return out;
}

/** Opens a store at the scripts' start time and asks it for an empty batch; a factory that throws is left to the properties to report. */
async function probeRecordMany(target: HandleFactory): Promise<boolean> {
  let store: SessionStateStore | undefined;
  try {
    store = await target.create({ now: () => T0 });
    return await offersRecordMany(store);
  } catch {
    return false;
  } finally {
    if (store) await closeQuietly(store);
  }
}

function describeFailure(p: ConformanceProperty, details: fc.RunDetails<[Scenario]>, seed: number, handles: number): PropertyFailure {
  const error = details.errorInstance;
  const attached = (error as { scenario?: Scenario } | null)?.scenario;
  const scenario = attached ?? details.counterexample?.[0];
  const step = error instanceof ConformanceFailure ? error.step : 0;
  let message: string;
  if (error instanceof ConformanceFailure) message = error.message;
  else if (error instanceof Error) message = `${error.name}: ${error.message}`;
  else if (details.interrupted) message = 'interrupted';
  else message = String(error ?? 'failed');
  const path = details.counterexamplePath;
  const pathArg = path !== null ? ` --path ${path}` : '';
  return {
    message,
    step,
    script: scenario ? formatScript(scenario, step || undefined) : '(no script)',
    scenario,
    seed,
    path,
    shrinks: details.numShrinks,
    replay: {
      property: p.name,
      seed,
      path,
      cli: `--property ${p.name} --seed ${seed}${pathArg}`,
      api: `runConformance(factory, { properties: [${JSON.stringify(p.name)}], seed: ${seed}${path !== null ? `, path: ${JSON.stringify(path)}` : ''}${handles > 1 ? `, handles: ${handles}` : ''} })`,
    },
  };
}

function handles(result: ConformanceResult): string {
  return (result.handles ?? 1) > 1 ? `, ${result.handles} handles per store` : ', single-handle only';
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A readable summary table, then each failure with its script and replay line. */
export function formatReport(result: ConformanceResult, opts: { replayPrefix?: string } = {}): string {
  const rows = result.properties.map((r) => [r.name, r.rules.join(' '), String(r.runs), seconds(r.durationMs), r.passed ? 'ok' : 'FAILED']);
  const header = ['property', 'rules', 'cases', 'time', 'result'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 2 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const failed = result.properties.filter((r) => !r.passed);
  out.push('');
  out.push(
    failed.length === 0
      ? `PASS: ${result.properties.length} properties in ${seconds(result.durationMs)} (seed ${result.seed}${handles(result)})`
      : `FAIL: ${failed.length} of ${result.properties.length} properties failed in ${seconds(result.durationMs)} (seed ${result.seed}${handles(result)})`,
  );
  if (result.singleHandle !== undefined) {
    // R20/R26/R27 across handles (W8) is the defect class a single handle cannot show.
    out.push(`single-handle only: ${result.singleHandle}; what several handles (processes) on one store must agree on (R20, R26, R27) was not checked`);
  }
  for (const n of result.notRun ?? []) out.push(`not run: ${n.name} (${n.reason})`);
  for (const r of failed) {
    const f = r.failure!;
    out.push('', `=== ${r.name} (${r.rules.join(', ')}): ${r.title}`, f.message, '', 'counterexample' + (f.shrinks ? ` (shrunk ${f.shrinks} times)` : '') + ':', f.script, '');
    out.push(`replay: ${opts.replayPrefix ? `${opts.replayPrefix} ` : ''}${f.replay.cli}`);
    out.push(`        ${f.replay.api}`);
  }
  return out.join('\n');
}
