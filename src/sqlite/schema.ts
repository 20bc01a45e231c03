import { betterSqlite3Driver, isBetterSqlite3Database, wrapBetterSqlite3 } from './driver/better-sqlite3.js';
import { sqliteErrorCode } from './driver/error-codes.js';
import { resolveSqliteDriver } from './driver/resolve.js';
import { immediateTransaction } from './driver/transaction.js';
import type { BetterSqlite3Database, SqliteConnection, SqliteDriverChoice } from './driver/types.js';
import { NotAStateDatabaseError, SchemaTooNewError, toSafeNumber } from './errors.js';
import { messageOf } from '../shared/logger.js';

/**
 * The on-disk schema of the SQLite adapter and its migrations, in one place so other tools (the
 * CLI) can read the same tables without depending on the store.
 *
 * Versioning: `PRAGMA user_version` holds the number of the last applied migration step and
 * `PRAGMA application_id` marks the file as ours. A file with our id and a lower version is
 * migrated forward on open; a higher version is refused (SchemaTooNewError); a file with data but
 * without our id is refused (NotAStateDatabaseError). To change the schema, append a step to
 * MIGRATIONS; never edit a released step.
 */

/** "SSK1": marks a SQLite file as a session-state database (PRAGMA application_id). */
export const APPLICATION_ID = 0x53534b31;

/** The SQLite schema's tables, each with its name and columns (the names that appear in SQL and in error messages). */
export const TABLES = {
  /** The signal log (R5-R8). `sequence` is the one global counter (R7): AUTOINCREMENT never reuses. */
  events: {
    name: 'session_state_events',
    columns: [
      'sequence',
      'dedupe_key',
      'session_key',
      'agent_id',
      'session_id',
      'kind',
      'actor_type',
      'actor_id',
      'run_id',
      'occurred_at',
      'recorded_at',
      'summary',
      'payload_json',
    ],
  },
  /** Durable heads (R5) and pruned watermarks (R33, R42), per identity (session_key, agent_id). */
  heads: { name: 'session_state_heads', columns: ['session_key', 'agent_id', 'last_sequence', 'pruned_max_sequence', 'updated_at'] },
  /**
   * Watch cursors (R20) as stored: last_seen = L, notified = N, material = M. Since step 7 M and
   * updated_at may lag the target's slots (after `folded`); session_watch_cursors_effective is what they are.
   */
  cursors: {
    name: 'session_watch_cursors',
    columns: ['watcher_session_key', 'target_session_key', 'target_agent_id', 'last_seen', 'notified', 'material', 'provenance', 'updated_at', 'folded', 'changed'],
  },
  /** Step 8 (R68): one row, the change sequence: the `changed` value of the newest notice change. */
  feed: { name: 'session_state_feed', columns: ['id', 'change_sequence'] },
  /**
   * Step 7: per watched identity and notify class (material: every notifying kind, what explicit
   * cursors take; nonterminal: all but terminal runs, what spawn and ambient cursors take, R16) the
   * newest event, its actor and time, and the newest by any other actor (R12).
   */
  slots: {
    name: 'session_state_slots',
    columns: [
      'session_key',
      'agent_id',
      ...['material', 'nonterminal'].flatMap((c) => [`${c}_sequence`, `${c}_actor`, `${c}_at`, `${c}_other_sequence`, `${c}_other_at`]),
    ],
  },
} as const;

/** Step 7: the cursors as a reader sees them (stored M and updated_at raised by the slots' newer events), plus `unfolded` and `fold_to`. */
export const EFFECTIVE_CURSORS = 'session_watch_cursors_effective';

/** One step of the SQLite schema's migrations: the user_version it reaches and the function that applies it. */
export interface MigrationStep {
  /** 1, 2, 3, ...: the user_version the file has after this step. */
  version: number;
  description: string;
  /** Applies the step on the connection (the caller holds the transaction). */
  up: (db: SqliteConnection) => void;
}

/** What the schema functions accept: a driver connection, or a raw better-sqlite3 handle (other tools keep those). */
export type SchemaTarget = SqliteConnection | BetterSqlite3Database;

function connectionOf(db: SchemaTarget): SqliteConnection {
  return isBetterSqlite3Database(db) ? wrapBetterSqlite3(db) : db;
}

