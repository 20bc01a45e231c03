/**
 * A PostgreSQL fleet: F listening feeds in a handful of processes (as replicas would be), each
 * process holding one store handle (one LISTEN connection) and its share of the feeds; W writers
 * recording at once from this process; one embedded server (default settings, fsync on). Each commit makes one new pair pending for one
 * watcher. The feeds' processes are forked once and live through every run, as replicas do; each
 * run opens its own handle and feeds in them. Four cases:
 * - `routed`: each feed subscribes to a disjoint 1% of the watchers, so a commit is news for one
 *   feed; R73's NOTIFY names the watcher and carries its news (R74), goes to the watcher's wake
 *   group's channel (R75), where only the processes serving that group listen, and a busy process
 *   takes a burst of wakes in one read (R76);
 * - `idle`: as many subscriptions, to watchers no commit names: the wake-ups alone (R75: they reach
 *   a process only when a commit's wake group is one of its watchers' groups), and nobody reads;
 * - `everything`: every feed subscribes to every watcher (today's worst case), so every feed reads
 *   every commit;
 * - `bare`: no feed and no kit code in those processes, only a plain client per process that
 *   LISTENs on the channels its routed feeds would: what PostgreSQL itself charges the writers for
 *   a process listening (every listening backend of a database is signalled on every NOTIFY up to
 *   PostgreSQL 18), the floor under `routed`.
 * Per commit: read transactions (the feeds' readPending calls), cursor rows the server read
 * (pg_stat_user_tables, over the run) and signals; the writers' throughput against the same
 * records with no feed (`writerRatio`); commit -> signal p50/p99 for the subscribed watcher, from
 * a writer's record() returning to the first signal naming its pair (on the machine's clock,
 * which the processes share); and the CPU time per commit of the writers' process, the feeds'
 * processes and the server's processes.
 *
 * The machine's speed drifts by a quarter within a minute, and the first runs of a process are
 * slower (code not yet optimized, the server's caches cold), so: one short run of each kind
 * first, thrown away; then rounds of [routed, none, idle, none, everything, none] after a first none, so
 * that every case with feeds runs between two runs without; a case's writerRatio is the median
 * over its rounds of its throughput over the mean of the two runs around it.
 */
import { fork } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createNoticeFeed, type NoticeFeed, type PendingSource } from '../../src/feed/index.js';
import { watcherRouteHash } from '../../src/core/index.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres/index.js';
import { groupsOf, listenedChannels } from '../../src/postgres/wake-channels.js';
import { startTestPostgres } from '../../src/postgres/testing/embedded.js';
import { memoryLogger, silentLogger } from '../../src/shared/logger.js';
import { makeResult, type CaseResult } from '../lib/report.js';
import { bundled, runsAsScript } from '../lib/script.js';
import { percentile, summarize } from '../lib/stats.js';
import type { BenchGroup, CaseContext } from './context.js';

const here = fileURLToPath(import.meta.url);
const A = 'main';
/**
 * R74: how often the feeds confirm the news they handed out by a read: the default (10 s), with
 * runs long enough (over 10 s) that each feed's confirming read falls inside one. Diagnosis knobs,
 * off in the published runs: SSK_FLEET_CONFIRM_MS (newsConfirmMs), SSK_FLEET_HOLD_MS (R76's
 * wakeHoldMs), SSK_FLEET_COMMITS (commits per full run), SSK_FLEET_MODES, SSK_FLEET_PROFILE.
 */
const NEWS_CONFIRM_MS = process.env['SSK_FLEET_CONFIRM_MS'] === undefined ? undefined : Number(process.env['SSK_FLEET_CONFIRM_MS']);
const WAKE_HOLD_MS = process.env['SSK_FLEET_HOLD_MS'] === undefined ? undefined : Number(process.env['SSK_FLEET_HOLD_MS']);

interface FleetPlan {
  /** Measured rounds; each runs every case with feeds once, each between two runs without. */
  rounds: number;
  feeds: number;
  handles: number;
  writers: number;
  /** Watchers in all; each feed of the routed case subscribes to watchers / feeds of them. */
  watchers: number;
  commits: number;
}

