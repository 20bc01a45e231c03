/**
 * session-state-kit/sqlite: the SQLite storage adapter and the schema helpers other tools use to
 * read its files. It runs on better-sqlite3 (Node 20+, a dependency of the package), node:sqlite
 * (Node 22.13+, built in) and bun:sqlite (Bun, built in); no driver is loaded until a store or a
 * connection is opened, so importing this module needs none of them.
 *
 * @module session-state-kit/sqlite
 */
export {
  SqliteStore,
  createSqliteStore,
  sqliteConnection,
  sqliteStoreFactory,
  type SqliteStoreOptions,
  type SynchronousMode,
} from './sqlite-store.js';
export {
  APPLICATION_ID,
  MIGRATIONS,
  SCHEMA_VERSION,
  TABLES,
  migrate,
  openStateConnectionReadOnly,
  openStateDatabaseReadOnly,
  readSchemaVersion,
  type MigrationStep,
  type ReadOnlyConnectionOptions,
  type ReadOnlyOpenOptions,
  type SchemaTarget,
} from './schema.js';
export {
  CorruptStateError,
  NotAStateDatabaseError,
  StateDatabaseOpenError,
  SchemaTooNewError,
  SqliteDriverUnavailableError,
  StateDatabaseError,
  UnsafeIntegerError,
  toSafeNumber,
  type StateDatabaseErrorCode,
} from './errors.js';
export {
  availableSqliteDrivers,
  betterSqlite3Driver,
  bunSqliteDriver,
  immediateTransaction,
  nodeSqliteDriver,
  readTransaction,
  resolveSqliteDriver,
  sqliteErrorCode,
  type BetterSqlite3Database,
  type BetterSqlite3Module,
  type BetterSqlite3Statement,
  type BunSqliteModule,
  type NodeSqliteModule,
  type SqlValue,
  type SqliteConnection,
  type SqliteDriver,
  type SqliteDriverChoice,
  type SqliteDriverName,
  type SqliteOpenOptions,
  type SqliteRow,
  type SqliteRunResult,
  type SqliteStatement,
} from './driver/index.js';
export { eventFromRow, cursorFromRow, type EventRow, type CursorRow } from './rows.js';
export { ReadOnlyDirectoryError, SqliteStateReader, type SqliteReadMode, type SqliteStateReaderOptions } from './state-reader.js';
export type { SqliteValuesStatement } from './driver/types.js';
export type { OnBadPayload } from '../shared/rows.js';
export type { CursorView, CursorsPageQuery, ExactInt, HeadView, InspectReads, LiveViewReads, SessionRow, SessionsPageQuery, StatsView } from '../shared/read-model.js';
