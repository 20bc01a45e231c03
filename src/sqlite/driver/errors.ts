import { StateDatabaseError } from '../../shared/state-errors.js';

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
