/**
 * The driver seam (src/sqlite/driver): every difference between better-sqlite3, node:sqlite and
 * bun:sqlite that the adapter depends on, tested against each driver this runtime can load. Each
 * hazard is shown twice: what the driver does on its own (so the test proves the difference is
 * real), and that the seam answers the same on every driver.
 *
 * The main suite (Node 20) covers better-sqlite3; runtimes/run.sh runs this file on Node 22
 * (node:sqlite) and Bun (bun:sqlite).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidationError } from '../../src/core/index.js';
import {
  APPLICATION_ID,
  SCHEMA_VERSION,
  SqliteDriverUnavailableError,
  UnsafeIntegerError,
  availableSqliteDrivers,
  createSqliteStore,
  immediateTransaction,
  readTransaction,
  resolveSqliteDriver,
  sqliteConnection,
  sqliteErrorCode,
  toSafeNumber,
  type SqlValue,
  type SqliteConnection,
  type SqliteDriver,
  type SqliteDriverName,
} from '../../src/sqlite/index.js';
import { sqliteCodeName } from '../../src/sqlite/driver/error-codes.js';
import { loadSqliteDriver } from '../../src/sqlite/driver/resolve.js';
import { silentLogger } from '../../src/shared/logger.js';
import { A, CHILD, COORD, T0, human } from '../contract/harness.js';
import { bundleFixture } from './bundle.js';
import { tempDir, thrown } from './helpers.js';

const dir = tempDir('driver');
let fileNo = 0;
const freshPath = () => join(dir, `d${fileNo++}.db`);
const DRIVERS = availableSqliteDrivers();
const isBun = process.versions['bun'] !== undefined;

// ---------------------------------------------------------------------------------------------
// The drivers on their own (no seam): what the seam has to hide.

interface NativeBehaviour {
  /** An integer past 2^53 - 1, read with the driver's defaults. */
  bigByDefault: () => unknown;
  /** run() and a no-row get() with the driver's big-integer mode on. */
  shapes: () => { run: { changes: unknown; lastInsertRowid: unknown }; noRow: unknown };
}

const requireHere = createRequire(import.meta.url);
const builtin = (id: string) => (process as unknown as { getBuiltinModule: (id: string) => Record<string, new (...args: unknown[]) => any> }).getBuiltinModule(id);
const BIG = 'SELECT 9007199254740993 AS v';

const NATIVE: Record<SqliteDriverName, NativeBehaviour> = {
  'better-sqlite3': {
    bigByDefault: () => {
      const Database = requireHere('better-sqlite3') as new (path: string) => any;
      const db = new Database(':memory:');
      try {
        return db.prepare(BIG).get().v;
      } finally {
        db.close();
      }
    },
    shapes: () => {
      const Database = requireHere('better-sqlite3') as new (path: string) => any;
      const db = new Database(':memory:');
      db.defaultSafeIntegers(true);
      db.exec('CREATE TABLE t (x INTEGER)');
      const out = { run: db.prepare('INSERT INTO t VALUES (1)').run(), noRow: db.prepare('SELECT x FROM t WHERE x = 2').get() };
      db.close();
      return out;
    },
  },
  'node:sqlite': {
    bigByDefault: () => {
      const db = new (builtin('node:sqlite')['DatabaseSync']!)(':memory:');
      try {
        return db.prepare(BIG).get().v;
      } finally {
        db.close();
      }
    },
    shapes: () => {
      const db = new (builtin('node:sqlite')['DatabaseSync']!)(':memory:');
      db.exec('CREATE TABLE t (x INTEGER)');
      const insert = db.prepare('INSERT INTO t VALUES (1)');
      const select = db.prepare('SELECT x FROM t WHERE x = 2');
      insert.setReadBigInts(true);
      select.setReadBigInts(true);
      const out = { run: insert.run(), noRow: select.get() };
      db.close();
      return out;
    },
  },
  'bun:sqlite': {
    bigByDefault: () => {
      const db = new (builtin('bun:sqlite')['Database']!)(':memory:');
      try {
        return db.prepare(BIG).get().v;
      } finally {
        db.close();
      }
    },
    shapes: () => {
      const db = new (builtin('bun:sqlite')['Database']!)(':memory:', { safeIntegers: true });
      db.exec('CREATE TABLE t (x INTEGER)');
      const out = { run: db.prepare('INSERT INTO t VALUES (1)').run(), noRow: db.prepare('SELECT x FROM t WHERE x = 2').get() };
      db.close();
      return out;
    },
  },
};

