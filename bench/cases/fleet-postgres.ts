/**
 * A PostgreSQL fleet: F listening feeds over a handful of store handles (as replicas in a few
 * processes hold them, each handle one LISTEN connection), W writers recording at once, on one
 * embedded server (default settings, fsync on). Each commit makes one new pair pending for one
 * watcher. Two cases:
 * - `routed`: each feed subscribes to a disjoint 1% of the watchers, so a commit is news for one
 *   feed; R73's NOTIFY names the watcher, and the feeds none of whose watchers it names do not read;
 * - `everything`: every feed subscribes to every watcher (today's worst case), so every feed reads
 *   every commit.
 * Per commit: read transactions (the feeds' readPending calls), cursor rows the server read
 * (pg_stat_user_tables, over the run) and signals; the writers' throughput against the same
 * records with no feed (`writerRatio`); commit -> signal p50/p99 for the subscribed watcher, from
 * a writer's record() returning to the first signal naming its pair (one process, one clock).
 */
import pg from 'pg';
import { createNoticeFeed, type NoticeFeed, type PendingSource } from '../../src/feed/index.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres/index.js';
import { startTestPostgres } from '../../src/postgres/testing/embedded.js';
import { memoryLogger, silentLogger } from '../../src/shared/logger.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import type { BenchGroup, CaseContext } from './context.js';

const A = 'main';

interface FleetPlan {
  feeds: number;
  handles: number;
  writers: number;
  /** Watchers in all; each feed of the routed case subscribes to watchers / feeds of them. */
  watchers: number;
  commits: number;
}

const PLANS: Record<CaseContext['mode'], FleetPlan> = {
  full: { feeds: 100, handles: 5, writers: 16, watchers: 1_000, commits: 3_200 },
  smoke: { feeds: 100, handles: 5, writers: 16, watchers: 1_000, commits: 640 },
};

const watcher = (i: number) => `agent:main:fleet-w${i}`;
const now = () => performance.now();

interface Run {
  opsPerSecond: number;
  readsPerCommit: number;
  cursorRowsPerCommit: number;
  signalsPerCommit: number;
  latencies: number[];
}

async function cursorRowsRead(admin: pg.Client, schema: string): Promise<number> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const r = await admin.query<{ rows: string }>(
    'SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
    [schema, 'session_watch_cursors'],
  );
  return Number(r.rows[0]?.rows ?? 0);
}

