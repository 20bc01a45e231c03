/**
 * Crash recovery with real SIGKILLs (R18, R29, R5, R7). A child process records, watches and drains
 * on one file until it is killed at a random point (during start-up, opening, a record
 * transaction, a drain, a prune); after every kill the file is checked against what the
 * child reported and against itself, then reopened like a restarted process.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore, readSchemaVersion, toSafeNumber } from '../../src/sqlite/index.js';
import { bundleFixture } from './bundle.js';
import { TEST_DRIVER, connect } from './helpers.js';
import { KILL, clockAt, mulberry32 } from './fixtures/kill-shared.js';

/** SSK_KILL_RUNS lowers the count where the suite runs again on other runtimes (runtimes/run.sh). */
// Sized by count: 120 kills take ~20 s alone on 2 idle cores (200 took 37 s and ran past a 120 s
// timeout while a second `npm test` shared the cores); the timeout below is the headroom, not the plan.
const RUNS = Number(process.env['SSK_KILL_RUNS'] ?? 120);
/** Two files killed in parallel (one per core); each lane is an independent history. */
const LANES = 2;
const SEED = Number(process.env['SSK_KILL_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

type Line =
  | { t: 'open'; now: number }
  | { t: 'rec'; kind: 'human' | 'spawn' | 'terminal' | 'log'; target: string; watchers: string[]; seq?: number; fresh: boolean; now: number }
  | { t: 'intent'; kind: 'human'; target: string; watchers: string[]; now: number }
  | { t: 'watch'; w: string; target: string; now: number }
  | { t: 'drain'; w: string; notices: { target: string; L: number }[]; now: number }
  | { t: 'idle' };

interface Cursor {
  w: string;
  target: string;
  agent: string;
  L: number;
  N: number;
  M: number;
}

let dir: string;
let child: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ssk-kill-'));
  child = await bundleFixture('kill-child');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(child, { force: true });
});

/** Spawns the child and SIGKILLs it: early (by time from spawn) or after k reported operations. */
function runUntilKilled(path: string, run: number, rand: () => number): Promise<{ lines: Line[]; phase: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, path, String(run), String(Math.floor(rand() * 2 ** 31))], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Line[] = [];
    let buffer = '';
    let stderr = '';
    // Every 20th run is killed right after the open line: left to chance (1 in 80) a 200-kill run
    // missed that phase about one time in eight.
    const forcedAfterOpen = run % 20 === 10;
    const early = rand() < 0.25 && !forcedAfterOpen;
    const afterOps = forcedAfterOpen ? (rand(), 0) : Math.floor(rand() * 60);
    const kill = () => proc.kill('SIGKILL');
    if (early) setTimeout(kill, Math.floor(rand() * 160));
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffer.slice(0, nl)) as Line;
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        if (!early && (line.t === 'idle' || lines.length > afterOps)) kill();
      }
    });
    proc.stderr.on('data', (d) => (stderr += String(d)));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`child exited with ${code}/${signal}: ${stderr}`));
      const phase = lines.length === 0 ? 'before open' : lines.at(-1)!.t === 'idle' ? 'idle' : lines.length === 1 ? 'after open' : 'during operations';
      resolve({ lines, phase });
    });
  });
}

/** The durable state as any opener would see it (WAL or hot journal recovered); undefined before the schema exists. */
function readDurable(path: string, intent: Extract<Line, { t: 'intent' }> | undefined) {
  if (!existsSync(path)) return undefined; // killed before the child created the file
  const db = connect(path);
  try {
    if (readSchemaVersion(db, path) === 0) return undefined; // killed inside the first migration: rolled back
    const n = (v: unknown, f: string) => toSafeNumber(v, f);
    const cursors: Cursor[] = db.prepare('SELECT * FROM session_watch_cursors_effective').all().map((r) => ({
      w: r['watcher_session_key'] as string,
      target: r['target_session_key'] as string,
      agent: r['target_agent_id'] as string,
      L: n(r['last_seen'], 'L'),
      N: n(r['notified'], 'N'),
      M: n(r['material'], 'M'),
    }));
    const heads = new Map<string, { head: number; pruned: number }>();
    for (const r of db.prepare('SELECT * FROM session_state_heads').all()) {
      heads.set(r['session_key'] as string, { head: n(r['last_sequence'], 'head'), pruned: n(r['pruned_max_sequence'], 'pruned') });
    }
    const seqRow = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'").get();
    const rows = n(db.prepare('SELECT count(*) AS c FROM session_state_events').get()?.['c'], 'count');
    const maxPerIdentity = new Map<string, number>();
    for (const r of db.prepare('SELECT session_key, max(sequence) AS m FROM session_state_events GROUP BY session_key').all()) {
      maxPerIdentity.set(r['session_key'] as string, n(r['m'], 'max'));
    }
    const recordedAt = (at: number, sessionKey: string) => {
      const row = db.prepare('SELECT sequence FROM session_state_events WHERE recorded_at = ? AND session_key = ?').get(at, sessionKey);
      return row ? n(row['sequence'], 'sequence') : undefined;
    };
    const unreported = intent ? recordedAt(intent.now, intent.target) : undefined;
    return { cursors, heads, sequence: seqRow ? n(seqRow['seq'], 'seq') : 0, rows, maxPerIdentity, unreported };
  } finally {
    db.close();
  }
}

