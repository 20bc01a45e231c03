import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceVector, WireCapability } from '../../spec/index.js';
import { vectorNeeds } from '../capabilities.js';
import { execFactory, type ExecFactory } from '../exec.js';
import { listProperties, runConformance, type ConformanceResult } from '../runner.js';
import { probeHandles } from '../targets.js';
import { loadVectors, runVector } from '../vectors.js';
import { runWireCases } from '../wire-cases.js';
import type { OpenClawInstall } from './install.js';
import type { Profile } from './store.js';

/**
 * One run of the suite against OpenClaw (docs/openclaw.md): for each profile, the properties, each
 * fixed vector on its own, and each replay of a finding, all through the adapter process over the
 * wire (W1-W8), exactly as an outside implementation is judged.
 */

export interface Failure {
  /** `property:<name>` or `vector:<name>`. */
  id: string;
  /** The first counterexample, shrunk, and the message the suite gave. */
  message: string;
  script: string;
  replay?: string;
}

export interface ProfileRun {
  profile: Profile;
  implementation: string;
  lacks: readonly WireCapability[];
  handles: number;
  singleHandle?: string;
  properties: { passed: number; failed: number; notRun: number };
  vectors: { passed: number; failed: number; notRun: number };
  failures: Failure[];
  notRun: { id: string; reason: string }[];
  /** The wire protocol's own driver cases (W1, W3, W4): passed of run. */
  wireCases: { passed: number; run: number };
  /** Replays of findings (conformance/openclaw/replays): the ones that failed here, i.e. reproduce. */
  replays: { name: string; reproduces: boolean; step?: number; message?: string }[];
  seconds: number;
}

export interface OpenClawRun {
  version: string;
  seed: number;
  runs: number;
  profiles: ProfileRun[];
}

const here = dirname(fileURLToPath(import.meta.url));

/** Where findings.json and the replays live: beside this file in the source tree, or beside dist/ in the package. */
export function openClawDataDir(): string {
  const candidates = [here, join(here, '..', 'conformance', 'openclaw')];
  return candidates.find((d) => existsSync(join(d, 'findings.json'))) ?? here;
}

/**
 * The command that starts the adapter under the installed Node 24: from a checkout the TypeScript
 * source through tsx's loader, from the package the built file beside this one.
 */
export function adapterCommand(install: OpenClawInstall, profile: Profile): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const args = `--dist ${q(install.dist)} --version ${q(install.version)} --profile ${profile}`;
  const source = join(here, 'adapter.ts');
  if (existsSync(source) && fileURLToPath(import.meta.url).endsWith('.ts')) {
    const loader = import.meta.resolve('tsx/esm');
    return `${q(install.node)} --import ${q(loader)} ${q(source)} ${args}`;
  }
  return `${q(install.node)} ${q(join(here, 'openclaw-adapter.js'))} ${args}`;
}

/** The replays of findings, in name order. */
export function loadReplays(): ConformanceVector[] {
  const dir = join(openClawDataDir(), 'replays');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as ConformanceVector) : [];
}


