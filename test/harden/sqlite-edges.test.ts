/**
 * Files the store did not write, and a logger that throws:
 * R9c typed open errors (missing directory, read-only location, busy past the timeout, corrupt
 * file), R9d values read back are checked (corrupt-state), R5 a head never moves backwards, and
 * R9 a throwing logger never turns a logged storage failure into a thrown one.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore, StateDatabaseError, sqliteConnection } from '../../src/sqlite/index.js';
import { memoryLogger, type Logger } from '../../src/shared/logger.js';
import { A, CHILD, COORD, T0, human } from '../contract/harness.js';
import { bundleFixtureForAnyUser } from '../sqlite/bundle.js';
import { TEST_DRIVER, connect, openStore, tempDir } from '../sqlite/helpers.js';

const dir = tempDir('edges');
let n = 0;
const fresh = () => join(dir, `e${n++}.db`);

function openFails(path: string, extra: Record<string, unknown> = {}): StateDatabaseError & { path?: string; hint?: string } {
  try {
    createSqliteStore({ path, driver: TEST_DRIVER, now: () => T0, logger: memoryLogger(), ...extra }).close();
  } catch (error) {
    expect(error).toBeInstanceOf(StateDatabaseError);
    return error as StateDatabaseError;
  }
  throw new Error(`opening ${path} did not fail`);
}

describe('R9c typed open errors', () => {
  let child: { file: string; dir: string };
  beforeAll(async () => {
    child = await bundleFixtureForAnyUser('open-child');
  });
  afterAll(() => rmSync(child.dir, { recursive: true, force: true }));

  it('R9c: a missing directory is missing-directory, with the path and a hint', () => {
    const path = join(dir, 'no', 'such', 'dir', 'state.db');
    const e = openFails(path);
    expect([e.name, e.code, e.path]).toEqual(['StateDatabaseOpenError', 'missing-directory', path]);
    expect(e.hint).toMatch(/create the directory/);
  });

  it('R9c: a location the process may not write is read-only', () => {
    const roDir = join(child.dir, 'ro');
    mkdirSync(roDir);
    chmodSync(roDir, 0o555);
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const r = spawnSync(process.execPath, [child.file, join(roDir, 'state.db')], { encoding: 'utf8', ...asNobody });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect([out['name'], out['code'], out['path']]).toEqual(['StateDatabaseOpenError', 'read-only', join(roDir, 'state.db')]);
    expect(out['hint']).toMatch(/writable/);
  });

  it('R9c: a file locked by another connection past busyTimeoutMs is busy', () => {
    const path = fresh();
    const holder = connect(path);
    holder.pragma('journal_mode = DELETE');
    holder.exec('BEGIN EXCLUSIVE; CREATE TABLE held (x)');
    try {
      const e = openFails(path, { busyTimeoutMs: 30 });
      expect([e.name, e.code]).toEqual(['StateDatabaseOpenError', 'busy']);
      expect(e.hint).toMatch(/busyTimeoutMs/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('R9c: a damaged file is corrupt, never the driver error', () => {
    const path = fresh();
    const { store } = openStore({ path });
    store.record(human());
    store.close();
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
    // Page 1 past the 100-byte header is the schema table's b-tree page.
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(2000, 0xa5), 0, 2000, 100);
    closeSync(fd);
    const e = openFails(path);
    expect([e.name, e.code, e.path]).toEqual(['StateDatabaseOpenError', 'corrupt', path]);
    expect(e.hint).toMatch(/backup/);
  });
});

describe('R9d values read back are checked', () => {
  it('R9d: an event row that fails the spec schema is never returned (corrupt-state logged, R35 degrade)', () => {
    const { store, db, logger } = openStore({ path: fresh() });
    const e = store.record(human())!;
    db.prepare('UPDATE session_state_events SET summary = ? WHERE sequence = ?').run('two\nlines', e.sequence);
    const page = store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
    expect(page.stateChanges.events).toEqual([]);
    const entry = logger.entries.find((x) => x.message.includes('changesSince'));
    expect(entry?.details?.['code']).toBe('corrupt-state');
    expect(String(entry?.details?.['error'])).toMatch(new RegExp(`session_state_events row sequence ${e.sequence}`));
    store.close();
  });

  it('R9d: a negative sequence is corrupt-state', () => {
    const { store, db, logger } = openStore({ path: fresh() });
    store.record(human());
    db.exec('UPDATE session_state_events SET sequence = -7');
    // The page (sequence > since) skips it, but earliestAvailableSequence would be -7.
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.earliestAvailableSequence).toBe(0);
    expect(logger.entries.map((x) => x.details?.['code'])).toContain('corrupt-state');
    store.close();
  });

  it('R9d: a head below one of its own events is corrupt-state naming the head row', () => {
    const { store, db, logger } = openStore({ path: fresh() });
    store.record(human());
    store.record(human());
    db.exec('UPDATE session_state_heads SET last_sequence = 1');
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events).toEqual([]);
    const entry = logger.entries.find((x) => x.details?.['code'] === 'corrupt-state');
    expect(String(entry?.details?.['error'])).toContain(`session_state_heads row (${JSON.stringify(CHILD)}, "main")`);
    store.close();
  });

  it('R9d: a cursor with a negative value is corrupt-state naming table and row', () => {
    const { store, db } = openStore({ path: fresh() });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    db.exec('UPDATE session_watch_cursors SET last_seen = -3, notified = -3, material = -3');
    expect(() => store.cursor(COORD, CHILD, A)).toThrow(/session_watch_cursors row .*coordinator.*corrupt/);
    store.close();
  });

  it('R5: a head never moves backwards, even over a crafted row (upsert with max)', () => {
    const { store, db } = openStore({ path: fresh() });
    store.record(human());
    db.exec('UPDATE session_state_heads SET last_sequence = 1000');
    store.record(human());
    expect(store.stateVersion(CHILD, A)).toBe(1000);
    store.close();
  });
});

describe('R9 a throwing logger', () => {
  const throwing: Logger = {
    warn: () => {
      throw new Error('logger down');
    },
    error: () => {
      throw new Error('logger down');
    },
  };

  it('R9: a storage failure with a throwing logger is still not thrown into record/watch/changesSince (sqlite store)', () => {
    const store = createSqliteStore({ path: fresh(), driver: TEST_DRIVER, now: () => T0, logger: throwing });
    sqliteConnection(store).exec('DROP TABLE session_state_events; DROP TABLE session_watch_cursors');
    expect(store.record(human())).toBeUndefined();
    expect(store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A })).toEqual({ watched: false });
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events).toEqual([]);
    expect(store.loggerFailures).toBeGreaterThanOrEqual(3);
    store.close();
  });
});