async function lane(index: number, runs: number, phases: Record<string, number>) {
  const path = join(dir, `kill-${index}.db`);
  const rand = mulberry32(SEED + index);
  let maxSequence = 0; // highest sequence known to exist (reported or read back)
  const heads = new Map<string, number>();
  const pruned = new Map<string, number>();
  const cursorsBefore = new Map<string, Cursor>();
  const lastDrained = new Map<string, number>(); // pair -> last L handed to a drain
  const material: { w: string; target: string; seq: number }[] = []; // committed material events per producer watcher
  const pair = (w: string, target: string) => `${w}|${target}`;
  let killsInsideOps = 0;
  let unreportedCommits = 0;

  for (let run = 0; run < runs; run++) {
    const where = `lane ${index}, run ${run}, seed ${SEED}`;
    const { lines, phase } = await runUntilKilled(path, run, rand);
    phases[phase] = (phases[phase] ?? 0) + 1;
    if (phase === 'during operations') killsInsideOps++;

    // What the child saw before it died.
    let runMax = maxSequence;
    let openIntent: Extract<Line, { t: 'intent' }> | undefined;
    for (const line of lines) {
      if (line.t === 'intent') openIntent = line;
      if (line.t === 'rec') {
        openIntent = undefined;
        expect(line.seq, `${where}: a record failed in the child`).toBeDefined();
        if (line.fresh) {
          expect(line.seq!, `${where}: R7 a new sequence must exceed every earlier one`).toBeGreaterThan(runMax);
          runMax = line.seq!;
          heads.set(line.target, Math.max(heads.get(line.target) ?? 0, line.seq!));
          if (line.kind === 'human') {
            for (const w of line.watchers) if (w.startsWith('agent:') && w !== line.target) material.push({ w, target: line.target, seq: line.seq! });
          }
        }
      } else if (line.t === 'drain') {
        for (const n of line.notices) {
          const k = pair(line.w, n.target);
          expect(n.L, `${where}: drained the same notice twice (${k})`).toBeGreaterThan(lastDrained.get(k) ?? -1);
          lastDrained.set(k, n.L);
        }
      }
    }
    maxSequence = runMax;

    // The file after the kill, before anyone reopens it.
    const durable = readDurable(path, openIntent);
    if (durable === undefined) {
      expect(maxSequence, `${where}: the file lost its schema after events were recorded`).toBe(0);
      continue;
    }
    expect(durable.sequence, `${where}: R7 the counter never goes back`).toBeGreaterThanOrEqual(maxSequence);
    maxSequence = durable.sequence;
    for (const [key, h] of durable.heads) {
      expect(h.head, `${where}: R5 head of ${key} regressed`).toBeGreaterThanOrEqual(heads.get(key) ?? 0);
      expect(h.head, `${where}: head of ${key} below its newest event`).toBeGreaterThanOrEqual(durable.maxPerIdentity.get(key) ?? 0);
      expect(h.pruned, `${where}: R42 watermark of ${key} lowered`).toBeGreaterThanOrEqual(pruned.get(key) ?? 0);
      heads.set(key, h.head);
      pruned.set(key, h.pruned);
    }
    for (const key of heads.keys()) expect(durable.heads.has(key), `${where}: R42 pruning removed the head of ${key}`).toBe(true);
    for (const c of durable.cursors) {
      const k = pair(c.w, c.target);
      expect(c.L <= c.N && c.N <= c.M, `${where}: R20 L <= N <= M for ${k}`).toBe(true);
      expect(c.w.startsWith('agent:') && c.w !== c.target, `${where}: R13 cursor for ${k}`).toBe(true);
      const before = cursorsBefore.get(k);
      if (before) {
        expect(c.L, `${where}: L of ${k} went back`).toBeGreaterThanOrEqual(before.L);
        expect(c.M, `${where}: M of ${k} went back`).toBeGreaterThanOrEqual(before.M);
      }
      cursorsBefore.set(k, c);
    }
    // Killed between commit and report: the event is found by its recordedAt and counts as committed.
    const lastSeq = durable.unreported;
    if (openIntent && lastSeq !== undefined) {
      unreportedCommits++;
      for (const w of openIntent.watchers) if (w.startsWith('agent:') && w !== openIntent.target) material.push({ w, target: openIntent.target, seq: lastSeq });
    }
    // R18: a committed material event is in its producer watcher's cursor (nothing expires in this test).
    const byPair = new Map(durable.cursors.map((c) => [pair(c.w, c.target), c]));
    for (const m of material) {
      const c = byPair.get(pair(m.w, m.target));
      expect(c?.M ?? -1, `${where}: material event ${m.seq} for ${pair(m.w, m.target)} lost`).toBeGreaterThanOrEqual(m.seq);
    }

    // Reopen as the next process would: R20/R29 the pending pairs are the file's, each once, quoting L.
    const expected = durable.cursors
      .filter((c) => c.M > c.L)
      .map((c) => ({ w: c.w, target: c.target, L: c.L }))
      .sort((a, b) => (a.w + a.target < b.w + b.target ? -1 : 1));
    const store = createSqliteStore({ path, driver: TEST_DRIVER, now: () => clockAt(run, KILL.maxOps + 10), maxRows: KILL.maxRows, logger: silentLogger });
    try {
      const got = [...KILL.watchers, 'main', ...KILL.targets]
        .flatMap((w) => store.pendingNotices(w).map((n) => ({ w, target: n.targetSessionKey, L: n.lastSeenSequence })))
        .sort((a, b) => (a.w + a.target < b.w + b.target ? -1 : 1));
      expect(got, `${where}: pending after reopen`).toEqual(expected);
      // R41 on open: the cap cut is found from the rows themselves (no counter to drift), and
      // nothing ages out in this test, so exactly the newest min(rows, maxRows) remain.
      expect(store.eventCount(), `${where}: rows after the open's prune`).toBe(Math.min(durable.rows, KILL.maxRows));
      for (const n of got) expect(n.L, `${where}: re-notified an acked pair ${pair(n.w, n.target)}`).toBeGreaterThan(lastDrained.get(pair(n.w, n.target)) ?? -1);
    } finally {
      store.close();
    }
  }
  return { killsInsideOps, unreportedCommits, materialChecks: material.length, finalSequence: maxSequence };
}

it(`survives ${RUNS} SIGKILLs at random points: no notice lost or duplicated, heads never regress, sequences keep growing (seed ${SEED})`, async () => {
  const phases: Record<string, number> = {};
  const lanes = await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i, RUNS / LANES, phases)));
  expect(Object.values(phases).reduce((a, b) => a + b, 0)).toBe(RUNS);
  // Make sure the kills really landed everywhere, not only before start-up.
  const insideOps = lanes.reduce((a, l) => a + l.killsInsideOps, 0);
  expect(insideOps, JSON.stringify(phases)).toBeGreaterThan(RUNS / 3);
  // Forced every 20th run (runUntilKilled); a short run (SSK_KILL_RUNS) has too few tries to insist.
  if (RUNS >= 200) expect(phases['after open'] ?? 0, JSON.stringify(phases)).toBeGreaterThan(0);
  for (const l of lanes) expect(l.materialChecks).toBeGreaterThan(50);
  console.log(`kill test: ${RUNS} kills, seed ${SEED}, phases ${JSON.stringify(phases)}, lanes ${JSON.stringify(lanes)}`);
}, 600_000); // ~20 s idle; 30x headroom for a machine shared with other test runs
