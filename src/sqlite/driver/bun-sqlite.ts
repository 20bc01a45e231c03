import { SqliteDriverUnavailableError } from './errors.js';
import { builtinModule, runtimeName } from './load.js';
import { firstValue } from './node-sqlite.js';
import type { SqlValue, SqliteConnection, SqliteDriver, SqliteRow } from './types.js';

/** bun:sqlite (built into Bun), declared structurally so the project needs no Bun types. */

interface BunStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqliteRow | null;
  all(...params: SqlValue[]): SqliteRow[];
  values(...params: SqlValue[]): unknown[][];
}

/**
 * A bun:sqlite Database, by the members the driver uses; a description of Bun's own class, not kit API.
 * @internal
 */
interface BunDatabase {
  prepare(sql: string): BunStatement;
  exec(sql: string): void;
  close(): void;
  readonly inTransaction: boolean;
}

/** The `bun:sqlite` module, by the member the driver uses (its Database class). */
export interface BunSqliteModule {
  Database: new (path: string, options?: { readonly?: boolean; create?: boolean; readwrite?: boolean; safeIntegers?: boolean }) => BunDatabase;
}

function load(): BunSqliteModule {
  let module: BunSqliteModule | undefined;
  try {
    module = builtinModule('bun:sqlite') as BunSqliteModule | undefined;
  } catch {
    module = undefined;
  }
  if (module && typeof module.Database === 'function') return module;
  throw new SqliteDriverUnavailableError('bun:sqlite', [`bun:sqlite: not available in ${runtimeName()} (it is built into Bun)`]);
}

/** The bun:sqlite driver (Bun only; integers read as bigint). Pass the module to skip loading the built-in one. */
export function bunSqliteDriver(module?: BunSqliteModule): SqliteDriver {
  const { Database } = module ?? load();
  return {
    name: 'bun:sqlite',
    open(path, options = {}) {
      // safeIntegers: without it Bun rounds integers past 2^53 - 1 silently.
      const db = new Database(path, options.readonly ? { readonly: true, safeIntegers: true } : { readwrite: true, create: true, safeIntegers: true });
      return {
        driver: 'bun:sqlite',
        native: db,
        get inTransaction() {
          return db.inTransaction;
        },
        prepare(sql) {
          const statement = db.prepare(sql);
          return {
            run: (...params) => {
              const result = statement.run(...params);
              return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
            },
            // Bun answers "no row" with null; the seam (and the adapter's checks) use undefined.
            get: (...params) => statement.get(...params) ?? undefined,
            all: (...params) => statement.all(...params),
          };
        },
        prepareValues(sql) {
          const statement = db.prepare(sql);
          return { all: (...params) => statement.values(...params) };
        },
        exec: (sql) => db.exec(sql),
        pragma: (statement) => firstValue(db.prepare(`PRAGMA ${statement}`).all()),
        close: () => db.close(),
      } satisfies SqliteConnection;
    },
  };
}