/** The writers record `commits` fresh targets, each passing one watcher (round robin over all), at once. */
async function write(writers: PostgresStore[], commits: number, watchers: number, tag: string, committed: Map<string, number>): Promise<number> {
  const perWriter = Math.ceil(commits / writers.length);
  const t0 = now();
  await Promise.all(
    writers.map(async (s, k) => {
      for (let i = 0; i < perWriter; i++) {
        const n = k * perWriter + i;
        const target = `agent:main:${tag}-${n}`;
        await s.record({ sessionKey: target, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', watchers: [watcher((n * 7919) % watchers)] });
        committed.set(target, now());
      }
    }),
  );
  return (perWriter * writers.length) / ((now() - t0) / 1000);
}

async function runCase(url: string, admin: pg.Client, schema: string, plan: FleetPlan, mode: 'routed' | 'everything' | 'none', progress: (m: string) => void): Promise<Run> {
  const logger = memoryLogger();
  const open = (maxConnections: number) => createPostgresStore({ now: () => Date.now(), connectionString: url, schema, logger, maxConnections });
  const writers: PostgresStore[] = [];
  for (let k = 0; k < plan.writers; k++) writers.push(await open(2));
  const handles: PostgresStore[] = [];
  const feeds: NoticeFeed[] = [];
  let reads = 0;
  let signals = 0;
  const signalled = new Map<string, number>();
  if (mode !== 'none') {
    for (let h = 0; h < plan.handles; h++) handles.push(await open(4));
    for (let f = 0; f < plan.feeds; f++) {
      const store = handles[f % plan.handles]!;
      // Counts this feed's read transactions (R68: one readPending is one).
      const counted: PendingSource = {
        readPending: (r) => (reads++, store.readPending(r)),
        listPending: () => store.listPending(),
        onLocalChange: (l) => store.onLocalChange(l),
        subscribeRemote: (l) => store.subscribeRemote(l),
      };
      const feed = createNoticeFeed(counted, { logger });
      feeds.push(feed);
      const onSignal = (s: { changed: readonly { targetSessionKey: string }[] }) => {
        signals++;
        const at = now();
        for (const p of s.changed) if (!signalled.has(p.targetSessionKey)) signalled.set(p.targetSessionKey, at);
      };
      if (mode === 'everything') feed.subscribe(onSignal);
      else for (let w = f; w < plan.watchers; w += plan.feeds) feed.subscribe(onSignal, { watcherSessionKey: watcher(w) });
    }
    // Every feed's first read (R61) done before the clock starts.
    const settle = async () => {
      let last = -1;
      while (reads !== last) {
        last = reads;
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    await settle();
  }
  const committed = new Map<string, number>();
  await write(writers, Math.min(160, plan.commits), plan.watchers, `${mode}-warm`, new Map());
  await new Promise((r) => setTimeout(r, 500));
  const reads0 = reads;
  const signals0 = signals;
  signalled.clear();
  const rows0 = await cursorRowsRead(admin, schema);
  const opsPerSecond = await write(writers, plan.commits, plan.watchers, mode, committed);
  // The feeds finish reading what the last commits changed; then the statistics reach the server.
  const until = Date.now() + 30_000;
  while (mode !== 'none' && Date.now() < until && [...committed.keys()].some((t) => !signalled.has(t))) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 800));
  const rows1 = await cursorRowsRead(admin, schema);
  const commits = committed.size;
  const latencies = mode === 'none' ? [] : [...committed].filter(([t]) => signalled.has(t)).map(([t, at]) => signalled.get(t)! - at);
  if (mode !== 'none' && latencies.length < commits) throw new Error(`fleet-postgres ${mode}: ${commits - latencies.length} of ${commits} commits were never signalled`);
  for (const f of feeds) f.close();
  for (const s of [...writers, ...handles]) await s.close();
  if (logger.entries.length > 0) throw new Error(`fleet-postgres ${mode}: ${logger.entries.length} failures logged, the first: ${logger.entries[0]!.message}`);
  const run = { opsPerSecond, readsPerCommit: (reads - reads0) / commits, cursorRowsPerCommit: (rows1 - rows0) / commits, signalsPerCommit: (signals - signals0) / commits, latencies };
  progress(`fleet-postgres ${mode}: ${opsPerSecond.toFixed(0)} commits/s, ${run.readsPerCommit.toFixed(2)} read transactions and ${run.cursorRowsPerCommit.toFixed(1)} cursor rows per commit`);
  return run;
}

export const fleetPostgresGroup: BenchGroup = {
  group: 'fleet-postgres',
  async run(ctx: CaseContext): Promise<CaseResult[]> {
    const plan = PLANS[ctx.mode];
    ctx.progress(`fleet-postgres: ${plan.feeds} feeds over ${plan.handles} handles, ${plan.writers} writers, ${plan.commits} commits per case`);
    const server = await startTestPostgres({ settings: { max_connections: '200' } });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      // The writers without feeds run right before and right after each case with feeds, and the
      // case's writerRatio is over the mean of those two: the machine's load drifts within a
      // minute, and a baseline taken once at the start moved a ratio by a tenth either way.
      const order = ['none', 'routed', 'none', 'everything', 'none'] as const;
      const nones: number[] = [];
      const runs: Partial<Record<'routed' | 'everything', Run>> = {};
      for (const [i, mode] of order.entries()) {
        const schema = `bench_fleet_${mode}_${i}`;
        await (await createPostgresStore({ now: () => Date.now(), connectionString: server.url, schema, logger: silentLogger })).close();
        const run = await runCase(server.url, admin, schema, plan, mode, ctx.progress);
        if (mode === 'none') nones.push(run.opsPerSecond);
        else runs[mode] = run;
      }
      const baseline = { routed: (nones[0]! + nones[1]!) / 2, everything: (nones[1]! + nones[2]!) / 2 };
      return (['routed', 'everything'] as const).map((mode) => {
        const r = runs[mode]!;
        return makeResult({
          id: `fleet-postgres/${mode}@${plan.feeds}feeds`,
          group: 'fleet-postgres',
          label: mode === 'routed' ? `${plan.feeds} feeds, each subscribed to a disjoint 1% of ${plan.watchers} watchers (R73 routed NOTIFY); commit -> signal` : `${plan.feeds} feeds, each subscribed to every watcher (the worst case); commit -> signal`,
          size: `${plan.writers} writers, ${plan.feeds} feeds over ${plan.handles} handles`,
          unit: 'notice',
          unitsPerOp: 1,
          latency: summarize(r.latencies),
          extra: {
            readTransactionsPerCommit: r.readsPerCommit,
            cursorRowsReadPerCommit: r.cursorRowsPerCommit,
            signalsPerCommit: r.signalsPerCommit,
            writerOpsPerSecond: r.opsPerSecond,
            writerOpsPerSecondWithoutFeeds: baseline[mode],
            writerRatio: r.opsPerSecond / baseline[mode],
            feeds: plan.feeds,
            writers: plan.writers,
          },
          notes: 'each commit makes one new pair pending for one watcher; read transactions are the feeds\' readPending calls per commit; cursor rows from pg_stat_user_tables over the run; writerRatio against the same writes with no feed, run just before and just after (their mean); latency from a writer\'s record() returning to the first signal naming its pair',
        });
      });
    } finally {
      await admin.end().catch(() => {});
      await server.stop();
    }
  },
};
