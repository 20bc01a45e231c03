/**
 * Cross-process notice latency: from a commit in one process to the change feed's signal in
 * another process sharing the store. Two kinds of case:
 * - `latency/sqlite@<pairs>` and `latency/postgres@<pairs>`: at default settings (poll 200 ms,
 *   file watch on), with 1k or 100k other pairs pending (W watchers × 10 targets, loaded as the
 *   feed group loads them): SQLite learns of the other process's commit from the `-wal` file
 *   (R70) and PostgreSQL from NOTIFY, and either reads only what changed (R68), so the latency
 *   follows neither the poll interval nor the pending count;
 * - `latency/sqlite-cross-process@poll<ms>`: the poll alone (file watch off, R70's fallback), as
 *   measured before the file watch existed: about half an interval on average, at most one
 *   interval plus one read. Reported as ms and as multiples of the interval.
 * Each sample runs from the writer's record() returning (its commit done) to the listener's signal;
 * the sample from the call's start, which includes the commit itself (an fsync on PostgreSQL), is
 * reported beside it. The checked figures are multiples of the poll interval (machine-independent:
 * a feed that missed ticks, or fell back to the poll where the file watch should wake it, moves them).
 *
 * The bench runner is synchronous here and this case needs processes and timers, so the group
 * runs this file, bundled, as a script (`measure`) in a child Node process, which forks the
 * recorder (`child`) and prints one JSON line of samples. The PostgreSQL cases start one embedded
 * server (default settings, fsync on) in that child.
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_POLL_INTERVAL_MS, createNoticeFeed, type NoticeFeedOptions, type NoticeSignal } from '../../src/feed/index.js';
import { memoryLogger, type Logger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { bundled, runsAsScript } from '../lib/script.js';
import { summarize } from '../lib/stats.js';
import { shortCount } from '../plan.js';
import type { BenchGroup, CaseContext } from './context.js';
import { buildFeedFile, TARGETS_PER_WATCHER } from './feed.js';

const here = fileURLToPath(import.meta.url);
const WATCHER = 'agent:main:main';

type Backend = 'sqlite' | 'postgres';

interface LatencyCase {
  backend: Backend;
  /** Pairs pending for other watchers (W × 10) before the first sample. */
  pairs: number;
  /** Poll interval; undefined: the feed's default (200 ms). */
  pollMs?: number;
  /** False: the poll alone (R70's fallback). */
  watchFiles: boolean;
  samples: number;
}

/** Cases and samples per mode; smoke keeps every checked id and stays well under a minute. */
const SETTINGS: Record<CaseContext['mode'], LatencyCase[]> = {
  full: [
    { backend: 'sqlite', pairs: 1_000, watchFiles: true, samples: 300 },
    { backend: 'sqlite', pairs: 100_000, watchFiles: true, samples: 300 },
    { backend: 'sqlite', pairs: 0, pollMs: 50, watchFiles: false, samples: 300 },
    { backend: 'sqlite', pairs: 0, pollMs: 200, watchFiles: false, samples: 150 },
    { backend: 'postgres', pairs: 1_000, watchFiles: true, samples: 300 },
    { backend: 'postgres', pairs: 100_000, watchFiles: true, samples: 300 },
  ],
  smoke: [
    { backend: 'sqlite', pairs: 1_000, watchFiles: true, samples: 40 },
    { backend: 'sqlite', pairs: 100_000, watchFiles: true, samples: 60 },
    { backend: 'sqlite', pairs: 0, pollMs: 50, watchFiles: false, samples: 40 },
    { backend: 'postgres', pairs: 1_000, watchFiles: true, samples: 40 },
    { backend: 'postgres', pairs: 100_000, watchFiles: true, samples: 60 },
  ],
};

function caseId(c: LatencyCase): string {
  return c.watchFiles ? `latency/${c.backend}@${shortCount(c.pairs)}` : `latency/${c.backend}-cross-process@poll${c.pollMs ?? DEFAULT_POLL_INTERVAL_MS}ms`;
}

const now = () => performance.timeOrigin + performance.now();

interface Measured {
  /** From the writer's record() returning (its commit done) to the signal, ms. */
  latencies: number[];
  /** From the writer's record() starting to the signal: an upper bound that includes the whole call. */
  upperBounds: number[];
  /** How long the writer's record() took, ms. */
  recordMs: number[];
  logs: number;
}

