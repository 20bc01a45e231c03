/**
 * R80, R86: how the read model opens its file, decision by decision, in process. SQLite refuses a
 * shared read of a WAL-mode file to a reader who may not write its folder (no -shm can be made);
 * a process running as root never meets that refusal, so an opener passed in refuses as SQLite
 * does while no writer's -shm exists. test/ui/read-only-dir.test.ts meets the real refusal as
 * another user.
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { NotAStateDatabaseError, ReadOnlyDirectoryError, SqliteStateReader } from '../../src/sqlite/index.js';
import { openStateConnectionReadOnly } from '../../src/sqlite/schema.js';
import { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';
import { human, tempDir } from './helpers.js';

const dir = tempDir('state-reader-open');
const T0 = Date.UTC(2026, 0, 1);
let files = 0;
let snapshots = 0;
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});


/** A state file with one session, written and closed: no -wal, no -shm beside it. */
function stateFile(): string {
  const path = join(dir, `s${files++}.db`);
  const store = new SqliteStore({ path, now: () => T0, logger: silentLogger });
  store.record(human('agent:main:first'));
  store.close();
  expect(existsSync(`${path}-wal`)).toBe(false);
  expect(existsSync(`${path}-shm`)).toBe(false);
  return path;
}

function writer(path: string): SqliteStore {
  const store = new SqliteStore({ path, now: () => T0 + 1, logger: silentLogger });
  open.push(store);
  return store;
}

/** SQLite's refusal as the driver raises it, wrapped `depth` times as the adapter passes it on. */
function refusal(code: unknown, depth = 1): Error {
  let error: Error = Object.assign(new Error('unable to open database file'), { code });
  for (let i = 0; i < depth; i++) error = new Error(`wrapped ${i}`, { cause: error });
  return error;
}

interface Opener {
  open: (path: string) => ReturnType<typeof openStateConnectionReadOnly>;
  opened: string[];
}

/**
 * A reader's opener that may not write the folder: a plain open fails while no -shm exists
 * (`plain: 'always'`: whatever exists); an immutable open works unless `immutable: 'fails'`.
 */
function noFolderWrite(o: { code?: unknown; depth?: number; plain?: 'without-shm' | 'always'; immutable?: 'works' | 'fails' } = {}): Opener {
  const opened: string[] = [];
  return {
    opened,
    open: (p) => {
      opened.push(p);
      if (p.startsWith('file:')) {
        if (o.immutable === 'fails') throw refusal('SQLITE_CANTOPEN', 0);
        // immutable=1: the file as it is now, with no lock, no -shm and no look at a -wal; a copy
        // read on its own is that (better-sqlite3 here takes no URI filenames).
        const snapshot = `${fileURLToPath(p.slice(0, p.indexOf('?immutable=1')))}.snapshot-${snapshots++}`;
        copyFileSync(fileURLToPath(p.slice(0, p.indexOf('?immutable=1'))), snapshot);
        return openStateConnectionReadOnly(snapshot);
      }
      if (o.plain === 'always' || !existsSync(`${p}-shm`)) throw refusal('code' in o ? o.code : 'SQLITE_READONLY_DIRECTORY', o.depth ?? 1);
      return openStateConnectionReadOnly(p);
    },
  };
}

function reader(path: string, opener: Opener, extra: { immutableFallback?: boolean } = {}): SqliteStateReader {
  const r = SqliteStateReader.open(path, { open: opener.open, ...extra });
  open.push(r);
  return r;
}

/** The live view's sessions page (it refreshes first, R86; inspect's reads open shared and never need to). */
const keysOf = async (r: SqliteStateReader) => (await r.sessionsPage({ limit: 50 })).rows.map((h) => h.sessionKey).sort();