const V1 = `
CREATE TABLE session_state_events (
  sequence     INTEGER PRIMARY KEY AUTOINCREMENT,
  dedupe_key   TEXT UNIQUE,
  session_key  TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  session_id   TEXT,
  kind         TEXT NOT NULL,
  actor_type   TEXT NOT NULL,
  actor_id     TEXT,
  run_id       TEXT,
  occurred_at  INTEGER NOT NULL,
  recorded_at  INTEGER NOT NULL,
  summary      TEXT NOT NULL,
  payload_json TEXT
) STRICT;
CREATE INDEX session_state_events_identity ON session_state_events (agent_id, session_key, sequence);
CREATE INDEX session_state_events_occurred ON session_state_events (occurred_at);

CREATE TABLE session_state_heads (
  session_key         TEXT NOT NULL,
  agent_id            TEXT NOT NULL,
  last_sequence       INTEGER NOT NULL,
  pruned_max_sequence INTEGER NOT NULL DEFAULT 0,
  updated_at          INTEGER NOT NULL,
  PRIMARY KEY (session_key, agent_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE session_watch_cursors (
  watcher_session_key TEXT NOT NULL,
  target_session_key  TEXT NOT NULL,
  target_agent_id     TEXT NOT NULL,
  last_seen           INTEGER NOT NULL,
  notified            INTEGER NOT NULL,
  material            INTEGER NOT NULL,
  provenance          TEXT NOT NULL CHECK (provenance IN ('spawn', 'explicit')),
  updated_at          INTEGER NOT NULL,
  PRIMARY KEY (watcher_session_key, target_session_key, target_agent_id),
  CHECK (last_seen <= notified AND notified <= material)
) STRICT, WITHOUT ROWID;
CREATE INDEX session_watch_cursors_target ON session_watch_cursors (target_agent_id, target_session_key);
CREATE INDEX session_watch_cursors_updated ON session_watch_cursors (updated_at);
-- R29: the restart sweep visits only pending cursors (M > L), not the whole table.
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key) WHERE material > last_seen;

CREATE TABLE session_state_meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
INSERT INTO session_state_meta (name, value) VALUES ('event_count', 0);
`;

// Step 2: the maintained row counter cost every append a write (about 5 µs, bench/phases.ts). The
// R41 cap now finds its cut at prune time by walking at most maxRows primary-key entries (hourly).
const V2 = `DROP TABLE session_state_meta;`;

// Step 3: the updated_at index on cursors was written by every material event (one more B-tree page
// per watcher per append) and read only by the hourly expiry probe (R44). Dropped: appends with one
// watcher go from about 0.44x to 0.51-0.62x of a raw INSERT (bench/phases.ts); expiry now scans the
// cursor table, about 0.3 ms per 10k cursors, hourly and at open.
const V3 = `DROP INDEX session_watch_cursors_updated;`;

// Step 4 (R20, R21b): the cursor table is the only source of pending notices, and a
// cursor may be ambient (R21b). SQLite cannot alter a CHECK constraint, so the table is rebuilt with
// the same columns and rows; its pending index now names the pending condition itself (N > L, which
// pendingNotices, drain, ack and the feed ask per watcher) instead of the old sweep's M > L. Both
// conditions hold for the same rows (R20), so an old file's pending notices are the new file's.
const V4 = `
CREATE TABLE session_watch_cursors_v4 (
  watcher_session_key TEXT NOT NULL,
  target_session_key  TEXT NOT NULL,
  target_agent_id     TEXT NOT NULL,
  last_seen           INTEGER NOT NULL,
  notified            INTEGER NOT NULL,
  material            INTEGER NOT NULL,
  provenance          TEXT NOT NULL CHECK (provenance IN ('spawn', 'explicit', 'ambient')),
  updated_at          INTEGER NOT NULL,
  PRIMARY KEY (watcher_session_key, target_session_key, target_agent_id),
  CHECK (last_seen <= notified AND notified <= material)
) STRICT, WITHOUT ROWID;
INSERT INTO session_watch_cursors_v4 (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at)
  SELECT watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at FROM session_watch_cursors;
DROP TABLE session_watch_cursors;
ALTER TABLE session_watch_cursors_v4 RENAME TO session_watch_cursors;
CREATE INDEX session_watch_cursors_target ON session_watch_cursors (target_agent_id, target_session_key);
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key) WHERE notified > last_seen;
`;

