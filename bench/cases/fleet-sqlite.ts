/**
 * A SQLite fleet: K listening processes on one file, each with one change feed subscribed to a
 * watcher of its own (as K MCP servers bound to K sessions would be), and one writer process.
 * Every commit changes the `-wal` file, so every listener wakes (R70) and reads what changed
 * (R68), whether or not the commit touched its watcher. Measured per K (1, 8, 32):
 * - what a listener costs per commit: its CPU time over a paced run of commits, less what it
 *   spends idle over as long (its poll), divided by the commits; each commit is news for one
 *   listener and nothing for the other K - 1, so with K = 32 this is nearly all the idle case;
 * - commit -> signal p50/p99 for the one listener whose watcher the commit made pending, from the
 *   writer's record() returning (its commit done) to that listener's signal;
 * - the writer's throughput (back-to-back records, each making one listener's pair pending)
 *   against the same records with no listener running: `writerRatio`.
 * Processes and timers, so like the latency group this file runs bundled as a script in a child
 * Node process (`measure`), which forks the listeners (`listener`) and the writer (`writer`).
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNoticeFeed, type NoticeSignal } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { bundled, runsAsScript } from '../lib/script.js';
import { summarize } from '../lib/stats.js';
import type { BenchGroup, CaseContext } from './context.js';

const here = fileURLToPath(import.meta.url);
const watcherOf = (k: number) => `agent:main:w${k}`;
const now = () => performance.timeOrigin + performance.now();

interface FleetCase {
  listeners: number;
  /** Paced commits for the CPU and latency figures. */
  commits: number;
  /** Back-to-back commits for the writer's throughput, with and without the listeners. */
  burst: number;
}

const SETTINGS: Record<CaseContext['mode'], FleetCase[]> = {
  full: [
    { listeners: 1, commits: 300, burst: 1000 },
    { listeners: 8, commits: 300, burst: 1000 },
    { listeners: 32, commits: 300, burst: 1000 },
  ],
  smoke: [
    { listeners: 1, commits: 40, burst: 200 },
    { listeners: 8, commits: 40, burst: 200 },
  ],
};

export interface FleetMeasured {
  listeners: number;
  latencies: number[];
  /** Mean over the listeners of (CPU in the paced run - idle CPU over as long) / commits, ms. */
  cpuPerListenerPerCommitMs: number;
  /** Mean CPU a listener spends per second with no commits (its poll), ms. */
  idleCpuMsPerSecond: number;
  writerOpsPerSecond: number;
  writerOpsPerSecondAlone: number;
  logs: number;
}

export const fleetSqliteGroup: BenchGroup = {
  group: 'fleet-sqlite',
  run(ctx: CaseContext): CaseResult[] {
    const cases = SETTINGS[ctx.mode];
    const dir = mkdtempSync(join(tmpdir(), 'ssk-fleet-'));
    let measured: FleetMeasured[];
    try {
      ctx.progress(`fleet-sqlite: ${cases.map((c) => c.listeners).join(', ')} listening processes on one file`);
      const r = spawnSync(process.execPath, [bundled(here), 'measure', JSON.stringify({ dir, cases })], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 30 * 60_000 });
      if (r.status !== 0) throw new Error(`fleet-sqlite measurement exited with ${r.status ?? r.signal}`);
      measured = (JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as { cases: FleetMeasured[] }).cases;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return measured.map((m) => {
      if (m.logs > 0) throw new Error(`fleet-sqlite with ${m.listeners} listeners logged ${m.logs} storage failures`);
      const latency = summarize(m.latencies);
      ctx.progress(`fleet-sqlite: ${m.listeners} listeners: ${m.cpuPerListenerPerCommitMs.toFixed(2)} ms CPU per listener per commit, signal p50 ${latency.p50Ms.toFixed(1)} ms p99 ${latency.p99Ms.toFixed(1)} ms, writer ${(m.writerOpsPerSecond / m.writerOpsPerSecondAlone).toFixed(2)}x of alone`);
      return makeResult({
        id: `fleet-sqlite/listeners@${m.listeners}`,
        group: 'fleet-sqlite',
        label: `sqlite: ${m.listeners} listening processes (one feed each, one watcher each) on one file; commit -> signal of the one listener the commit is for`,
        size: `${m.listeners} processes`,
        unit: 'notice',
        unitsPerOp: 1,
        latency,
        extra: {
          listeners: m.listeners,
          cpuPerListenerPerCommitMs: m.cpuPerListenerPerCommitMs,
          idleCpuMsPerSecond: m.idleCpuMsPerSecond,
          writerOpsPerSecond: m.writerOpsPerSecond,
          writerOpsPerSecondAlone: m.writerOpsPerSecondAlone,
          writerRatio: m.writerOpsPerSecond / m.writerOpsPerSecondAlone,
        },
        notes: 'every commit wakes every listener (-wal file watch, R70), which reads what changed (R68); CPU per listener per commit is its CPU in the paced run less its idle CPU over as long, per commit; writerRatio is back-to-back records with the listeners running over the same with none',
      });
    });
  },
};