/** What each driver does on its own, measured here on 2026-12 versions (better-sqlite3 12.11, Node 22.23, Bun 1.4.5). */
const EXPECTED: Record<
  SqliteDriverName,
  {
    bigByDefault: { value: number } | { throws: RegExp };
    run: { changes: unknown; lastInsertRowid: unknown };
    noRow: unknown;
    loneSurrogateBytes: string;
    boundNumberType: 'real' | 'integer';
  }
> = {
  // Rounds silently; binds a lone surrogate as its 3-byte (invalid UTF-8) encoding, which reads back as three U+FFFD.
  'better-sqlite3': { bigByDefault: { value: 2 ** 53 }, run: { changes: 1, lastInsertRowid: 1n }, noRow: undefined, loneSurrogateBytes: '61EDA08062', boundNumberType: 'real' },
  // Refuses to read it; with big integers on, `changes` is a bigint too; binds U+FFFD.
  'node:sqlite': { bigByDefault: { throws: /too large/i }, run: { changes: 1n, lastInsertRowid: 1n }, noRow: undefined, loneSurrogateBytes: '61EFBFBD62', boundNumberType: 'real' },
  // Rounds silently; "no row" is null; binds U+FFFD.
  'bun:sqlite': { bigByDefault: { value: 2 ** 53 }, run: { changes: 1, lastInsertRowid: 1n }, noRow: null, loneSurrogateBytes: '61EFBFBD62', boundNumberType: 'integer' },
};