/** Runs the cases of one backend in one child process (PostgreSQL: one server for all of them). */
function measureInChild(ctx: CaseContext, backend: Backend, cases: LatencyCase[]): Measured[] {
  const dir = mkdtempSync(join(tmpdir(), 'ssk-latency-'));
  try {
    const r = spawnSync(process.execPath, [bundled(here), 'measure', JSON.stringify({ backend, dir, cases })], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 20 * 60_000,
    });
    if (r.status !== 0) throw new Error(`latency measurement (${backend}) exited with ${r.status ?? r.signal}`);
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    const parsed = JSON.parse(last) as { cases: Measured[] };
    parsed.cases.forEach((m, i) => {
      if (m.logs > 0) throw new Error(`latency measurement ${caseId(cases[i]!)} logged ${m.logs} storage failures`);
      ctx.progress(`latency: ${m.latencies.length} cross-process samples for ${caseId(cases[i]!)}`);
    });
    return parsed.cases;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const latencyGroup: BenchGroup = {
  group: 'latency',
  run(ctx: CaseContext): CaseResult[] {
    const results: CaseResult[] = [];
    for (const backend of ['sqlite', 'postgres'] as const) {
      const cases = SETTINGS[ctx.mode].filter((c) => c.backend === backend);
      if (cases.length === 0) continue;
      const measured = measureInChild(ctx, backend, cases);
      cases.forEach((c, i) => {
        const m = measured[i]!;
        const latency = summarize(m.latencies);
        const pollMs = c.pollMs ?? DEFAULT_POLL_INTERVAL_MS;
        const record = summarize(m.recordMs);
        const upper = summarize(m.upperBounds);
        const how = c.watchFiles ? (backend === 'sqlite' ? 'default settings: -wal file watch, poll 200 ms' : 'default settings: LISTEN/NOTIFY') : `poll ${pollMs} ms only`;
        results.push(
          makeResult({
            id: caseId(c),
            group: 'latency',
            label: `${backend}: commit in process A -> feed signal in process B`,
            size: c.watchFiles ? `${shortCount(c.pairs)} other pairs pending, ${how}` : how,
            unit: 'notice',
            unitsPerOp: 1,
            latency,
            extra: { pollMs, pendingPairs: c.pairs, p50OverPoll: latency.p50Ms / pollMs, p99OverPoll: latency.p99Ms / pollMs, maxOverPoll: latency.maxMs / pollMs, recordP50Ms: record.p50Ms, recordP99Ms: record.p99Ms, p50FromRecordStartMs: upper.p50Ms, p99FromRecordStartMs: upper.p99Ms },
            notes: c.watchFiles
              ? `the listener is woken by ${backend === 'sqlite' ? 'the -wal file changing (R70)' : 'NOTIFY'} and reads what changed (R68); from the writer's record() returning (its commit done) to the signal; *FromRecordStart include the whole record() call`
              : 'the other process polls PRAGMA data_version every pollMs (file watch off); a commit is seen by the next poll; from the writer\'s record() returning to the signal',
          }),
        );
      });
    }
    return results;
  },
};

// ---------------------------------------------------------------------------------------------
// Script modes: `measure <json>` (the feed side) and `child <json>` (the recorder).

/** What both sides need of a store, whichever the backend (the PostgreSQL store answers with promises). */
interface AnyStore {
  record(input: Parameters<ReturnType<typeof createSqliteStore>['record']>[0]): unknown;
  pendingNotices(watcher: string): unknown;
  ackNotices(watcher: string, notices: never[]): unknown;
  close(): unknown;
}

interface Where {
  backend: Backend;
  /** SQLite: the file. */
  path?: string;
  /** PostgreSQL: the server and the schema. */
  url?: string;
  schema?: string;
}

async function openStore(where: Where, logger: Logger): Promise<AnyStore & Parameters<typeof createNoticeFeed>[0]> {
  if (where.backend === 'sqlite') return createSqliteStore({ path: where.path!, now: () => Date.now(), logger });
  const { createPostgresStore } = await import('../../src/postgres/index.js');
  return (await createPostgresStore({ connectionString: where.url!, schema: where.schema!, now: () => Date.now(), logger, maxConnections: 2 })) as never;
}

/** W watchers × 10 targets, every pair pending, as the feed group loads them (SQLite: bench/cases/feed.ts). */
async function loadPostgresPairs(url: string, schema: string, pairs: number): Promise<void> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    if (pairs > 0) {
      await c.query(
        `INSERT INTO "${schema}".session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at, changed_xid) ` +
          `SELECT 'agent:main:w' || ((i - 1) / ${TARGETS_PER_WATCHER}), 'agent:main:t' || i, 'main', 1, 2, 2, 'explicit', 0, pg_current_xact_id() FROM generate_series(1, $1::int) AS i`,
        [pairs],
      );
    }
    await c.query(`SELECT setval('"${schema}".session_state_sequence', 1000)`);
    await c.query(`VACUUM ANALYZE "${schema}".session_watch_cursors`);
  } finally {
    await c.end();
  }
}