// ---------------------------------------------------------------------------------------------
// Script modes: `measure <json>` (the orchestrator), `listener <json>` and `writer <json>`.

type ToListener = { cpu: true } | { exit: true };
type FromListener = { ready: true } | { signal: string[]; at: number } | { cpuMs: number; at: number };
type ToWriter = { record: string[]; watcherOf: number[] } | { exit: true };
type FromWriter = { ready: true } | { done: { target: string; committedAt: number; recordMs: number }[] };

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function listener(job: { path: string; k: number }): Promise<void> {
  const logger = memoryLogger();
  const store = createSqliteStore({ path: job.path, now: () => Date.now(), logger });
  const feed = createNoticeFeed(store, { logger });
  feed.subscribe((s: NoticeSignal) => process.send!({ signal: s.changed.map((p) => p.targetSessionKey), at: now() } satisfies FromListener), { watcherSessionKey: watcherOf(job.k) });
  process.on('message', (m: ToListener) => {
    if ('cpu' in m) process.send!({ cpuMs: cpuMs(), at: now() } satisfies FromListener);
    else {
      feed.close();
      store.close();
      process.exitCode = logger.entries.length > 0 ? 3 : 0;
      process.disconnect();
    }
  });
  process.send!({ ready: true } satisfies FromListener);
}

