/**
 * Schema versioning and open errors in process (mutation/): what schema.test.ts and
 * test/harden/sqlite-edges.test.ts leave to child processes or do not pin down: which migration
 * steps run, that an up-to-date file takes no write lock, the read-only helper's busy timeout and
 * cleanup, and the R9c classification of every driver failure (openError called directly).
 */

import { accessSync, chmodSync, constants, existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { NotAStateDatabaseError, SchemaTooNewError, StateDatabaseError, StateDatabaseOpenError } from '../../src/sqlite/errors.js';
import { openError } from '../../src/sqlite/open-errors.js';
import {
  APPLICATION_ID,
  MIGRATIONS,
  SCHEMA_VERSION,
  migrate,
  openStateConnectionReadOnly,
  readSchemaVersion,
} from '../../src/sqlite/schema.js';
import { betterSqlite3Driver } from '../../src/sqlite/driver/better-sqlite3.js';
import { sqliteErrorCode } from '../../src/sqlite/driver/error-codes.js';
import type { SqliteConnection, SqliteDriver, SqliteOpenOptions } from '../../src/sqlite/driver/types.js';
import { connect, scalar, tempDir, thrown } from './helpers.js';

const dir = tempDir('mut-schema');
let fileNo = 0;
const fresh = () => join(dir, `s${fileNo++}.db`);
const Database = createRequire(import.meta.url)('better-sqlite3');

/** Three test steps that record which ran; each leaves a table behind. */
function spySteps() {
  const ran: number[] = [];
  const steps = [1, 2, 3].map((version) => ({ version, description: `t${version}`, up: (db: SqliteConnection) => (ran.push(version), db.exec(`CREATE TABLE t${version} (x)`)) }));
  return { ran, steps };
}

const header = (db: SqliteConnection) => [Number(db.pragma('application_id')), Number(db.pragma('user_version'))];

describe('migrate and readSchemaVersion (schema.ts)', () => {
  it('a new file runs every step once and gets both header pragmas; a second migrate runs nothing', () => {
    const path = fresh();
    const db = connect(path);
    const { ran, steps } = spySteps();
    expect(migrate(db, path, steps)).toBe(3);
    expect(ran).toEqual([1, 2, 3]);
    expect(header(db)).toEqual([APPLICATION_ID, 3]);
    expect(migrate(db, path, steps)).toBe(3);
    expect(ran).toEqual([1, 2, 3]);
    db.close();
  });

  it('a file at step 1 runs only the steps above it, and ends at the last', () => {
    const path = fresh();
    const db = connect(path);
    const { ran, steps } = spySteps();
    migrate(db, path, steps.slice(0, 1));
    expect(header(db)).toEqual([APPLICATION_ID, 1]);
    expect(migrate(db, path, steps)).toBe(3);
    expect(ran).toEqual([1, 2, 3]);
    expect(header(db)).toEqual([APPLICATION_ID, 3]);
    db.close();
  });

  it('a failing step rolls the whole migration back: the old version, no half schema', () => {
    const path = fresh();
    const db = connect(path);
    const { steps } = spySteps();
    migrate(db, path, steps.slice(0, 1));
    const boom = new Error('step 3 fails');
    const failing = [...steps.slice(0, 2), { version: 3, description: 'bad', up: () => { throw boom; } }];
    expect(thrown(() => migrate(db, path, failing))).toBe(boom);
    expect(header(db)).toEqual([APPLICATION_ID, 1]);
    expect(scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 't2'")).toBe(0);
    db.close();
  });

  it('an up-to-date file takes no write lock: migrate succeeds while another connection holds it', () => {
    const path = fresh();
    const db = connect(path);
    migrate(db, path);
    const holder = connect(path);
    holder.exec('BEGIN IMMEDIATE');
    db.pragma('busy_timeout = 0');
    try {
      expect(migrate(db, path)).toBe(SCHEMA_VERSION);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // A read-only connection to an up-to-date file migrates too (nothing to write).
    const ro = connect(path, { readonly: true });
    expect(migrate(ro, path)).toBe(SCHEMA_VERSION);
    ro.close();
    db.close();
  });

  it('a raw better-sqlite3 handle is accepted by migrate and readSchemaVersion', () => {
    const path = fresh();
    const raw = new Database(path);
    expect(readSchemaVersion(raw, path)).toBe(0);
    expect(migrate(raw, path)).toBe(SCHEMA_VERSION);
    expect(readSchemaVersion(raw, path)).toBe(SCHEMA_VERSION);
    expect(raw.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    raw.close();
  });

  it('readSchemaVersion: our file at, below and above the supported version', () => {
    const path = fresh();
    const db = connect(path);
    const { steps } = spySteps();
    migrate(db, path, steps.slice(0, 2));
    expect(readSchemaVersion(db, path, 2)).toBe(2);
    expect(readSchemaVersion(db, path, 3)).toBe(2);
    const e = thrown(() => readSchemaVersion(db, path, 1));
    expect(e).toBeInstanceOf(SchemaTooNewError);
    expect([e.code, e.path, e.foundVersion, e.supportedVersion]).toEqual(['schema-too-new', path, 2, 1]);
    // The default is this release's version.
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    expect(readSchemaVersion(db, path)).toBe(SCHEMA_VERSION);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(thrown(() => readSchemaVersion(db, path))).toBeInstanceOf(SchemaTooNewError);
    db.close();
  });

  it('readSchemaVersion: empty is 0 only with no id, no version and no objects; otherwise not ours', () => {
    const cases: [string, (db: SqliteConnection) => void, RegExp | undefined][] = [
      ['blank', () => {}, undefined],
      ['a version only', (db) => db.pragma('user_version = 3'), /another application/],
      ['a table only', (db) => db.exec('CREATE TABLE x (y)'), /another application/],
      ['an index-free view only', (db) => db.exec('CREATE VIEW v AS SELECT 1'), /another application/],
      ['another id', (db) => db.pragma('application_id = 7'), /application_id is 7, not 1397967665/],
    ];
    for (const [label, prepare, refused] of cases) {
      const path = fresh();
      const db = connect(path);
      prepare(db);
      if (refused === undefined) {
        expect(readSchemaVersion(db, path), label).toBe(0);
      } else {
        const e = thrown(() => readSchemaVersion(db, path));
        expect(e, label).toBeInstanceOf(NotAStateDatabaseError);
        expect([e.code, e.path]).toEqual(['not-a-state-database', path]);
        expect(e.message, label).toMatch(refused);
      }
      db.close();
    }
  });

  it('readSchemaVersion: a file that is not SQLite is NotAStateDatabaseError with the driver error as cause; other failures pass through', () => {
    const path = fresh();
    writeFileSync(path, 'plain text, long enough to fill a header...'.repeat(40));
    const db = connect(path);
    const e = thrown(() => readSchemaVersion(db, path));
    expect(e).toBeInstanceOf(NotAStateDatabaseError);
    expect(e.message).toMatch(/not a SQLite database/);
    expect(sqliteErrorCode(e.cause)).toBe('SQLITE_NOTADB');
    db.close();
    // A closed connection: not a problem of the file, so not NotAStateDatabaseError.
    const closed = connect(fresh());
    closed.close();
    const other = thrown(() => readSchemaVersion(closed, 'x'));
    expect(other).not.toBeInstanceOf(StateDatabaseError);
  });

  it('MIGRATIONS are numbered 1..SCHEMA_VERSION, each described', () => {
    expect(MIGRATIONS.map((s) => s.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    const e = thrown(() => migrate(connect(fresh()), 'x', [{ version: 1, description: '', up: () => {} }, { version: 3, description: '', up: () => {} }]));
    expect(e.message).toMatch(/numbered 1, 2, 3.*step 1 has version 3/);
  });

  // schema.test.ts builds an older release's file as MIGRATIONS.slice(0, n) ("exactly what release n
  // wrote"). A full migration cannot tell whether steps 3 and 4 ran (steps 4 and 5 rebuild the cursor
  // table, which drops its indexes), so each prefix is checked here: its tables and indexes, the
  // pending index's columns, and whether a cursor may be ambient.
  it('each prefix of MIGRATIONS writes what that release wrote', () => {
    const cursorIndexes = (db: SqliteConnection) =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'session_watch_cursors' AND sql IS NOT NULL ORDER BY name").all().map((r) => r['name']);
    const tables = (db: SqliteConnection) =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all().map((r) => r['name']);
    const pendingColumns = (db: SqliteConnection) =>
      db.prepare("SELECT name FROM pragma_index_info('session_watch_cursors_pending') ORDER BY seqno").all().map((r) => r['name']);
    const takesAmbient = (db: SqliteConnection) => {
      try {
        db.exec(
          "INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) VALUES ('w', 't', 'main', 0, 0, 0, 'ambient', 0)",
        );
        return true;
      } catch (error) {
        expect(sqliteErrorCode(error)).toBe('SQLITE_CONSTRAINT_CHECK');
        return false;
      }
    };
    const core = ['session_state_events', 'session_state_heads', 'session_watch_cursors'];
    const views = (db: SqliteConnection) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name").all().map((r) => r['name']);
    const slotTimes = (db: SqliteConnection) => db.prepare("SELECT count(*) AS n FROM pragma_table_info('session_state_slots') WHERE name LIKE '%\\_at' ESCAPE '\\'").get()?.['n'];
    const expected = [
      { tables: [...core, 'session_state_meta'].sort(), cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_target', 'session_watch_cursors_updated'], pending: ['watcher_session_key'], ambient: false },
      { tables: core, cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_target', 'session_watch_cursors_updated'], pending: ['watcher_session_key'], ambient: false },
      { tables: core, cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_target'], pending: ['watcher_session_key'], ambient: false },
      { tables: core, cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_target'], pending: ['watcher_session_key'], ambient: true },
      { tables: core, cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_watcher'], pending: ['watcher_session_key', 'last_seen', 'provenance'], ambient: true },
      { tables: core, cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_watcher'], pending: ['watcher_session_key', 'last_seen', 'provenance', 'notified'], ambient: true },
      { tables: [...core, 'session_state_slots'].sort(), cursorIndexes: ['session_watch_cursors_pending', 'session_watch_cursors_watcher'], pending: ['watcher_session_key', 'last_seen', 'provenance', 'notified', 'folded'], ambient: true, views: ['session_watch_cursors_effective'], slots: 4 },
      // Step 8 (R68): the change counter's table and the changed index.
      { tables: [...core, 'session_state_feed', 'session_state_slots'].sort(), cursorIndexes: ['session_watch_cursors_changed', 'session_watch_cursors_pending', 'session_watch_cursors_watcher'], pending: ['watcher_session_key', 'last_seen', 'provenance', 'notified', 'folded'], ambient: true, views: ['session_watch_cursors_effective'], slots: 4 },      // Step 9 (T12): the durable spawn parents.
      { tables: [...core, 'session_spawn_parents', 'session_state_feed', 'session_state_slots'].sort(), cursorIndexes: ['session_watch_cursors_changed', 'session_watch_cursors_pending', 'session_watch_cursors_watcher'], pending: ['watcher_session_key', 'last_seen', 'provenance', 'notified', 'folded'], ambient: true, views: ['session_watch_cursors_effective'], slots: 4 },
    ];
    expect(expected).toHaveLength(SCHEMA_VERSION);
    expected.forEach((release, i) => {
      const path = fresh();
      const db = connect(path);
      expect(migrate(db, path, MIGRATIONS.slice(0, i + 1))).toBe(i + 1);
      const found = { tables: tables(db), cursorIndexes: cursorIndexes(db), pending: pendingColumns(db), ambient: takesAmbient(db) };
      // Step 7 added the effective view and the slots table (four slot times).
      const { views: wantViews = [], slots: wantSlots = 0, ...rest } = release as typeof release & { views?: string[]; slots?: number };
      expect(found, `release ${i + 1}`).toEqual(rest);
      expect([views(db), Number(slotTimes(db))], `release ${i + 1}`).toEqual([wantViews, wantSlots]);
      db.close();
    });
  });
});

describe('openStateConnectionReadOnly (schema.ts)', () => {
  const ourFile = () => {
    const path = fresh();
    const db = connect(path);
    migrate(db, path);
    db.close();
    return path;
  };

  it('waits busyTimeoutMs for a lock: 5000 by default, floored, never negative', () => {
    const path = ourFile();
    for (const [given, expected] of [[undefined, 5000], [250.9, 250], [-40, 0], [0, 0]] as const) {
      const db = openStateConnectionReadOnly(path, { driver: 'better-sqlite3', ...(given === undefined ? {} : { busyTimeoutMs: given }) });
      expect(Number(db.pragma('busy_timeout')), String(given)).toBe(expected);
      db.close();
    }
    // The default driver is auto.
    const auto = openStateConnectionReadOnly(path);
    expect(auto.driver).toBe('better-sqlite3');
    auto.close();
  });

  it('a driver that cannot open is NotAStateDatabaseError with its message (or its value) and the cause', () => {
    const error = new Error('no such file');
    const e1 = thrown(() => openStateConnectionReadOnly('/a.db', { driver: { name: 'x', open: () => { throw error; } } }));
    expect(e1).toBeInstanceOf(NotAStateDatabaseError);
    expect([e1.path, e1.cause, e1.message]).toEqual(['/a.db', error, '/a.db is not a session-state database: no such file']);
    const e2 = thrown(() => openStateConnectionReadOnly('/b.db', { driver: { name: 'x', open: () => { throw 'gone'; } } }));
    expect([e2.constructor, e2.message, e2.cause]).toEqual([NotAStateDatabaseError, '/b.db is not a session-state database: gone', 'gone']);
  });

  it('opens read-only; a refused file is closed again before the error is thrown', () => {
    const opened: { options: SqliteOpenOptions | undefined; closed: boolean }[] = [];
    const tracking: SqliteDriver = {
      name: 'tracking',
      open: (path, options) => {
        const c = betterSqlite3Driver().open(path, options);
        const entry = { options, closed: false };
        opened.push(entry);
        return { ...c, pragma: c.pragma, prepare: c.prepare, close: () => ((entry.closed = true), c.close()) };
      },
    };
    const good = openStateConnectionReadOnly(ourFile(), { driver: tracking });
    expect(opened).toEqual([{ options: { readonly: true }, closed: false }]);
    good.close();
    const blank = fresh();
    connect(blank).close();
    const e = thrown(() => openStateConnectionReadOnly(blank, { driver: tracking }));
    expect(e).toBeInstanceOf(NotAStateDatabaseError);
    expect(e.message).toMatch(/never initialized/);
    expect(opened[1]).toEqual({ options: { readonly: true }, closed: true });
    const tooNew = ourFile();
    const w = connect(tooNew);
    w.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    w.close();
    expect(thrown(() => openStateConnectionReadOnly(tooNew, { driver: tracking }))).toBeInstanceOf(SchemaTooNewError);
    expect(opened[2]?.closed).toBe(true);
  });
});

describe('R9c openError (open-errors.ts), every branch in process', () => {
  const sqliteError = (code: string, message = `driver says ${code}`) => Object.assign(new Error(message), { code });
  const here = join(dir, 'state.db');

  it("the kit's own errors pass through as they are", () => {
    for (const own of [new NotAStateDatabaseError('p', 'r'), new SchemaTooNewError('p', 9, 5), new StateDatabaseError('corrupt-state', 'x')]) {
      expect(openError(here, own)).toBe(own);
    }
  });

  it('busy: BUSY and LOCKED, extended codes too, even when the directory is missing', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE']) {
      for (const path of [here, join(dir, 'missing', 'x.db')]) {
        const cause = sqliteError(code);
        const e = openError(path, cause) as StateDatabaseOpenError;
        expect(e, code).toBeInstanceOf(StateDatabaseOpenError);
        expect([e.code, e.path, e.cause], code).toEqual(['busy', path, cause]);
        expect(e.hint).toMatch(/busyTimeoutMs/);
        expect(e.message).toContain(`driver says ${code}`);
      }
    }
    // node:sqlite's spelling (a number) classifies the same.
    expect(openError(here, Object.assign(new Error('locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 })).code).toBe('busy');
  });

  it('corrupt: CORRUPT (any extended code) and NOTADB', () => {
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_NOTADB']) {
      const cause = sqliteError(code);
      const e = openError(join(dir, 'missing', 'x.db'), cause) as StateDatabaseOpenError;
      expect([e.code, e.hint.includes('backup'), e.cause], code).toEqual(['corrupt', true, cause]);
      expect(e.message).toContain(`driver says ${code}`);
    }
  });

  it('missing-directory: any other failure in a directory that does not exist, naming the absolute directory', () => {
    const relative = join('no-such-dir-for-ssk-mutation', 'x.db');
    for (const cause of [sqliteError('SQLITE_CANTOPEN'), sqliteError('SQLITE_IOERR'), new Error('odd'), 'a string']) {
      const e = openError(relative, cause) as StateDatabaseOpenError;
      expect(e.code).toBe('missing-directory');
      expect(e.path).toBe(relative);
      expect(e.cause).toBe(cause);
      expect(e.hint).toContain(resolve('no-such-dir-for-ssk-mutation'));
      expect(e.message).toContain(`the directory ${resolve('no-such-dir-for-ssk-mutation')} does not exist`);
    }
  });

  // /proc/sys refuses writes even to root (these tests may run as root, for whom mode bits do not).
  const readOnlyDir = '/proc/sys';
  const roAvailable = existsSync(readOnlyDir) && (() => {
    try {
      accessSync(readOnlyDir, constants.W_OK);
      return false;
    } catch {
      return true;
    }
  })();

  it.skipIf(!roAvailable)('read-only: READONLY, CANTOPEN, PERM and AUTH where the directory (or the file) cannot be written', () => {
    for (const code of ['SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_CANTOPEN', 'SQLITE_CANTOPEN_ISDIR', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_AUTH_USER']) {
      const path = join(readOnlyDir, 'state.db');
      const cause = sqliteError(code);
      const e = openError(path, cause) as StateDatabaseOpenError;
      expect([e.code, e.path, e.cause], code).toEqual(['read-only', path, cause]);
      expect(e.hint).toBe(`the store needs to write the file and its -wal and -shm files beside it: make ${readOnlyDir} writable by this user, or choose a writable path`);
      expect(e.message).toContain(`driver says ${code}`);
    }
    // An existing file: the hint names it too.
    const existing = join(readOnlyDir, 'kernel');
    expect((openError(join(existing, 'ostype'), sqliteError('SQLITE_CANTOPEN')) as StateDatabaseOpenError).hint).toContain(`make ${join(existing, 'ostype')} and ${existing} writable`);
    // Another code in the same place is cannot-open.
    expect(openError(join(readOnlyDir, 'state.db'), sqliteError('SQLITE_IOERR')).code).toBe('cannot-open');
  });

  // An existing path this process may not write, in a directory it may write and enter: a mode-0444
  // file for a user whom mode bits bind; for root, /proc/sys (refused to root too) in /proc (not).
  const canAccess = (p: string, mode: number) => {
    try {
      accessSync(p, mode);
      return true;
    } catch {
      return false;
    }
  };
  const readOnlyFile = join(dir, 'read-only-file.db');
  writeFileSync(readOnlyFile, '');
  chmodSync(readOnlyFile, 0o444);
  const unwritableEntry = [readOnlyFile, '/proc/sys'].find(
    (p) => existsSync(p) && !canAccess(p, constants.W_OK) && canAccess(dirname(p), constants.W_OK | constants.X_OK),
  );

  it.skipIf(unwritableEntry === undefined)('read-only: an existing file that cannot be written, in a directory that can', () => {
    const path = unwritableEntry!;
    for (const code of ['SQLITE_READONLY', 'SQLITE_CANTOPEN']) {
      const cause = sqliteError(code);
      const e = openError(path, cause) as StateDatabaseOpenError;
      expect([e.code, e.path, e.cause], code).toEqual(['read-only', path, cause]);
    }
    // The same code for a path that does not exist there is cannot-open (the directory is writable).
    expect(openError(join(dirname(path), 'no-such-entry.db'), sqliteError('SQLITE_CANTOPEN')).code).toBe('cannot-open');
  });

  it('cannot-open: a permission-like code where everything is writable, or any other code; the detail is the driver message', () => {
    for (const code of ['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_IOERR', 'SQLITE_FULL']) {
      const cause = sqliteError(code, `message of ${code}`);
      const e = openError(here, cause) as StateDatabaseOpenError;
      expect([e.code, e.path, e.cause], code).toEqual(['cannot-open', here, cause]);
      expect(e.message).toBe(`cannot open ${here}: message of ${code}; check that the path names a regular file this process may read and write`);
    }
    // An existing writable file: still cannot-open.
    writeFileSync(here, '');
    expect(openError(here, sqliteError('SQLITE_CANTOPEN')).code).toBe('cannot-open');
    // A thrown non-Error: its string is the detail.
    expect(openError(here, 'just text').message).toBe(`cannot open ${here}: just text; check that the path names a regular file this process may read and write`);
  });
});
