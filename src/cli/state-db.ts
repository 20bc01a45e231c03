import { existsSync, statSync } from 'node:fs';
import { NotAStateDatabaseError, SchemaTooNewError, SqliteStateReader, StateDatabaseError } from '../sqlite/index.js';
import { DatabaseProblem } from './io.js';

/**
 * `inspect`'s way into a SQLite state file: the file's read model (sqlite/state-reader.ts), opened
 * read-only on whichever driver this runtime has (better-sqlite3, else node:sqlite on Node 22+,
 * bun:sqlite on Bun), so nothing can write the file; WAL lets the reads run while a live store
 * writes. Every way that can fail becomes a DatabaseProblem (exit 3) with a hint.
 */

/** Opens the file read-only, turning every way that can fail into a DatabaseProblem (exit 3) with a hint. */
export function openReadOnly(path: string): SqliteStateReader {
  if (!existsSync(path)) throw new DatabaseProblem(`${path}: no such file`, ['pass the path of a state database file written by the SQLite adapter']);
  if (!statSync(path).isFile()) throw new DatabaseProblem(`${path}: not a regular file`);
  try {
    return SqliteStateReader.open(path, { immutableFallback: false });
  } catch (error) {
    throw toDatabaseProblem(error, path);
  }
}

/** Maps adapter and SQLite errors to exit 3; anything else is rethrown as is. */
export function toDatabaseProblem(error: unknown, path: string, command = 'inspect'): unknown {
  if (error instanceof SchemaTooNewError) {
    // The adapter's message already says which versions and what to do.
    return new DatabaseProblem(error.message);
  }
  if (error instanceof NotAStateDatabaseError) {
    return new DatabaseProblem(error.message, [`${command} reads files written by the SQLite adapter (createSqliteStore({ path }))`]);
  }
  if (error instanceof StateDatabaseError) return new DatabaseProblem(`${path}: ${error.message}`);
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string' && code.startsWith('SQLITE_')) {
    const busy = code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
    return new DatabaseProblem(`${path}: ${error.message} (${code})`, busy ? ['another process holds a lock; retry in a moment'] : []);
  }
  return error;
}
