/**
 * pg-concurrency (`tsx bench/run.ts --filter pg-concurrency [--smoke]`), on the PostgreSQL server
 * postgresBench started (embedded, default settings, fsync on):
 * - throughput: 1, 4 and 16 writers at once, each on its own session watched by two watchers (so
 *   every record rewrites cursor rows), `record()` through one store per writer (as separate
 *   processes would hold), against the same statements through one plain `pg` client per writer
 *   (BEGIN with the writer's advisory lock, the FOR UPDATE cursor read, the event and head insert,
 *   the cursor upsert with its NOTIFY, COMMIT), values precomputed. Interleaved rounds; each
 *   round's wall time over its records is one sample, the median of the rounds is reported;
 * - rows the server reads per commit with listening feeds: 4 writers record on fresh targets, each
 *   record making one new pair pending (a change every listener must hear of), over 100k other
 *   pending pairs; with 0 and then 8 feeds listening (8 stores, each with its LISTEN connection, as
 *   8 processes would hold them), the cursor table's `seq_tup_read + idx_tup_fetch` from
 *   pg_stat_user_tables over the run, divided by the commits. The difference is what the
 *   listeners cost the server per commit; before R68 each listener read every pending pair per
 *   commit (P rows), so this would have been about 8 × 100k.
 * No floors: these figures go to the README table and a reference JSON.
 */
import pg from 'pg';
import { createNoticeFeed, type NoticeFeed } from '../../src/feed/index.js';
import { statements, type PostgresStore } from '../../src/postgres/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { BenchArgs } from '../lib/args.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { summarize } from '../lib/stats.js';

const A = 'main';
const T0 = Date.UTC(2026, 0, 1);
const TARGETS_PER_WATCHER = 10;

interface Plan {
  writers: number[];
  rounds: number;
  perWriter: number;
  listeners: number;
  listenWriters: number;
  listenCommits: number;
  otherPending: number;
}
const PLANS: Record<BenchArgs['mode'], Plan> = {
  full: { writers: [1, 4, 16], rounds: 5, perWriter: 200, listeners: 8, listenWriters: 4, listenCommits: 4_000, otherPending: 100_000 },
  smoke: { writers: [1, 4], rounds: 3, perWriter: 40, listeners: 8, listenWriters: 4, listenCommits: 400, otherPending: 10_000 },
};

type Open = (schema: string) => Promise<PostgresStore>;
type Connect = () => Promise<pg.Client>;

const session = (k: number) => `agent:main:conc-${k}`;
const watcherOf = (k: number, j: number) => `agent:main:conc-${k}-watcher-${j}`;
const WATCHERS_PER_SESSION = 2;

function recordInput(sessionKey: string, watchers?: string[]) {
  return { sessionKey, agentId: A, kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram', ...(watchers ? { watchers } : {}) };
}

/** Runs `count` calls of each worker's `fn` at once (each worker awaits its own calls in turn); returns the wall time, ms. */
async function concurrently(workers: readonly (() => Promise<void>)[], count: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(workers.map(async (fn) => {
    for (let i = 0; i < count; i++) await fn();
  }));
  return performance.now() - t0;
}

async function cursorTableReads(admin: pg.Client, schema: string): Promise<{ rows: number; scans: number; seqRows: number; byIndex: Record<string, { scans: number; read: number }> }> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const r = await admin.query<{ rows: string; scans: string; seq: string }>(
    'SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans, coalesce(seq_tup_read, 0) AS seq FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
    [schema, 'session_watch_cursors'],
  );
  const ix = await admin.query<{ name: string; scans: string; read: string }>(
    'SELECT indexrelname AS name, idx_scan AS scans, idx_tup_read AS read FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = $2',
    [schema, 'session_watch_cursors'],
  );
  const byIndex: Record<string, { scans: number; read: number }> = {};
  for (const row of ix.rows) byIndex[row.name] = { scans: Number(row.scans), read: Number(row.read) };
  return { rows: Number(r.rows[0]?.rows ?? 0), scans: Number(r.rows[0]?.scans ?? 0), seqRows: Number(r.rows[0]?.seq ?? 0), byIndex };
}

/**
 * A backend sends its table statistics to the server when it goes idle, but at most once a second
 * and, seen here (PostgreSQL 18), up to ten seconds late: with 2.5 s the listeners' first snapshot
 * reads still landed inside the measured run. Eleven seconds before and after it.
 */
