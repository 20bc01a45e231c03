/**
 * One spelling of SQLite error codes across drivers. better-sqlite3 and bun:sqlite put the name on
 * `error.code` ('SQLITE_BUSY', 'SQLITE_CONSTRAINT_UNIQUE'); node:sqlite sets `code` to
 * 'ERR_SQLITE_ERROR' and the number on `errcode`. Logs (R9, R35) and the "not a database" check
 * must not depend on which driver ran, so numbers are turned into the same names here.
 */

const PRIMARY: Record<number, string> = {
  0: 'OK', 1: 'ERROR', 2: 'INTERNAL', 3: 'PERM', 4: 'ABORT', 5: 'BUSY', 6: 'LOCKED', 7: 'NOMEM',
  8: 'READONLY', 9: 'INTERRUPT', 10: 'IOERR', 11: 'CORRUPT', 12: 'NOTFOUND', 13: 'FULL', 14: 'CANTOPEN',
  15: 'PROTOCOL', 16: 'EMPTY', 17: 'SCHEMA', 18: 'TOOBIG', 19: 'CONSTRAINT', 20: 'MISMATCH', 21: 'MISUSE',
  22: 'NOLFS', 23: 'AUTH', 24: 'FORMAT', 25: 'RANGE', 26: 'NOTADB', 27: 'NOTICE', 28: 'WARNING',
};

/** Extended codes are `primary | (n << 8)`; entry n - 1 of each list names the n-th one (sqlite3.h); '' marks a number sqlite3.h leaves unused. */
const EXTENDED: Record<number, readonly string[]> = {
  0: ['LOAD_PERMANENTLY', 'SYMLINK'],
  1: ['MISSING_COLLSEQ', 'RETRY', 'SNAPSHOT'],
  4: ['', 'ROLLBACK'], // SQLITE_ABORT_ROLLBACK is 4 | (2 << 8): sqlite3.h has no ABORT extended code 1
  5: ['RECOVERY', 'SNAPSHOT', 'TIMEOUT'],
  6: ['SHAREDCACHE', 'VTAB'],
  8: ['RECOVERY', 'CANTLOCK', 'ROLLBACK', 'DBMOVED', 'CANTINIT', 'DIRECTORY'],
  10: [
    'READ', 'SHORT_READ', 'WRITE', 'FSYNC', 'DIR_FSYNC', 'TRUNCATE', 'FSTAT', 'UNLOCK', 'RDLOCK', 'DELETE', 'BLOCKED', 'NOMEM',
    'ACCESS', 'CHECKRESERVEDLOCK', 'LOCK', 'CLOSE', 'DIR_CLOSE', 'SHMOPEN', 'SHMSIZE', 'SHMLOCK', 'SHMMAP', 'SEEK', 'DELETE_NOENT',
    'MMAP', 'GETTEMPPATH', 'CONVPATH', 'VNODE', 'AUTH', 'BEGIN_ATOMIC', 'COMMIT_ATOMIC', 'ROLLBACK_ATOMIC', 'DATA', 'CORRUPTFS', 'IN_PAGE',
  ],
  11: ['VTAB', 'SEQUENCE', 'INDEX'],
  14: ['NOTEMPDIR', 'ISDIR', 'FULLPATH', 'CONVPATH', 'DIRTYWAL', 'SYMLINK'],
  19: ['CHECK', 'COMMITHOOK', 'FOREIGNKEY', 'FUNCTION', 'NOTNULL', 'PRIMARYKEY', 'TRIGGER', 'UNIQUE', 'VTAB', 'ROWID', 'PINNED', 'DATATYPE'],
  23: ['USER'],
  27: ['RECOVER_WAL', 'RECOVER_ROLLBACK', 'RBU'],
  28: ['AUTOINDEX'],
};

/** 'SQLITE_BUSY', 'SQLITE_CONSTRAINT_UNIQUE', ... for an SQLite result code number. */
export function sqliteCodeName(code: number): string | undefined {
  const primary = PRIMARY[code & 0xff];
  if (primary === undefined) return undefined;
  const extended = code >> 8 === 0 ? undefined : EXTENDED[code & 0xff]?.[(code >> 8) - 1];
  // An extended code this table does not know still names its primary code.
  return extended === undefined || extended === '' ? `SQLITE_${primary}` : `SQLITE_${primary}_${extended}`;
}

/** The SQLite error code of an error thrown by any driver, or undefined for other errors. */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  if (typeof errcode === 'number') return sqliteCodeName(errcode);
  return undefined;
}