/** A driver that records every statement it runs and every value bound, around a real one. */
function spyDriver(inner: SqliteDriver): { driver: SqliteDriver; calls: { sql: string; params: SqlValue[] }[] } {
  const calls: { sql: string; params: SqlValue[] }[] = [];
  const driver: SqliteDriver = {
    name: `spy(${inner.name})`,
    open(path, options) {
      const c = inner.open(path, options);
      const log = (sql: string, params: SqlValue[]) => void calls.push({ sql, params });
      return {
        driver: c.driver,
        native: c.native,
        get inTransaction() {
          return c.inTransaction;
        },
        prepare(sql) {
          const s = c.prepare(sql);
          return {
            run: (...p) => (log(sql, p), s.run(...p)),
            get: (...p) => (log(sql, p), s.get(...p)),
            all: (...p) => (log(sql, p), s.all(...p)),
          };
        },
        exec: (sql) => (log(sql, []), c.exec(sql)),
        pragma: (sql) => (log(`PRAGMA ${sql}`, []), c.pragma(sql)),
        close: () => c.close(),
      };
    },
  };
  return { driver, calls };
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

it('this runtime loads at least one driver, and the one expected here', () => {
  const expected: SqliteDriverName = isBun ? 'bun:sqlite' : DRIVERS.includes('better-sqlite3') ? 'better-sqlite3' : 'node:sqlite';
  expect(DRIVERS).toContain(expected);
  expect(resolveSqliteDriver('auto').name).toBe(expected);
  expect(resolveSqliteDriver().name).toBe(expected);
});

describe.each(DRIVERS)('driver %s', (name) => {
  const driver = loadSqliteDriver(name);
  const expected = EXPECTED[name];

  it('integers: the driver alone rounds or refuses past 2^53; through the seam they are exact bigints, decoded or refused by toSafeNumber', () => {
    const native = NATIVE[name];
    if ('value' in expected.bigByDefault) expect(native.bigByDefault()).toBe(expected.bigByDefault.value);
    else expect(() => native.bigByDefault()).toThrow(expected.bigByDefault.throws);

    const db = driver.open(':memory:');
    const row = db.prepare('SELECT 9007199254740993 AS big, -9007199254740993 AS neg, 42 AS small, 2.5 AS real, ? + 1 AS bound').get(9007199254740992n)!;
    expect(row).toEqual({ big: 9007199254740993n, neg: -9007199254740993n, small: 42n, real: 2.5, bound: 9007199254740993n });
    // Binding differs too: the Node drivers bind every JS number as REAL, Bun an integral one as
    // INTEGER. The STRICT INTEGER columns store both as the same integer, so files do not differ.
    expect(db.prepare('SELECT typeof(?) AS t').get(7)).toEqual({ t: expected.boundNumberType });
    db.exec('CREATE TABLE n (v INTEGER NOT NULL) STRICT');
    db.prepare('INSERT INTO n VALUES (?)').run(T0);
    expect(db.prepare('SELECT typeof(v) AS t, v FROM n').get()).toEqual({ t: 'integer', v: BigInt(T0) });
    expect(toSafeNumber(row['small'], 'small')).toBe(42);
    expect(thrown(() => toSafeNumber(row['big'], 'big'))).toBeInstanceOf(UnsafeIntegerError);
    expect(thrown(() => toSafeNumber(row['neg'], 'neg'))).toBeInstanceOf(UnsafeIntegerError);
    expect(toSafeNumber(db.pragma('user_version'), 'user_version')).toBe(0);
    db.close();
  });

  it('run results and empty reads: changes is a number, lastInsertRowid a bigint, no row is undefined', () => {
    expect(NATIVE[name].shapes()).toEqual({ run: expected.run, noRow: expected.noRow });

    const db = driver.open(':memory:');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)');
    expect(db.prepare('INSERT INTO t (v) VALUES (?)').run('a')).toEqual({ changes: 1, lastInsertRowid: 1n });
    expect(db.prepare("INSERT INTO t (v) VALUES ('b'), ('c')").run()).toEqual({ changes: 2, lastInsertRowid: 3n });
    const update = db.prepare("UPDATE t SET v = v || '!'").run();
    expect(update.changes).toBe(3);
    expect(typeof update.changes).toBe('number');
    expect(db.prepare('DELETE FROM t WHERE id > 100').run().changes).toBe(0);
    expect(db.prepare('SELECT v FROM t WHERE id = ?').get(99)).toBeUndefined();
    expect(db.prepare('SELECT v FROM t WHERE id > ?').all(99)).toEqual([]);
    expect(db.prepare('SELECT id, v FROM t ORDER BY id').all().map((r) => ({ ...r }))).toEqual([
      { id: 1n, v: 'a!' },
      { id: 2n, v: 'b!' },
      { id: 3n, v: 'c!' },
    ]);
    db.close();
  });

  it('prepareValues: the same rows as arrays, in the SELECT\'s column order, integers as bigint', () => {
    const db = driver.open(':memory:');
    expect(db.prepareValues).toBeTypeOf('function');
    db.exec("CREATE TABLE t (k TEXT, a TEXT, n INTEGER); INSERT INTO t VALUES ('x', 'main', 3), ('y', 'main', 9007199254740993)");
    const sql = 'SELECT n, k, a, n > 5 AS big FROM t WHERE a = ? ORDER BY k';
    const read = db.prepareValues!(sql);
    expect(read.all('main')).toEqual([
      [3n, 'x', 'main', 0n],
      [9007199254740993n, 'y', 'main', 1n],
    ]);
    expect(read.all('none')).toEqual([]);
    expect(read.all('main')).toEqual(db.prepare(sql).all('main').map((row) => Object.values(row)));
    db.close();
  });

  it('transactions: BEGIN IMMEDIATE takes the write lock before the body runs, commits, and rolls back on a throw', () => {
    const path = freshPath();
    const a = driver.open(path);
    const b = driver.open(path);
    for (const c of [a, b]) c.pragma('busy_timeout = 0');
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (v INTEGER)');
    const count = (c: SqliteConnection) => Number(c.prepare('SELECT count(*) AS n FROM t').get()!['n']);

    const got = immediateTransaction(a, () => {
      expect(a.inTransaction).toBe(true);
      // Nothing written yet, and the lock is already ours: another writer is refused.
      expect(sqliteErrorCode(thrown(() => b.exec('BEGIN IMMEDIATE')))).toBe('SQLITE_BUSY');
      a.prepare('INSERT INTO t VALUES (?)').run(1);
      return 'done';
    });
    expect(got).toBe('done');
    expect(a.inTransaction).toBe(false);
    expect(count(b)).toBe(1);

    const boom = new Error('boom');
    expect(
      thrown(() =>
        immediateTransaction(a, () => {
          a.prepare('INSERT INTO t VALUES (?)').run(2);
          throw boom;
        }),
      ),
    ).toBe(boom);
    expect(a.inTransaction).toBe(false);
    expect(count(a)).toBe(1);

    // A failed BEGIN (a transaction is already open) must not roll back that transaction.
    a.exec('BEGIN');
    a.prepare('INSERT INTO t VALUES (?)').run(3);
    expect(String(thrown(() => immediateTransaction(a, () => 'never')))).toMatch(/within a transaction/);
    expect(a.inTransaction).toBe(true);
    a.exec('COMMIT');
    expect(count(b)).toBe(2);
    a.close();
    b.close();
  });

  it('transactions: a deferred read-then-write loses to a concurrent commit (SQLITE_BUSY_SNAPSHOT); IMMEDIATE does not', () => {
    const path = freshPath();
    const a = driver.open(path);
    const b = driver.open(path);
    for (const c of [a, b]) c.pragma('busy_timeout = 0');
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (v INTEGER)');

    // What each driver's own default (deferred) transaction does.
    a.exec('BEGIN');
    a.prepare('SELECT count(*) FROM t').get();
    b.prepare('INSERT INTO t VALUES (1)').run();
    expect(sqliteErrorCode(thrown(() => a.prepare('INSERT INTO t VALUES (2)').run()))).toBe('SQLITE_BUSY_SNAPSHOT');
    a.exec('ROLLBACK');

    // The seam's write transaction: the other writer is the one refused, the body completes.
    immediateTransaction(a, () => {
      a.prepare('SELECT count(*) FROM t').get();
      expect(sqliteErrorCode(thrown(() => b.prepare('INSERT INTO t VALUES (3)').run()))).toBe('SQLITE_BUSY');
      a.prepare('INSERT INTO t VALUES (4)').run();
    });
    expect(b.prepare('SELECT v FROM t ORDER BY v').all().map((r) => Number(r['v']))).toEqual([1, 4]);

    // A read transaction sees one snapshot even while another connection commits.
    const seen = readTransaction(a, () => {
      const before = a.prepare('SELECT count(*) AS n FROM t').get()!['n'];
      b.prepare('INSERT INTO t VALUES (5)').run();
      return [before, a.prepare('SELECT count(*) AS n FROM t').get()!['n']];
    });
    expect(seen).toEqual([2n, 2n]);
    expect(a.prepare('SELECT count(*) AS n FROM t').get()!['n']).toBe(3n);
    a.close();
    b.close();
  });

  it('lone surrogates: the driver stores them lossily, so two keys would collide; validation stops them before the driver (R1)', () => {
    const db = driver.open(':memory:');
    const lone = 'a\uD800b';
    const row = db.prepare('SELECT ? AS s, hex(CAST(? AS BLOB)) AS bytes').get(lone, lone)!;
    expect(row['bytes']).toBe(expected.loneSurrogateBytes);
    expect(row['s']).not.toBe(lone);
    expect(String(row['s'])).toContain('\uFFFD');
    db.exec('CREATE TABLE t (k TEXT)');
    db.prepare('INSERT INTO t VALUES (?)').run('agent:main:x\uD800');
    db.prepare('INSERT INTO t VALUES (?)').run('agent:main:x\uD801');
    const back = db.prepare('SELECT k FROM t').all().map((r) => r['k']);
    expect(back[0]).toBe(back[1]); // two distinct keys, one string after the round trip
    db.close();

    const spy = spyDriver(driver);
    const store = createSqliteStore({ now: () => T0, driver: spy.driver, logger: silentLogger });
    expect(store.driver).toBe(`spy(${name})`);
    spy.calls.length = 0;
    const loneKey = 'agent:main:x\uD800';
    const attempts: [() => unknown, string][] = [
      [() => store.record(human(loneKey)), 'sessionKey'],
      [() => store.record(human(CHILD, { actorId: 'x\uDC00' })), 'actorId'],
      [() => store.record(human(CHILD, { watchers: ['agent:main:w\uD83D'] })), 'watchers.0'],
      [() => store.record(human(CHILD, { dedupeKey: 'k\uDFFF' })), 'dedupeKey'],
      [() => store.record(human(CHILD, { payload: { channel: 'tele\uD800gram' } })), 'payload.channel'],
      [() => store.watch({ watcherSessionKey: COORD, targetSessionKey: loneKey, agentId: A }), 'targetSessionKey'],
      [() => store.stateVersion(loneKey, A), 'sessionKey'],
      [() => store.changesSince({ sessionKey: loneKey, agentId: A, since: 0 }), 'sessionKey'],
      [() => store.deleteSession(loneKey, A), 'sessionKey'],
      [() => store.resetSession(loneKey), 'sessionKey'],
    ];
    for (const [call, field] of attempts) {
      const error = thrown(call);
      expect(isValidationError(error), String(error)).toBe(true);
      expect((error as { field: string }).field).toBe(field);
    }
    expect(spy.calls).toEqual([]); // not one statement ran
    // The spy does see real work, and never a lone surrogate in anything bound.
    const astral = 'agent:main:x\uD83D\uDE00';
    expect(store.record(human(astral))?.sessionKey).toBe(astral);
    expect(spy.calls.length).toBeGreaterThan(0);
    expect(spy.calls.flatMap((c) => c.params).filter((p) => typeof p === 'string' && LONE.test(p))).toEqual([]);
    expect(store.changesSince({ sessionKey: astral, agentId: A, since: 0 }).stateChanges.events[0]!.sessionKey).toBe(astral);
    store.close();
  });

  it('pragmas: the store leaves WAL, synchronous, busy_timeout, user_version and application_id as asked, on the file too', () => {
    const path = freshPath();
    const store = createSqliteStore({ now: () => T0, path, driver: name, synchronous: 'FULL', busyTimeoutMs: 1234, logger: silentLogger });
    const db = sqliteConnection(store);
    expect(db.driver).toBe(name);
    expect(db.pragma('journal_mode')).toBe('wal');
    expect(Number(db.pragma('synchronous'))).toBe(2);
    expect(Number(db.pragma('busy_timeout'))).toBe(1234);
    expect(Number(db.pragma('user_version'))).toBe(SCHEMA_VERSION);
    expect(Number(db.pragma('application_id'))).toBe(APPLICATION_ID);
    expect(db.pragma(`application_id = ${APPLICATION_ID}`)).toBeUndefined(); // a pragma without a result row
    // journal_mode, user_version and application_id live in the file; another connection sees them.
    const other = driver.open(path);
    expect([other.pragma('journal_mode'), Number(other.pragma('user_version')), Number(other.pragma('application_id'))]).toEqual(['wal', SCHEMA_VERSION, APPLICATION_ID]);
    other.close();
    store.close();
    // A private in-memory database cannot be WAL; the store keeps working on it.
    const memory = createSqliteStore({ now: () => T0, driver: name, logger: silentLogger });
    expect(sqliteConnection(memory).pragma('journal_mode')).toBe('memory');
    expect(memory.record(human())?.sequence).toBe(1);
    memory.close();
  });

  it('busy_timeout: a write waits for another connection\'s lock, then fails with SQLITE_BUSY', () => {
    const path = freshPath();
    const a = driver.open(path);
    const b = driver.open(path);
    a.pragma('journal_mode = WAL');
    a.exec('BEGIN IMMEDIATE');
    b.pragma('busy_timeout = 0');
    const started = Date.now();
    expect(sqliteErrorCode(thrown(() => b.exec('BEGIN IMMEDIATE')))).toBe('SQLITE_BUSY');
    const immediate = Date.now() - started;
    b.pragma('busy_timeout = 300');
    const waitStart = Date.now();
    expect(sqliteErrorCode(thrown(() => b.exec('BEGIN IMMEDIATE')))).toBe('SQLITE_BUSY');
    // Only a lower bound: SQLite's busy handler sleeps before giving up (not a timing claim).
    expect(Date.now() - waitStart).toBeGreaterThanOrEqual(200);
    expect(immediate).toBeLessThan(200);
    a.exec('ROLLBACK');
    a.close();
    b.close();
  });

  it('read-only opening: reads work, writes are refused with SQLITE_READONLY, a missing file is an error and is not created', () => {
    const path = freshPath();
    const store = createSqliteStore({ now: () => T0, path, driver: name, logger: silentLogger });
    store.record(human());
    store.close();
    const ro = driver.open(path, { readonly: true });
    expect(ro.prepare('SELECT last_sequence FROM session_state_heads').get()).toEqual({ last_sequence: 1n });
    expect(Number(ro.pragma('user_version'))).toBe(SCHEMA_VERSION);
    for (const write of [() => ro.exec('DELETE FROM session_state_events'), () => ro.prepare('UPDATE session_state_heads SET last_sequence = 9').run(), () => ro.pragma('user_version = 9')]) {
      const error = thrown(write);
      expect(sqliteErrorCode(error), String(error)).toMatch(/^SQLITE_READONLY/);
    }
    ro.close();
    const missing = join(dir, 'missing', 'nothing.db');
    expect(sqliteErrorCode(thrown(() => driver.open(missing, { readonly: true })))).toBe('SQLITE_CANTOPEN');
    const missingHere = join(dir, 'nothing-here.db');
    expect(sqliteErrorCode(thrown(() => driver.open(missingHere, { readonly: true })))).toBe('SQLITE_CANTOPEN');
    expect(existsSync(missingHere)).toBe(false);
  });

  it('error codes: one spelling of SQLite codes whichever driver threw', () => {
    const db = driver.open(':memory:');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0)) STRICT');
    db.prepare('INSERT INTO t VALUES (?, ?)').run('a', 1);
    const code = (sql: string, ...params: SqlValue[]) => sqliteErrorCode(thrown(() => db.prepare(sql).run(...params)));
    expect(code('INSERT INTO t VALUES (?, ?)', 'a', 2)).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(code('INSERT INTO t VALUES (?, ?)', 'b', -1)).toBe('SQLITE_CONSTRAINT_CHECK');
    expect(code('INSERT INTO t VALUES (?, ?)', 'c', null)).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(code("INSERT INTO t VALUES ('d', 'x')")).toBe('SQLITE_CONSTRAINT_DATATYPE');
    expect(sqliteErrorCode(thrown(() => db.prepare('SELEKT 1')))).toBe('SQLITE_ERROR');
    db.close();
    const garbage = freshPath();
    writeFileSync(garbage, 'not a database, but long enough to have a header......'.repeat(20));
    const error = thrown(() => {
      const g = driver.open(garbage);
      try {
        g.prepare('SELECT count(*) FROM sqlite_master').get();
      } finally {
        g.close();
      }
    });
    expect(sqliteErrorCode(error)).toBe('SQLITE_NOTADB');
  });
});

