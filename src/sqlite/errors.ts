/**
 * Typed failures of the SQLite adapter. Opening a file that is not ours, or one written by a newer
 * version, throws (the caller configured the wrong path); failures while the store runs are logged
 * and degrade instead (R9, R35).
 */
export type StateDatabaseErrorCode =
  | 'not-a-state-database'
  | 'schema-too-new'
  | 'unsafe-integer'
  | 'driver-unavailable'
  // Opening a file the store did not write (or cannot reach): one code per cause, with a hint.
  | 'missing-directory'
  | 'read-only'
  | 'busy'
  | 'corrupt'
  | 'cannot-open'
  // A value read back breaks the schema's own invariants (a crafted or damaged row).
  | 'corrupt-state';

export class StateDatabaseError extends Error {
  override readonly name: string = 'StateDatabaseError';
  constructor(
    readonly code: StateDatabaseErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The file is not SQLite, or is another application's SQLite database. */
export class NotAStateDatabaseError extends StateDatabaseError {
  override readonly name = 'NotAStateDatabaseError';
  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('not-a-state-database', `${path} is not a session-state database: ${reason}`, options);
  }
}

/** The file was migrated by a newer version of this package; we refuse rather than guess at its schema. */
export class SchemaTooNewError extends StateDatabaseError {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly path: string,
    readonly foundVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      'schema-too-new',
      `${path} has session-state schema version ${foundVersion}, but this version of session-state-kit only knows up to ${supportedVersion}; upgrade session-state-kit to open it`,
    );
  }
}

/** An integer column holds a value JavaScript numbers cannot represent exactly (above 2^53 - 1). */
export class UnsafeIntegerError extends StateDatabaseError {
  override readonly name = 'UnsafeIntegerError';
  constructor(
    readonly field: string,
    readonly value: string,
  ) {
    super('unsafe-integer', `${field} = ${value} is outside the safe integer range of JavaScript numbers (|n| <= 2^53 - 1)`);
  }
}

/**
 * The SQLite driver asked for (or, with 'auto', every candidate) cannot be loaded in this runtime.
 * `reasons` has one line per driver tried.
 */
export class SqliteDriverUnavailableError extends StateDatabaseError {
  override readonly name = 'SqliteDriverUnavailableError';
  constructor(
    readonly driver: string,
    readonly reasons: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      'driver-unavailable',
      `${driver === 'auto' ? 'no SQLite driver is available' : `the SQLite driver ${driver} is not available`} (${reasons.join('; ')}); ` +
        'install better-sqlite3 (npm install better-sqlite3), or run on Node 22.13+ (node:sqlite) or Bun (bun:sqlite)',
      options,
    );
  }
}

/** Integer columns are read as bigint (safeIntegers) and decoded here, so nothing rounds silently. */
export function toSafeNumber(value: unknown, field: string): number {
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw new UnsafeIntegerError(field, value.toString());
    return Number(value);
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(field, String(value));
    return value;
  }
  throw new TypeError(`${field}: expected an integer, got ${value === null ? 'null' : typeof value}`);
}

/**
 * Opening the database failed for a reason the caller can fix (a path, a permission, another
 * process, a damaged file). Never the driver's raw error: `code` names the case, `path` the file,
 * `hint` what to do; the driver's error is the `cause`.
 */
export class StateDatabaseOpenError extends StateDatabaseError {
  override readonly name = 'StateDatabaseOpenError';
  constructor(
    code: 'missing-directory' | 'read-only' | 'busy' | 'corrupt' | 'cannot-open',
    readonly path: string,
    readonly hint: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(code, `cannot open ${path}: ${reason}; ${hint}`, options);
  }
}

/**
 * A value read back from the file is impossible for a store that wrote it (negative, not a safe
 * integer, not a valid spec value, a head below one of its own events): the row was written by
 * something else or damaged. Names the table and the row so an operator can find it.
 */
export class CorruptStateError extends StateDatabaseError {
  override readonly name = 'CorruptStateError';
  constructor(
    readonly table: string,
    readonly row: string,
    readonly reason: string,
  ) {
    super('corrupt-state', `${table} row ${row} is corrupt: ${reason}`);
  }
}
