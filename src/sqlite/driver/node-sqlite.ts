import { SqliteDriverUnavailableError } from './errors.js';
import { builtinModule, runtimeName } from './load.js';
import type { SqlValue, SqliteConnection, SqliteDriver, SqliteRow } from './types.js';

/**
 * node:sqlite's DatabaseSync (built into Node 22.13+, no install). Declared here structurally: the
 * project's @types/node is for Node 20, which has no node:sqlite.
 */

interface NodeStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqliteRow | undefined;
  all(...params: SqlValue[]): SqliteRow[];
  setReadBigInts(enabled: boolean): void;
  /** Node 22.16+ (arrays instead of objects); prepareValues falls back to Object.values before. */
  setReturnArrays?(enabled: boolean): void;
}

/**
 * A node:sqlite DatabaseSync, by the members the driver uses; a description of Node's own class, not kit API.
 * @internal
 */
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  /** Node 22.16+; see inTransaction below for older releases. */
  readonly isTransaction?: boolean;
}

/** The `node:sqlite` module, by the member the driver uses (its DatabaseSync class). */
export interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => NodeDatabase;
}

function load(): NodeSqliteModule {
  const module = builtinModule('node:sqlite') as NodeSqliteModule | undefined;
  if (module && typeof module.DatabaseSync === 'function') return module;
  throw new SqliteDriverUnavailableError('node:sqlite', [`node:sqlite: not available in ${runtimeName()} (it needs Node 22.13 or later)`]);
}

/** The node:sqlite driver (Node 22.13+; integers read as bigint). Pass the module to skip loading the built-in one. */
export function nodeSqliteDriver(module?: NodeSqliteModule): SqliteDriver {
  const { DatabaseSync } = module ?? load();
  return {
    name: 'node:sqlite',
    open(path, options = {}) {
      const db = new DatabaseSync(path, options.readonly ? { readOnly: true } : {});
      const prepare = (sql: string) => {
        const statement = db.prepare(sql);
        // Without this, node:sqlite throws ERR_OUT_OF_RANGE on integers past 2^53 - 1 instead of reading them.
        statement.setReadBigInts(true);
        return statement;
      };
      return {
        driver: 'node:sqlite',
        native: db,
        get inTransaction() {
          // Unknown on releases before isTransaction: say yes, so a failed transaction still tries ROLLBACK.
          return typeof db.isTransaction === 'boolean' ? db.isTransaction : true;
        },
        prepare(sql) {
          const statement = prepare(sql);
          return {
            run: (...params) => {
              // With big integers on, `changes` comes back as a bigint too: the seam promises a number.
              const result = statement.run(...params);
              return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
            },
            get: (...params) => statement.get(...params),
            all: (...params) => statement.all(...params),
          };
        },
        prepareValues(sql) {
          const statement = prepare(sql);
          if (typeof statement.setReturnArrays === 'function') {
            statement.setReturnArrays(true);
            return { all: (...params) => statement.all(...params) as unknown as unknown[][] };
          }
          return { all: (...params) => statement.all(...params).map((row) => Object.values(row)) };
        },
        exec: (sql) => db.exec(sql),
        pragma: (statement) => firstValue(prepare(`PRAGMA ${statement}`).all()),
        close: () => db.close(),
      } satisfies SqliteConnection;
    },
  };
}

export function firstValue(rows: SqliteRow[]): unknown {
  const row = rows[0];
  return row === undefined ? undefined : Object.values(row)[0];
}