async function writer(job: { path: string }): Promise<void> {
  const logger = memoryLogger();
  const store = createSqliteStore({ path: job.path, now: () => Date.now(), logger });
  process.on('message', (m: ToWriter) => {
    if ('exit' in m) {
      store.close();
      process.exitCode = logger.entries.length > 0 ? 3 : 0;
      process.disconnect();
      return;
    }
    const done = m.record.map((target, i) => {
      const committedAt = now();
      // A person's turn on a new target that the listener's watcher is passed for: one pending pair.
      store.record({ sessionKey: target, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', watchers: [watcherOf(m.watcherOf[i]!)] });
      return { target, committedAt, recordMs: now() - committedAt };
    });
    process.send!({ done } satisfies FromWriter);
  });
  process.send!({ ready: true } satisfies FromWriter);
}

/** A forked process of this script with a promise per reply kind. */
function start<From extends object>(mode: string, arg: unknown, onMessage: (m: From) => void): { child: ReturnType<typeof fork>; ready: Promise<void> } {
  const child = fork(bundled(here), [mode, JSON.stringify(arg)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = new Promise<void>((r) => {
    child.on('message', (m: From) => {
      if ('ready' in m) r();
      else onMessage(m);
    });
  });
  return { child, ready };
}

async function measureCase(path: string, c: FleetCase): Promise<FleetMeasured> {
  createSqliteStore({ path, now: () => Date.now(), logger: memoryLogger() }).close();
  let onWriter: ((m: FromWriter) => void) | undefined;
  const w = start<FromWriter>('writer', { path }, (m) => onWriter?.(m));
  await w.ready;
  const ask = (targets: string[], watchers: number[]) =>
    new Promise<{ target: string; committedAt: number; recordMs: number }[]>((r) => {
      onWriter = (m) => 'done' in m && r(m.done);
      w.child.send({ record: targets, watcherOf: watchers } satisfies ToWriter);
    });
  const burst = async (tag: string) => {
    const targets = Array.from({ length: c.burst }, (_, i) => `agent:main:${tag}-${i}`);
    const t0 = now();
    await ask(targets, targets.map((_, i) => i % c.listeners));
    return c.burst / ((now() - t0) / 1000);
  };
  await burst('warm-up'); // the writer's statements and JIT, so neither burst pays for them
  const alone = await burst('alone');

  const signals = new Map<string, number>();
  const cpu: ({ cpuMs: number; at: number } | undefined)[] = [];
  let onSignal: (() => void) | undefined;
  let onCpu: (() => void) | undefined;
  const listeners = Array.from({ length: c.listeners }, (_, k) =>
    start<FromListener>('listener', { path, k }, (m) => {
      if ('signal' in m) {
        for (const t of m.signal) if (!signals.has(t)) signals.set(t, m.at);
        onSignal?.();
      } else if ('cpuMs' in m) {
        cpu[k] = m;
        onCpu?.();
      }
    }),
  );
  await Promise.all(listeners.map((l) => l.ready));
  const readCpu = async () => {
    cpu.splice(0, cpu.length, ...Array.from({ length: c.listeners }, () => undefined));
    await new Promise<void>((r) => {
      onCpu = () => cpu.every((x) => x !== undefined) && r();
      for (const l of listeners) l.child.send({ cpu: true } satisfies ToListener);
    });
    return cpu.map((x) => x!);
  };
  // Settle (each feed's first read, the -wal watch), then the idle rate over two seconds.
  await new Promise((r) => setTimeout(r, 1000));
  const idle0 = await readCpu();
  await new Promise((r) => setTimeout(r, 2000));
  const idle1 = await readCpu();
  const idleRates = idle1.map((x, k) => (x.cpuMs - idle0[k]!.cpuMs) / ((x.at - idle0[k]!.at) / 1000));

  const latencies: number[] = [];
  const warmUp = 5;
  const run0 = await readCpu();
  for (let i = 0; i < c.commits + warmUp; i++) {
    // A random pause, so commits do not fall in step with the listeners' polls.
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
    const target = `agent:main:peer-${i}`;
    const [done] = await ask([target], [i % c.listeners]);
    await new Promise<void>((r) => {
      const check = () => signals.has(target) && r();
      onSignal = check;
      check();
    });
    if (i >= warmUp) latencies.push(signals.get(target)! - done!.committedAt - done!.recordMs);
  }
  const run1 = await readCpu();
  const perCommit = run1.map((x, k) => (x.cpuMs - run0[k]!.cpuMs - idleRates[k]! * ((x.at - run0[k]!.at) / 1000)) / (c.commits + warmUp));
  const withListeners = await burst('busy');

  let logs = 0;
  const exits = [w.child, ...listeners.map((l) => l.child)].map((child) => new Promise<void>((r) => child.once('exit', (code) => ((logs += code === 3 ? 1 : 0), r()))));
  w.child.send({ exit: true } satisfies ToWriter);
  for (const l of listeners) l.child.send({ exit: true } satisfies ToListener);
  await Promise.all(exits);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  return {
    listeners: c.listeners,
    latencies,
    cpuPerListenerPerCommitMs: mean(perCommit),
    idleCpuMsPerSecond: mean(idleRates),
    writerOpsPerSecond: withListeners,
    writerOpsPerSecondAlone: alone,
    logs,
  };
}

async function measure(job: { dir: string; cases: FleetCase[] }): Promise<void> {
  const out: FleetMeasured[] = [];
  for (const [i, c] of job.cases.entries()) out.push(await measureCase(join(job.dir, `fleet-${i}.db`), c));
  process.stdout.write(`${JSON.stringify({ cases: out })}\n`);
}

if (runsAsScript(here)) {
  const [mode, arg] = process.argv.slice(2);
  const fail = (error: unknown) => {
    process.stderr.write(`fleet-sqlite ${mode} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  };
  const job = JSON.parse(arg ?? '{}');
  if (mode === 'measure') measure(job).catch(fail);
  else if (mode === 'listener') listener(job).catch(fail);
  else if (mode === 'writer') writer(job).catch(fail);
}
