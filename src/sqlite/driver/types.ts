/**
 * The driver seam: the few synchronous SQLite operations the adapter needs, with the same
 * behaviour on better-sqlite3 (Node 20+), node:sqlite (Node 22.13+) and bun:sqlite (Bun). All SQL
 * and all transactions stay in the adapter (sqlite-store.ts, schema.ts); a driver only opens files,
 * prepares statements and runs them.
 *
 * What every driver guarantees (each has a test in test/sqlite/driver.test.ts):
 * - integers are read as bigint, never as a rounded or refused number; the adapter decodes them
 *   with toSafeNumber, so a value past 2^53 - 1 is an UnsafeIntegerError everywhere;
 * - `get` returns undefined (never null) when there is no row;
 * - `run` returns `changes` as a number and `lastInsertRowid` as a bigint;
 * - `pragma` returns the first column of the first row (undefined for a pragma that returns none);
 * - `prepareValues`, where a driver has it, reads the same rows as arrays in the SELECT's order;
 * - `readonly: true` opens an existing file without write access (a missing file is an error);
 * - errors carry an SQLite code that `sqliteErrorCode` reads (`SQLITE_BUSY`, `SQLITE_READONLY`...).
 * Transactions are opened by one function over any driver (transaction.ts), not by the driver.
 */

/** Values the adapter binds. Strings are well-formed UTF-16: lone surrogates never reach a driver (R1). */
export type SqlValue = string | number | bigint | null;

/** One result row as an object keyed by column name (integers as bigint). */
export type SqliteRow = Record<string, unknown>;

/** What running a write statement reports: rows changed and the last inserted rowid. */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: bigint | number;
}

/** A prepared statement of a SqliteConnection; parameters bind positionally. */
export interface SqliteStatement {
  /** Runs a write; `changes` is a number and `lastInsertRowid` a bigint. */
  run(...params: SqlValue[]): SqliteRunResult;
  /** The first row, or undefined (never null) when there is none. */
  get(...params: SqlValue[]): SqliteRow | undefined;
  /** Every row, in order. */
  all(...params: SqlValue[]): SqliteRow[];
}

/** A read whose rows come back as arrays, in the SELECT's column order. */
export interface SqliteValuesStatement {
  /** Every row, each as an array in the SELECT's column order. */
  all(...params: SqlValue[]): unknown[][];
}

/** An open SQLite database behind the driver seam: what the adapter runs its SQL and transactions on. */
export interface SqliteConnection {
  /** The driver that opened it, e.g. 'better-sqlite3'. */
  readonly driver: string;
  /** The driver's own database object (better-sqlite3 Database, DatabaseSync, bun Database). */
  readonly native: unknown;
  /** True between BEGIN and COMMIT/ROLLBACK, including after SQLite rolled back on its own. */
  readonly inTransaction: boolean;
  /** Prepares one statement. */
  prepare(sql: string): SqliteStatement;
  /**
   * Optional: a read whose rows come back as arrays, which spares an object per row where one
   * read returns many (a drain of 1k notices spent about a seventh of its time building them). The store
   * falls back to `prepare` for a driver without it.
   */
  prepareValues?(sql: string): SqliteValuesStatement;
  /** Runs one or more statements without results (schema scripts, BEGIN/COMMIT). */
  exec(sql: string): void;
  /** `PRAGMA <statement>`: the first column of the first row, undefined when there is none. */
  pragma(statement: string): unknown;
  /** Closes the database. */
  close(): void;
}

/** How a SqliteDriver opens a file. */
export interface SqliteOpenOptions {
  /** Open an existing file read-only; a missing file is an error. */
  readonly?: boolean;
}

/** A SQLite driver behind the seam: better-sqlite3, node:sqlite, bun:sqlite or your own with the same guarantees. */
export interface SqliteDriver {
  readonly name: string;
  /** Opens (creating unless readonly) a database file, or ':memory:'. */
  open(path: string, options?: SqliteOpenOptions): SqliteConnection;
}

/** The names of the built-in drivers. */
export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite' | 'bun:sqlite';

/** What `createSqliteStore({ driver })` accepts: 'auto' (the default), a driver name, or a driver object. */
export type SqliteDriverChoice = 'auto' | SqliteDriverName | SqliteDriver;

/**
 * A better-sqlite3 statement and database, described by the members the kit uses, so the published
 * declarations need no @types/better-sqlite3 (users of node:sqlite or Bun do not have it). A real
 * better-sqlite3 `Database` is assignable to BetterSqlite3Database (a test checks it).
 */
export interface BetterSqlite3Statement {
  /** Runs a write statement. */
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  /** The first row, or undefined. */
  get(...params: unknown[]): unknown;
  /** Every row. */
  all(...params: unknown[]): unknown[];
  /** Returns rows as arrays instead of objects. */
  raw(toggle?: boolean): this;
  /** Returns only the first column of each row. */
  pluck(toggle?: boolean): this;
}

/** A better-sqlite3 Database, by the members the kit uses (see BetterSqlite3Statement). */
export interface BetterSqlite3Database {
  readonly name: string;
  readonly open: boolean;
  readonly inTransaction: boolean;
  readonly readonly: boolean;
  /** Prepares one statement. */
  prepare(source: string): BetterSqlite3Statement;
  /** Runs statements without results. */
  exec(source: string): this;
  /** Runs a PRAGMA; with `simple: true` returns the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Reads integers as bigint in statements prepared afterwards. */
  defaultSafeIntegers(toggle?: boolean): this;
  /** Closes the database. */
  close(): this;
}

/** The better-sqlite3 module's default export (constructible), structurally. */
export type BetterSqlite3Module = new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => BetterSqlite3Database;