// Step 5 (bench/phases.ts): the cursor table is keyed by target first. Every event moves all cursors on its
// target in one UPDATE (R11-R16, set-based); with the watcher leading the key those rows were spread
// over the table and each was found through a secondary index. Target-first, they are one contiguous
// key range: an event with 100 watchers runs at 0.29x the rate of a raw INSERT instead of 0.22x (bench/phases.ts, SQL only).
// Reads by watcher (R26 pending, R50 reset) use the pending partial index and a new watcher index;
// the old target index is the key now. The pending index also holds L and provenance; an event
// raising M on a pending cursor changes none of its columns. Same columns and rows.
const V5 = `
CREATE TABLE session_watch_cursors_v5 (
  watcher_session_key TEXT NOT NULL,
  target_session_key  TEXT NOT NULL,
  target_agent_id     TEXT NOT NULL,
  last_seen           INTEGER NOT NULL,
  notified            INTEGER NOT NULL,
  material            INTEGER NOT NULL,
  provenance          TEXT NOT NULL CHECK (provenance IN ('spawn', 'explicit', 'ambient')),
  updated_at          INTEGER NOT NULL,
  PRIMARY KEY (target_agent_id, target_session_key, watcher_session_key),
  CHECK (last_seen <= notified AND notified <= material)
) STRICT, WITHOUT ROWID;
INSERT INTO session_watch_cursors_v5 (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at)
  SELECT watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at FROM session_watch_cursors;
DROP TABLE session_watch_cursors;
ALTER TABLE session_watch_cursors_v5 RENAME TO session_watch_cursors;
CREATE INDEX session_watch_cursors_watcher ON session_watch_cursors (watcher_session_key);
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key, last_seen, provenance) WHERE notified > last_seen;
`;

// Step 6 (bench/phases-drain-prune.ts): the pending index also holds N. Step 5 meant the pending read to be index-only,
// but the query's own condition (N > L) names N, so SQLite visited the table for every row to test it
// (EXPLAIN: "USING INDEX", not "USING COVERING INDEX"); a drain of 1k notices paid 1k key searches.
// N sits after the columns the read sorts and filters by; an event raising M on a pending cursor
// still changes none of the index's columns (R15: N is frozen while pending).
const V6 = `
DROP INDEX session_watch_cursors_pending;
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key, last_seen, provenance, notified) WHERE notified > last_seen;
`;

// Step 7 (bench/phases.ts): an event no longer rewrites the cursors already pending on its target. With
// 100 watchers that rewrite was two thirds of an append (bench/phases.ts: 0.28x of a raw INSERT;
// without it about 0.6x). A watched target's slots row (session_state_slots) keeps instead, per
// notify class, the newest notifying event and the newest by any other actor (so R12 can leave a
// watcher's own event out), with the time it was recorded; a cursor's `folded` is the target
// sequence up to which those events are already in its stored M and updated_at. What a reader sees
// is session_watch_cursors_effective: M is the stored M raised to the newest event the cursor would
// have taken (R15, R16, R12, R13) after `folded`, and updated_at that event's time (R44). A pending
// cursor's L and N never depend on it (N is frozen while pending), so every notice is as before.
// Every write of a cursor folds (it writes the effective M and updated_at and sets folded to the
// target's newest event). The slots live apart from the heads so that a prune's watermark stamping
// (R42) writes rows as narrow as before (ten more columns there cost a 10k-row cap prune about a
// quarter). An old file has no slots and folded = 0: its cursors read exactly as stored.
// The expressions are this step's own text: a change to them is a new step.
const V7_SLOT_COLUMNS = ['material', 'nonterminal']
  .flatMap((c) => [`${c}_sequence INTEGER NOT NULL DEFAULT 0`, `${c}_actor TEXT`, `${c}_at INTEGER NOT NULL DEFAULT 0`, `${c}_other_sequence INTEGER NOT NULL DEFAULT 0`, `${c}_other_at INTEGER NOT NULL DEFAULT 0`])
  .join(',\n  ');
/** The newest event of class `c` the cursor would take: not by its own watcher (R12), never for a self-watch (R13). */
const v7Slot = (c: string, field: 'sequence' | 'at') =>
  `CASE WHEN s.${c}_actor IS NOT c.watcher_session_key THEN s.${c}_${field} ELSE s.${c}_other_${field} END`;
// R16: explicit cursors take every notifying event, spawn and ambient ones all but terminal runs.
const v7Taken = (field: 'sequence' | 'at') =>
  `CASE WHEN c.watcher_session_key = c.target_session_key THEN NULL WHEN c.provenance = 'explicit' THEN ${v7Slot('material', field)} ELSE ${v7Slot('nonterminal', field)} END`;
/**
 * Step 7's expressions for the newest event a cursor `c` would take from its target's slots row
 * `s` (NULL: none; it counts only above c.folded), and that event's time. A drain's read and fold
 * use them too, so a drain and a read see the same M.
 */
