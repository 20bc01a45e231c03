/**
 * Where an append's time goes: `npx tsx bench/phases.ts [--watchers 1,10] [--quick]`.
 *
 * Rebuilds the adapter's write path step by step on raw better-sqlite3 with the adapter's own SQL
 * text (exported as SQL from src/sqlite) and pragmas, and measures every step against the raw
 * INSERT in interleaved rounds, beside the adapter's record() itself. The differences between
 * neighbouring lines are the cost of each phase; the schema variants (a cursor index dropped,
 * the older watcher-first cursor key) price the options for making appends cheaper. Diagnostics only: not part of
 * `npm run bench`, no floors.
 */
import type Database from 'better-sqlite3';
import { planNotifications, prepareRecord } from '../src/core/index.js';
import { SQL } from '../src/sqlite/sql.js';
import { AGENT, RAW_INSERT, T0, Workspace, appendInput, appendRow, openAdapter, openRaw } from './lib/fixtures.js';
import { measureInterleaved, type Budget, type TaskSpec } from './lib/measure.js';
import { formatDuration, renderTable } from './lib/report.js';

const TARGET = 'agent:main:target';
/** recordMany's batch size in the append targets (R9e). */
const BATCH = 100;

const USAGE = 'usage: tsx bench/phases.ts [--watchers 1,10] [--quick] [--rounds N] [--only <substr>]';

