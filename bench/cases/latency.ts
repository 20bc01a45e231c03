/**
 * Cross-process notice latency (issue 14): from a commit in one process to the change feed's
 * signal in another process sharing the SQLite file. The feed polls PRAGMA data_version, so the
 * latency is about half a poll interval on average and at most one interval plus one read; the
 * figures are reported as ms and as multiples of the interval (the checked, machine-independent
 * ones: a feed that missed ticks, read twice as often or spun would move them).
 *
 * The bench runner is synchronous and this case needs two processes and timers, so the group
 * runs this file, bundled, as a script (`measure`) in a child Node process, which forks the
 * recorder (`child`) and prints one JSON line of samples.
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { createNoticeFeed, type NoticeSignal } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import type { BenchGroup, CaseContext } from './context.js';

const here = fileURLToPath(import.meta.url);
const WATCHER = 'agent:main:main';

/** Poll intervals and samples per mode; smoke keeps the checked id (poll 50 ms) and stays a few seconds. */
const SETTINGS: Record<CaseContext['mode'], { pollMs: number; samples: number }[]> = {
  full: [
    { pollMs: 50, samples: 300 },
    { pollMs: 200, samples: 150 },
  ],
  smoke: [{ pollMs: 50, samples: 40 }],
};

const now = () => performance.timeOrigin + performance.now();

/**
 * This file bundled to plain JavaScript (once per run), so the two processes start in a fraction
 * of a second instead of loading tsx each. It lives under node_modules/.cache so better-sqlite3
 * (external: a native addon) resolves from the repository.
 */
let bundled: string | undefined;
function bundle(): string {
  if (bundled !== undefined) return bundled;
  const out = join(dirname(here), '..', '..', 'node_modules', '.cache', 'ssk-bench', `latency-${process.pid}.mjs`);
  mkdirSync(dirname(out), { recursive: true });
  buildSync({ entryPoints: [here], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['better-sqlite3', 'esbuild'], logLevel: 'error' });
  process.once('exit', () => rmSync(out, { force: true }));
  return (bundled = out);
}

function measureInChild(ctx: CaseContext, pollMs: number, samples: number): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'ssk-latency-'));
  try {
    const r = spawnSync(process.execPath, [bundle(), 'measure', join(dir, 'shared.db'), String(pollMs), String(samples)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 10 * 60_000,
    });
    if (r.status !== 0) throw new Error(`latency measurement exited with ${r.status ?? r.signal}`);
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    const parsed = JSON.parse(last) as { latencies: number[]; logs: number };
    if (parsed.logs > 0) throw new Error(`latency measurement logged ${parsed.logs} storage failures`);
    ctx.progress(`latency: ${parsed.latencies.length} cross-process samples at poll ${pollMs} ms`);
    return parsed.latencies;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const latencyGroup: BenchGroup = {
  group: 'latency',
  run(ctx: CaseContext): CaseResult[] {
    return SETTINGS[ctx.mode].map(({ pollMs, samples }) => {
      const latencies = measureInChild(ctx, pollMs, samples);
      const latency = summarize(latencies);
      return makeResult({
        id: `latency/sqlite-cross-process@poll${pollMs}ms`,
        group: 'latency',
        label: 'commit in process A -> feed signal in process B',
        size: `poll ${pollMs} ms`,
        unit: 'notice',
        unitsPerOp: 1,
        latency,
        extra: { pollMs, p50OverPoll: latency.p50Ms / pollMs, p99OverPoll: latency.p99Ms / pollMs, maxOverPoll: latency.maxMs / pollMs },
        notes: 'the other process polls PRAGMA data_version every pollMs; a commit is seen by the next poll',
      });
    });
  },
};

// ---------------------------------------------------------------------------------------------
// Script modes: `measure <db> <pollMs> <samples>` (the feed side) and `child <db>` (the recorder).

async function measure(path: string, pollMs: number, samples: number): Promise<void> {
  const logger = memoryLogger();
  const store = createSqliteStore({ path, now: () => Date.now(), logger });
  const child = fork(here, ['child', path], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const replies: { committedAt: number; target: string }[] = [];
  let onReply: (() => void) | undefined;
  child.on('message', (m: { committedAt: number; target: string } | { ready: true }) => {
    if ('committedAt' in m) replies.push(m);
    onReply?.();
  });
  await new Promise<void>((r) => (onReply = r));
  const feed = createNoticeFeed(store, { pollIntervalMs: pollMs, logger });
  const signalled = new Map<string, number>();
  let onSignal: (() => void) | undefined;
  const off = feed.subscribe(
    (s: NoticeSignal) => {
      const at = now();
      for (const p of s.changed) if (!signalled.has(p.targetSessionKey)) signalled.set(p.targetSessionKey, at);
      onSignal?.();
    },
    { watcherSessionKey: WATCHER },
  );
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const target = `agent:main:peer-${i}`;
    // A random phase against the poll timer, so the samples cover the whole interval.
    await new Promise((r) => setTimeout(r, Math.random() * pollMs));
    child.send({ target });
    await new Promise<void>((r) => {
      const check = () => {
        if (signalled.has(target) && replies.some((x) => x.target === target)) r();
      };
      onSignal = onReply = check;
      check();
    });
    const committedAt = replies.find((x) => x.target === target)!.committedAt;
    latencies.push(signalled.get(target)! - committedAt);
    // Ack, so every pending set stays one pair and each read costs the same.
    store.ackNotices(WATCHER, store.pendingNotices(WATCHER));
  }
  off();
  feed.close();
  child.send({ exit: true });
  await new Promise((r) => child.once('exit', r));
  store.close();
  process.stdout.write(`${JSON.stringify({ latencies, logs: logger.entries.length })}\n`);
}

function recorder(path: string): void {
  const logger = memoryLogger();
  const store = createSqliteStore({ path, now: () => Date.now(), logger });
  process.on('message', (m: { target: string } | { exit: true }) => {
    if ('exit' in m) {
      store.close();
      process.disconnect?.();
      return;
    }
    // Stamped before the commit: after it, a poll in the other process can see the commit before
    // this process gets to stamp it (negative samples under load). So each sample is an upper
    // bound, by the time one record() takes (tens of µs).
    const committedAt = now();
    store.record({ sessionKey: m.target, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', watchers: [WATCHER] });
    process.send!({ committedAt, target: m.target });
  });
  process.send!({ ready: true });
}

// Real paths: node_modules may be a symlink, and the loader resolves it in import.meta.url.
if (process.argv[1] !== undefined && realpathSync(resolve(process.argv[1])) === realpathSync(here)) {
  const [mode, path, pollArg, samplesArg] = process.argv.slice(2);
  if (mode === 'child') recorder(path!);
  else if (mode === 'measure') {
    measure(path!, Number(pollArg), Number(samplesArg)).catch((error: unknown) => {
      process.stderr.write(`latency measure failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    });
  }
}
