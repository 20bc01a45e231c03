import { SqliteDriverUnavailableError } from './errors.js';
import { requirePackage } from './load.js';
import type { BetterSqlite3Database, BetterSqlite3Module, SqliteConnection, SqliteDriver, SqliteStatement, SqliteValuesStatement } from './types.js';
import { messageOf } from '../../shared/logger.js';

/**
 * better-sqlite3 (a dependency of the package; Node 20+). Its statements already have the seam's
 * shape, so they are handed out as they are: this driver adds no per-call cost.
 */

// Structural (./types.ts): the published declarations must not need @types/better-sqlite3.
type BetterSqlite3Constructor = BetterSqlite3Module;

let loaded: BetterSqlite3Constructor | undefined;

function load(): BetterSqlite3Constructor {
  if (loaded) return loaded;
  try {
    const module = requirePackage('better-sqlite3') as BetterSqlite3Constructor | { default: BetterSqlite3Constructor };
    const Database = typeof module === 'function' ? module : module.default;
    // The native addon loads only on the first open: open once here, so a build for another Node
    // ABI (an install made by Node 20, run by Node 22) counts as unavailable rather than failing later.
    new Database(':memory:').close();
    loaded = Database;
    return loaded;
  } catch (error) {
    // Node's messages run over several lines (a missing module lists its require stack): keep the gist.
    const message = messageOf(error);
    const reason = message.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('Require stack') && !line.startsWith('- ')).join(' ').slice(0, 400);
    throw new SqliteDriverUnavailableError('better-sqlite3', [`better-sqlite3: ${reason}`], { cause: error });
  }
}

/** Wraps a better-sqlite3 handle. Integers are read as bigint only if the handle was set so (open() does). */
export function wrapBetterSqlite3(db: BetterSqlite3Database): SqliteConnection {
  return {
    driver: 'better-sqlite3',
    native: db,
    get inTransaction() {
      return db.inTransaction;
    },
    prepare: (sql) => db.prepare(sql) as unknown as SqliteStatement,
    // Its own statement, in raw mode for good: no toggle per call.
    prepareValues: (sql) => db.prepare(sql).raw(true) as unknown as SqliteValuesStatement,
    exec: (sql) => void db.exec(sql),
    pragma: (statement) => db.pragma(statement, { simple: true }),
    close: () => db.close(),
  };
}

/** The better-sqlite3 driver; pass the module yourself where `require('better-sqlite3')` cannot resolve it. */
export function betterSqlite3Driver(module?: BetterSqlite3Constructor): SqliteDriver {
  const Database = module ?? load();
  return {
    name: 'better-sqlite3',
    open(path, options = {}) {
      let db: BetterSqlite3Database;
      try {
        db = options.readonly ? new Database(path, { readonly: true, fileMustExist: true }) : new Database(path);
      } catch (error) {
        // better-sqlite3 checks the directory itself and throws a plain TypeError; the other
        // drivers let SQLite fail with SQLITE_CANTOPEN. One code for one failure.
        if (error instanceof TypeError && /directory does not exist/.test(error.message)) {
          throw Object.assign(new Error(`unable to open database file: ${error.message}`, { cause: error }), { code: 'SQLITE_CANTOPEN' });
        }
        throw error;
      }
      // bigint for every integer column: the adapter range-checks instead of rounding past 2^53.
      db.defaultSafeIntegers(true);
      return wrapBetterSqlite3(db);
    },
  };
}

/** A raw better-sqlite3 handle (as other tools pass to migrate / readSchemaVersion), told apart from a connection. */
export function isBetterSqlite3Database(value: unknown): value is BetterSqlite3Database {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { pragma?: unknown }).pragma === 'function' &&
    typeof (value as { defaultSafeIntegers?: unknown }).defaultSafeIntegers === 'function'
  );
}