/** One profile: the properties (seeded, `runs` cases each), the vectors one by one, the replays. */
export async function runProfile(
  install: OpenClawInstall,
  profile: Profile,
  opts: { seed: number; runs: number; progress: (line: string) => void; log?: (text: string) => void; properties?: string[]; path?: string },
): Promise<ProfileRun> {
  const started = Date.now();
  const command = adapterCommand(install, profile);
  const f = execFactory(command, { handles: true, timeoutMs: 120_000, onStderr: opts.log ?? (() => {}) });
  try {
    const hello = await f.hello();
    const lacks = hello.lacks ?? [];
    const single = await probeHandles(f);
    opts.progress(`${profile}: ${hello.implementation ?? '?'}; lacks ${lacks.join(', ') || 'nothing'}; ${single === undefined ? '3 handles per store (W8)' : `single-handle: ${single}`}`);
    const target = single === undefined ? f : { create: (o: Parameters<ExecFactory>[0]) => f(o) };
    const result: ConformanceResult = await runConformance(target, {
      seed: opts.seed,
      runs: opts.runs,
      lacks,
      // The vectors run one by one below (the property stops at the first failing one).
      properties: opts.properties ?? listProperties().map((p) => p.name).filter((n) => n !== 'vectors'),
      ...(opts.path !== undefined ? { path: opts.path } : {}),
      ...(single !== undefined ? { singleHandleReason: single } : {}),
      onProgress: (e) => {
        if (e.type === 'end') opts.progress(`${profile}: [${e.index + 1}/${e.total}] ${e.result.passed ? 'ok    ' : 'FAILED'} ${e.property} (${e.result.runs} cases, ${(e.result.durationMs / 1000).toFixed(1)} s)`);
      },
    }).catch((error: unknown) => {
      throw new Error(`the suite could not run against the adapter: ${error instanceof Error ? error.message : String(error)}`);
    });
    const failures: Failure[] = [];
    const notRun = result.notRun.filter((n) => n.name !== 'vectors' && !n.name.startsWith('vector ')).map((n) => ({ id: `property:${n.name}`, reason: n.reason }));
    for (const p of result.properties) {
      if (p.name === 'vectors' || p.passed) continue;
      failures.push({ id: `property:${p.name}`, message: p.failure!.message, script: p.failure!.script, replay: `--property ${p.name} --seed ${opts.seed} --runs ${opts.runs}${p.failure!.path !== null ? ` --path ${p.failure!.path}` : ''}` });
    }
    const propertyCount = result.properties.filter((p) => p.name !== 'vectors');
    // Each vector on its own: the suite's vectors property stops at the first failing one.
    let vPassed = 0;
    let vNotRun = 0;
    // A chosen property (a replay of one counterexample) runs alone.
    for (const v of opts.properties === undefined ? loadVectors() : []) {
      const missing = vectorNeeds(v).filter((n) => lacks.includes(n));
      if (missing.length > 0) {
        notRun.push({ id: `vector:${v.name}`, reason: `the implementation lacks ${missing.join(' and ')} (W4)` });
        vNotRun++;
        continue;
      }
      const r = await runVector(f, v);
      if (r.failure === undefined) vPassed++;
      else failures.push({ id: `vector:${v.name}`, message: r.failure.message, script: `conformance/vectors/${v.name}.json, step ${r.failure.step}` });
    }
    opts.progress(`${profile}: vectors ${vPassed} passed, ${failures.filter((x) => x.id.startsWith('vector:')).length} failed, ${vNotRun} not run`);
    const replays: ProfileRun['replays'] = [];
    for (const v of opts.properties === undefined ? loadReplays() : []) {
      const r = await runVector(f, v);
      replays.push({ name: v.name, reproduces: r.failure !== undefined, ...(r.failure ? { step: r.failure.step, message: r.failure.message } : {}) });
    }
    opts.progress(`${profile}: replays ${replays.filter((r) => r.reproduces).length} of ${replays.length} reproduce`);
    // W1, W3, W4: what the adapter's wire server does with lines no property sends.
    const wire = opts.properties === undefined ? await runWireCases(command, { handles: single === undefined, timeoutMs: 120_000, lacks }) : [];
    for (const w of wire.filter((x) => !x.passed && !x.notRun)) failures.push({ id: `wire:${w.name}`, message: w.message ?? '', script: w.title });
    opts.progress(`${profile}: wire cases ${wire.filter((w) => w.passed).length} of ${wire.length} pass`);
    return {
      profile,
      implementation: hello.implementation ?? '',
      lacks,
      handles: result.handles,
      ...(result.singleHandle !== undefined ? { singleHandle: result.singleHandle } : {}),
      properties: { passed: propertyCount.filter((p) => p.passed).length, failed: propertyCount.filter((p) => !p.passed).length, notRun: notRun.filter((n) => n.id.startsWith('property:')).length },
      vectors: { passed: vPassed, failed: failures.filter((x) => x.id.startsWith('vector:')).length, notRun: vNotRun },
      failures,
      notRun,
      replays,
      wireCases: { passed: wire.filter((w) => w.passed).length, run: wire.filter((w) => !w.notRun).length },
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await f.dispose();
  }
}
