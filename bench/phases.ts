/**
 * Where an append's time goes: `npx tsx bench/phases.ts [--watchers 1,10] [--quick]`.
 *
 * Rebuilds the adapter's write path step by step on raw better-sqlite3 with the adapter's own SQL
 * text (exported as SQL from src/sqlite) and pragmas, and measures every step against the raw
 * INSERT in interleaved rounds, beside the adapter's record() itself. The differences between
 * neighbouring lines are the cost of each phase; the schema variants (a cursor index dropped,
 * a reordered cursor key) price the options for making appends cheaper. Diagnostics only: not part of
 * `npm run bench`, no floors.
 */
import type Database from 'better-sqlite3';
import { planNotifications, prepareRecord } from '../src/core/index.js';
import { SQL } from '../src/sqlite/sqlite-store.js';
import { AGENT, RAW_INSERT, T0, Workspace, appendInput, appendRow, openAdapter, openRaw } from './lib/fixtures.js';
import { measureInterleaved, type Budget, type TaskSpec } from './lib/measure.js';
import { formatDuration, renderTable } from './lib/report.js';

const TARGET = 'agent:main:target';

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
  /** Cursor write: the adapter's upsert, or an UPDATE of the three columns that change. */
  cursorWrite: 'upsert' | 'update' | 'set';
  /** Indexes dropped from the cursor table (schema options). */
  drop: string[];
  /** Create the transaction function on every call, as record() did before immediateTransaction. */
  txPerCall: boolean;
  /** Option: cursor primary key led by the target, so a target's cursors are one contiguous range. */
  clustered?: boolean;
}

// The cursor table of the schema with its primary key reordered (target first); the secondary
// indexes it keeps or gains: watcher (R50 deletes) and the pending partial index (R29); schema step 3
// dropped the updated_at index.
const CLUSTERED_CURSORS = `
DROP TABLE session_watch_cursors;
CREATE TABLE session_watch_cursors (
  watcher_session_key TEXT NOT NULL, target_session_key TEXT NOT NULL, target_agent_id TEXT NOT NULL,
  last_seen INTEGER NOT NULL, notified INTEGER NOT NULL, material INTEGER NOT NULL,
  provenance TEXT NOT NULL CHECK (provenance IN ('spawn', 'explicit')), updated_at INTEGER NOT NULL,
  PRIMARY KEY (target_agent_id, target_session_key, watcher_session_key),
  CHECK (last_seen <= notified AND notified <= material)
) STRICT, WITHOUT ROWID;
CREATE INDEX session_watch_cursors_watcher ON session_watch_cursors (watcher_session_key);
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key) WHERE material > last_seen;
`;

const FULL: Omit<SqlPath, 'watchers'> = { head: true, cursorWrite: 'upsert', drop: [], txPerCall: false };

/** Built on first call, so lines left out by --only open no file. */
function sqlPath(ws: Workspace, p: SqlPath): () => void {
  let run: (() => void) | undefined;
  return () => (run ??= buildSqlPath(ws, p))();
}

