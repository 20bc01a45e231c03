import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sqliteErrorCode } from './driver/error-codes.js';
import { StateDatabaseError, StateDatabaseOpenError } from './errors.js';
import { messageOf } from '../shared/logger.js';

/**
 * R9c: turns a driver's failure while opening a state file into the kit's typed error. The kit's
 * own errors (not ours, schema too new, no driver) pass through; every other error becomes a
 * StateDatabaseOpenError whose code says which of the caller's problems it is. The file system is
 * asked only after SQLite failed, to tell a missing directory from a permission problem (SQLite
 * says SQLITE_CANTOPEN for both).
 */
export function openError(path: string, error: unknown): StateDatabaseError {
  if (error instanceof StateDatabaseError) return error;
  const code = sqliteErrorCode(error) ?? '';
  const detail = messageOf(error);
  const dir = dirname(resolve(path));
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StateDatabaseOpenError(
      'busy',
      path,
      'another connection or process holds the database lock past busyTimeoutMs; retry later, raise busyTimeoutMs, or stop the process that holds it',
      `the database is locked (${detail})`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new StateDatabaseOpenError(
      'corrupt',
      path,
      'the file is damaged; restore it (with its -wal file) from a backup, or move it aside and let the store create a new one',
      `the database file is malformed (${detail})`,
      { cause: error },
    );
  }
  if (!existsSync(dir)) {
    return new StateDatabaseOpenError('missing-directory', path, `create the directory ${dir} first, or choose a path in an existing directory`, `the directory ${dir} does not exist`, {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    if (!writable(dir) || (existsSync(path) && !writable(path))) {
      return new StateDatabaseOpenError(
        'read-only',
        path,
        `the store needs to write the file and its -wal and -shm files beside it: make ${existsSync(path) ? `${path} and ` : ''}${dir} writable by this user, or choose a writable path`,
        `the location is read-only (${detail})`,
        { cause: error },
      );
    }
  }
  return new StateDatabaseOpenError('cannot-open', path, 'check that the path names a regular file this process may read and write', detail, { cause: error });
}

function writable(p: string): boolean {
  try {
    accessSync(p, constants.W_OK);
    // A directory we may write but not enter is as good as read-only for SQLite.
    if (statSync(p).isDirectory()) accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
