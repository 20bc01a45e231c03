/**
 * Typed failures of a durable store that do not depend on the storage engine: the base class both
 * adapters' read-back errors share, and the two read-back errors themselves (R9d). One class each,
 * so `instanceof` holds whichever adapter threw. The SQLite adapter exports these under its own
 * names (session-state-kit/sqlite), the PostgreSQL adapter re-exports the same classes.
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

/**
 * A typed failure of a durable store, told apart by its `code`; the base of both adapters' read-back errors (R9d).
 */
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
 * A value read back is impossible for a store that wrote it (negative, not a safe integer, not a
 * valid spec value, a head below one of its own events): the row was written by something else or
 * damaged. Names the table and the row so an operator can find it.
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

/** How a cursor row is named in a CorruptStateError: its three keys as stored, each as JSON (a key may hold anything another program wrote). */
export function cursorRowName(watcher: unknown, target: unknown, agent: unknown): string {
  return `(${JSON.stringify(watcher)}, ${JSON.stringify(target)}, ${JSON.stringify(agent)})`;
}
