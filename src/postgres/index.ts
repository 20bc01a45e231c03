/**
 * session-state-kit/postgres: the PostgreSQL storage adapter, for runtimes whose sessions live on
 * several machines. It runs on node-postgres (`pg`, an optional peer dependency), loaded only when
 * a store is opened, so importing this module (or the package root) never needs it.
 *
 * @module session-state-kit/postgres
 */
export {
  PostgresStore,
  createPostgresStore,
  postgresStoreFactory,
  DEFAULT_WAKE_HOLD_MS,
  MAX_WAKE_HOLD_MS,
  type PostgresStoreOptions,
} from './postgres-store.js';
export type { PgPoolSettings, PgQueryable } from './pg-types.js';
export { MAX_IDENTIFIER_BYTES, MIGRATIONS, SCHEMA_VERSION, TABLES, migrate, quoteIdent, readSchemaVersion, validateSchemaName, type PgMigrationStep } from './schema.js';
export {
  CorruptStateError,
  NotAStateSchemaError,
  PostgresAuthenticationError,
  PostgresDatabaseMissingError,
  PostgresDriverUnavailableError,
  PostgresEncodingError,
  PostgresPrivilegeError,
  PostgresStoreError,
  PostgresUnreachableError,
  SchemaTooNewError,
  StateDatabaseError,
  UnsafeIntegerError,
  toSafeNumber,
  type PostgresStoreErrorCode,
  type StateDatabaseErrorCode,
} from './errors.js';
export { checkedEventFromPgRow, cursorFromPgRow, eventFromPgRow, type PgCursorRow, type PgEventRow } from './rows.js';
export type { OnBadPayload } from '../shared/rows.js';
export { statements, EVENT_COLUMNS, CURSOR_COLUMNS } from './sql.js';
export { PgStateReader, redactUrl, type PgStateReaderOptions } from './state-reader.js';
export type { CursorView, CursorsPageQuery, ExactInt, HeadView, InspectReads, LiveViewReads, SessionRow, SessionsPageQuery, StatsView } from '../shared/read-model.js';