export const V7_TAKEN = { sequence: v7Taken('sequence'), at: v7Taken('at') } as const;
const V7 = `
CREATE TABLE session_state_slots (
  session_key TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  ${V7_SLOT_COLUMNS},
  PRIMARY KEY (session_key, agent_id)
) STRICT, WITHOUT ROWID;
ALTER TABLE session_watch_cursors ADD COLUMN folded INTEGER NOT NULL DEFAULT 0;
-- A drain reads folded with the rest from the pending index (the slots tell it whether to fold).
DROP INDEX session_watch_cursors_pending;
CREATE INDEX session_watch_cursors_pending ON session_watch_cursors (watcher_session_key, last_seen, provenance, notified, folded) WHERE notified > last_seen;
CREATE VIEW session_watch_cursors_effective AS
SELECT watcher_session_key, target_session_key, target_agent_id, last_seen, notified,
  CASE WHEN taken > folded THEN max(material, taken) ELSE material END AS material,
  provenance,
  CASE WHEN taken > folded THEN taken_at ELSE updated_at END AS updated_at,
  coalesce(taken > folded, 0) AS unfolded,
  coalesce(fold_to, 0) AS fold_to
FROM (
  SELECT c.watcher_session_key, c.target_session_key, c.target_agent_id, c.last_seen, c.notified, c.material, c.provenance, c.updated_at, c.folded,
    ${v7Taken('sequence')} AS taken,
    ${v7Taken('at')} AS taken_at,
    s.material_sequence AS fold_to
  FROM session_watch_cursors AS c LEFT JOIN session_state_slots AS s ON s.session_key = c.target_session_key AND s.agent_id = c.target_agent_id
);
`;

// Step 8 (R68): the change feed reads what changed, not everything pending. Every cursor write that
// changes the pair's notice (it becomes pending or not, quotes another L, or wakes otherwise) sets
// the row's `changed` to the next value of one durable counter, in the same transaction; SQLite
// commits one writer at a time, so counter order is commit order and a reader that has seen up to
// c reads `changed > c` and nothing else, through an index that holds exactly what it needs. The
// counter lives in a row of its own so that no deletion (unwatch, reset, expiry) can lower it: a
// value is never reused. A file from step 7 starts the counter at 0 with every cursor at 0: its
// pending notices reach a feed through the snapshot every subscriber starts from (R61).
const V8 = `
CREATE TABLE session_state_feed (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  change_sequence INTEGER NOT NULL CHECK (change_sequence >= 0)
) STRICT;
INSERT INTO session_state_feed (id, change_sequence) VALUES (1, 0);
ALTER TABLE session_watch_cursors ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX session_watch_cursors_changed ON session_watch_cursors (changed, last_seen, notified, provenance) WHERE changed > 0;
`;

// Step 9 (T12): who spawned a session, recorded once at its first child_spawned event and kept
// through pruning, so the tree scope never depends on retention. Backfilled from the retained
// logs: a session whose spawn event was already pruned has no row (it was already out of the tree).
const V9 = `
CREATE TABLE session_spawn_parents (
  session_key TEXT NOT NULL,
  agent_id    TEXT NOT NULL,
  parent      TEXT,
  PRIMARY KEY (session_key, agent_id)
) STRICT, WITHOUT ROWID;
INSERT INTO session_spawn_parents (session_key, agent_id, parent)
  SELECT e.session_key, e.agent_id, CASE WHEN e.actor_type = 'agent' THEN e.actor_id END
  FROM session_state_events e
  WHERE e.kind = 'child_spawned'
    AND e.sequence = (SELECT min(f.sequence) FROM session_state_events f WHERE f.kind = 'child_spawned' AND f.agent_id = e.agent_id AND f.session_key = e.session_key);
`;

/** Every schema step ever released, oldest first. Append only. */
export const MIGRATIONS: readonly MigrationStep[] = [
  { version: 1, description: 'signal log, heads, watch cursors, meta', up: (db) => db.exec(V1) },
  { version: 2, description: 'drop the per-append row counter (session_state_meta)', up: (db) => db.exec(V2) },
  { version: 3, description: 'drop the cursor updated_at index (expiry scans cursors hourly instead)', up: (db) => db.exec(V3) },
  { version: 4, description: 'cursor provenance ambient; pending index on notified > last_seen (durable pending notices)', up: (db) => db.exec(V4) },
  { version: 5, description: 'cursor key led by the target (set-based notification); watcher index', up: (db) => db.exec(V5) },
  { version: 6, description: 'pending index holds N too, so the pending read never visits the table', up: (db) => db.exec(V6) },
  { version: 7, description: 'slots keep the newest notifying events of watched targets; pending cursors are not rewritten per event (effective view)', up: (db) => db.exec(V7) },
  { version: 8, description: 'change feed: cursors carry the change sequence of their last notice change (one durable counter), indexed', up: (db) => db.exec(V8) },
  { version: 9, description: 'spawn parents: who spawned a session, kept through pruning (the tree scope)', up: (db) => db.exec(V9) },
];