describe('driver selection', () => {
  it('sqliteCodeName spells primary and extended result codes as sqlite3.h names them', () => {
    expect([5, 261, 517, 773, 8, 1032, 19, 275, 1299, 1555, 2067, 3091, 26, 13, 14, 10, 8202].map(sqliteCodeName)).toEqual([
      'SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED',
      'SQLITE_CONSTRAINT', 'SQLITE_CONSTRAINT_CHECK', 'SQLITE_CONSTRAINT_NOTNULL', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE',
      'SQLITE_CONSTRAINT_DATATYPE', 'SQLITE_NOTADB', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_IOERR_DATA',
    ]);
    expect(sqliteCodeName(5 | (40 << 8))).toBe('SQLITE_BUSY'); // an extended code not in the table keeps its primary name
    // ABORT's only extended code is the second (sqlite3.h); 4 | (1 << 8) is unused and names its primary.
    expect([516, 260].map(sqliteCodeName)).toEqual(['SQLITE_ABORT_ROLLBACK', 'SQLITE_ABORT']);
    expect(sqliteCodeName(99)).toBeUndefined();
    expect(sqliteErrorCode(new Error('plain'))).toBeUndefined();
    expect(sqliteErrorCode(Object.assign(new Error('node'), { code: 'ERR_SQLITE_ERROR', errcode: 2067 }))).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(sqliteErrorCode(Object.assign(new Error('b3'), { code: 'SQLITE_BUSY' }))).toBe('SQLITE_BUSY');
  });

  it('accepts a driver object and refuses unknown names and malformed objects', () => {
    const spy = spyDriver(resolveSqliteDriver('auto'));
    const store = createSqliteStore({ now: () => T0, driver: spy.driver, logger: silentLogger });
    store.record(human());
    expect(store.driver).toBe(spy.driver.name);
    expect(spy.calls.some((c) => c.sql.startsWith('INSERT INTO session_state_events'))).toBe(true);
    store.close();
    expect(() => createSqliteStore({ now: () => T0, driver: 'sqlite3' as never })).toThrow(RangeError);
    expect(() => resolveSqliteDriver({ name: 'x' } as never)).toThrow(TypeError);
  });

  it('a driver object without prepareValues: pending reads and drains fall back to prepare and answer the same', () => {
    const spy = spyDriver(resolveSqliteDriver('auto'));
    const stores = [createSqliteStore({ now: () => T0, driver: spy.driver, logger: silentLogger }), createSqliteStore({ now: () => T0, logger: silentLogger })];
    for (const store of stores) {
      store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
      store.watch({ watcherSessionKey: COORD, targetSessionKey: 'agent:main:peer', agentId: A });
      store.record(human());
      store.record(human('agent:main:peer'));
    }
    const [fallback, native] = stores as [ReturnType<typeof createSqliteStore>, ReturnType<typeof createSqliteStore>];
    expect(fallback.pendingNotices(COORD)).toHaveLength(2);
    expect(fallback.pendingNotices(COORD)).toEqual(native.pendingNotices(COORD));
    expect(fallback.drainNotices(COORD)).toEqual(native.drainNotices(COORD));
    expect(fallback.pendingNotices(COORD)).toEqual([]);
    // Both reads went through the seam's prepare (the spy logs every call it serves).
    expect(spy.calls.filter((c) => c.sql.startsWith('SELECT target_session_key, target_agent_id, last_seen, provenance FROM')).length).toBeGreaterThan(0);
    expect(spy.calls.some((c) => c.sql.startsWith('SELECT c.target_session_key'))).toBe(true);
    for (const store of stores) store.close();
  });

  const missing = (['better-sqlite3', 'node:sqlite', 'bun:sqlite'] as const).filter((n) => !DRIVERS.includes(n));
  it.each(missing)('a driver this runtime lacks (%s) is a typed error that says what to install, and creates no file', (name) => {
    const path = freshPath();
    const error = thrown(() => createSqliteStore({ now: () => T0, path, driver: name }));
    expect(error).toBeInstanceOf(SqliteDriverUnavailableError);
    expect((error as SqliteDriverUnavailableError).code).toBe('driver-unavailable');
    expect((error as SqliteDriverUnavailableError).driver).toBe(name);
    expect(String((error as Error).message)).toMatch(/npm install better-sqlite3/);
    expect(existsSync(path)).toBe(false);
  });
});

describe('lazy loading', () => {
  // The adapter bundled on its own into a directory with no node_modules: better-sqlite3 cannot
  // be found there, as for an application that never installed it.
  let probe: string;
  let outDir: string;
  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'ssk-lazy-'));
    probe = await bundleFixture('import-probe', outDir);
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('importing the adapter needs no driver; auto picks what the runtime has, or says what to install', () => {
    // Bun would fetch a missing package from the registry when run outside a project: not here.
    const args = [...(isBun ? ['--no-install'] : []), probe, join(outDir, 'probe.db')];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { imported: boolean; available: string[]; auto: string | { error: string; code: string } };
    expect(out.imported).toBe(true);
    expect(out.available).not.toContain('better-sqlite3');
    if (isBun) expect(out.auto).toBe('bun:sqlite');
    else if (DRIVERS.includes('node:sqlite')) expect(out.auto).toBe('node:sqlite');
    else {
      expect(out.auto).toMatchObject({ code: 'driver-unavailable' });
      expect((out.auto as { error: string }).error).toMatch(/better-sqlite3: .*node:sqlite: not available/);
    }
  });
});
