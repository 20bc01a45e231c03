/**
 * The on-disk schema: STRICT tables with the documented columns, versioned migrations (an older
 * file opens and is migrated, a newer one is refused), files that are not ours are refused, and
 * the read-only helper the CLI uses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APPLICATION_ID,
  MIGRATIONS,
  NotAStateDatabaseError,
  SCHEMA_VERSION,
  SchemaTooNewError,
  TABLES,
  availableSqliteDrivers,
  createSqliteStore,
  migrate,
  openStateConnectionReadOnly,
  openStateDatabaseReadOnly,
  toSafeNumber,
  type MigrationStep,
  type SqliteStoreOptions,
} from '../../src/sqlite/index.js';
import { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { A, CHILD, COORD, T0, human, spawn, PARENT } from '../contract/harness.js';
import { TEST_DRIVER, connect, rows, scalar, tempDir } from './helpers.js';
import { silentLogger } from '../../src/shared/logger.js';

const dir = tempDir('schema');
let fileNo = 0;
const freshPath = () => join(dir, `db${fileNo++}.sqlite`);
/** A new, never-initialized SQLite file. */
const empty = () => {
  const path = freshPath();
  connect(path).close();
  return path;
};
const open = (path: string, migrations?: readonly MigrationStep[]) =>
  new SqliteStore({ path, now: () => T0, logger: silentLogger, driver: TEST_DRIVER }, migrations ? { migrations } : {});
const create = (options: Partial<SqliteStoreOptions>) => createSqliteStore({ now: () => T0, logger: silentLogger, driver: TEST_DRIVER, ...options });

function header(path: string) {
  const db = connect(path, { readonly: true });
  try {
    return { applicationId: Number(db.pragma('application_id')), userVersion: Number(db.pragma('user_version')) };
  } finally {
    db.close();
  }
}

