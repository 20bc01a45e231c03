import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordInput } from '../../spec/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { migrate, TABLES } from '../../src/sqlite/schema.js';
import { createSqliteStore, sqliteConnection, type SqliteStore, type SqliteStoreOptions } from '../../src/sqlite/sqlite-store.js';

/**
 * Files, connections and bulk loads shared by the cases. Bulk loads write straight into the
 * adapter's schema (created by its own `migrate`, so tables and indexes are exactly the
 * adapter's) with set-based SQL, because loading 1M rows through `record` would take longer than
 * the whole benchmark.
 */

/** Fixed clock origin: every case uses a fixed clock so R43's hourly prune never fires mid-measurement. */
export const T0 = Date.UTC(2026, 0, 1);
export const DAY_MS = 24 * 60 * 60 * 1000;
export const AGENT = 'main';
export const HOT_SESSION = 'agent:main:hot';
/** 10k sessions in every bulk-loaded log: the hot one plus 9,999 others. */
export const SESSIONS = 10_000;
/** Events of the hot session in every bulk-loaded log (changesSince reads it). */
export const HOT_EVENTS = 400;

const EVENTS = TABLES.events.name;
const HEADS = TABLES.heads.name;
const CURSORS = TABLES.cursors.name;

/** The one event shape every append writes: a material kind with a small payload. */
export function appendInput(sessionKey: string): RecordInput {
  return { sessionKey, agentId: AGENT, kind: 'human_direct_message', actorType: 'human', summary: 'human message via web', payload: { channel: 'web' } };
}

/** The row the adapter stores for appendInput at clock T0, as positional values of RAW_INSERT. */
export function appendRow(sessionKey: string): unknown[] {
  return [null, sessionKey, AGENT, null, 'human_direct_message', 'human', null, null, T0, T0, 'human message via web', '{"channel":"web"}'];
}

export const RAW_INSERT =
  `INSERT INTO ${EVENTS} (dedupe_key, session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json) ` +
  'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

// ---------------------------------------------------------------------------------------------
// Files

export class Workspace {
  readonly dir: string;
  private n = 0;
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'ssk-bench-'));
  }
  file(name: string): string {
    return join(this.dir, `${++this.n}-${name}.db`);
  }
  /** A private copy of a closed, checkpointed database file. */
  copy(template: string, name: string): string {
    const to = this.file(name);
    copyFileSync(template, to);
    return to;
  }
  remove(path: string): void {
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(path + suffix)) rmSync(path + suffix, { force: true });
  }
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Connections

export const BUSY_TIMEOUT_MS = 5000;

/**
 * A raw better-sqlite3 connection with the adapter's pragmas (busy_timeout, WAL, synchronous
 * NORMAL, default cache). Integers come back as plain numbers: that is the driver's fastest
 * form and part of what the baselines stand for.
 */
