/**
 * The driver seam in process (mutation/): what test/sqlite/driver.test.ts checks next to child processes
 * and other runtimes, here without them, so the mutation run (mutation/vitest.config.ts) reaches
 * src/sqlite/driver and src/sqlite/errors.ts. Every expectation is a behaviour: a code name that
 * sqlite3.h defines, a transaction's effect on another connection, an error's class and fields.
 */

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  NotAStateDatabaseError,
  SchemaTooNewError,
  SqliteDriverUnavailableError,
  StateDatabaseError,
  StateDatabaseOpenError,
} from '../../src/sqlite/errors.js';
import { betterSqlite3Driver, isBetterSqlite3Database, wrapBetterSqlite3 } from '../../src/sqlite/driver/better-sqlite3.js';
import { sqliteCodeName, sqliteErrorCode } from '../../src/sqlite/driver/error-codes.js';
import { builtinModule, isBun, requirePackage, runtimeName } from '../../src/sqlite/driver/load.js';
import { DRIVER_NAMES, availableSqliteDrivers, loadSqliteDriver, resolveSqliteDriver } from '../../src/sqlite/driver/resolve.js';
import { immediateTransaction, readTransaction } from '../../src/sqlite/driver/transaction.js';
import type { BetterSqlite3Database, BetterSqlite3Module, SqliteConnection, SqliteDriver, SqliteDriverChoice } from '../../src/sqlite/driver/types.js';
import { tempDir, thrown } from './helpers.js';

const dir = tempDir('mut-driver');
let fileNo = 0;
const fresh = () => join(dir, `m${fileNo++}.db`);
const Database = createRequire(import.meta.url)('better-sqlite3');