function expectError<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected ${type.name}`);
}

/** The cursor columns every release had (step 7 added `folded`). */
const CURSOR_V1_COLUMNS = 'watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at';

/** A file exactly as release `release` wrote it, holding `events` events of CHILD and their head. */
function releaseFile(release: number, events: number): { path: string; raw: ReturnType<typeof connect> } {
  const path = freshPath();
  const raw = connect(path);
  migrate(raw, path, MIGRATIONS.slice(0, release));
  const insert = raw.prepare(
    "INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, 'main', 'human_direct_message', 'human', ?, ?, 's')",
  );
  for (let i = 0; i < events; i++) insert.run(CHILD, T0, T0);
  raw.prepare("INSERT INTO session_state_heads VALUES (?, 'main', ?, 0, ?)").run(CHILD, events, T0);
  return { path, raw };
}

describe('sqlite schema', () => {
  it('creates STRICT tables with exactly the documented columns, marked with our application id and version', () => {
    const path = freshPath();
    open(path).close();
    expect(header(path)).toEqual({ applicationId: APPLICATION_ID, userVersion: SCHEMA_VERSION });
    const db = connect(path, { readonly: true });
    for (const table of Object.values(TABLES)) {
      const info = db.prepare('SELECT strict FROM pragma_table_list WHERE name = ?').get(table.name);
      expect(Number(info?.['strict']), table.name).toBe(1);
      const columns = (db.prepare(`PRAGMA table_info(${table.name})`).all() as { name: string }[]).map((c) => c.name);
      expect(columns).toEqual([...table.columns]);
    }
    const indexes = (db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(indexes).toEqual([
      'session_state_events_identity',
      'session_state_events_occurred',
      'session_watch_cursors_changed',
      'session_watch_cursors_pending',
      'session_watch_cursors_watcher',
    ]);
    // STRICT really is on: a text in an integer column is refused.
    const writer = connect(path);
    expect(() => writer.prepare("INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES ('k', 'a', 'x', 0, 0)").run()).toThrow(/cannot store TEXT value in INTEGER column/);
    writer.close();
    db.close();
  });

  it('opens a file made by an older release and migrates it forward once, keeping its data', () => {
    const path = freshPath();
    const v1 = open(path);
    v1.record(spawn());
    v1.record(human());
    const pending = v1.pendingNotices(PARENT);
    v1.close();
    // A later release adds step 2 (a column). Running it twice would fail, so "once" is checked too.
    const v2: MigrationStep = {
      version: SCHEMA_VERSION + 1,
      description: 'test: watcher store path',
      up: (db) => db.exec('ALTER TABLE session_watch_cursors ADD COLUMN watcher_store_path TEXT'),
    };
    const upgraded = open(path, [...MIGRATIONS, v2]);
    expect(header(path).userVersion).toBe(SCHEMA_VERSION + 1);
    expect(upgraded.stateVersion(CHILD, A)).toBe(2);
    expect(upgraded.pendingNotices(PARENT)).toEqual(pending); // read from the file, through the new schema (R29)
    upgraded.close();
    const again = open(path, [...MIGRATIONS, v2]);
    expect(again.stateVersion(CHILD, A)).toBe(2);
    again.close();
  });

  it('migrates a version-1 file (with the row counter table) to the current schema: the table and the cursor updated_at index go, rows, cursors and the cap keep working', () => {
    const { path, raw } = releaseFile(1, 4);
    raw.prepare("INSERT INTO session_watch_cursors VALUES (?, ?, 'main', 2, 4, 4, 'explicit', ?)").run(COORD, CHILD, T0);
    raw.prepare("UPDATE session_state_meta SET value = 4 WHERE name = 'event_count'").run();
    raw.close();
    expect(header(path)).toEqual({ applicationId: APPLICATION_ID, userVersion: 1 });

    const store = create({ path, maxRows: 3 }); // opening migrates and prunes (R29, R41)
    expect(header(path).userVersion).toBe(SCHEMA_VERSION);
    const db = connect(path, { readonly: true });
    expect(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'session_state_meta'")).toBe(0);
    expect(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'session_watch_cursors_updated'")).toBe(0);
    db.close();
    expect(store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(store.eventCount()).toBe(3);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges).toMatchObject({ historyGap: true, earliestAvailableSequence: 2 });
    expect(store.record(human())?.sequence).toBe(5); // R7: AUTOINCREMENT carried over
    store.close();
  });

  it('migrates a version-3 file to step 4: cursor rows kept, ambient allowed, the pending index on notified > last_seen, pending notices unchanged', () => {
    const path = freshPath();
    const raw = connect(path);
    migrate(raw, path, MIGRATIONS.slice(0, 3)); // exactly what release 3 wrote
    raw.prepare("INSERT INTO session_state_heads VALUES (?, 'main', 9, 0, ?)").run(CHILD, T0);
    raw.prepare("INSERT INTO session_watch_cursors VALUES (?, ?, 'main', 2, 4, 9, 'explicit', ?)").run(COORD, CHILD, T0); // pending, M > N
    raw.prepare("INSERT INTO session_watch_cursors VALUES (?, ?, 'main', 9, 9, 9, 'spawn', ?)").run(PARENT, CHILD, T0); // settled
    expect(() => raw.prepare("INSERT INTO session_watch_cursors VALUES ('agent:main:x', ?, 'main', 0, 0, 0, 'ambient', ?)").run(CHILD, T0)).toThrow(/CHECK/);
    const before = rows(raw, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`);
    raw.close();
    expect(header(path).userVersion).toBe(3);

    const store = open(path);
    expect(header(path).userVersion).toBe(SCHEMA_VERSION);
    const db = connect(path);
    expect(rows(db, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`)).toEqual(before);
    const pendingIndex = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'session_watch_cursors_pending'").get() as { sql: string };
    expect(pendingIndex.sql).toMatch(/WHERE notified > last_seen$/);
    db.prepare(`INSERT INTO session_watch_cursors (${CURSOR_V1_COLUMNS}) VALUES ('agent:main:x', ?, 'main', 0, 0, 0, 'ambient', ?)`).run(CHILD, T0);
    expect(() => db.prepare(`INSERT INTO session_watch_cursors (${CURSOR_V1_COLUMNS}) VALUES ('agent:main:y', ?, 'main', 0, 0, 0, 'group', ?)`).run(CHILD, T0)).toThrow(/CHECK/);
    db.close();
    // The notice pending before the migration is pending after it, quoting the same L (R20, R29).
    expect(store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([4]); // R28 follow-up
    store.close();
  });

  it('migrates a version-5 file to step 6: the pending index holds N, so a watcher\'s notices are read from it alone; same rows, same notices (R20, R26)', () => {
    const path = freshPath();
    const raw = connect(path);
    migrate(raw, path, MIGRATIONS.slice(0, 5)); // exactly what release 5 wrote
    raw.prepare("INSERT INTO session_state_heads VALUES (?, 'main', 9, 0, ?)").run(CHILD, T0);
    raw.prepare("INSERT INTO session_watch_cursors VALUES (?, ?, 'main', 2, 4, 9, 'explicit', ?)").run(COORD, CHILD, T0); // pending, M > N
    raw.prepare("INSERT INTO session_watch_cursors VALUES (?, ?, 'main', 9, 9, 9, 'spawn', ?)").run(PARENT, CHILD, T0); // settled
    const before = rows(raw, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`);
    const columnsOf = (db: ReturnType<typeof connect>) => rows(db, "SELECT name FROM pragma_index_info('session_watch_cursors_pending') ORDER BY seqno").map((r) => r['name']);
    expect(columnsOf(raw)).toEqual(['watcher_session_key', 'last_seen', 'provenance']);
    raw.close();

    const store = open(path);
    expect(header(path).userVersion).toBe(SCHEMA_VERSION);
    const db = connect(path);
    expect(columnsOf(db)).toEqual(['watcher_session_key', 'last_seen', 'provenance', 'notified', 'folded']); // step 7 appends folded
    expect(rows(db, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`)).toEqual(before);
    db.close();
    expect(store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([4]); // R28 follow-up
    store.close();
  });

  it('migrates a version-7 file to step 8 (R68): its pending notices reach a feed through the first snapshot, and changes after it through the change sequence', async () => {
    const { path, raw } = releaseFile(7, 9);
    raw.prepare(`INSERT INTO session_watch_cursors (${CURSOR_V1_COLUMNS}, folded) VALUES (?, ?, 'main', 2, 4, 9, 'explicit', ?, 9)`).run(COORD, CHILD, T0); // pending
    raw.prepare(`INSERT INTO session_watch_cursors (${CURSOR_V1_COLUMNS}, folded) VALUES (?, ?, 'main', 9, 9, 9, 'spawn', ?, 9)`).run(PARENT, CHILD, T0); // settled
    const before = rows(raw, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`);
    raw.close();
    expect(header(path).userVersion).toBe(7);

    const store = open(path);
    expect(header(path).userVersion).toBe(SCHEMA_VERSION);
    const db = connect(path);
    expect(rows(db, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`)).toEqual(before);
    expect(rows(db, 'SELECT changed FROM session_watch_cursors').map((r) => Number(r['changed']))).toEqual([0, 0]);
    expect(scalar(db, 'SELECT change_sequence FROM session_state_feed')).toBe(0);
    db.close();
    // A feed's first read: position 0 and the old notice in the snapshot; no change yet.
    const first = store.readPending({ snapshot: 'all' });
    expect(first).toEqual({ position: '0', changes: [], snapshot: [{ watcherSessionKey: COORD, targetSessionKey: CHILD, targetAgentId: A, lastSeenSequence: 2, wake: 'immediate' }] });
    // The drain acks it with its follow-up (R28): one change, at change sequence 1.
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    const next = store.readPending({ since: first.position });
    expect(next.position).toBe('1');
    expect(next.changes).toEqual([{ watcherSessionKey: COORD, targetSessionKey: CHILD, targetAgentId: A, lastSeenSequence: 4, wake: 'immediate', pending: true }]);
    store.close();
  });

  it('migrates a version-6 file to step 7: its cursors read exactly as stored, and a pending one takes the next event from its slots (R15, R28)', () => {
    const { path, raw } = releaseFile(6, 9);
    raw.prepare(`INSERT INTO session_watch_cursors (${CURSOR_V1_COLUMNS}) VALUES (?, ?, 'main', 2, 4, 9, 'explicit', ?)`).run(COORD, CHILD, T0); // pending, M > N
    raw.prepare(`INSERT INTO session_watch_cursors (${CURSOR_V1_COLUMNS}) VALUES (?, ?, 'main', 9, 9, 9, 'spawn', ?)`).run(PARENT, CHILD, T0); // settled
    const before = rows(raw, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors ORDER BY watcher_session_key`);
    raw.close();

    const store = open(path);
    expect(header(path).userVersion).toBe(SCHEMA_VERSION);
    const db = connect(path);
    // Empty slots carry nothing: the view shows every cursor as stored.
    expect(rows(db, `SELECT ${CURSOR_V1_COLUMNS} FROM session_watch_cursors_effective ORDER BY watcher_session_key`)).toEqual(before);
    expect(store.cursor(COORD, CHILD, A)).toMatchObject({ lastSeenSequence: 2, notifiedSequence: 4, materialSequence: 9, updatedAt: T0 });
    const next = store.record(human())!; // PARENT becomes pending by a write, COORD (pending) through the head
    expect(rows(db, "SELECT material FROM session_watch_cursors WHERE watcher_session_key = ?", COORD)).toEqual([{ material: 9 }]);
    db.close();
    expect(store.cursor(COORD, CHILD, A)).toMatchObject({ lastSeenSequence: 2, notifiedSequence: 4, materialSequence: next.sequence });
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(store.cursor(COORD, CHILD, A)).toMatchObject({ lastSeenSequence: 4, notifiedSequence: next.sequence, materialSequence: next.sequence });
    expect(store.drainNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([4]); // R28 follow-up
    expect(store.drainNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([9]);
    store.close();
  });

  it('refuses a file from a newer release with a typed error and leaves it untouched', () => {
    const path = freshPath();
    open(path).close();
    const db = connect(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 3}`);
    db.close();
    const before = readFileSync(path);
    const error = expectError(() => create({ path }), SchemaTooNewError);
    expect(error.code).toBe('schema-too-new');
    expect(error.foundVersion).toBe(SCHEMA_VERSION + 3);
    expect(error.supportedVersion).toBe(SCHEMA_VERSION);
    expect(error.message).toMatch(/upgrade session-state-kit/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expectError(() => openStateConnectionReadOnly(path, { driver: TEST_DRIVER }), SchemaTooNewError);
    // An older release (knowing fewer steps) refuses today's file the same way.
    const futureOnly = freshPath();
    open(futureOnly, [...MIGRATIONS, { version: SCHEMA_VERSION + 1, description: 'test', up: () => {} }]).close();
    expectError(() => open(futureOnly), SchemaTooNewError);
  });

  it('refuses files that are not session-state databases, and initializes empty ones', () => {
    const garbage = freshPath();
    writeFileSync(garbage, 'this is a text file, not a database, and it is long enough to have a header......'.repeat(20));
    const e1 = expectError(() => create({ path: garbage }), NotAStateDatabaseError);
    expect(e1.code).toBe('not-a-state-database');
    expect(e1.message).toMatch(/not a SQLite database/);

    const foreign = freshPath();
    const other = connect(foreign);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER)');
    other.close();
    expect(expectError(() => create({ path: foreign }), NotAStateDatabaseError).message).toMatch(/another application/);
    const check = connect(foreign);
    expect(Number(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'session%'").get()?.['n'])).toBe(0);
    check.close();

    const otherApp = freshPath();
    const o = connect(otherApp);
    o.pragma('application_id = 42');
    o.close();
    expect(expectError(() => create({ path: otherApp }), NotAStateDatabaseError).message).toMatch(/application_id is 42/);

    const blank = freshPath();
    writeFileSync(blank, '');
    const store = create({ path: blank });
    expect(store.record(human())?.sequence).toBe(1);
    store.close();
  });

  it('opens read-only for other tools on the test driver: reads work, writes are refused, integers are exact bigints', () => {
    const path = freshPath();
    const s = open(path);
    s.record(human());
    s.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    s.close();
    const db = openStateConnectionReadOnly(path, { driver: TEST_DRIVER });
    const head = db.prepare(`SELECT last_sequence FROM ${TABLES.heads.name} WHERE session_key = ?`).get(CHILD);
    expect(typeof head?.['last_sequence']).toBe('bigint');
    expect(toSafeNumber(head?.['last_sequence'], 'last_sequence')).toBe(1);
    expect(() => db.prepare(`DELETE FROM ${TABLES.cursors.name}`).run()).toThrow(/readonly/);
    db.close();
    expectError(() => openStateConnectionReadOnly(join(dir, 'missing.db'), { driver: TEST_DRIVER }), NotAStateDatabaseError);
    expect(expectError(() => openStateConnectionReadOnly(empty(), { driver: TEST_DRIVER }), NotAStateDatabaseError).message).toMatch(/never initialized/);
  });

  // The CLI's `inspect` uses better-sqlite3's own API through this helper: it exists where better-sqlite3 loads.
  it.skipIf(!availableSqliteDrivers().includes('better-sqlite3'))('openStateDatabaseReadOnly hands out a read-only better-sqlite3 handle with bigint integers', () => {
    const path = freshPath();
    const s = open(path);
    s.record(human());
    s.close();
    const db = openStateDatabaseReadOnly(path);
    expect(db.readonly).toBe(true);
    expect(db.prepare(`SELECT last_sequence FROM ${TABLES.heads.name}`).pluck().get()).toBe(1n);
    expect(() => db.prepare(`DELETE FROM ${TABLES.cursors.name}`).run()).toThrow(/readonly/);
    db.close();
    expectError(() => openStateDatabaseReadOnly(join(dir, 'missing.db')), NotAStateDatabaseError);
    expectError(() => openStateDatabaseReadOnly(empty()), NotAStateDatabaseError);
  });

  it('migration steps must be numbered 1, 2, 3, ...', () => {
    expect(() => open(freshPath(), [{ version: 2, description: 'gap', up: () => {} }])).toThrow(/numbered/);
  });
});