export function openRaw(path: string): Database.Database {
  const db = new Database(path);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  migrate(db, path);
  if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Storage failures make `record` return undefined fast; a benchmark must never count those. */
export const failLoudLogger: Logger = {
  warn: (message, details) => {
    throw new Error(`adapter warned during a benchmark: ${message} ${JSON.stringify(details ?? {})}`);
  },
  error: (message, details) => {
    throw new Error(`adapter logged an error during a benchmark: ${message} ${JSON.stringify(details ?? {})}`);
  },
};

/**
 * The adapter as an application opens it (default synchronous NORMAL, WAL), on better-sqlite3 like
 * the baselines, so the ratio compares the adapter with the driver under it and not two drivers.
 */
export function openAdapter(path: string, options: Partial<SqliteStoreOptions> = {}): SqliteStore {
  return createSqliteStore({ now: () => T0, path, logger: failLoudLogger, driver: 'better-sqlite3', ...options });
}

/** The pragmas that decide write and read cost; compared so a baseline cannot drift from the adapter. */
export function costPragmas(pragma: (name: string) => unknown): Record<string, string> {
  const read = (name: string) => String(pragma(name));
  return { journal_mode: read('journal_mode').toLowerCase(), synchronous: read('synchronous'), cache_size: read('cache_size'), page_size: read('page_size') };
}

export function assertSamePragmas(store: SqliteStore, raw: Database.Database): Record<string, string> {
  const connection = sqliteConnection(store);
  const a = costPragmas((name) => connection.pragma(name));
  const b = costPragmas((name) => raw.pragma(name, { simple: true }));
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`baseline pragmas ${JSON.stringify(b)} differ from the adapter's ${JSON.stringify(a)}`);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Bulk loads

export interface EventLoad {
  /** How many events to add. */
  count: number;
  occurredAt: number;
  recordedAt?: number;
  /** Every `hotEvery`-th event goes to HOT_SESSION (0: none); the rest rotate over the other sessions. */
  hotEvery?: number;
  /** Sessions other than the hot one; default SESSIONS - 1. */
  others?: number;
}

/**
 * Appends `count` events in one transaction, with heads kept as the adapter keeps them (R5),
 * so the adapter opens the file as its own. Safe next to an open
 * adapter connection (WAL): the adapter sees the rows at its next read.
 */
export function loadEvents(db: Database.Database, load: EventLoad): void {
  const others = load.others ?? SESSIONS - 1;
  const hotEvery = load.hotEvery ?? 0;
  const session = hotEvery > 0 ? `CASE WHEN i % ${hotEvery} = 0 THEN '${HOT_SESSION}' ELSE 'agent:main:s' || (i % ${others}) END` : `'agent:main:s' || (i % ${others})`;
  const recordedAt = load.recordedAt ?? T0;
  if (load.count <= 0) return; // the CTE's anchor row would insert one anyway
  db.transaction(() => {
    const before = Number(db.prepare(`SELECT coalesce(max(sequence), 0) FROM ${EVENTS}`).pluck().get());
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) ` +
        `INSERT INTO ${EVENTS} (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary, payload_json) ` +
        `SELECT ${session}, '${AGENT}', 'human_direct_message', 'human', ?, ?, 'human message via web', '{"channel":"web"}' FROM n`,
    ).run(load.count, load.occurredAt, recordedAt);
    db.prepare(
      `INSERT INTO ${HEADS} (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) ` +
        `SELECT session_key, agent_id, max(sequence), 0, ? FROM ${EVENTS} WHERE sequence > ? GROUP BY agent_id, session_key ` +
        'ON CONFLICT (session_key, agent_id) DO UPDATE SET last_sequence = max(last_sequence, excluded.last_sequence), updated_at = excluded.updated_at',
    ).run(recordedAt, before);
  }).immediate();
}

/**
 * Empties the WAL before a timed write and pays for its restart, untimed: a PASSIVE checkpoint,
 * then a one-page write (user_version set to itself). After a checkpoint the next commit restarts
 * the WAL, and that commit took about 0.2 ms more here (2026-12-04, one-off A/B in one process:
 * a 1k-row raw DELETE 1.40 ms after a bare checkpoint, 1.19 ms after this). Left to the timed
 * call, that constant sat on both sides and pulled a small case's ratio towards 1: the 10-pair
 * fan-in drain read 0.83x with it and 0.54-0.64x without. The timed call then writes into an
 * empty WAL and checkpoints only if its own pages pass the 1000-page autocheckpoint, as in use.
 */
export function emptyWal(db: Database.Database): void {
  db.pragma('wal_checkpoint(PASSIVE)');
  const version = Number(db.pragma('user_version', { simple: true }));
  db.pragma(`user_version = ${version}`);
}

/** Builds a closed, checkpointed file of `events` events over SESSIONS sessions, HOT_EVENTS of them in HOT_SESSION. */
export function buildEventLog(path: string, events: number, occurredAt: number = T0 - 60 * 60 * 1000): void {
  const db = new Database(path);
  try {
    migrate(db, path);
    // Load-only settings: no journal and a big cache; the file is switched to WAL before use.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    loadEvents(db, { count: events, occurredAt, hotEvery: Math.max(1, Math.floor(events / HOT_EVENTS)) });
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** Sequences of the hot session, ascending (used to pick a `since` with enough rows after it). */
export function hotSequences(db: Database.Database): number[] {
  return (db.prepare(`SELECT sequence FROM ${EVENTS} WHERE agent_id = ? AND session_key = ? ORDER BY sequence`).pluck().all(AGENT, HOT_SESSION) as (number | bigint)[]).map(Number);
}

export interface CursorLoad {
  count: number;
  /** Cursors go to watcher `agent:main:w<i % watchers>`, target `<targetPrefix><i>`. */
  watchers: number;
  /** Default `agent:main:t`. */
  targetPrefix?: string;
  /** L, N, M of every loaded cursor; N > L makes it pending (R20). */
  lastSeen: number;
  notified: number;
  material: number;
  updatedAt: number;
}

export function loadCursors(db: Database.Database, load: CursorLoad): void {
  if (load.count <= 0) return; // the CTE's anchor row would insert one anyway
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) ` +
        `INSERT INTO ${CURSORS} (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) ` +
        // CAST: better-sqlite3 binds JS numbers as REAL, and 'w' || (i % 10.0) would read 'w1.0'.
        `SELECT 'agent:main:w' || (i % CAST(? AS INTEGER)), ? || i, '${AGENT}', ?, ?, ?, 'explicit', ? FROM n`,
    ).run(load.count, load.watchers, load.targetPrefix ?? 'agent:main:t', load.lastSeen, load.notified, load.material, load.updatedAt);
  }).immediate();
}

export function countRows(db: Database.Database, table: string): number {
  return Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
}

export { CURSORS, EVENTS, HEADS };