const PLANS: Record<CaseContext['mode'], FleetPlan> = {
  full: { rounds: 5, feeds: 100, handles: 5, writers: 16, watchers: 1_000, commits: Number(process.env['SSK_FLEET_COMMITS'] ?? 24_000) },
  smoke: { rounds: 1, feeds: 100, handles: 5, writers: 16, watchers: 1_000, commits: 640 },
};

const watcher = (i: number) => `agent:main:fleet-w${i}`;
// The machine's clock, so times taken in the feeds' processes compare with the writers'.
const now = () => performance.timeOrigin + performance.now();

type Mode = 'routed' | 'idle' | 'everything' | 'bare' | 'none';
type FeedMode = Exclude<Mode, 'none'>;
const ALL_FEED_MODES: readonly FeedMode[] = ['routed', 'idle', 'everything', 'bare'];
/** Cases that signal nothing: their latency is the writers' own record() call. */
const SILENT: ReadonlySet<Mode> = new Set(['none', 'idle', 'bare']);
// SSK_FLEET_MODES=routed,idle: only those cases (a diagnosis; the published runs take all four).
const FEED_MODES: readonly FeedMode[] = ALL_FEED_MODES.filter((m) => (process.env['SSK_FLEET_MODES']?.split(',') ?? ALL_FEED_MODES).includes(m));

interface Run {
  commits: number;
  opsPerSecond: number;
  reads: number;
  /** Wakes handed to feeds (R75). */
  wakes: number;
  /** Failures the feeds logged (a read that failed, tried again), and the first. */
  failures: number;
  firstFailure: string | undefined;
  cursorRows: number;
  signals: number;
  latencies: number[];
  /** Each record() call to its return, ms. */
  recordMs: number[];
  /** CPU time over the writes, per commit, in microseconds: the writers' process, the feeds' processes, the server's processes (undefined off Linux). */
  cpu: { writers: number; feeds: number; server: number | undefined };
}

/**
 * CPU time (user + system, ms) of the server's processes alive now: the postmaster and its
 * children, found from one backend's parent in /proc. Undefined where /proc is not Linux's.
 */
function serverCpuMs(postmaster: number | undefined): number | undefined {
  if (postmaster === undefined) return undefined;
  const tick = 10; // USER_HZ is 100 on every Linux this runs on
  let total = 0;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let fields: string[];
      try {
        // The command name may hold spaces and parentheses; the fields after it do not.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      } catch {
        continue; // exited between the listing and the read
      }
      if (Number(entry) === postmaster || Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) * tick;
    }
  } catch {
    return undefined;
  }
  return total;
}