/** The adapter's record() statements for one event, on raw better-sqlite3 (safe integers, as the adapter). */
function buildSqlPath(ws: Workspace, p: SqlPath): () => void {
  const db: Database.Database = openRaw(ws.file('phase'));
  if (p.clustered) db.exec(CLUSTERED_CURSORS);
  for (const index of p.drop) db.exec(`DROP INDEX ${index}`);
  db.defaultSafeIntegers(true);
  const cursorsOnTarget = db.prepare(
    p.clustered ? SQL.cursorsOnTarget.replace(' INDEXED BY session_watch_cursors_target', '') : SQL.cursorsOnTarget,
  );
  const insertEvent = db.prepare(SQL.insertEvent);
  const upsertHead = db.prepare(SQL.upsertHead);
  const upsertCursor = db.prepare(SQL.upsertCursor);
  const updateCursor = db.prepare(
    'UPDATE session_watch_cursors SET notified = ?, material = ?, updated_at = ? WHERE watcher_session_key = ? AND target_session_key = ? AND target_agent_id = ?',
  );
  // One statement for every cursor on the target (what the plan amounts to when all are notified).
  const updateAll = db.prepare(
    'UPDATE session_watch_cursors SET notified = CASE WHEN notified = last_seen THEN ? ELSE notified END, ' +
      'material = ?, updated_at = ? WHERE target_agent_id = ? AND target_session_key = ?',
  );
  for (let i = 0; i < p.watchers; i++) upsertCursor.run(`agent:main:watcher-${i}`, TARGET, AGENT, 0, 0, 0, 'explicit', T0);
  const row = appendRow(TARGET);

  const body = () => {
    const cursors = cursorsOnTarget.all(AGENT, TARGET) as { watcher_session_key: string; last_seen: bigint; notified: bigint }[];
    const sequence = insertEvent.run(...row).lastInsertRowid;
    if (p.head) upsertHead.run(TARGET, AGENT, sequence, T0);
    if (p.cursorWrite === 'set' && cursors.length > 0) {
      updateAll.run(sequence, sequence, T0, AGENT, TARGET);
      return;
    }
    for (const c of cursors) {
      // Pending after the first event (N > L): N stays, M := sequence, as R15 has it.
      const notified = c.notified === c.last_seen ? sequence : c.notified;
      if (p.cursorWrite === 'upsert') upsertCursor.run(c.watcher_session_key, TARGET, AGENT, c.last_seen, notified, sequence, 'explicit', T0);
      else updateCursor.run(notified, sequence, T0, c.watcher_session_key, TARGET, AGENT);
    }
  };
  const once = db.transaction(body);
  return p.txPerCall ? () => db.transaction(body).immediate() : () => once.immediate();
}

function main(): void {
  const { watchers, budget, only } = parse(process.argv.slice(2));
  const ws = new Workspace();
  const rows: { name: string; note: string }[] = [];
  const tasks: TaskSpec[] = [];
  const closers: (() => void)[] = [];
  // The raw INSERT always runs: every line is quoted against it.
  const add = (name: string, note: string, fn: () => void) => {
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
    add('adapter SQL, 0 watchers', '+ cursor read (no rows), head upsert; safe integers', sqlPath(ws, { ...FULL, watchers: 0 }));
    add('  … without the head', 'for scale only: the head is required (R5)', sqlPath(ws, { ...FULL, watchers: 0, head: false }));
    add('  … with db.transaction(fn) made per call', 'what record() did before immediateTransaction', sqlPath(ws, { ...FULL, watchers: 0, txPerCall: true }));
    const input = appendInput(TARGET);
    add('prepareRecord (validation)', 'pure core', () => void prepareRecord(input, T0));
    const store0 = openAdapter(ws.file('adapter-0'));
    closers.push(() => store0.close());
    add('adapter record(), 0 watchers', 'the real thing', () => void store0.record(input));
    for (const w of watchers) {
      add(`adapter SQL, ${w} watchers`, `+ ${w} cursor rows read and upserted`, sqlPath(ws, { ...FULL, watchers: w }));
      add(`  … ${w}w: cursor UPDATE of 3 columns, not upsert`, 'option', sqlPath(ws, { ...FULL, watchers: w, cursorWrite: 'update' }));
      add(`  … ${w}w: one set-based UPDATE for all cursors`, 'option: one statement per event, not per watcher', sqlPath(ws, { ...FULL, watchers: w, cursorWrite: 'set' }));
      add(`  … ${w}w: without index …_cursors_pending`, 'option: R29 sweep by scan', sqlPath(ws, { ...FULL, watchers: w, drop: ['session_watch_cursors_pending'] }));
      add(`  … ${w}w: cursor key led by the target`, 'option: a target\'s cursors in one key range', sqlPath(ws, { ...FULL, watchers: w, clustered: true }));
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
      add(`planNotifications, ${w} watchers`, 'pure core (the cursor rows are the notices)', () => {
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
    const table: string[][] = [['phase', 'p50', 'raw/this', 'note']];
    for (const r of rows) {
      const p50 = got.get(r.name)!.p50Ms;
      table.push([r.name, formatDuration(p50), (base / p50).toFixed(2), r.note]);
    }
    process.stdout.write(`${renderTable(table, [false, true, true, false])}\n`);
  } finally {
    for (const close of closers) close();
    ws.dispose();
  }
}

main();
