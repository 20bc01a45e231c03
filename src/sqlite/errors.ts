/**
 * Typed failures of the SQLite adapter. Opening a file that is not ours, or one written by a newer
 * version, throws (the caller configured the wrong path); failures while the store runs are logged
 * and degrade instead (R9, R35).
 */
// The base class, the read-back errors and the integer decoding are storage-neutral (one class each,
// shared with the PostgreSQL adapter); exported here under the names this module always had.
import { StateDatabaseError } from '../shared/state-errors.js';
export { CorruptStateError, StateDatabaseError, UnsafeIntegerError, type StateDatabaseErrorCode } from '../shared/state-errors.js';
export { toSafeNumber } from '../shared/integers.js';

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

// The driver's own failure lives with the drivers (driver/errors.ts), which import nothing above them.
export { SqliteDriverUnavailableError } from './driver/errors.js';

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
