import { accessSync, chmodSync, closeSync, constants, copyFileSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { messageOf } from '../shared/logger.js';

/**
 * How `init` reads and writes the files of agent CLIs (PROTOCOL.md T45): by real path, so two
 * names of one file (HOME through a symlink) are one edit; under one lock per user, so parallel
 * runs never lose each other's entries; checked before anything is written, so a read-only file
 * stops the run untouched; and through temporary files renamed into place at the end, so a reader
 * never sees half a file.
 */

/** A file `init` refuses to change; nothing has been written when it is thrown. */
export class ConfigWriteError extends Error {
  override readonly name = 'ConfigWriteError';
}

/** The file a path names once symlinks are resolved; for a file that does not exist yet, its nearest existing folder resolved. */
export function realFile(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realFile(parent), basename(path));
  }
}

/** A file's text, or undefined when there is none. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** One planned change: the file as read (undefined: absent) and as it will be. */
export interface FileChange {
  /** The path as the user knows it (shown in messages). */
  path: string;
  /** The file it names (symlinks resolved); this is what is written. */
  real: string;
  before: string | undefined;
  /** Undefined: the file is removed (T63: the plugin file init wrote, on uninstall). */
  after: string | undefined;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** This user's init lock: one file in the temp folder, so every init of the user's shares it. */
export function initLockPath(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return join(tmpdir(), `session-state-kit-init-${uid}.lock`);
}

/**
 * Runs `work` holding the init lock: a file created exclusively, holding the holder's pid. A lock
 * whose holder is gone (its pid no longer runs) is taken over; one held longer than `waitMs` fails
 * the run with the holder named. `lock` is for tests (the temp folder is the process's, not a thread's).
 */
export function withInitLock<T>(work: () => T, o: { waitMs?: number; lock?: string } = {}): T {
  const waitMs = o.waitMs ?? 30_000;
  const lock = o.lock ?? initLockPath();
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readText(lock) ?? '');
      if (Number.isSafeInteger(holder) && holder > 0 && !running(holder)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new ConfigWriteError(`another init (pid ${Number.isSafeInteger(holder) ? holder : '?'}) has held ${lock} for ${Math.round(waitMs / 1000)} s; nothing was written`);
      Atomics.wait(sleeper, 0, 0, 25);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a file cannot be replaced, or undefined. Read-only permission bits count even for root: they say the person wants the file left alone. */
function notWritable(real: string): string | undefined {
  if (existsSync(real)) {
    const st = statSync(real);
    if (!st.isFile()) return `${real} is not a regular file`;
    if ((st.mode & 0o222) === 0) return `${real} is read-only`;
    try {
      accessSync(real, constants.W_OK);
    } catch {
      return `${real} is not writable by this user`;
    }
  }
  let dir = dirname(real);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  if (!statSync(dir).isDirectory()) return `${dir} is not a folder`;
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return `the folder ${dir} is not writable by this user`;
  }
  return undefined;
}

/**
 * Writes every change, or none: all are checked first; then each file's backup
 * (`<file>.<stamp>.bak`, the original's bytes and permissions) and its new text in a temporary
 * file beside it; then the temporary files are renamed into place, and the files to remove removed.
 */
export function writeChanges(changes: readonly FileChange[], stamp: string): void {
  const problems = changes.map((c) => notWritable(c.real)).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new ConfigWriteError(`${problems.join('; ')}; nothing was written`);
  const staged: { tmp: string; real: string }[] = [];
  const removed: string[] = [];
  try {
    for (const c of changes) {
      mkdirSync(dirname(c.real), { recursive: true });
      const mode = c.before !== undefined ? lstatSync(c.real).mode & 0o7777 : 0o644;
      if (c.before !== undefined) copyFileSync(c.real, `${c.real}.${stamp}.bak`);
      if (c.after === undefined) {
        removed.push(c.real);
        continue;
      }
      const tmp = `${c.real}.${process.pid}.tmp`;
      writeFileSync(tmp, c.after, { mode });
      chmodSync(tmp, mode);
      staged.push({ tmp, real: c.real });
    }
  } catch (error) {
    for (const s of staged) rmSync(s.tmp, { force: true });
    throw new ConfigWriteError(`${messageOf(error)}; nothing was written`);
  }
  for (const s of staged) renameSync(s.tmp, s.real);
  // Its bytes are in the backup, like every file init changes.
  for (const real of removed) rmSync(real, { force: true });
}

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * T45, T47: why a state database path can never be opened by a hook, or undefined: a name longer
 * than the system takes, a folder, a file that is not SQLite, or a place this user cannot create
 * it. Reads at most 16 bytes; creates nothing.
 */
export function databasePathProblem(path: string): string | undefined {
  if (Buffer.byteLength(path) > 4095) return `the path is ${Buffer.byteLength(path)} bytes long (the system takes at most 4095)`;
  const long = path.split('/').find((part) => Buffer.byteLength(part) > 255);
  if (long !== undefined) return `a name in the path is ${Buffer.byteLength(long)} bytes long (the system takes at most 255)`;
  if (existsSync(path)) {
    const st = statSync(path);
    if (!st.isFile()) return `${path} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}, not a database file`;
    if (st.size > 0) {
      let head = '';
      try {
        const fd = openSync(path, 'r');
        const buffer = Buffer.alloc(16);
        head = buffer.subarray(0, readSync(fd, buffer, 0, 16, 0)).toString('latin1');
        closeSync(fd);
      } catch (error) {
        return `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
      }
      if (head !== SQLITE_HEADER) return `${path} is not a SQLite database (it holds something else; pass a new file or an existing state database)`;
    }
    return notWritable(path);
  }
  return notWritable(path);
}
