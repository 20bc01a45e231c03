/**
 * Typed failures of the PostgreSQL adapter. Configuration problems found while opening a store
 * (server unreachable, wrong password, missing privileges, a schema from a newer release, a
 * missing driver) throw with a hint: the caller configured something wrong. Failures while the
 * store runs are logged and degrade instead (R9, R35), as on SQLite.
 */
// Values read back (R9d) are decoded and checked by the storage-neutral code both adapters share:
// the same UnsafeIntegerError and CorruptStateError classes as session-state-kit/sqlite.
export { CorruptStateError, StateDatabaseError, UnsafeIntegerError, type StateDatabaseErrorCode } from '../shared/state-errors.js';
export { toSafeNumber } from '../shared/integers.js';

/** What kind of failure a PostgresStoreError is (its `code`). */
export type PostgresStoreErrorCode =
  | 'unreachable'
  | 'authentication'
  | 'privilege'
  | 'database-missing'
  | 'schema-too-new'
  | 'not-a-state-schema'
  | 'encoding'
  // Kept for compatibility: an unsafe integer is now the shared UnsafeIntegerError (a StateDatabaseError).
  | 'unsafe-integer'
  | 'driver-unavailable';

/** A typed failure of the PostgreSQL adapter, with a one-line `hint` of what to do; the base of the adapter's error classes. */
export class PostgresStoreError extends Error {
  override readonly name: string = 'PostgresStoreError';
  constructor(
    readonly code: PostgresStoreErrorCode,
    message: string,
    /** What to do about it, one line. */
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(`${message}; ${hint}`, options);
  }
}

/** Nothing answers at the configured host and port (refused, unknown host, timeout). */
export class PostgresUnreachableError extends PostgresStoreError {
  override readonly name = 'PostgresUnreachableError';
  constructor(readonly target: string, reason: string, options?: { cause?: unknown }) {
    super('unreachable', `cannot reach PostgreSQL at ${target}: ${reason}`, 'check that the server runs and the host and port are right (SSK_PG_URL or the connection string)', options);
  }
}

/** The server refused the credentials (SQLSTATE 28P01 / 28000). */
export class PostgresAuthenticationError extends PostgresStoreError {
  override readonly name = 'PostgresAuthenticationError';
  constructor(readonly target: string, readonly user: string | undefined, reason: string, options?: { cause?: unknown }) {
    super('authentication', `PostgreSQL at ${target} refused user ${user ?? '(default)'}: ${reason}`, 'check the user name and password in the connection string, and pg_hba.conf on the server', options);
  }
}

/** The role may not create or use the store's schema or tables (SQLSTATE 42501). */
export class PostgresPrivilegeError extends PostgresStoreError {
  override readonly name = 'PostgresPrivilegeError';
  constructor(readonly schema: string, readonly user: string | undefined, reason: string, options?: { cause?: unknown }) {
    super(
      'privilege',
      `user ${user ?? '(default)'} lacks a privilege on schema ${schema}: ${reason}`,
      `run the first open (the migration) as the schema's owner, or GRANT USAGE, CREATE ON SCHEMA ${schema} and SELECT, INSERT, UPDATE, DELETE on its tables and USAGE on its sequence to this user`,
      options,
    );
  }
}

/** The database named in the connection string does not exist (SQLSTATE 3D000). */
export class PostgresDatabaseMissingError extends PostgresStoreError {
  override readonly name = 'PostgresDatabaseMissingError';
  constructor(readonly target: string, reason: string, options?: { cause?: unknown }) {
    super('database-missing', `${target}: ${reason}`, 'create the database first (CREATE DATABASE ...) or name an existing one in the connection string', options);
  }
}

/** The schema was migrated by a newer version of this package; we refuse rather than guess at it. */
export class SchemaTooNewError extends PostgresStoreError {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly schema: string,
    readonly foundVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      'schema-too-new',
      `PostgreSQL schema ${schema} has session-state schema version ${foundVersion}, but this version of session-state-kit only knows up to ${supportedVersion}`,
      'upgrade session-state-kit to open it',
    );
  }
}

/** The schema holds tables with our names but no version table: not written by this adapter. */
export class NotAStateSchemaError extends PostgresStoreError {
  override readonly name = 'NotAStateSchemaError';
  constructor(readonly schema: string, reason: string) {
    super('not-a-state-schema', `PostgreSQL schema ${schema} is not a session-state schema: ${reason}`, 'give the store a schema of its own (the `schema` option)');
  }
}

/** Keys are compared as UTF-8 text; another server encoding would change or reject them. */
export class PostgresEncodingError extends PostgresStoreError {
  override readonly name = 'PostgresEncodingError';
  constructor(readonly encoding: string) {
    super('encoding', `the database encoding is ${encoding}, not UTF8`, 'create the database with ENCODING \'UTF8\'');
  }
}

/** The `pg` package (an optional peer dependency) is not installed. */
export class PostgresDriverUnavailableError extends PostgresStoreError {
  override readonly name = 'PostgresDriverUnavailableError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super('driver-unavailable', `the PostgreSQL driver (pg) cannot be loaded: ${reason}`, 'install it: npm install pg', options);
  }
}

type PgLikeError = Error & { code?: unknown; errors?: unknown[]; routine?: unknown };

function codesOf(error: unknown): string[] {
  const out: string[] = [];
  const visit = (e: unknown, depth: number) => {
    if (depth > 3 || e === null || typeof e !== 'object') return;
    const code = (e as PgLikeError).code;
    if (typeof code === 'string') out.push(code);
    const inner = (e as PgLikeError).errors;
    if (Array.isArray(inner)) for (const x of inner) visit(x, depth + 1);
    visit((e as { cause?: unknown }).cause, depth + 1);
  };
  visit(error, 0);
  return out;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/**
 * Maps what connecting and migrating can throw to the typed errors above; anything else is
 * returned as is. `target` names the server (host:port/database) without the password.
 */
export function classifyOpenError(error: unknown, context: { target: string; user: string | undefined; schema: string }): unknown {
  if (error instanceof PostgresStoreError) return error;
  const codes = codesOf(error);
  const message = error instanceof Error ? error.message || codes[0] || error.name : String(error);
  if (codes.some((c) => UNREACHABLE.has(c)) || /timeout expired|Connection terminated due to connection timeout/i.test(message)) {
    return new PostgresUnreachableError(context.target, message, { cause: error });
  }
  if (codes.includes('28P01') || codes.includes('28000')) return new PostgresAuthenticationError(context.target, context.user, message, { cause: error });
  if (codes.includes('42501')) return new PostgresPrivilegeError(context.schema, context.user, message, { cause: error });
  if (codes.includes('3D000')) return new PostgresDatabaseMissingError(context.target, message, { cause: error });
  return error;
}

/** A short description for the logger (R9): message, SQLSTATE, and no connection secrets. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const code = codesOf(error)[0];
    const message = error.message || (error.name === 'AggregateError' ? 'connection failed' : error.name);
    return code === undefined ? { error: message, name: error.name } : { error: message, name: error.name, code };
  }
  return { error: String(error) };
}

/** SQLSTATEs a transaction is retried on: it lost a race, nothing is wrong with the request. */
export function isRetryable(error: unknown): boolean {
  const codes = codesOf(error);
  // 40001 serialization failure, 40P01 deadlock detected, 23505 unique violation (two records raced
  // on one dedupe key: the retry finds the winner's event, R8).
  return codes.includes('40001') || codes.includes('40P01') || codes.includes('23505');
}