/** Every result code sqlite3.h (the copy better-sqlite3 builds) defines, by number. */
function headerCodes(): Map<number, string> {
  const header = readFileSync(createRequire(import.meta.url).resolve('better-sqlite3/deps/sqlite3/sqlite3.h'), 'utf8');
  // The primary codes are the block from SQLITE_OK to SQLITE_WARNING (other #defines reuse small numbers).
  const block = header.slice(header.indexOf('#define SQLITE_OK '), header.indexOf('#define SQLITE_ROW '));
  const primary = new Map<string, number>();
  for (const m of block.matchAll(/^#define (SQLITE_[A-Z_]+)\s+(\d+)\s/gm)) primary.set(m[1]!, Number(m[2]));
  const codes = new Map<number, string>();
  for (const [name, n] of primary) codes.set(n, name);
  // Spacing around `|` varies (`(SQLITE_BUSY   |  (1<<8))`, `(SQLITE_CONSTRAINT |(10<<8))`): a pattern
  // with one space each side silently skipped BUSY, LOCKED and the last three CONSTRAINT codes.
  let extended = 0;
  for (const m of header.matchAll(/^#define (SQLITE_[A-Z_]+)\s+\((SQLITE_[A-Z]+)\s*\|\s*\((\d+)<<8\)\)/gm)) {
    codes.set(primary.get(m[2]!)! | (Number(m[3]) << 8), m[1]!);
    extended++;
  }
  // Every extended-code #define was read (none skipped by a spelling the pattern misses).
  expect(extended).toBe(header.match(/^#define SQLITE_[A-Z_]+\s+\(SQLITE_[A-Z]+\s*\|/gm)?.length);
  return codes;
}

// Codes this SQLite defines that are newer than the table (or exist only in encryption builds):
// they keep their primary name, as any unknown extended code does.
const NEWER_THAN_TABLE = new Set(['SQLITE_ERROR_RESERVESIZE', 'SQLITE_ERROR_KEY', 'SQLITE_ERROR_UNABLE', 'SQLITE_IOERR_BADKEY', 'SQLITE_IOERR_CODEC']);

describe('error codes (driver/error-codes.ts)', () => {
  it('every result code sqlite3.h defines gets its sqlite3.h name (newer ones their primary name)', () => {
    const codes = headerCodes();
    expect(codes.size).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const [n, name] of codes) {
      const expected = NEWER_THAN_TABLE.has(name) ? codes.get(n & 0xff) : name;
      if (sqliteCodeName(n) !== expected) wrong.push(`${n}: ${sqliteCodeName(n)} instead of ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a number that is no result code has no name; an extended code past the table keeps its primary name', () => {
    expect(sqliteCodeName(29)).toBeUndefined();
    expect(sqliteCodeName(255)).toBeUndefined();
    expect(sqliteCodeName(29 | (1 << 8))).toBeUndefined();
    expect(sqliteCodeName(19 | (13 << 8))).toBe('SQLITE_CONSTRAINT'); // one past DATATYPE
    expect(sqliteCodeName(2 | (1 << 8))).toBe('SQLITE_INTERNAL'); // a primary code with no extended list
  });

  it('SQLITE_ABORT_ROLLBACK is 516, as sqlite3.h defines it; 260 (no such code) keeps its primary name', () => {
    expect(sqliteCodeName(516)).toBe('SQLITE_ABORT_ROLLBACK');
    expect(sqliteCodeName(260)).toBe('SQLITE_ABORT');
  });

  it('sqliteErrorCode: a driver code string wins, a numeric errcode is named, anything else is undefined', () => {
    expect(sqliteErrorCode(undefined)).toBeUndefined();
    expect(sqliteErrorCode(null)).toBeUndefined();
    expect(sqliteErrorCode('SQLITE_BUSY')).toBeUndefined();
    expect(sqliteErrorCode({ code: 'SQLITE_BUSY' })).toBe('SQLITE_BUSY');
    expect(sqliteErrorCode({ code: 'SQLITE_BUSY', errcode: 2067 })).toBe('SQLITE_BUSY');
    expect(sqliteErrorCode({ code: 'ERR_SQLITE_ERROR', errcode: 5 })).toBe('SQLITE_BUSY');
    expect(sqliteErrorCode({ code: 'EACCES' })).toBeUndefined();
    expect(sqliteErrorCode({ code: 5 })).toBeUndefined();
    expect(sqliteErrorCode({ errcode: '5' })).toBeUndefined();
    expect(sqliteErrorCode({ errcode: 99 })).toBeUndefined();
    // A real driver error.
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(sqliteErrorCode(thrown(() => db.prepare('INSERT INTO t VALUES (1)').run()))).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    db.close();
  });
});

describe('transactions (driver/transaction.ts)', () => {
  const two = () => {
    const path = fresh();
    const driver = betterSqlite3Driver();
    const a = driver.open(path);
    const b = driver.open(path);
    for (const c of [a, b]) c.pragma('busy_timeout = 0');
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE t (v INTEGER)');
    const count = (c: SqliteConnection) => Number((c.prepare('SELECT count(*) AS n FROM t').get() as { n: bigint }).n);
    return { a, b, count };
  };

  it('immediate: the write lock is taken before the body, the body commits, a throw rolls back and is rethrown', () => {
    const { a, b, count } = two();
    expect(
      immediateTransaction(a, () => {
        expect(a.inTransaction).toBe(true);
        expect(sqliteErrorCode(thrown(() => b.exec('BEGIN IMMEDIATE')))).toBe('SQLITE_BUSY');
        a.prepare('INSERT INTO t VALUES (1)').run();
        return 'done';
      }),
    ).toBe('done');
    expect(a.inTransaction).toBe(false);
    expect(count(b)).toBe(1);
    const boom = new Error('boom');
    expect(thrown(() => immediateTransaction(a, () => { a.prepare('INSERT INTO t VALUES (2)').run(); throw boom; }))).toBe(boom);
    expect(a.inTransaction).toBe(false);
    expect(count(b)).toBe(1);
    // A second transaction on the same connection reuses its statements and still works.
    immediateTransaction(a, () => a.prepare('INSERT INTO t VALUES (3)').run());
    expect(count(b)).toBe(2);
    a.close();
    b.close();
  });

  it('read: one snapshot for the whole body (another connection\'s commit is not seen), and no write lock', () => {
    const { a, b, count } = two();
    a.prepare('INSERT INTO t VALUES (1)').run();
    const seen = readTransaction(a, () => {
      const first = count(a);
      // Deferred: another connection may still write meanwhile.
      b.prepare('INSERT INTO t VALUES (2)').run();
      return [first, count(a), a.inTransaction];
    });
    expect(seen).toEqual([1, 1, true]);
    expect(a.inTransaction).toBe(false);
    expect(count(a)).toBe(2);
    a.close();
    b.close();
  });

  it('a failed BEGIN leaves the transaction that was open alone; a failing ROLLBACK does not hide the error', () => {
    const { a, b, count } = two();
    a.exec('BEGIN');
    a.prepare('INSERT INTO t VALUES (1)').run();
    expect(sqliteErrorCode(thrown(() => immediateTransaction(a, () => 'never')))).toBe('SQLITE_ERROR');
    expect(a.inTransaction).toBe(true);
    a.exec('COMMIT');
    expect(count(b)).toBe(1);

    // A connection whose ROLLBACK fails: the body's error is the one thrown, and the rollback was tried.
    let rollbacks = 0;
    const faulty: SqliteConnection = {
      ...a,
      driver: 'faulty',
      get inTransaction() {
        return a.inTransaction;
      },
      prepare: (sql: string) => {
        const s = a.prepare(sql);
        return sql === 'ROLLBACK' ? { ...s, run: () => { rollbacks++; a.exec('ROLLBACK'); throw new Error('rollback failed'); } } : s;
      },
    };
    const boom = new Error('boom');
    expect(thrown(() => immediateTransaction(faulty, () => { a.prepare('INSERT INTO t VALUES (2)').run(); throw boom; }))).toBe(boom);
    expect(rollbacks).toBe(1);
    expect(count(b)).toBe(1);
    a.close();
    b.close();
  });
});

describe('better-sqlite3 driver (driver/better-sqlite3.ts)', () => {
  it('open: integers are bigints, pragmas answer simple values, the connection reports its driver and transaction state', () => {
    const c = betterSqlite3Driver().open(':memory:');
    expect(c.driver).toBe('better-sqlite3');
    expect(isBetterSqlite3Database(c.native)).toBe(true);
    expect(c.prepare('SELECT 9007199254740993 AS v').get()).toEqual({ v: 9007199254740993n });
    expect(c.pragma('user_version')).toBe(0n); // simple: the value, not [{ user_version: 0n }]
    expect(c.exec('CREATE TABLE t (v)')).toBeUndefined();
    expect(c.inTransaction).toBe(false);
    c.exec('BEGIN');
    expect(c.inTransaction).toBe(true);
    c.exec('COMMIT');
    c.close();
    expect((c.native as BetterSqlite3Database).open).toBe(false);
  });

  it('open read-only: an existing file reads and refuses writes; a missing file is an error and is not created', () => {
    const path = fresh();
    const rw = betterSqlite3Driver().open(path);
    rw.exec('CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (7)');
    rw.close();
    const ro = betterSqlite3Driver().open(path, { readonly: true });
    expect(ro.prepare('SELECT v FROM t').get()).toEqual({ v: 7n });
    expect(sqliteErrorCode(thrown(() => ro.exec('INSERT INTO t VALUES (8)')))).toBe('SQLITE_READONLY');
    ro.close();
    const missing = fresh();
    expect(thrown(() => betterSqlite3Driver().open(missing, { readonly: true }))).toBeInstanceOf(Error);
    expect(existsSync(missing)).toBe(false);
    // Without options the file is created.
    betterSqlite3Driver().open(missing).close();
    expect(existsSync(missing)).toBe(true);
  });

  it('a missing directory is SQLITE_CANTOPEN (as on the other drivers), with the driver\'s TypeError as the cause', () => {
    const error = thrown(() => betterSqlite3Driver().open(join(dir, 'none', 'x.db')));
    expect(error).not.toBeInstanceOf(TypeError);
    expect(sqliteErrorCode(error)).toBe('SQLITE_CANTOPEN');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(error.message).toContain(error.cause.message);
  });

  it('other constructor errors pass through unchanged', () => {
    const typeError = new TypeError('something else');
    const other = new Error('other');
    for (const e of [typeError, other]) {
      // A plain function stands in for the constructor (better-sqlite3 calls it with new).
      const module = function () {
        throw e;
      } as unknown as BetterSqlite3Module;
      expect(thrown(() => betterSqlite3Driver(module).open('x.db'))).toBe(e);
    }
  });

  it('a module passed in is used as it is, with the readonly options only when asked', () => {
    type OpenOptions = ConstructorParameters<BetterSqlite3Module>[1];
    const calls: [string, OpenOptions][] = [];
    const module = function (path: string, options?: OpenOptions) {
      calls.push([path, options]);
      return new Database(':memory:');
    } as unknown as BetterSqlite3Module;
    betterSqlite3Driver(module).open('a.db');
    betterSqlite3Driver(module).open('b.db', { readonly: true });
    betterSqlite3Driver(module).open('c.db', { readonly: false });
    expect(calls).toEqual([['a.db', undefined], ['b.db', { readonly: true, fileMustExist: true }], ['c.db', undefined]]);
    expect(betterSqlite3Driver(module).name).toBe('better-sqlite3');
  });

  it('isBetterSqlite3Database tells a raw handle from a connection and from look-alikes', () => {
    const raw = new Database(':memory:');
    expect(isBetterSqlite3Database(raw)).toBe(true);
    expect(isBetterSqlite3Database(wrapBetterSqlite3(raw))).toBe(false);
    expect(isBetterSqlite3Database(null)).toBe(false);
    expect(isBetterSqlite3Database(undefined)).toBe(false);
    expect(isBetterSqlite3Database('db')).toBe(false);
    expect(isBetterSqlite3Database(() => 1)).toBe(false);
    expect(isBetterSqlite3Database({ pragma: () => 1 })).toBe(false);
    expect(isBetterSqlite3Database({ defaultSafeIntegers: () => 1 })).toBe(false);
    expect(isBetterSqlite3Database({ pragma: 1, defaultSafeIntegers: () => 1 })).toBe(false);
    expect(isBetterSqlite3Database({ pragma: () => 1, defaultSafeIntegers: () => 1 })).toBe(true);
    raw.close();
  });
});

describe('loading (driver/better-sqlite3.ts load, driver/resolve.ts auto) with the package missing or broken', () => {
  afterEach(() => {
    vi.doUnmock('../../src/sqlite/driver/load.js');
    vi.resetModules();
  });

  async function withPackage(pkg: (name: string) => unknown) {
    vi.resetModules();
    vi.doMock('../../src/sqlite/driver/load.js', async (original) => ({ ...(await original()), requirePackage: pkg }));
    return {
      b3: await import('../../src/sqlite/driver/better-sqlite3.js'),
      resolve: await import('../../src/sqlite/driver/resolve.js'),
      errors: await import('../../src/sqlite/errors.js'),
    };
  }

  it('a package that cannot be required: one reason line, the gist of a multi-line message, the cause kept', async () => {
    // The blank and whitespace-only lines between the parts are dropped, not joined in as runs of spaces.
    const cause = Object.assign(new Error("Cannot find module 'better-sqlite3'\n  \n\t\nRequire stack:\n- /a/b.js\n- /a/c.js\n  from the app"), { code: 'MODULE_NOT_FOUND' });
    const { b3, errors } = await withPackage(() => {
      throw cause;
    });
    const error = thrown(() => b3.betterSqlite3Driver());
    expect(error).toBeInstanceOf(errors.SqliteDriverUnavailableError);
    expect([error.code, error.driver, error.reasons, error.cause]).toEqual([
      'driver-unavailable',
      'better-sqlite3',
      ["better-sqlite3: Cannot find module 'better-sqlite3'   from the app"],
      cause,
    ]);
  });

  it('a very long message is cut to 400 characters; a thrown non-Error is its string', async () => {
    const { b3 } = await withPackage(() => {
      throw new Error('x'.repeat(1000));
    });
    expect(thrown(() => b3.betterSqlite3Driver()).reasons).toEqual([`better-sqlite3: ${'x'.repeat(400)}`]);
    const again = await withPackage(() => {
      throw 'plain string';
    });
    expect(thrown(() => again.b3.betterSqlite3Driver()).reasons).toEqual(['better-sqlite3: plain string']);
  });

  it('a build for another ABI (the first open fails) is unavailable, not a later failure; a default export is used', async () => {
    const broken = await withPackage(() =>
      function () {
        throw new Error('was compiled against a different Node.js version');
      },
    );
    expect(thrown(() => broken.b3.betterSqlite3Driver()).reasons).toEqual(['better-sqlite3: was compiled against a different Node.js version']);
    let opened = 0;
    const counting = function (path: string) {
      opened++;
      return new Database(path);
    };
    const ok = await withPackage(() => ({ default: counting }));
    const c = ok.b3.betterSqlite3Driver().open(':memory:');
    expect(c.prepare('SELECT 1 AS one').get()).toEqual({ one: 1n });
    c.close();
    // Loaded once: the probe open, then one per open(); a second driver reuses the module.
    ok.b3.betterSqlite3Driver().open(':memory:').close();
    expect(opened).toBe(3);
  });

  it("auto on Node without a loadable better-sqlite3 or node:sqlite: one typed error with both drivers' reasons", async () => {
    const { resolve, errors } = await withPackage(() => {
      throw new Error('not installed');
    });
    const error = thrown(() => resolve.resolveSqliteDriver('auto'));
    expect(error).toBeInstanceOf(errors.SqliteDriverUnavailableError);
    expect(error.driver).toBe('auto');
    expect(error.reasons).toHaveLength(2);
    expect(error.reasons[0]).toBe('better-sqlite3: not installed');
    expect(error.reasons[1]).toMatch(/^node:sqlite: /);
    expect(error.message).toMatch(/^no SQLite driver is available \(better-sqlite3: not installed; node:sqlite: /);
    expect(resolve.availableSqliteDrivers()).toEqual([]);
    expect(() => resolve.resolveSqliteDriver()).toThrow(errors.SqliteDriverUnavailableError);
  });

  it('an error that is not "unavailable" is not swallowed by auto or by availableSqliteDrivers', async () => {
    // Only reachable through a driver module that throws something else: simulate one.
    vi.resetModules();
    const odd = new Error('odd');
    vi.doMock('../../src/sqlite/driver/better-sqlite3.js', async (original) => ({
      ...(await original()),
      betterSqlite3Driver: () => {
        throw odd;
      },
    }));
    try {
      const resolve = await import('../../src/sqlite/driver/resolve.js');
      expect(thrown(() => resolve.resolveSqliteDriver('auto'))).toBe(odd);
      expect(thrown(() => resolve.availableSqliteDrivers())).toBe(odd);
    } finally {
      vi.doUnmock('../../src/sqlite/driver/better-sqlite3.js');
    }
  });
});

describe('driver selection (driver/resolve.ts, driver/load.ts)', () => {
  it('names: better-sqlite3 loads on Node 20; node:sqlite and bun:sqlite are typed unavailable errors naming themselves', () => {
    expect(DRIVER_NAMES).toEqual(['better-sqlite3', 'node:sqlite', 'bun:sqlite']);
    expect(loadSqliteDriver('better-sqlite3').name).toBe('better-sqlite3');
    expect(resolveSqliteDriver('better-sqlite3').name).toBe('better-sqlite3');
    for (const name of ['node:sqlite', 'bun:sqlite'] as const) {
      for (const load of [() => loadSqliteDriver(name), () => resolveSqliteDriver(name)]) {
        const error = thrown(load);
        expect(error).toBeInstanceOf(SqliteDriverUnavailableError);
        expect(error.driver).toBe(name);
      }
    }
    expect(availableSqliteDrivers()).toEqual(['better-sqlite3']);
  });

  it("auto and the default are better-sqlite3 on Node 20", () => {
    expect(resolveSqliteDriver('auto').name).toBe('better-sqlite3');
    expect(resolveSqliteDriver().name).toBe('better-sqlite3');
  });

  it('a driver object is used as it is; malformed objects are TypeErrors, unknown names RangeErrors', () => {
    // resolveSqliteDriver checks only the shape: open never runs here, so it returns nothing.
    const custom = { name: 'mine', open: () => undefined } as unknown as SqliteDriver;
    expect(resolveSqliteDriver(custom)).toBe(custom);
    for (const bad of [{ name: 'x' }, { open: () => undefined }, { name: 1, open: () => undefined }, { name: 'x', open: 'open' }]) {
      const error = thrown(() => resolveSqliteDriver(bad as unknown as SqliteDriverChoice));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/name and open/);
    }
    for (const bad of ['sqlite3', null, 'Auto', '']) {
      const error = thrown(() => resolveSqliteDriver(bad as unknown as SqliteDriverChoice));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toContain("'better-sqlite3', 'node:sqlite', 'bun:sqlite'");
    }
  });

  it('the runtime: Node here, its version in the name; built-ins by name, undefined where missing', () => {
    expect(isBun()).toBe(false);
    expect(runtimeName()).toBe(`Node ${process.versions.node}`);
    expect(builtinModule('node:path')).toBe(createRequire(import.meta.url)('node:path'));
    expect(builtinModule('node:sqlite')).toBeUndefined();
    expect(builtinModule('bun:sqlite')).toBeUndefined();
    expect(typeof requirePackage('better-sqlite3')).toBe('function');
  });

  it('as Bun (its version in process.versions): the name says so, and a built-in the runtime cannot hand out is required by name', () => {
    const path = createRequire(import.meta.url)('node:path');
    const own = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule');
    const as = (bun: string | undefined, getBuiltinModule: unknown, body: () => void) => {
      if (bun !== undefined) Object.defineProperty(process.versions, 'bun', { value: bun, configurable: true, enumerable: true });
      Object.defineProperty(process, 'getBuiltinModule', { value: getBuiltinModule, configurable: true, writable: true });
      try {
        body();
      } finally {
        delete (process.versions as Record<string, unknown>)['bun'];
        if (own) Object.defineProperty(process, 'getBuiltinModule', own);
      }
    };
    as('1.2.3', undefined, () => {
      expect(isBun()).toBe(true);
      expect(runtimeName()).toBe('Bun 1.2.3');
      expect(builtinModule('node:path')).toBe(path); // no getBuiltinModule: through require
    });
    as('1.2.3', () => undefined, () => expect(builtinModule('node:path')).toBe(path)); // it has none by that name: require
    as('1.2.3', (id: string) => (id === 'node:path' ? 'from the runtime' : undefined), () => expect(builtinModule('node:path')).toBe('from the runtime'));
    // Node without getBuiltinModule (before 20.16): nothing, and no attempt to call it.
    as(undefined, undefined, () => {
      expect(isBun()).toBe(false);
      expect(builtinModule('node:path')).toBeUndefined();
    });
    expect(isBun()).toBe(false);
    expect(builtinModule('node:path')).toBe(path);
  });
});

describe('typed errors (errors.ts)', () => {
  it('NotAStateDatabaseError and SchemaTooNewError carry code, path and versions', () => {
    const cause = new Error('why');
    const n = new NotAStateDatabaseError('/x.db', 'it is a picture', { cause });
    expect(n).toBeInstanceOf(StateDatabaseError);
    expect([n.name, n.code, n.path, n.cause]).toEqual(['NotAStateDatabaseError', 'not-a-state-database', '/x.db', cause]);
    expect(n.message).toBe('/x.db is not a session-state database: it is a picture');
    const s = new SchemaTooNewError('/y.db', 9, 5);
    expect([s.name, s.code, s.path, s.foundVersion, s.supportedVersion]).toEqual(['SchemaTooNewError', 'schema-too-new', '/y.db', 9, 5]);
    expect(s.message).toMatch(/^\/y\.db has session-state schema version 9, .* only knows up to 5; upgrade session-state-kit/);
  });

  it('SqliteDriverUnavailableError says which driver (or none for auto), every reason, and what to install', () => {
    const one = new SqliteDriverUnavailableError('node:sqlite', ['node:sqlite: too old']);
    expect([one.name, one.code, one.driver, one.reasons]).toEqual(['SqliteDriverUnavailableError', 'driver-unavailable', 'node:sqlite', ['node:sqlite: too old']]);
    expect(one.message).toMatch(/^the SQLite driver node:sqlite is not available \(node:sqlite: too old\); install better-sqlite3 \(npm install better-sqlite3\)/);
    const auto = new SqliteDriverUnavailableError('auto', ['a: 1', 'b: 2']);
    expect(auto.message).toMatch(/^no SQLite driver is available \(a: 1; b: 2\); install better-sqlite3/);
  });

  it('StateDatabaseOpenError: the code, path and hint as given, all in the message, the cause kept', () => {
    const cause = new Error('raw');
    const e = new StateDatabaseOpenError('busy', '/z.db', 'retry later', 'the database is locked', { cause });
    expect([e.name, e.code, e.path, e.hint, e.cause]).toEqual(['StateDatabaseOpenError', 'busy', '/z.db', 'retry later', cause]);
    expect(e.message).toBe('cannot open /z.db: the database is locked; retry later');
  });
});
