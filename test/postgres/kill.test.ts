/**
 * Worker processes write and deliver through the PostgreSQL store while the test SIGKILLs them at
 * random points and, half-way, restarts the PostgreSQL server. Afterwards: every event a worker
 * saw committed is there, heads equal the highest sequence of their identity, every notice was
 * delivered before it was acked (at-least-once: the cursor's L only moved through delivered
 * notices, and reached the head), no notice was acked twice (R27b) and none of the watcher every
 * worker drains at once went to two drains (R27), the stores reconnected after the restart, and
 * every failure went to the logger instead of crashing a worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/postgres/index.js';
import { mulberry32 } from '../../src/shared/prng.js';
import { usePostgres } from './server.js';

const KILLS = Number(process.env['SSK_PG_KILLS'] ?? 12);
const WORKERS = 3;
const SEED = Number(process.env['SSK_PG_KILL_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const TARGETS = ['agent:main:t0', 'agent:main:t1', 'agent:main:t2', 'agent:main:t3'];
const A = 'main';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const pg = usePostgres();
let bundle: string;
beforeAll(async () => {
  const outDir = join(root, 'node_modules', '.cache', 'ssk-postgres-tests');
  mkdirSync(outDir, { recursive: true });
  bundle = join(outDir, `kill-worker-${process.pid}.mjs`);
  // pg stays external: it resolves from the repository's node_modules, as for a user.
  await build({ entryPoints: [join(root, 'test/postgres/fixtures/kill-worker.ts')], outfile: bundle, bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['pg', 'better-sqlite3'], logLevel: 'error' });
});
afterAll(() => rmSync(bundle, { force: true }));

type Line =
  | { t: 'open' }
  | { t: 'intent'; target: string; dedupeKey: string }
  | { t: 'done'; target: string; dedupeKey: string; seq: number }
  | { t: 'failed'; target: string; dedupeKey: string }
  | { t: 'deliver'; w: string; notices: { target: string; L: number }[] }
  | { t: 'acked'; w: string; notices: { target: string; L: number }[] }
  | { t: 'drained'; w: string; notices: { target: string; L: number }[] };

interface Worker {
  proc: ChildProcess;
  lines: Line[];
  stderr: string;
  killed: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

it(`${WORKERS} worker processes, ${KILLS} SIGKILLs and a server restart: nothing committed is lost, every notice is delivered before its ack, none is acked or drained twice (seed ${SEED})`, async () => {
  const rand = mulberry32(SEED);
  const schema = pg.schema();
  const setup = await createPostgresStore({ now: () => Date.now(), connectionString: pg.url(), schema, logger: pg.log });
  const DRAINED = 'agent:main:drained';
  for (const w of [...Array.from({ length: WORKERS }, (_, i) => `agent:main:w${i}`), DRAINED]) {
    for (const t of TARGETS) expect((await setup.watch({ watcherSessionKey: w, targetSessionKey: t, agentId: A })).watched).toBe(true);
  }
  await setup.close();

  const all: Worker[] = [];
  let generation = 0;
  const start = (w: number): Worker => {
    const proc = spawn(process.execPath, [bundle, pg.url(), schema, String(w), String(generation++), String(Math.floor(rand() * 2 ** 31))], { stdio: ['ignore', 'pipe', 'pipe'] });
    const worker: Worker = { proc, lines: [], stderr: '', killed: false, exited: new Promise((r) => proc.on('exit', (code, signal) => r({ code, signal }))) };
    let buffer = '';
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        worker.lines.push(JSON.parse(buffer.slice(0, nl)) as Line);
        buffer = buffer.slice(nl + 1);
      }
    });
    proc.stderr!.on('data', (d) => (worker.stderr += String(d)));
    all.push(worker);
    return worker;
  };
  const waitLines = async (worker: Worker, n: number, what = 'lines') => {
    const until = Date.now() + 60_000;
    while (worker.lines.length < n) {
      if (Date.now() > until) throw new Error(`worker never reached ${n} ${what}; stderr:\n${worker.stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const live: Worker[] = Array.from({ length: WORKERS }, (_, w) => start(w));
  let restartedAt = -1;
  for (let k = 0; k < KILLS; k++) {
    const slot = Math.floor(rand() * WORKERS);
    const victim = live[slot]!;
    // Killed after a random number of reported steps (0: right after the open, or even before it).
    await waitLines(victim, Math.floor(rand() * 40));
    victim.killed = true;
    victim.proc.kill('SIGKILL');
    await victim.exited;
    live[slot] = start(slot);
    if (k === Math.floor(KILLS / 2) && pg.server().restart) {
      // The server goes away under the running workers and comes back on the same port and data.
      await pg.server().halt!();
      await new Promise((r) => setTimeout(r, 300));
      await pg.server().resume!();
      restartedAt = all.length;
    }
  }
  // Every live worker must make progress after the restart: its pool reconnected.
  for (const w of live) {
    const have = w.lines.length;
    const until = Date.now() + 60_000;
    while (w.lines.slice(have).filter((l) => l.t === 'done').length < 3) {
      if (Date.now() > until) throw new Error(`a worker made no progress after the restart; stderr:\n${w.stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    w.killed = true;
    w.proc.kill('SIGKILL');
    await w.exited;
  }

  // Nobody died of anything but our SIGKILL (a thrown storage error would exit with a code).
  for (const w of all) expect((await w.exited).signal, w.stderr.slice(-2000)).toBe('SIGKILL');
  // Failures during the restart went to the logger (stderr lines), as R9 wants.
  const logged = all.flatMap((w) => w.stderr.split('\n').filter(Boolean)).map((l) => { try { return JSON.parse(l) as { level: string; message: string }; } catch { return { level: 'raw', message: l }; } });
  expect(logged.filter((l) => l.level === 'raw')).toEqual([]);
  if (restartedAt >= 0) expect(logged.some((l) => l.level === 'error' && /failed/.test(l.message))).toBe(true);

  const admin = await pg.admin();
  // A SIGKILLed worker's last transaction may still be finishing on the server (its COMMIT sent,
  // or its backend not yet aware the client is gone): wait until every worker's backend has ended,
  // so the checks read a state no late commit can change.
  const until = Date.now() + 60_000;
  while (Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'session-state-kit%'`)).rows[0].n) > 0) {
    if (Date.now() > until) throw new Error('worker backends never ended');
    await new Promise((r) => setTimeout(r, 20));
  }
  const events = (await admin.query<{ sequence: string; session_key: string; dedupe_key: string }>(`SELECT sequence, session_key, dedupe_key FROM "${schema}".session_state_events ORDER BY sequence`)).rows;
  const byKey = new Map(events.map((e) => [e.dedupe_key, e] as const));
  // 1. Every event a worker saw committed is there, with the sequence it was told.
  const done = all.flatMap((w) => w.lines.filter((l): l is Extract<Line, { t: 'done' }> => l.t === 'done'));
  expect(done.length).toBeGreaterThan(KILLS);
  for (const d of done) expect(byKey.get(d.dedupeKey)?.sequence, d.dedupeKey).toBe(String(d.seq));
  // 2. Heads are the highest sequence of their identity (R5).
  const heads = (await admin.query<{ session_key: string; last_sequence: string }>(`SELECT session_key, last_sequence FROM "${schema}".session_state_heads`)).rows;
  for (const t of TARGETS) {
    const max = events.filter((e) => e.session_key === t).reduce((m, e) => Math.max(m, Number(e.sequence)), 0);
    expect(Number(heads.find((h) => h.session_key === t)?.last_sequence ?? 0), t).toBe(max);
  }
  // 3. Deliver what is still pending (a last worker), then every cursor is acked to its head, and
  // every L a cursor passed through was delivered before it was acked.
  const final = await createPostgresStore({ now: () => Date.now(), connectionString: pg.url(), schema, logger: pg.log });
  const delivered = all.flatMap((w) => w.lines.filter((l): l is Extract<Line, { t: 'deliver' }> => l.t === 'deliver'));
  for (let w = 0; w < WORKERS; w++) {
    const me = `agent:main:w${w}`;
    for (let round = 0; round < 5; round++) {
      const pending = await final.pendingNotices(me);
      if (pending.length === 0) break;
      delivered.push({ t: 'deliver', w: me, notices: pending.map((n) => ({ target: n.targetSessionKey, L: n.lastSeenSequence })) });
      await final.ackNotices(me, pending);
    }
    expect(await final.pendingNotices(me)).toEqual([]);
    for (const t of TARGETS) {
      const c = await final.cursor(me, t, A);
      const head = await final.stateVersion(t, A);
      expect(c?.lastSeenSequence, `${me} on ${t}`).toBe(head);
      const ls = [...new Set(delivered.filter((d) => d.w === me).flatMap((d) => d.notices.filter((n) => n.target === t).map((n) => n.L)))].sort((a, b) => a - b);
      const seqsOfT = new Set(events.filter((e) => e.session_key === t).map((e) => Number(e.sequence)));
      if (head > 0) expect(ls[0], `${me} on ${t}: the first notice quotes the watch's seed`).toBe(0);
      // Each later L is a sequence of this target: the cursor only moved through delivered notices.
      for (const l of ls.slice(1)) expect(seqsOfT.has(l), `${me} on ${t}: L ${l}`).toBe(true);
    }
  }
  // 4. Exactly once where the protocol promises it, across processes and kills: no (W, T, L) is in
  // two ackNotices results (R27b), and no notice of the drained watcher went to two drains (R27).
  const once = (kind: 'acked' | 'drained', extra: { w: string; notices: { target: string; L: number }[] }[] = []) => {
    const seen = new Set<string>();
    const twice: string[] = [];
    for (const l of [...all.flatMap((w) => w.lines.filter((x): x is Extract<Line, { t: typeof kind }> => x.t === kind)), ...extra]) {
      for (const n of l.notices) {
        const key = `${l.w} ${n.target} ${n.L}`;
        if (seen.has(key)) twice.push(key);
        seen.add(key);
      }
    }
    return { count: seen.size, twice };
  };
  expect(once('acked').twice).toEqual([]);
  // Drain until nothing is pending: a drain acks to the frozen watermark, and work that came after
  // it is a follow-up for the next drain (R28).
  const lastDrains: { w: string; notices: { target: string; L: number }[] }[] = [];
  for (let round = 0; round < 5; round++) {
    const got = await final.drainNotices(DRAINED);
    if (got.length === 0) break;
    lastDrains.push({ w: DRAINED, notices: got.map((n) => ({ target: n.targetSessionKey, L: n.lastSeenSequence })) });
  }
  const drained = once('drained', lastDrains);
  expect(drained.twice).toEqual([]);
  expect(drained.count).toBeGreaterThan(0);
  for (const t of TARGETS) expect((await final.cursor(DRAINED, t, A))?.lastSeenSequence, `${DRAINED} on ${t}`).toBe(await final.stateVersion(t, A));
  await final.close();
}, 300_000);
