import type { SqliteConnection, SqliteStatement } from './types.js';

/**
 * Transactions are opened here, the same way on every driver (better-sqlite3 and bun:sqlite have
 * their own helpers, node:sqlite has none): BEGIN IMMEDIATE for writes, so the write lock is taken
 * up front and a read-then-write body never meets SQLITE_BUSY half-way (a deferred transaction
 * that reads first cannot upgrade while another connection writes); BEGIN for read snapshots.
 */

interface Control {
  immediate: SqliteStatement;
  deferred: SqliteStatement;
  commit: SqliteStatement;
  rollback: SqliteStatement;
}

// Prepared once per connection, as each driver's own transaction helper does.
const controls = new WeakMap<SqliteConnection, Control>();

function control(db: SqliteConnection): Control {
  let c = controls.get(db);
  if (!c) {
    c = { immediate: db.prepare('BEGIN IMMEDIATE'), deferred: db.prepare('BEGIN'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
    controls.set(db, c);
  }
  return c;
}

function run<T>(db: SqliteConnection, begin: SqliteStatement, body: () => T): T {
  const c = control(db);
  // Outside the try: if BEGIN fails (another transaction is open on this connection, or the lock
  // is busy) there is nothing of ours to roll back, and someone else's transaction must survive.
  begin.run();
  try {
    const result = body();
    c.commit.run();
    return result;
  } catch (error) {
    // SQLite may already have rolled back (SQLITE_FULL, some I/O errors); a failed ROLLBACK must
    // not hide the error that caused it.
    if (db.inTransaction) {
      try {
        c.rollback.run();
      } catch {
        /* keep the original error */
      }
    }
    throw error;
  }
}

/** Runs `body` in BEGIN IMMEDIATE ... COMMIT; any throw rolls back and is rethrown. */
export function immediateTransaction<T>(db: SqliteConnection, body: () => T): T {
  return run(db, control(db).immediate, body);
}

/** Runs `body` in a deferred (read) transaction: every read inside sees one snapshot. */
export function readTransaction<T>(db: SqliteConnection, body: () => T): T {
  return run(db, control(db).deferred, body);
}