async function postmasterPid(admin: pg.Client): Promise<number | undefined> {
  const backend = (await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  try {
    const stat = readFileSync(`/proc/${backend}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

const LABELS: Record<FeedMode, (plan: FleetPlan) => string> = {
  routed: (p) => `${p.feeds} feeds, each subscribed to a disjoint 1% of ${p.watchers} watchers (R73-R76: named, news-carrying, grouped wakes); commit -> signal`,
  idle: (p) => `${p.feeds} feeds, each subscribed to ${p.watchers / p.feeds} watchers no commit names (the wake-ups alone, no read); record()`,
  everything: (p) => `${p.feeds} feeds, each subscribed to every watcher (the worst case); commit -> signal`,
  bare: (p) => `no feeds: in each of the ${p.handles} processes one plain pg client LISTENs on the channels its routed feeds would (PostgreSQL's own cost of a listener); record()`,
};

const median = (xs: readonly number[]): number => percentile([...xs].sort((a, b) => a - b), 0.5);

async function cursorRowsRead(admin: pg.Client, schema: string): Promise<number> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const r = await admin.query<{ rows: string }>(
    'SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS rows FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
    [schema, 'session_watch_cursors'],
  );
  return Number(r.rows[0]?.rows ?? 0);
}

/** The writers record `commits` fresh targets, each passing one watcher (round robin over all), at once. */
async function write(writers: PostgresStore[], commits: number, watchers: number, tag: string, committed: Map<string, number>, recordMs: number[] = []): Promise<number> {
  const perWriter = Math.ceil(commits / writers.length);
  const t0 = now();
  await Promise.all(
    writers.map(async (s, k) => {
      for (let i = 0; i < perWriter; i++) {
        const n = k * perWriter + i;
        const target = `agent:main:${tag}-${n}`;
        const started = now();
        await s.record({ sessionKey: target, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', watchers: [watcher((n * 7919) % watchers)] });
        const done = now();
        committed.set(target, done);
        recordMs.push(done - started);
      }
    }),
  );
  return (perWriter * writers.length) / ((now() - t0) / 1000);
}

// ---------------------------------------------------------------------------------------------
// The feeds' processes: each holds one store handle (one LISTEN connection) and its share of the
// feeds, as a replica process would. Nothing crosses between processes during a run: the counts
// and the signals' times (on the machine's clock, performance.timeOrigin + now()) are asked for
// after it.

interface FeedsJob {
  url: string;
  schema: string;
  mode: FeedMode;
  /** This process's feeds: f = process, process + processes, ... below feeds. */
  process: number;
  processes: number;
  feeds: number;
  watchers: number;
}
type ToFeeds = { job: FeedsJob } | { settle: true } | { mark: true } | { report: { prefix: string } } | { end: true } | { exit: true };
type FromFeeds =
  | { ready: true }
  | { settled: true }
  | { marked: true }
  | { ended: true }
  | { report: { reads: number; wakes: number; signals: number; failures: string[]; cpuMicros: number; signalled: [string, number][] } };

/** This process's feeds (f = process, process + processes, ... below feeds), each as its watchers' indices (w = f, f + feeds, ...: a disjoint share). */
function shareOf(job: FeedsJob): number[][] {
  const share: number[][] = [];
  for (let f = job.process; f < job.feeds; f += job.processes) {
    const watchers: number[] = [];
    for (let w = f; w < job.watchers; w += job.feeds) watchers.push(w);
    share.push(watchers);
  }
  return share;
}

/** A feeds process that cannot go on says why and exits 1, which fails the run waiting on it. */
function failFeeds(error: unknown): never {
  process.stderr.write(`fleet-postgres feeds failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

/** One run's store handle and feeds in a feeds process, and what they counted. */
interface FeedsRun {
  job: FeedsJob;
  store: PostgresStore;
  feeds: NoticeFeed[];
  logger: ReturnType<typeof memoryLogger>;
  reads: number;
  wakes: number;
  signals: number;
  signalled: Map<string, number>;
  /** The bare case's plain listening client. */
  bare?: pg.Client;
}

async function openRun(job: FeedsJob): Promise<FeedsRun> {
  const logger = memoryLogger();
  const store = await createPostgresStore({ now: () => Date.now(), connectionString: job.url, schema: job.schema, logger, maxConnections: 4, ...(WAKE_HOLD_MS === undefined ? {} : { wakeHoldMs: WAKE_HOLD_MS }) });
  const run: FeedsRun = { job, store, feeds: [], logger, reads: 0, wakes: 0, signals: 0, signalled: new Map() };
  if (job.mode === 'bare') {
    // The channels this process's routed feeds would listen on (R75), on a plain client that only
    // counts what arrives: what the server and the kernel charge for a listener, before any kit code.
    const hashes = shareOf(job).flatMap((watchers) => watchers.map((w) => watcherRouteHash(watcher(w))));
    const client = new pg.Client({ connectionString: job.url });
    await client.connect();
    client.on('notification', () => run.wakes++);
    await client.query([...listenedChannels(store.notifyChannel, [groupsOf(hashes)])].map((c) => `LISTEN ${c}`).join('; '));
    run.bare = client;
  }
  /** Wakes the handle handed to a feed (R75: only those that may concern one of its watchers). */
  const counting = new Map<(payload?: string) => void, (payload?: string) => void>();
  const counter = (l: (payload?: string) => void) => {
    let c = counting.get(l);
    if (!c) counting.set(l, (c = (p?: string) => ((run.wakes++), l(p))));
    return c;
  };
  const counted: PendingSource = {
    // Counts the read transactions (R68: one readPending is one).
    readPending: (r) => (run.reads++, store.readPending(r)),
    listPending: () => store.listPending(),
    onLocalChange: (l) => store.onLocalChange(l),
    subscribeRemote: (l, interest) => store.subscribeRemote(counter(l), interest),
    // R75: the feed tells the handle which watchers' wake groups to listen on.
    remoteInterest: (l, interest) => store.remoteInterest(counter(l), interest),
    // R74: the news a wake carries, handed out without a read.
    wakeNews: (payload) => store.wakeNews(payload),
    positionCovers: (position, mark) => store.positionCovers(position, mark),
  };
  const onSignal = (s: { changed: readonly { targetSessionKey: string }[] }) => {
    run.signals++;
    const at = now();
    for (const p of s.changed) if (!run.signalled.has(p.targetSessionKey)) run.signalled.set(p.targetSessionKey, at);
  };
  for (const watchers of job.mode === 'bare' ? [] : shareOf(job)) {
    const feed = createNoticeFeed(counted, { logger, ...(NEWS_CONFIRM_MS === undefined ? {} : { newsConfirmMs: NEWS_CONFIRM_MS }) });
    run.feeds.push(feed);
    if (job.mode === 'everything') feed.subscribe(onSignal);
    // idle: the same subscriptions to watchers no commit names, so every NOTIFY reaches every
    // handle and every feed and none of them reads: what the wake-ups cost alone.
    else if (job.mode === 'idle') for (const w of watchers) feed.subscribe(onSignal, { watcherSessionKey: `agent:main:fleet-idle${w}` });
    else for (const w of watchers) feed.subscribe(onSignal, { watcherSessionKey: watcher(w) });
  }
  return run;
}

/**
 * A feeds process: a replica, alive for the whole group. Each run opens its own store handle (one
 * LISTEN connection) and feeds on that run's schema and closes them at the run's end; the process,
 * and so its compiled code, stays, as a replica's would (a process forked per run spends a fifth
 * of its CPU in the JIT's first compilations).
 */
async function feedsProcess(): Promise<void> {
  let run: FeedsRun | undefined;
  let cpu0 = process.cpuUsage();
  const send = (m: FromFeeds) => process.send!(m);
  // SSK_FLEET_PROFILE=<dir>: a CPU profile of each feeds process over the writes alone (mark to
  // report), so start-up reads do not hide where a commit's cost goes.
  const profileDir = process.env['SSK_FLEET_PROFILE'];
  const inspector = profileDir ? new Session() : undefined;
  const post = (method: string) => new Promise<unknown>((ok, fail) => inspector!.post(method, (e, r) => (e ? fail(e) : ok(r))));
  if (inspector) {
    inspector.connect();
    await post('Profiler.enable');
  }
  let profiling = false;
  process.on('message', (m: ToFeeds) => {
    if ('job' in m) {
      openRun(m.job).then((r) => ((run = r), send({ ready: true })), failFeeds);
    } else if ('settle' in m) {
      // Every feed's first read (R61) done before the clock starts.
      let last = -1;
      const check = () => (run!.reads === last ? send({ settled: true }) : ((last = run!.reads), setTimeout(check, 300)));
      check();
    } else if ('mark' in m) {
      const r = run!;
      r.reads = 0;
      r.signals = 0;
      r.wakes = 0;
      r.signalled.clear();
      cpu0 = process.cpuUsage();
      if (inspector && !profiling) void post('Profiler.start').then(() => ((profiling = true), send({ marked: true })));
      else send({ marked: true });
    } else if ('report' in m) {
      const r = run!;
      const cpu = process.cpuUsage(cpu0);
      if (profiling) {
        profiling = false;
        void post('Profiler.stop').then((p) => writeFileSync(join(profileDir!, `feeds-${r.job.mode}-${r.job.process}-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify((p as { profile: unknown }).profile)));
      }
      // A read that fails is logged and tried again on the next tick (R63): counted, not fatal; that
      // every commit still reaches its subscriber is checked from `signalled`.
      const failures = r.logger.entries.splice(0).map((e) => `${e.message} ${JSON.stringify(e.details ?? {})}`);
      send({ report: { reads: r.reads, wakes: r.wakes, signals: r.signals, failures, cpuMicros: cpu.user + cpu.system, signalled: [...r.signalled].filter(([t]) => t.startsWith(m.report.prefix)) } });
    } else if ('end' in m) {
      const r = run!;
      run = undefined;
      for (const f of r.feeds) f.close();
      Promise.all([r.bare?.end(), r.store.close()]).then(() => send({ ended: true }), failFeeds);
    } else {
      process.exitCode = 0;
      process.disconnect();
    }
  });
}

