export type { BetterSqlite3Database, BetterSqlite3Module, BetterSqlite3Statement, SqlValue, SqliteConnection, SqliteDriver, SqliteDriverChoice, SqliteDriverName, SqliteOpenOptions, SqliteRow, SqliteRunResult, SqliteStatement } from './types.js';
export { betterSqlite3Driver, isBetterSqlite3Database, wrapBetterSqlite3 } from './better-sqlite3.js';
export { nodeSqliteDriver, type NodeSqliteModule } from './node-sqlite.js';
export { bunSqliteDriver, type BunSqliteModule } from './bun-sqlite.js';
export { DRIVER_NAMES, availableSqliteDrivers, loadSqliteDriver, resolveSqliteDriver, runtimeName } from './resolve.js';
export { immediateTransaction, readTransaction } from './transaction.js';
export { sqliteCodeName, sqliteErrorCode } from './error-codes.js';