function parse(argv: string[]): { watchers: number[]; budget: Budget; only?: string } {
  let watchers = [1, 10];
  let quick = false;
  let rounds: number | undefined;
  let only: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--watchers') watchers = (argv[++i] ?? '').split(',').map(Number);
    else if (argv[i] === '--quick') quick = true;
    else if (argv[i] === '--rounds') rounds = Number(argv[++i]);
    else if (argv[i] === '--only') only = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}; ${USAGE}`);
  }
  if (watchers.some((w) => !Number.isSafeInteger(w) || w < 1)) throw new Error('--watchers takes positive integers, e.g. 1,10');
  if (rounds !== undefined && !(Number.isSafeInteger(rounds) && rounds > 0)) throw new Error('--rounds takes a positive integer');
  const budget = quick
    ? { rounds: 3, timeMs: 150, iterations: 20, warmupMs: 50, warmupIterations: 10 }
    : { rounds: 7, timeMs: 400, iterations: 50, warmupMs: 200, warmupIterations: 20 };
  if (rounds !== undefined) budget.rounds = rounds;
  return only === undefined ? { watchers, budget } : { watchers, budget, only };
}

interface SqlPath {
  /** Write the head (R5). */
  head: boolean;
  watchers: number;
  /** Cursor write: the adapter's one set-based UPDATE (`set`), or v1's read of every cursor and an upsert of each (`upsert`). */
  cursorWrite: 'set' | 'set-v6' | 'upsert';
  /** Indexes dropped from the cursor table (schema options). */
  drop: string[];
  /** Schema step 4's cursor key (watcher first), to compare with step 5's target-first key. */
  watcherFirst?: boolean;
  /** Events per transaction (recordMany's batch); 1 for record(). */
  batch: number;
}

// Schema step 4's cursor table (key led by the watcher, a secondary index on the target), to price
// what step 5's target-first key bought.
const WATCHER_FIRST_CURSORS = `
DROP TABLE session_watch_cursors;
CREATE TABLE session_watch_cursors (
  watcher_session_key TEXT NOT NULL, target_session_key TEXT NOT NULL, target_agent_id TEXT NOT NULL,
  last_seen INTEGER NOT NULL, notified INTEGER NOT NULL, material INTEGER NOT NULL,
  provenance TEXT NOT NULL CHECK (provenance IN ('spawn', 'explicit', 'ambient')), updated_at INTEGER NOT NULL, folded INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (watcher_session_key, target_session_key, target_agent_id),
  CHECK (last_seen <= notified AND notified <= material)
) STRICT, WITHOUT ROWID;
CREATE INDEX session_watch_cursors_target ON session_watch_cursors (target_agent_id, target_session_key);
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key) WHERE notified > last_seen;
`;

const FULL: Omit<SqlPath, 'watchers'> = { head: true, cursorWrite: 'set', drop: [], batch: 1 };

/** Built on first call, so lines left out by --only open no file. */
function sqlPath(ws: Workspace, p: SqlPath): () => void {
  let run: (() => void) | undefined;
  return () => (run ??= buildSqlPath(ws, p))();
}

/** The adapter's record() statements for one event (or a batch), on raw better-sqlite3 (safe integers, as the adapter). */
function buildSqlPath(ws: Workspace, p: SqlPath): () => void {
  const db: Database.Database = openRaw(ws.file('phase'));
  if (p.watcherFirst) db.exec(WATCHER_FIRST_CURSORS);
  for (const index of p.drop) db.exec(`DROP INDEX ${index}`);
  db.defaultSafeIntegers(true);
  // v1's read of every cursor on the target (the adapter no longer runs it).
  const cursorsOnTarget = db.prepare('SELECT watcher_session_key, last_seen, notified FROM session_watch_cursors WHERE target_agent_id = ? AND target_session_key = ?');
  // Schema step 6's write of the pending cursors (step 7 leaves them to the target's slots).
  const notifyPendingV6 = db.prepare(
    'UPDATE session_watch_cursors SET material = max(material, ?), updated_at = ? WHERE target_agent_id = ? AND target_session_key = ? ' +
      'AND notified > last_seen AND watcher_session_key IS NOT ? AND watcher_session_key <> target_session_key',
  );
  const notifyIdle = db.prepare(SQL.notifyIdleCursors);
  const insertEvent = db.prepare(SQL.insertEvent);
  const upsertHead = db.prepare(SQL.upsertHead);
  const upsertSlots = db.prepare(SQL.upsertSlots);
  const upsertCursor = db.prepare(SQL.upsertCursor);
  for (let i = 0; i < p.watchers; i++) upsertCursor.run(`agent:main:watcher-${i}`, TARGET, AGENT, 0, 0, 0, 'explicit', T0, 0);
  const row = appendRow(TARGET);

  const one = () => {
    const sequence = insertEvent.run(...row).lastInsertRowid;
    if (p.head) upsertHead.run(TARGET, AGENT, sequence, T0);
    if (p.cursorWrite === 'set') upsertSlots.run(TARGET, AGENT, sequence, null, T0, sequence, null, T0, AGENT, TARGET);
    if (p.cursorWrite === 'set-v6') notifyPendingV6.run(sequence, T0, AGENT, TARGET, null);
    if (p.cursorWrite !== 'upsert') {
      notifyIdle.run(sequence, sequence, T0, sequence, AGENT, TARGET, null);
      return;
    }
    for (const c of cursorsOnTarget.all(AGENT, TARGET) as { watcher_session_key: string; last_seen: bigint; notified: bigint }[]) {
      // Pending after the first event (N > L): N stays, M := sequence, as R15 has it.
      const notified = c.notified === c.last_seen ? sequence : c.notified;
      upsertCursor.run(c.watcher_session_key, TARGET, AGENT, c.last_seen, notified, sequence, 'explicit', T0, sequence);
    }
  };
  const tx = db.transaction(() => {
    for (let i = 0; i < p.batch; i++) one();
  });
  return () => tx.immediate();
}

function main(): void {
  const { watchers, budget, only } = parse(process.argv.slice(2));
  const ws = new Workspace();
  const rows: { name: string; note: string }[] = [];
  const tasks: TaskSpec[] = [];
  const closers: (() => void)[] = [];
  // The raw INSERT always runs: every line is quoted against it.
  // Batch lines time one call of BATCH events; the table divides them back to one event.
  const units = new Map<string, number>();
  const perEvent = (n: number, fn: () => void) => Object.assign(fn, { units: n });
  const add = (name: string, note: string, fn: (() => void) & { units?: number }) => {
    if (fn.units !== undefined) units.set(name, fn.units);
    if (only !== undefined && rows.length > 0 && !name.includes(only)) return;
    rows.push({ name, note });
    tasks.push({ name, fn });
  };
  try {
    const raw = openRaw(ws.file('raw'));
    const insert = raw.prepare(RAW_INSERT);
    const values = appendRow(TARGET);
    const tx = raw.transaction(() => insert.run(...values));
    add('raw INSERT, autocommit', 'the baseline of bench/run.ts', () => void insert.run(...values));
    add('raw INSERT in BEGIN IMMEDIATE … COMMIT', 'explicit transaction, function made once', () => void tx.immediate());
    const rawBatch = raw.transaction(() => {
      for (let i = 0; i < BATCH; i++) insert.run(...values);
    });
    add(`raw INSERT ×${BATCH} in one transaction (per event)`, 'what one commit per batch can reach', perEvent(BATCH, () => void rawBatch.immediate()));
    add('adapter SQL, 0 watchers', '+ head upsert, cursor UPDATE (no rows); safe integers', sqlPath(ws, { ...FULL, watchers: 0 }));
    add('  … without the head', 'for scale only: the head is required (R5)', sqlPath(ws, { ...FULL, watchers: 0, head: false }));
    add(`adapter SQL ×${BATCH} in one transaction (per event)`, 'recordMany\'s statements', perEvent(BATCH, sqlPath(ws, { ...FULL, watchers: 0, batch: BATCH })));
    const input = appendInput(TARGET);
    add('prepareRecord (validation)', 'pure core', () => void prepareRecord(input, T0));
    const store0 = openAdapter(ws.file('adapter-0'));
    closers.push(() => store0.close());
    add('adapter record(), 0 watchers', 'the real thing', () => void store0.record(input));
    const batchInputs = Array.from({ length: BATCH }, () => input);
    add(`adapter recordMany(), batches of ${BATCH} (per event)`, 'the real thing (R9e)', perEvent(BATCH, () => void store0.recordMany(batchInputs)));
    for (const w of watchers) {
      add(`adapter SQL, ${w} watchers`, '+ the set-based UPDATEs of the target\'s cursors', sqlPath(ws, { ...FULL, watchers: w }));
      add(`  … ${w}w: step 6, pending cursors rewritten`, 'what the head\'s slots replaced (schema step 7)', sqlPath(ws, { ...FULL, watchers: w, cursorWrite: 'set-v6' }));
      add(`  … ${w}w: v1's read + upsert per cursor`, 'what the set-based UPDATE replaced', sqlPath(ws, { ...FULL, watchers: w, cursorWrite: 'upsert' }));
      add(`  … ${w}w: without index …_cursors_pending`, 'option: pending reads by scan', sqlPath(ws, { ...FULL, watchers: w, drop: ['session_watch_cursors_pending'] }));
      add(`  … ${w}w: cursor key led by the watcher`, 'schema step 4, before the target-first key', sqlPath(ws, { ...FULL, watchers: w, watcherFirst: true }));
      const cursors = Array.from({ length: w }, (_, i) => ({
        watcherSessionKey: `agent:main:watcher-${i}`,
        targetSessionKey: TARGET,
        targetAgentId: AGENT,
        lastSeenSequence: 0,
        notifiedSequence: 1,
        materialSequence: 1,
        provenance: 'explicit' as const,
        updatedAt: T0,
      }));
      let sequence = 2;
      const event = { sequence: 0, sessionKey: TARGET, agentId: AGENT, kind: 'human_direct_message' as const, actorType: 'human' as const, occurredAt: T0, recordedAt: T0, summary: 'x' };
      add(`planNotifications, ${w} watchers`, 'pure core reference (the memory store runs it)', () => {
        planNotifications({ ...event, sequence: sequence++ }, cursors, [], T0);
      });
      const store = openAdapter(ws.file(`adapter-${w}`));
      closers.push(() => store.close());
      for (let i = 0; i < w; i++) store.watch({ watcherSessionKey: `agent:main:watcher-${i}`, targetSessionKey: TARGET, agentId: AGENT });
      add(`adapter record(), ${w} watchers`, 'the real thing', () => void store.record(input));
    }
    if (new Set(rows.map((r) => r.name)).size !== rows.length) throw new Error('phase names must be unique');
    const got = measureInterleaved(tasks, budget, (m) => process.stderr.write(`${m}\n`));
    const base = got.get(rows[0]!.name)!.p50Ms;
    const table: string[][] = [['phase', 'p50 per event', 'raw/this', 'note']];
    for (const r of rows) {
      const p50 = got.get(r.name)!.p50Ms / (units.get(r.name) ?? 1);
      table.push([r.name, formatDuration(p50), (base / p50).toFixed(2), r.note]);
    }
    process.stdout.write(`${renderTable(table, [false, true, true, false])}\n`);
  } finally {
    for (const close of closers) close();
    ws.dispose();
  }
}

main();
