/**
 * Fixed vectors: command scripts with the outputs the reference produced (format:
 * spec/schemas/vectors.ts). Replaying one needs no property-testing library, so implementations in
 * other languages can run them directly.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { ConformanceVector, type StoreFactory, type VectorExpectation } from '../spec/index.js';
import { renameStore } from './renumber.js';
import { Clock, callStore, closeQuietly, describeOutcome, formatCommand, openStore, plain, type Command, type Outcome, type Scenario } from './script.js';

const check = Compile(ConformanceVector);

/** Where the vectors live: next to this file in the source tree, or beside dist/ in the package. */
export function vectorsDir(): string {
  const candidates = [new URL('./vectors/', import.meta.url), new URL('../conformance/vectors/', import.meta.url)].map((u) => fileURLToPath(u));
  const found = candidates.find((d) => existsSync(d));
  if (!found) throw new Error(`conformance vectors not found (looked in ${candidates.join(', ')})`);
  return found;
}

let cache: ConformanceVector[] | undefined;

/**
 * Loads and schema-checks the conformance vectors (conformance/vectors/*.json, or `dir`), in file-name order; throws on an invalid file.
 */
export function loadVectors(dir?: string): ConformanceVector[] {
  if (!dir && cache) return cache;
  const d = dir ?? vectorsDir();
  const out: ConformanceVector[] = [];
  for (const file of readdirSync(d).filter((f) => f.endsWith('.json')).sort()) {
    const v: unknown = JSON.parse(readFileSync(join(d, file), 'utf8'));
    if (!check.Check(v)) {
      const [first] = check.Errors(v);
      throw new Error(`${file} is not a valid conformance vector${first ? `: ${first.instancePath} ${first.message}` : ''}`);
    }
    out.push(v);
  }
  if (!dir) cache = out;
  return out;
}

export function toExpectation(o: Outcome): VectorExpectation {
  if (o.ok) return { ok: true, result: plain(o.result) };
  return { ok: false, error: o.error.field !== undefined ? { name: o.error.name, field: o.error.field } : { name: o.error.name } };
}

export function meetsExpectation(o: Outcome, e: VectorExpectation): boolean {
  if (e.ok) return o.ok && JSON.stringify(plain(o.result)) === JSON.stringify(plain(e.result));
  return !o.ok && o.error.name === e.error.name && o.error.field === e.error.field;
}

function describeExpectation(e: VectorExpectation): string {
  return e.ok ? describeOutcome({ ok: true, result: e.result }) : describeOutcome({ ok: false, error: e.error });
}

/** The outcome of replaying one vector: its name, its step count and the first failing step, if any. */
export interface VectorRun {
  name: string;
  steps: number;
  failure?: { step: number; message: string };
}

/**
 * Replays one vector against a fresh store of `factory`, stopping at the first step whose outcome differs from what the vector expects.
 */
export async function runVector(factory: StoreFactory, v: ConformanceVector): Promise<VectorRun> {
  const clock = new Clock(v.startAt);
  // W6: sequences compare up to an order-preserving renaming (conformance/renumber.ts).
  const store = renameStore(await openStore(factory, clock, v.options));
  try {
    for (const [i, s] of v.steps.entries()) {
      clock.t = s.now;
      const o = await callStore(store, s.op, s.args);
      if (!meetsExpectation(o, s.expect)) {
        return {
          name: v.name,
          steps: v.steps.length,
          failure: { step: i + 1, message: `step ${i + 1} ${formatCommand({ op: s.op, args: s.args })}\n  expected: ${describeExpectation(s.expect)}\n  actual:   ${describeOutcome(o)}` },
        };
      }
    }
  } finally {
    await closeQuietly(store);
  }
  return { name: v.name, steps: v.steps.length };
}

/** A vector as a script (clock jumps become advance commands), for printing. */
export function vectorScenario(v: ConformanceVector): Scenario {
  const commands: Command[] = [];
  let t = v.startAt;
  for (const s of v.steps) {
    if (s.now !== t) commands.push({ op: 'advance', args: [s.now - t] });
    t = s.now;
    commands.push({ op: s.op, args: s.args });
  }
  return { options: v.options, commands, meta: { vector: v.name } };
}

/** The 1-based line of vector step `step` in vectorScenario(v). */
export function scriptLineOf(v: ConformanceVector, step: number): number {
  let line = 0;
  let t = v.startAt;
  for (const [i, s] of v.steps.entries()) {
    if (s.now !== t) line++;
    t = s.now;
    line++;
    if (i + 1 === step) return line;
  }
  return line;
}