describe('R80 the immutable fallback', () => {
  it.each(['SQLITE_READONLY_DIRECTORY', 'SQLITE_READONLY_CANTINIT', 'SQLITE_CANTOPEN', 'SQLITE_CANTOPEN_NOTEMPDIR'])('%s with no writer around: the file is read immutable, by its absolute file: URI', async (code) => {
    const path = stateFile();
    const opener = noFolderWrite({ code });
    const r = reader(path, opener);
    expect(r.openMode).toBe('immutable');
    expect(opener.opened).toEqual([path, `${pathToFileURL(path).href}?immutable=1`]);
    expect(await keysOf(r)).toEqual(['agent:main:first']);
  });

  it('a relative path is opened as an absolute one (a name beginning "file:" is never taken for a URI)', async () => {
    const path = stateFile();
    const rel = relative(process.cwd(), path);
    const opener = noFolderWrite();
    const r = reader(rel, opener);
    expect(opener.opened).toEqual([resolve(rel), `${pathToFileURL(resolve(rel)).href}?immutable=1`]);
    expect(r.path).toBe(rel);
    expect(r.label).toBe(rel);
  });

  it('the code is found on the error or up to two causes deep', async () => {
    const path = stateFile();
    expect(reader(path, noFolderWrite({ depth: 0 })).openMode).toBe('immutable');
    expect(reader(path, noFolderWrite({ depth: 2 })).openMode).toBe('immutable');
    const deeper = noFolderWrite({ depth: 3 });
    expect(() => reader(path, deeper)).toThrow('wrapped 2');
    expect(deeper.opened).toEqual([path]);
  });

  it.each([
    ['another SQLite code', 'SQLITE_CORRUPT'],
    ['a plain read-only refusal', 'SQLITE_READONLY'],
    ['a system code', 'EACCES'],
    ['no code', undefined],
    ['a code that is not text', 14],
  ])('%s is passed on as it is, with no second open', (_what, code) => {
    const path = stateFile();
    const opener = noFolderWrite({ code });
    expect(() => reader(path, opener)).toThrow('wrapped 0');
    expect(opener.opened).toEqual([path]);
  });

  it('a writer around (a -wal beside the file) is no case for a snapshot: the refusal is passed on', () => {
    const path = stateFile();
    const w = writer(path);
    w.record(human('agent:main:second'));
    expect(existsSync(`${path}-wal`)).toBe(true);
    const opener = noFolderWrite({ plain: 'always' });
    expect(() => reader(path, opener)).toThrow('wrapped 0');
    expect(opener.opened).toEqual([path]);
  });

  it('a file this user cannot read at all is passed on as the refusal', () => {
    const gone = join(dir, 'never-there.db');
    const opener = noFolderWrite();
    expect(() => reader(gone, opener)).toThrow('wrapped 0');
    expect(opener.opened).toEqual([gone]);
  });

  it('when the immutable open fails too: ReadOnlyDirectoryError, naming the file, the folder and the missing -wal, with the cause', () => {
    const path = stateFile();
    let thrown: unknown;
    try {
      reader(path, noFolderWrite({ immutable: 'fails' }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ReadOnlyDirectoryError);
    const e = thrown as ReadOnlyDirectoryError;
    expect(e.name).toBe('ReadOnlyDirectoryError');
    expect(e.path).toBe(path);
    expect(e.message).toBe(`${path}: readable, but SQLite cannot read this WAL-mode file without creating ${path}-shm, and this user may not write to ${dir}; no writer has it open (there is no ${path}-wal)`);
    expect((e.cause as { code: string }).code).toBe('SQLITE_CANTOPEN');
  });

  it('inspect (immutableFallback: false) opens the path as given, once, and reports the refusal', () => {
    const path = stateFile();
    const opener = noFolderWrite();
    expect(() => reader(path, opener, { immutableFallback: false })).toThrow('wrapped 0');
    expect(opener.opened).toEqual([path]);
    // Where the shared open works, it is shared.
    const w = writer(path);
    w.record(human('agent:main:second'));
    expect(reader(path, noFolderWrite(), { immutableFallback: false }).openMode).toBe('shared');
  });

  it('a reader that may write the folder reads shared, and the default opener is the driver\'s', async () => {
    const path = stateFile();
    const r = SqliteStateReader.open(path);
    open.push(r);
    expect(r.openMode).toBe('shared');
    expect(await keysOf(r)).toEqual(['agent:main:first']);
  });
});

describe('R80 R86 an immutable reader follows the file', () => {
  it('unchanged: the same token and no reopen; a writer that passed (commit checkpointed): read again, still immutable', async () => {
    const path = stateFile();
    const opener = noFolderWrite();
    const r = reader(path, opener);
    const t0 = await r.changeToken();
    expect(t0).toMatch(/^0:\d+$/);
    expect(await r.changeToken()).toBe(t0);
    expect(opener.opened).toHaveLength(2);
    // A writer comes, commits and goes: its commit is in the file, and no -wal is left.
    const w = new SqliteStore({ path, now: () => T0 + 1, logger: silentLogger });
    w.record(human('agent:main:second'));
    w.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const t1 = await r.changeToken();
    expect(t1).toMatch(/^1:\d+$/);
    expect(r.openMode).toBe('immutable');
    expect(opener.opened).toHaveLength(4);
    expect(await keysOf(r)).toEqual(['agent:main:first', 'agent:main:second']);
    expect(await r.changeToken()).toBe(t1);
  });

  it('a writer that stays (its -wal and -shm exist): read shared from then on, and no more reopens', async () => {
    const path = stateFile();
    const opener = noFolderWrite();
    const r = reader(path, opener);
    const w = writer(path);
    w.record(human('agent:main:second'));
    expect(existsSync(`${path}-shm`)).toBe(true);
    // Every read refreshes first: the sessions the page lists are the writer's too.
    expect(await keysOf(r)).toEqual(['agent:main:first', 'agent:main:second']);
    expect(r.openMode).toBe('shared');
    expect(opener.opened).toEqual([path, `${pathToFileURL(path).href}?immutable=1`, path]);
    const shared = await r.changeToken();
    expect(shared.startsWith('1:')).toBe(true);
    w.record(human('agent:main:third'));
    const later = await r.changeToken();
    expect(later.startsWith('1:')).toBe(true);
    expect(later).not.toBe(shared);
    expect(opener.opened).toHaveLength(3);
  });

  it('each read of the live view refreshes first (the changed file is opened again before it reads)', async () => {
    const reads: [string, (r: SqliteStateReader) => Promise<unknown>][] = [
      ['sessionsPage', (r) => r.sessionsPage({ limit: 10 })],
      ['activityRows', (r) => r.activityRows(0, Number.MAX_SAFE_INTEGER)],
      ['listPending', (r) => r.listPending()],
      ['newestOccurredAt', (r) => r.newestOccurredAt()],
      ['timelineRows', (r) => r.timelineRows('agent:main:first', 'main', Number.MAX_SAFE_INTEGER, 10)],
      ['cursorsPage', (r) => r.cursorsPage({ limit: 10 })],
      ['head', (r) => r.head('agent:main:first', 'main')],
    ];
    for (const [name, read] of reads) {
      const path = stateFile();
      const opener = noFolderWrite();
      const r = reader(path, opener);
      const w = new SqliteStore({ path, now: () => T0 + 1, logger: silentLogger });
      w.record(human('agent:main:second'));
      w.close();
      await read(r);
      expect({ name, opens: opener.opened.length }).toEqual({ name, opens: 4 });
      expect(r.openMode).toBe('immutable');
    }
  });

  it('a file that is gone: the read fails with the refusal, and nothing is reopened', async () => {
    const path = stateFile();
    const opener = noFolderWrite();
    const r = reader(path, opener);
    rmSync(path);
    await expect(r.changeToken()).rejects.toThrow('wrapped 0');
    expect(opener.opened).toHaveLength(3);
  });
});

describe('R80 errors of the default opener', () => {
  it('a file that is no state database is refused as such', () => {
    expect(() => SqliteStateReader.open(join(dir, 'absent.db'))).toThrow(NotAStateDatabaseError);
  });
});
