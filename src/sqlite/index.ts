/**
 * session-state-kit/sqlite: the SQLite storage adapter (better-sqlite3, an optional peer
 * dependency) and the schema helpers other tools use to read its files.
 */
export { SqliteStore, createSqliteStore, sqliteStoreFactory, type SqliteStoreOptions, type SynchronousMode } from './sqlite-store.js';
export {
  APPLICATION_ID,
  MIGRATIONS,
  SCHEMA_VERSION,
  TABLES,
  migrate,
  openStateDatabaseReadOnly,
  readSchemaVersion,
  type MigrationStep,
  type ReadOnlyOpenOptions,
} from './schema.js';
export { NotAStateDatabaseError, SchemaTooNewError, StateDatabaseError, UnsafeIntegerError, toSafeNumber, type StateDatabaseErrorCode } from './errors.js';