/** The feeds' processes, forked once for the group; each run is a job sent to all of them. */
function startFleet(processes: number) {
  const children = Array.from({ length: processes }, () => {
    const child = fork(bundled(here), ['feeds'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const waiting: { ok: (m: FromFeeds) => void; fail: (e: Error) => void }[] = [];
    let gone: Error | undefined;
    child.on('message', (m: FromFeeds) => waiting.shift()?.ok(m));
    // A process that dies mid-run fails the run's question instead of leaving it waiting.
    child.once('exit', (code) => {
      gone = new Error(`fleet-postgres: a feeds process exited with ${code}`);
      for (const w of waiting.splice(0)) w.fail(gone);
    });
    const next = () => new Promise<FromFeeds>((ok, fail) => (gone ? fail(gone) : waiting.push({ ok, fail })));
    return { child, next };
  });
  const exits = children.map((c) => new Promise<number | null>((r) => c.child.once('exit', (code) => r(code))));
  return {
    ask: (m: ToFeeds | ((p: number) => ToFeeds)) => Promise.all(children.map((c, p) => (c.child.send(typeof m === 'function' ? m(p) : m), c.next()))),
    async close(): Promise<void> {
      for (const c of children) c.child.send({ exit: true } satisfies ToFeeds);
      const codes = await Promise.all(exits);
      if (codes.some((c) => c !== 0)) throw new Error(`fleet-postgres: a feeds process exited with ${codes.find((c) => c !== 0)}`);
    },
  };
}
type Fleet = ReturnType<typeof startFleet>;

async function runCase(url: string, admin: pg.Client, postmaster: number | undefined, schema: string, plan: FleetPlan, mode: Mode, fleet: Fleet, progress: (m: string) => void): Promise<Run> {
  const logger = memoryLogger();
  const writers: PostgresStore[] = [];
  for (let k = 0; k < plan.writers; k++) writers.push(await createPostgresStore({ now: () => Date.now(), connectionString: url, schema, logger, maxConnections: 2 }));
  const feedMode = mode === 'none' ? undefined : mode;
  const feeds = feedMode === undefined ? undefined : fleet;
  try {
    if (feeds && feedMode) {
      await feeds.ask((p) => ({ job: { url, schema, mode: feedMode, process: p, processes: plan.handles, feeds: plan.feeds, watchers: plan.watchers } }));
      await feeds.ask({ settle: true });
    }
    await write(writers, Math.min(160, plan.commits), plan.watchers, `${mode}-warm`, new Map());
    await new Promise((r) => setTimeout(r, 500));
    await feeds?.ask({ mark: true });
    const committed = new Map<string, number>();
    const rows0 = await cursorRowsRead(admin, schema);
    const cpu0 = process.cpuUsage();
    const server0 = serverCpuMs(postmaster);
    const recordMs: number[] = [];
    const opsPerSecond = await write(writers, plan.commits, plan.watchers, mode, committed, recordMs);
    const cpu1 = process.cpuUsage(cpu0);
    const server1 = serverCpuMs(postmaster);
    const prefix = `agent:main:${mode}-`;
    /** The feeds' logged failures over the run (each a failed read, retried). */
    const failures: string[] = [];
    const report = async () => {
      const rs = (await feeds!.ask({ report: { prefix } })).map((m) => ('report' in m ? m.report : undefined)!);
      const signalled = new Map<string, number>();
      for (const r of rs) for (const [t, at] of r.signalled) if (!signalled.has(t) || signalled.get(t)! > at) signalled.set(t, at);
      for (const r of rs) failures.push(...r.failures);
      return { reads: rs.reduce((a, r) => a + r.reads, 0), wakes: rs.reduce((a, r) => a + r.wakes, 0), signals: rs.reduce((a, r) => a + r.signals, 0), cpuMicros: rs.reduce((a, r) => a + r.cpuMicros, 0), signalled };
    };
    // The feeds' CPU is over the writes (asked at once), their counts once the last commits are signalled.
    const atEnd = feeds ? await report() : undefined;
    let counts = atEnd;
    const until = Date.now() + 30_000;
    while (counts && !SILENT.has(mode) && Date.now() < until && [...committed.keys()].some((t) => !counts!.signalled.has(t))) {
      await new Promise((r) => setTimeout(r, 200));
      counts = await report();
    }
    await new Promise((r) => setTimeout(r, 800));
    const rows1 = await cursorRowsRead(admin, schema);
    const commits = committed.size;
    const latencies = SILENT.has(mode) ? [] : [...committed].filter(([t]) => counts!.signalled.has(t)).map(([t, at]) => counts!.signalled.get(t)! - at);
    if (!SILENT.has(mode) && latencies.length < commits) throw new Error(`fleet-postgres ${mode}: ${commits - latencies.length} of ${commits} commits were never signalled`);
    if (logger.entries.length > 0) throw new Error(`fleet-postgres ${mode}: ${logger.entries.length} failures logged, the first: ${logger.entries[0]!.message}`);
    const cpu = {
      writers: (cpu1.user + cpu1.system) / commits,
      feeds: (atEnd?.cpuMicros ?? 0) / commits,
      server: server0 === undefined || server1 === undefined ? undefined : ((server1 - server0) * 1000) / commits,
    };
    // The failures logged until every commit was signalled, and in the pause after.
    if (feeds) await report();
    const run: Run = { commits, opsPerSecond, reads: counts?.reads ?? 0, wakes: counts?.wakes ?? 0, failures: failures.length, firstFailure: failures[0], cursorRows: rows1 - rows0, signals: counts?.signals ?? 0, latencies, recordMs, cpu };
    const server = cpu.server === undefined ? '' : `, server ${cpu.server.toFixed(0)} µs`;
    progress(
      `fleet-postgres ${mode}: ${opsPerSecond.toFixed(0)} commits/s, ${run.failures > 0 ? `${run.failures} feed failures logged (${run.firstFailure}), ` : ''}${(run.wakes / commits).toFixed(2)} feed wakes, ${(run.reads / commits).toFixed(3)} read transactions and ${(run.cursorRows / commits).toFixed(1)} cursor rows per commit; ` +
        `CPU per commit: writers ${cpu.writers.toFixed(0)} µs, feeds ${cpu.feeds.toFixed(0)} µs${server}`,
    );
    return run;
  } finally {
    await feeds?.ask({ end: true });
    for (const s of writers) await s.close();
  }
}

export const fleetPostgresGroup: BenchGroup = {
  group: 'fleet-postgres',
  async run(ctx: CaseContext): Promise<CaseResult[]> {
    const plan = PLANS[ctx.mode];
    ctx.progress(`fleet-postgres: ${plan.feeds} feeds over ${plan.handles} handles, ${plan.writers} writers, ${plan.commits} commits per case`);
    const server = await startTestPostgres({ settings: { max_connections: '200' } });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const fleet = startFleet(plan.handles);
    try {
      const postmaster = await postmasterPid(admin);
      let n = 0;
      const run = async (mode: Mode, p: FleetPlan): Promise<Run> => {
        const schema = `bench_fleet_${mode}_${n++}`;
        await (await createPostgresStore({ now: () => Date.now(), connectionString: server.url, schema, logger: silentLogger })).close();
        return runCase(server.url, admin, postmaster, schema, p, mode, fleet, ctx.progress);
      };
      ctx.progress('fleet-postgres: a short run of each case first, not counted');
      for (const mode of ['none', ...FEED_MODES] as const) await run(mode, { ...plan, commits: Math.min(plan.commits, 640) });
      const measured: Record<FeedMode, { run: Run; ratio: number }[]> = { routed: [], idle: [], everything: [], bare: [] };
      const first = await run('none', plan);
      let before = first.opsPerSecond;
      const nones = [first];
      for (let round = 0; round < plan.rounds; round++) {
        for (const mode of FEED_MODES) {
          const r = await run(mode, plan);
          const none = await run('none', plan);
          const after = none.opsPerSecond;
          nones.push(none);
          measured[mode].push({ run: r, ratio: r.opsPerSecond / ((before + after) / 2) });
          before = after;
        }
      }
      return FEED_MODES.map((mode) => {
        const rs = measured[mode];
        const commits = rs.reduce((a, x) => a + x.run.commits, 0);
        const sum = (f: (r: Run) => number) => rs.reduce((a, x) => a + f(x.run), 0);
        const server = rs.every((x) => x.run.cpu.server !== undefined) ? median(rs.map((x) => x.run.cpu.server!)) : undefined;
        const serverAlone = nones.every((x) => x.cpu.server !== undefined) ? median(nones.map((x) => x.cpu.server!)) : undefined;
        return makeResult({
          id: `fleet-postgres/${mode}@${plan.feeds}feeds`,
          group: 'fleet-postgres',
          label: LABELS[mode](plan),
          size: `${plan.writers} writers, ${plan.feeds} feeds over ${plan.handles} handles, ${plan.rounds} round(s) of ${plan.commits} commits`,
          unit: 'notice',
          unitsPerOp: 1,
          // idle and bare signal nothing, so their latency is the writers' own: record() called to returned.
          latency: summarize(rs.flatMap((x) => (SILENT.has(mode) ? x.run.recordMs : x.run.latencies))),
          extra: {
            readTransactionsPerCommit: sum((r) => r.reads) / commits,
            feedWakesPerCommit: sum((r) => r.wakes) / commits,
            feedFailuresLogged: sum((r) => r.failures),
            cursorRowsReadPerCommit: sum((r) => r.cursorRows) / commits,
            signalsPerCommit: sum((r) => r.signals) / commits,
            writerOpsPerSecond: median(rs.map((x) => x.run.opsPerSecond)),
            writerOpsPerSecondWithoutFeeds: median(nones.map((x) => x.opsPerSecond)),
            writerRatio: median(rs.map((x) => x.ratio)),
            writerRatioLowest: Math.min(...rs.map((x) => x.ratio)),
            writerRatioHighest: Math.max(...rs.map((x) => x.ratio)),
            writersCpuMicrosPerCommit: median(rs.map((x) => x.run.cpu.writers)),
            writersCpuMicrosPerCommitWithoutFeeds: median(nones.map((x) => x.cpu.writers)),
            feedsCpuMicrosPerCommit: median(rs.map((x) => x.run.cpu.feeds)),
            ...(server === undefined || serverAlone === undefined ? {} : { serverCpuMicrosPerCommit: server, serverCpuMicrosPerCommitWithoutFeeds: serverAlone }),
            feeds: plan.feeds,
            writers: plan.writers,
            rounds: plan.rounds,
          },
          notes:
            "each commit makes one new pair pending for one watcher; read transactions are the feeds' readPending calls per commit; cursor rows from pg_stat_user_tables; " +
            'writerRatio: the median over the rounds of the writers\' throughput over the mean of the runs without feeds just before and just after (writerRatioLowest and writerRatioHighest: the rounds\' extremes); ' +
            'CPU per commit over the writes (medians over the rounds): the writers\' process, the feeds\' processes (one store handle each), the server from /proc; ' +
            "latency from a writer's record() returning to the first signal naming its pair, over every round; " +
            `feeds at their defaults (newsConfirmMs ${NEWS_CONFIRM_MS ?? 'default, 10000'}, wakeHoldMs ${WAKE_HOLD_MS ?? 'default, 10'}); feedWakesPerCommit: wakes a handle handed to a feed (R75); feedFailuresLogged: failures the feeds logged (a failed read, tried again on the next tick)` +
            (rs.some((x) => x.run.firstFailure !== undefined) ? `; the first: ${rs.find((x) => x.run.firstFailure !== undefined)!.run.firstFailure}` : ''),
        });
      });
    } finally {
      await fleet.close().catch((error: unknown) => ctx.progress(`fleet-postgres: ${error instanceof Error ? error.message : String(error)}`));
      await admin.end().catch(() => {});
      await server.stop();
    }
  },
};

if (runsAsScript(here)) {
  if (process.argv[2] === 'feeds')
    feedsProcess().catch(failFeeds);
}