/** The schema version this code writes and fully understands. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function latestVersion(steps: readonly MigrationStep[]): number {
  steps.forEach((s, i) => {
    if (s.version !== i + 1) throw new Error(`migration steps must be numbered 1, 2, 3, ...; step ${i} has version ${s.version}`);
  });
  return steps.length;
}

function isNotADatabase(error: unknown): boolean {
  return sqliteErrorCode(error) === 'SQLITE_NOTADB';
}

/**
 * Reads the file's schema version without writing. 0 means an empty file we may initialize.
 * Throws NotAStateDatabaseError or SchemaTooNewError.
 */
export function readSchemaVersion(target: SchemaTarget, path: string, supported: number = SCHEMA_VERSION): number {
  const db = connectionOf(target);
  let applicationId: number;
  let userVersion: number;
  let objects: number;
  try {
    applicationId = toSafeNumber(db.pragma('application_id'), 'application_id');
    userVersion = toSafeNumber(db.pragma('user_version'), 'user_version');
    objects = toSafeNumber(db.prepare('SELECT count(*) AS n FROM sqlite_master').get()?.['n'], 'sqlite_master count');
  } catch (error) {
    if (isNotADatabase(error)) throw new NotAStateDatabaseError(path, 'the file is not a SQLite database', { cause: error });
    throw error;
  }
  if (applicationId === APPLICATION_ID) {
    if (userVersion > supported) throw new SchemaTooNewError(path, userVersion, supported);
    return userVersion;
  }
  if (applicationId === 0 && userVersion === 0 && objects === 0) return 0;
  throw new NotAStateDatabaseError(
    path,
    applicationId === 0 ? 'it is a SQLite database of another application (it has tables but no session-state application id)' : `its SQLite application_id is ${applicationId}, not ${APPLICATION_ID}`,
  );
}

/**
 * Brings the file up to the newest step in `steps`. Reads first, so an up-to-date (or read-only)
 * file takes no write lock; otherwise one IMMEDIATE transaction re-checks the version (another
 * process may have migrated meanwhile) and applies the missing steps and both header pragmas.
 * `steps` is a parameter so tests can simulate older and newer releases.
 */
export function migrate(handle: SchemaTarget, path: string, steps: readonly MigrationStep[] = MIGRATIONS): number {
  const db = connectionOf(handle);
  const target = latestVersion(steps);
  if (readSchemaVersion(db, path, target) === target) return target;
  immediateTransaction(db, () => {
    const found = readSchemaVersion(db, path, target);
    for (const step of steps) if (step.version > found) step.up(db);
    // Header pragmas are part of the transaction: a crash leaves the old version and no half schema.
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${target}`);
  });
  return target;
}

/** Options of opening a state database read-only. */
export interface ReadOnlyOpenOptions {
  /** How long a read waits for a lock held by a writer in rollback-journal states; default 5000 ms. */
  busyTimeoutMs?: number;
}

/** Options of openStateConnectionReadOnly: the read-only options plus which driver opens the file. */
export interface ReadOnlyConnectionOptions extends ReadOnlyOpenOptions {
  /** Which SQLite driver opens the file; default 'auto' (see resolveSqliteDriver). */
  driver?: SqliteDriverChoice;
}

/**
 * Opens an existing state database for reading only, on any driver. Integers come back as bigint:
 * decode them with toSafeNumber. Throws NotAStateDatabaseError for a missing, foreign or empty file,
 * SchemaTooNewError for a file from a newer release, SqliteDriverUnavailableError for no driver.
 */
export function openStateConnectionReadOnly(path: string, options: ReadOnlyConnectionOptions = {}): SqliteConnection {
  // Outside the try: a missing driver is not a problem of the file.
  const driver = resolveSqliteDriver(options.driver ?? 'auto');
  let db: SqliteConnection;
  try {
    db = driver.open(path, { readonly: true });
  } catch (error) {
    throw new NotAStateDatabaseError(path, messageOf(error), { cause: error });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (readSchemaVersion(db, path) === 0) throw new NotAStateDatabaseError(path, 'the database is empty (never initialized)');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The same, returning better-sqlite3's own handle (the CLI's `inspect` uses its API), so it needs
 * better-sqlite3 installed. Integer columns come back as bigint.
 */
export function openStateDatabaseReadOnly(path: string, options: ReadOnlyOpenOptions = {}): BetterSqlite3Database {
  return openStateConnectionReadOnly(path, { ...options, driver: betterSqlite3Driver() }).native as BetterSqlite3Database;
}