async function measureOne(where: Where, c: LatencyCase): Promise<Measured> {
  const logger = memoryLogger();
  const store = await openStore(where, logger);
  const child = fork(here, ['child', JSON.stringify(where)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const replies: { committedAt: number; recordMs: number; target: string }[] = [];
  let onReply: (() => void) | undefined;
  child.on('message', (m: { committedAt: number; recordMs: number; target: string } | { ready: true }) => {
    if ('committedAt' in m) replies.push(m);
    onReply?.();
  });
  await new Promise<void>((r) => (onReply = r));
  const options: NoticeFeedOptions = { logger, ...(c.pollMs === undefined ? {} : { pollIntervalMs: c.pollMs }), ...(c.watchFiles ? {} : { watchFiles: false }) };
  const feed = createNoticeFeed(store, options);
  const pollMs = c.pollMs ?? DEFAULT_POLL_INTERVAL_MS;
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
  const upperBounds: number[] = [];
  const recordMs: number[] = [];
  const warmUp = 5; // the first commits also open the LISTEN connection, the -wal watch, the plans
  for (let i = 0; i < c.samples + warmUp; i++) {
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
    const reply = replies.find((x) => x.target === target)!;
    if (i >= warmUp) {
      upperBounds.push(signalled.get(target)! - reply.committedAt);
      latencies.push(signalled.get(target)! - reply.committedAt - reply.recordMs);
      recordMs.push(reply.recordMs);
    }
    // Ack, so the watcher's pending set stays one pair and each of its reads costs the same.
    await store.ackNotices(WATCHER, (await store.pendingNotices(WATCHER)) as never[]);
  }
  off();
  feed.close();
  child.send({ exit: true });
  await new Promise((r) => child.once('exit', r));
  await store.close();
  return { latencies, upperBounds, recordMs, logs: logger.entries.length };
}

async function measure(job: { backend: Backend; dir: string; cases: LatencyCase[] }): Promise<void> {
  const out: Measured[] = [];
  if (job.backend === 'sqlite') {
    job.cases.forEach((c, i) => buildFeedFile(join(job.dir, `shared-${i}.db`), c.pairs));
    for (const [i, c] of job.cases.entries()) out.push(await measureOne({ backend: 'sqlite', path: join(job.dir, `shared-${i}.db`) }, c));
  } else {
    const { startTestPostgres } = await import('../../src/postgres/testing/embedded.js');
    const server = await startTestPostgres({ settings: {} });
    try {
      for (const [i, c] of job.cases.entries()) {
        const where: Where = { backend: 'postgres', url: server.url, schema: `bench_latency_${i}` };
        // Create the schema through the store (its own migrations), then load the pending pairs.
        await (await openStore(where, memoryLogger())).close();
        await loadPostgresPairs(server.url, where.schema!, c.pairs);
        out.push(await measureOne(where, c));
      }
    } finally {
      await server.stop();
    }
  }
  process.stdout.write(`${JSON.stringify({ cases: out })}\n`);
}

async function recorder(where: Where): Promise<void> {
  const logger = memoryLogger();
  const store = await openStore(where, logger);
  let queue = Promise.resolve();
  process.on('message', (m: { target: string } | { exit: true }) => {
    queue = queue.then(async () => {
      if ('exit' in m) {
        await store.close();
        process.disconnect?.();
        return;
      }
      // Stamped before and after the call: the commit is done when record() returns (on PostgreSQL
      // that includes the commit's fsync, milliseconds under load), and the other process may see
      // it a little before that; the sample from the start is an upper bound.
      const committedAt = now();
      await store.record({ sessionKey: m.target, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', watchers: [WATCHER] });
      process.send!({ committedAt, recordMs: now() - committedAt, target: m.target });
    });
  });
  process.send!({ ready: true });
}

if (runsAsScript(here)) {
  const [mode, arg] = process.argv.slice(2);
  const fail = (error: unknown) => {
    process.stderr.write(`latency ${mode} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  };
  if (mode === 'child') recorder(JSON.parse(arg!) as Where).catch(fail);
  else if (mode === 'measure') measure(JSON.parse(arg!) as { backend: Backend; dir: string; cases: LatencyCase[] }).catch(fail);
}