const settle = () => new Promise((r) => setTimeout(r, 11_000));

export async function concurrencyBench(args: BenchArgs, admin: pg.Client, open: Open, connect: Connect, progress: (m: string) => void): Promise<CaseResult[]> {
  const plan = PLANS[args.mode];
  const results: CaseResult[] = [];

  // ---- throughput at 1, 4, 16 writers ----
  for (const n of plan.writers) {
    const storeSchema = `bench_conc_store_${n}`;
    const rawSchema = `bench_conc_raw_${n}`;
    const stores: PostgresStore[] = [];
    for (let k = 0; k < n; k++) stores.push(await open(storeSchema));
    const seed = await open(rawSchema);
    for (const s of [stores[0]!, seed]) {
      for (let k = 0; k < n; k++) {
        for (let j = 0; j < WATCHERS_PER_SESSION; j++) await s.watch({ watcherSessionKey: watcherOf(k, j), targetSessionKey: session(k), agentId: A });
        // One record each, so every cursor is pending and each timed record rewrites it as the raw side does.
        await s.record(recordInput(session(k)));
      }
    }
    const sql = statements(rawSchema);
    const clients: pg.Client[] = [];
    for (let k = 0; k < n; k++) clients.push(await connect());
    const rawWorkers = clients.map((c, k) => {
      const row = [null, session(k), A, null, 'human_direct_message', 'human', null, null, T0, T0, 'human message via telegram', null];
      const w = Array.from({ length: WATCHERS_PER_SESSION }, (_, j) => watcherOf(k, j));
      const arrays = [w, w.map(() => session(k)), w.map(() => A), w.map(() => 0), w.map(() => 1), w.map(() => 1), w.map(() => 'explicit'), w.map(() => T0), w.map(() => false)];
      return async () => {
        await c.query(`BEGIN; SELECT pg_advisory_xact_lock(${7_000 + k})`);
        await c.query({ name: 'c-cursors', text: sql.cursorsOnTarget, values: [A, session(k)] });
        await c.query({ name: 'c-insert', text: sql.insertEventAndHead, values: row });
        await c.query({ name: 'c-upsert', text: sql.upsertCursorsNotify, values: [...arrays, 'bench_conc_channel'] });
        await c.query('COMMIT');
      };
    });
    const storeWorkers = stores.map((s, k) => async () => {
      if ((await s.record(recordInput(session(k)))) === undefined) throw new Error('record stored nothing');
    });
    // Warm-up: prepared plans on every connection.
    await concurrently(rawWorkers, 10);
    await concurrently(storeWorkers, 10);
    const perRecord = { store: [] as number[], raw: [] as number[] };
    for (let r = 0; r < plan.rounds; r++) {
      const order = r % 2 === 0 ? (['store', 'raw'] as const) : (['raw', 'store'] as const);
      for (const side of order) {
        const ms = await concurrently(side === 'store' ? storeWorkers : rawWorkers, plan.perWriter);
        perRecord[side].push(ms / (n * plan.perWriter));
      }
      progress(`concurrency ${n} writers: round ${r + 1}/${plan.rounds}`);
    }
    const size = `${n} writer${n === 1 ? '' : 's'}, distinct sessions, ${WATCHERS_PER_SESSION} watchers each`;
    const common = { group: 'pg-concurrency', size, unit: 'record', unitsPerOp: 1 };
    results.push(
      makeResult({ ...common, id: `pg-concurrency/raw@${n}w`, label: 'raw pg, the adapter\'s statements, one client per writer (baseline)', latency: summarize(perRecord.raw), notes: 'latency = wall time of a round over its records (all writers at once): 1000 / p50 is records per second' }),
      makeResult({ ...common, id: `pg-concurrency/store@${n}w`, label: 'postgres adapter record(), one store per writer', latency: summarize(perRecord.store), baselineId: `pg-concurrency/raw@${n}w` }),
    );
    if (n !== plan.writers[0]) {
      results.push(makeResult({ ...common, id: `pg-concurrency/store-scaling@${n}w`, label: 'the adapter against itself with one writer', latency: summarize(perRecord.store), baselineId: `pg-concurrency/store@${plan.writers[0]}w` }));
    }
    for (const c of clients) await c.end();
  }

  // ---- rows read per commit with 0 and 8 listening feeds ----
  const schema = 'bench_conc_listen';
  const writers: PostgresStore[] = [];
  for (let k = 0; k < plan.listenWriters; k++) writers.push(await open(schema));
  progress(`listeners: loading ${plan.otherPending.toLocaleString('en-US')} other pending pairs`);
  await admin.query(
    `INSERT INTO ${schema}.session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at, changed_xid) ` +
      `SELECT 'agent:main:w' || ((i - 1) / ${TARGETS_PER_WATCHER}), 'agent:main:t' || i, '${A}', 1, 2, 2, 'explicit', ${T0}, pg_current_xact_id() FROM generate_series(1, $1::int) AS i`,
    [plan.otherPending],
  );
  await admin.query(`SELECT setval('${schema}.session_state_sequence', 1000)`);
  await admin.query(`VACUUM ANALYZE ${schema}.session_watch_cursors`);
  let target = 0;
  const listenWorkers = writers.map((s, k) => async () => {
    // A fresh target each time: one new pending pair per commit (R68: a change every listener reads).
    if ((await s.record(recordInput(`agent:main:fresh-${target++}`, [`agent:main:listened-${k}`]))) === undefined) throw new Error('record stored nothing');
  });
  const perWriter = plan.listenCommits / plan.listenWriters;
  await concurrently(listenWorkers, 5);
  for (const listeners of [0, plan.listeners]) {
    const feeds: NoticeFeed[] = [];
    const feedStores: PostgresStore[] = [];
    const logger = memoryLogger();
    let signals = 0;
    let heard = 0;
    for (let f = 0; f < listeners; f++) {
      const s = await open(schema);
      feedStores.push(s);
      const feed = createNoticeFeed(s, { logger });
      feeds.push(feed);
      // Every watcher (a delivery loop's subscription): the first read is the snapshot of every pending pair.
      let first = true;
      feed.subscribe(() => {
        signals++;
        if (first) {
          first = false;
          heard++;
        }
      });
    }
    while (heard < listeners) await new Promise((r) => setTimeout(r, 50));
    await settle();
    const before = await cursorTableReads(admin, schema);
    const signalsBefore = signals;
    const ms = await concurrently(listenWorkers, perWriter);
    // Let the feeds finish reading what the last commits changed, then their statistics reach the server.
    await settle();
    const after = await cursorTableReads(admin, schema);
    for (const f of feeds) f.close();
    for (const s of feedStores) await s.close();
    if (logger.entries.length > 0) throw new Error(`a listening feed logged ${logger.entries.length} failures`);
    const commits = perWriter * plan.listenWriters;
    const rows = after.rows - before.rows;
    const scans = after.scans - before.scans;
    results.push(
      makeResult({
        id: `pg-concurrency/listeners@${listeners}`,
        group: 'pg-concurrency',
        label: `${plan.listenWriters} writers, ${listeners} listening feeds: cursor rows the server reads`,
        size: `${listeners} listeners, ${plan.otherPending.toLocaleString('en-US')} other pairs pending`,
        unit: 'commit',
        unitsPerOp: 1,
        latency: summarize([ms / commits]),
        ...(listeners === 0 ? {} : { baselineId: 'pg-concurrency/listeners@0' }),
        extra: {
          listeners,
          commits,
          otherPendingPairs: plan.otherPending,
          cursorRowsRead: rows,
          cursorRowsReadPerCommit: rows / commits,
          cursorScansPerCommit: scans / commits,
          signalsPerCommit: (signals - signalsBefore) / commits,
          seqRowsReadPerCommit: (after.seqRows - before.seqRows) / commits,
          ...Object.fromEntries(
            Object.entries(after.byIndex).flatMap(([name, a]) => {
              const b = before.byIndex[name] ?? { scans: 0, read: 0 };
              return [
                [`index ${name} scans per commit`, (a.scans - b.scans) / commits],
                [`index ${name} entries read per commit`, (a.read - b.read) / commits],
              ];
            }),
          ),
        },
        notes: 'rows = seq_tup_read + idx_tup_fetch of session_watch_cursors (pg_stat_user_tables) over the run; latency = the run\'s wall time per commit (one sample), the ratio against 0 listeners is what listening costs the writers',
      }),
    );
    progress(`listeners ${listeners}: ${(rows / commits).toFixed(1)} cursor rows read per commit, ${(scans / commits).toFixed(2)} scans per commit`);
  }
  return results;
}
