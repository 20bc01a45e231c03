/**
 * Generates conformance/vectors/*.json: hand-written scripts, one or more rules each, plus a few
 * random scripts from fixed seeds, with the outputs of the reference store (`npm run
 * conformance:vectors`). `--check` exits 1 when the committed files differ (a test does the same).
 * The specs live in conformance/vector-specs/, one file per rule family.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VECTOR_FORMAT, type ConformanceVector, type StoreFactory, type VectorStep } from '../spec/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { Clock, T0, callStore, closeQuietly, openStore } from './script.js';
import { toExpectation } from './vectors.js';

export { HAND_WRITTEN, HARDENING_VECTORS, RANDOM_SEEDS, randomSpecs, type VectorSpec } from './vector-specs/index.js';
import { HAND_WRITTEN, HARDENING_VECTORS, randomSpecs, type VectorSpec } from './vector-specs/index.js';

function jsonSafe(value: unknown, where: string): void {
  if (JSON.stringify(JSON.parse(JSON.stringify(value))) !== JSON.stringify(value)) throw new Error(`${where}: arguments must survive JSON`);
}

/** Runs a spec against a factory (the reference, for generation) and records every output. */
export async function buildVector(spec: VectorSpec, factory: StoreFactory = createMemoryStore): Promise<ConformanceVector> {
  const clock = new Clock(T0);
  const options = spec.options ?? {};
  const store = await openStore(factory, clock, options);
  const steps: VectorStep[] = [];
  try {
    for (const cmd of spec.script) {
      if (cmd.op === 'advance') {
        clock.t += cmd.args[0] as number;
        continue;
      }
      if (cmd.op === 'repeatRecord') throw new Error('vectors are expanded scripts');
      // R9e is optional, so no vector may need it: an implementation without recordMany must pass every vector.
      if (cmd.op === 'recordMany') throw new Error('vectors never use the optional recordMany');
      jsonSafe(cmd.args, `${spec.name} step ${steps.length + 1}`);
      const o = await callStore(store, cmd.op, cmd.args);
      steps.push({ now: clock.t, op: cmd.op, args: JSON.parse(JSON.stringify(cmd.args)) as unknown[], expect: toExpectation(o) });
    }
  } finally {
    await closeQuietly(store);
  }
  return { format: VECTOR_FORMAT, name: spec.name, rules: spec.rules, description: spec.description, options, startAt: T0, steps };
}

/** Pretty at the top, one line per step: diffs stay readable. */
export function renderVector(v: ConformanceVector): string {
  const head = { format: v.format, name: v.name, rules: v.rules, description: v.description, options: v.options, startAt: v.startAt };
  const top = JSON.stringify(head, null, 2).replace(/\n}$/, '');
  const steps = v.steps.map((s) => `    ${JSON.stringify({ now: s.now, op: s.op, args: s.args, expect: s.expect })}`).join(',\n');
  return `${top},\n  "steps": [\n${steps}\n  ]\n}\n`;
}

export async function generateAll(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const spec of [...HAND_WRITTEN, ...HARDENING_VECTORS, ...randomSpecs()]) out.set(`${spec.name}.json`, renderVector(await buildVector(spec)));
  return out;
}

const here = fileURLToPath(new URL('./vectors/', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const files = await generateAll();
  let drift = 0;
  mkdirSync(here, { recursive: true });
  const existing = existsSync(here) ? readdirSync(here).filter((f) => f.endsWith('.json')) : [];
  for (const f of existing) {
    if (files.has(f)) continue;
    if (check) {
      console.error(`drift: conformance/vectors/${f} is not generated any more`);
      drift++;
    } else rmSync(join(here, f));
  }
  for (const [name, text] of files) {
    const path = join(here, name);
    if (check) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        console.error(`drift: conformance/vectors/${name} differs from the reference (run npm run conformance:vectors)`);
        drift++;
      }
    } else writeFileSync(path, text);
  }
  if (check && drift > 0) process.exit(1);
  console.log(check ? `conformance/vectors is up to date (${files.size} vectors)` : `wrote ${files.size} vectors to conformance/vectors`);
}
