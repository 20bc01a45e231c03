/**
 * The SQLite store's edges in process (mutation/): what the contract and differential suites cannot
 * see because the reference store has no such thing. Storage failures injected through a driver
 * object (each entry point's logged fallback, R9/R35), the change hook's exact firing (R62), the
 * constructor's options and cleanup, a closed store, the factory, and the R41 cap when the
 * sequence span is wider than the rows. Every check is on behaviour: results, rows, log details.
 */

import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/shared/logger.js';
import { betterSqlite3Driver } from '../../src/sqlite/driver/better-sqlite3.js';
import type { SqliteDriver } from '../../src/sqlite/driver/types.js';
import { CorruptStateError, StateDatabaseOpenError, UnsafeIntegerError } from '../../src/sqlite/errors.js';
import { checkedEventFromRow, checkedHead, eventFromRow, type EventRow } from '../../src/sqlite/rows.js';
import { MIGRATIONS } from '../../src/sqlite/schema.js';
import { SqliteStore, createSqliteStore, sqliteConnection, sqliteHandle, sqliteStoreFactory, walFileOf, type SynchronousMode } from '../../src/sqlite/sqlite-store.js';
import { A, CHILD, COORD, DAY, HOUR, PARENT, PEER, T0, human, spawn } from '../contract/harness.js';
import { connect, openStore, rows, scalar, tempDir, thrown } from './helpers.js';

const dir = tempDir('mut-store');
let fileNo = 0;
const fresh = () => join(dir, `t${fileNo++}.db`);

/** better-sqlite3 behind a driver object that fails the statements whose SQL matches, on demand. */
function faultyDriver() {
  const state = { match: undefined as RegExp | undefined, error: undefined as unknown, closes: 0, closeError: undefined as unknown };
  const driver: SqliteDriver = {
    name: 'faulty',
    open(path, options) {
      const c = betterSqlite3Driver().open(path, options);
      return {
        driver: 'faulty',
        native: c.native,
        get inTransaction() {
          return c.inTransaction;
        },
        exec: (sql) => c.exec(sql),
        pragma: (s) => c.pragma(s),
        close: () => {
          state.closes++;
          if (state.closeError !== undefined) throw state.closeError;
          c.close();
        },
        prepare: (sql) => {
          const s = c.prepare(sql);
          const check = () => {
            if (state.match?.test(sql)) throw state.error;
          };
          return { run: (...p) => (check(), s.run(...p)), get: (...p) => (check(), s.get(...p)), all: (...p) => (check(), s.all(...p)) };
        },
      };
    },
  };
  return { driver, state };
}

function faultyStore(options = {}) {
  const { driver, state } = faultyDriver();
  let t = T0;
  const logger = memoryLogger();
  const store = new SqliteStore({ path: fresh(), logger, driver, now: () => t, ...options });
  return { store, state, logger, db: sqliteConnection(store), clock: { set: (v: number) => void (t = v) } };
}

const watchReq = (watcher = COORD, target = CHILD, extra = {}) => ({ watcherSessionKey: watcher, targetSessionKey: target, agentId: A, ...extra });

describe('R9/R35 storage failures: each entry point logs what failed and answers its fallback', () => {
  it('the log line names the operation, the path and the error; a SQLite code is spelled once, a plain error has none', () => {
    const { store, state, logger } = faultyStore();
    state.match = /^INSERT INTO session_state_events/;
    state.error = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
    expect(store.record(human())).toBeUndefined();
    state.error = Object.assign(new Error('node style'), { code: 'ERR_SQLITE_ERROR', errcode: 13 });
    expect(store.record(human())).toBeUndefined();
    state.error = Object.assign(new TypeError('odd code'), { code: 42 });
    expect(store.record(human())).toBeUndefined();
    state.error = new RangeError('no code at all');
    expect(store.record(human())).toBeUndefined();
    state.error = 'a thrown string';
    expect(store.record(human())).toBeUndefined();
    expect(logger.entries).toStrictEqual([
      { level: 'error', message: 'sqlite store: record failed', details: { path: store.path, error: 'disk I/O error', name: 'Error', code: 'SQLITE_IOERR_WRITE' } },
      { level: 'error', message: 'sqlite store: record failed', details: { path: store.path, error: 'node style', name: 'Error', code: 'SQLITE_FULL' } },
      { level: 'error', message: 'sqlite store: record failed', details: { path: store.path, error: 'odd code', name: 'TypeError', code: 42 } },
      { level: 'error', message: 'sqlite store: record failed', details: { path: store.path, error: 'no code at all', name: 'RangeError' } },
      { level: 'error', message: 'sqlite store: record failed', details: { path: store.path, error: 'a thrown string' } },
    ]);
    state.match = undefined;
    expect(store.record(human())?.sequence).toBe(1); // nothing of the failed ones was written
    store.close();
  });

  it('every write and read degrades to its fallback, writes nothing and fires no change', () => {
    const { store, state, logger, db } = faultyStore();
    store.record(spawn());
    store.record(human());
    store.watch(watchReq());
    let fired = 0;
    store.onLocalChange(() => fired++);
    const before = {
      events: rows(db, 'SELECT * FROM session_state_events ORDER BY sequence'),
      heads: rows(db, 'SELECT * FROM session_state_heads'),
      cursors: rows(db, 'SELECT * FROM session_watch_cursors ORDER BY watcher_session_key'),
    };
    state.match = /session_state|session_watch|^BEGIN/;
    state.error = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const answers = {
      record: store.record(human()),
      recordMany: store.recordMany([human(), human(PEER)]),
      watch: store.watch(watchReq(PEER)),
      unwatch: store.unwatch(watchReq()),
      stateVersion: store.stateVersion(CHILD, A),
      changesSince: store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }),
      pending: store.pendingNotices(PARENT),
      drain: store.drainNotices(PARENT),
      ack: store.ackNotices(PARENT, [{ contextKey: 'x', lastSeenSequence: 0 }]),
    };
    store.resetSession(PARENT);
    store.deleteSession(CHILD, A);
    store.prune();
    expect(answers).toEqual({
      record: undefined,
      recordMany: [undefined, undefined],
      watch: { watched: false },
      unwatch: { unwatched: false },
      stateVersion: 0,
      changesSince: expect.objectContaining({ stateVersion: 0, stateChanges: expect.objectContaining({ events: [] }) }),
      pending: [],
      drain: [],
      ack: [],
    });
    expect(fired).toBe(0);
    const ops = logger.entries.map((e) => e.message);
    for (const op of ['record', 'recordMany', 'watch', 'unwatch', 'stateVersion', 'changesSince', 'pendingNotices', 'drainNotices', 'resetSession', 'deleteSession', 'prune']) {
      expect(ops, op).toContain(`sqlite store: ${op} failed`);
    }
    expect(logger.entries.every((e) => e.level === 'error' && e.details?.code === 'SQLITE_BUSY' && e.details?.path === store.path)).toBe(true);
    state.match = undefined;
    expect({
      events: rows(db, 'SELECT * FROM session_state_events ORDER BY sequence'),
      heads: rows(db, 'SELECT * FROM session_state_heads'),
      cursors: rows(db, 'SELECT * FROM session_watch_cursors ORDER BY watcher_session_key'),
    }).toEqual(before);
    // Still pending, so nothing was lost (R9).
    expect(store.pendingNotices(PARENT)).toHaveLength(1);
    store.close();
  });

  it('ackNotices with a matching notice logs and acks nothing when the write fails', () => {
    const { store, state, logger } = faultyStore();
    store.record(spawn());
    store.record(human());
    const [notice] = store.pendingNotices(PARENT);
    if (notice === undefined) throw new Error('expected a pending notice for PARENT');
    state.match = /^INSERT INTO session_watch_cursors/;
    state.error = new Error('boom');
    expect(store.ackNotices(PARENT, [notice])).toEqual([]);
    expect(logger.entries.map((e) => e.message)).toEqual(['sqlite store: ackNotices failed']);
    state.match = undefined;
    expect(store.pendingNotices(PARENT)).toEqual([notice]);
    expect(store.ackNotices(PARENT, [notice])).toEqual([notice]);
    store.close();
  });

  it('isWatched never answers false on a failure: it logs and throws', () => {
    const { store, state, logger } = faultyStore();
    store.watch(watchReq());
    expect(store.isWatched(CHILD, A)).toBe(true);
    expect(store.isWatched(PEER, A)).toBe(false);
    const error = Object.assign(new Error('locked'), { code: 'SQLITE_LOCKED' });
    state.match = /^SELECT 1 AS hit FROM session_watch_cursors WHERE/;
    state.error = error;
    expect(thrown(() => store.isWatched(CHILD, A))).toBe(error);
    expect(logger.entries).toEqual([{ level: 'error', message: 'sqlite store: isWatched failed', details: { path: store.path, error: 'locked', name: 'Error', code: 'SQLITE_LOCKED' } }]);
    store.close();
  });

  it('close: once only; a failing close is logged, not thrown', () => {
    const { store, state, logger } = faultyStore();
    state.closeError = Object.assign(new Error('close busy'), { code: 'SQLITE_BUSY' });
    expect(() => store.close()).not.toThrow();
    expect(state.closes).toBe(1);
    expect(logger.entries).toEqual([{ level: 'error', message: 'sqlite store: close failed', details: { path: store.path, error: 'close busy', name: 'Error', code: 'SQLITE_BUSY' } }]);
    store.close();
    expect(state.closes).toBe(1);
    state.closeError = undefined;
  });

  it('a batch whose transaction fails: every result undefined, nothing written, nothing pending', () => {
    const { store, state, db } = faultyStore();
    store.record(spawn());
    const head = scalar(db, 'SELECT last_sequence FROM session_state_heads');
    state.match = /^INSERT INTO session_state_heads/; // the heads are written at the end of the batch
    state.error = new Error('late failure');
    expect(store.recordMany([human(), human(), human(PEER)])).toEqual([undefined, undefined, undefined]);
    state.match = undefined;
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(1);
    expect(scalar(db, 'SELECT last_sequence FROM session_state_heads')).toBe(head);
    expect(store.pendingNotices(PARENT)).toEqual([]);
    store.close();
  });
});

describe('the change hook (onLocalChange) fires exactly for writes that can change pending state', () => {
  it('watch: only a promotion of a pending cursor; unwatch, reset, delete: only when a cursor went', () => {
    const { store } = openStore();
    let fired = 0;
    store.onLocalChange(() => fired++);
    const count = (fn: () => unknown) => {
      const before = fired;
      fn();
      return fired - before;
    };
    expect(count(() => store.watch(watchReq(COORD, CHILD, { provenance: 'ambient' })))).toBe(0); // a new cursor at the head: nothing pending
    expect(count(() => store.record(human()))).toBe(1);
    let again;
    expect(count(() => (again = store.watch(watchReq(COORD, CHILD, { provenance: 'ambient' }))))).toBe(0); // ambient again: nothing written
    expect(again).toEqual({ watched: true });
    expect(store.pendingNotices(COORD).map((n) => n.wake)).toEqual(['next-turn']);
    expect(count(() => store.watch(watchReq(COORD, CHILD)))).toBe(1); // promoted while pending: its wake changed (R25)
    expect(store.pendingNotices(COORD).map((n) => n.wake)).toEqual(['immediate']);
    expect(count(() => store.watch(watchReq(COORD, CHILD)))).toBe(0); // explicit again
    expect(count(() => store.watch(watchReq(PEER, CHILD, { provenance: 'ambient' })))).toBe(0);
    expect(count(() => store.watch(watchReq(PEER, CHILD)))).toBe(0); // promoted, but nothing pending
    expect(count(() => store.watch(watchReq(CHILD, CHILD)))).toBe(0); // self: refused
    expect(count(() => store.unwatch(watchReq(PARENT, CHILD)))).toBe(0); // no such cursor
    expect(count(() => store.unwatch(watchReq(PEER, CHILD)))).toBe(1);
    expect(count(() => store.resetSession(PARENT))).toBe(0);
    expect(count(() => store.resetSession(COORD))).toBe(1);
    store.watch(watchReq(PARENT, CHILD));
    expect(count(() => store.deleteSession(PEER, A))).toBe(0);
    expect(count(() => store.deleteSession(CHILD, A))).toBe(1);
    expect(store.cursor(PARENT, CHILD, A)).toBeUndefined();
    store.close();
  });

  it('ackNotices fires when it acked something; a batch fires once if any input wrote a cursor, never if none did', () => {
    const { store } = openStore();
    let fired = 0;
    store.onLocalChange(() => fired++);
    store.record(spawn());
    store.record(human());
    fired = 0;
    const [notice] = store.pendingNotices(PARENT);
    if (notice === undefined) throw new Error('expected a pending notice for PARENT');
    expect(store.ackNotices(PARENT, [{ ...notice, lastSeenSequence: notice.lastSeenSequence + 5 }])).toEqual([]);
    expect(store.ackNotices(PARENT, [])).toEqual([]);
    expect(fired).toBe(0);
    expect(store.ackNotices(PARENT, [notice])).toEqual([notice]);
    expect(fired).toBe(1);
    expect(store.recordMany([human(PEER), human(PEER)]).map((e) => e?.sequence)).toEqual([3, 4]); // nobody watches PEER
    expect(fired).toBe(1);
    expect(store.recordMany([human(PEER), human(), human(PEER)]).map((e) => e?.sequence)).toEqual([5, 6, 7]);
    expect(fired).toBe(2);
    expect(store.recordMany([])).toEqual([]);
    expect(fired).toBe(2);
    store.close();
  });

  it('a batch on an unwatched target that a later input starts watching notifies that watcher once', () => {
    const { store } = openStore();
    const out = store.recordMany([human(PEER), human(PEER, { watchers: [COORD] }), human(PEER), human(PEER, { onlyIfWatched: true })]);
    expect(out.map((e) => e?.sequence)).toEqual([1, 2, 3, 4]);
    expect(store.cursor(COORD, PEER, A)).toMatchObject({ lastSeenSequence: 0, notifiedSequence: 2, materialSequence: 4 });
    expect(store.stateVersion(PEER, A)).toBe(4);
    // onlyIfWatched on an unwatched target in a batch writes nothing (R9b), then a watched one does.
    const again = store.recordMany([human(CHILD, { onlyIfWatched: true }), human(CHILD, { watchers: [COORD], onlyIfWatched: true })]);
    expect(again.map((e) => e?.sequence)).toEqual([undefined, 5]);
    store.close();
  });

  it('prune fires only when an expired cursor had a pending notice', () => {
    const { store, clock } = openStore({ retentionMs: DAY });
    let fired = 0;
    store.onLocalChange(() => fired++);
    store.watch(watchReq(PEER, CHILD)); // settled
    clock.advance(2 * DAY);
    store.prune();
    expect(store.cursor(PEER, CHILD, A)).toBeUndefined();
    expect(fired).toBe(0);
    store.record(spawn());
    store.record(human());
    store.watch(watchReq(PEER, CHILD)); // settled, expires with the pending one
    fired = 0;
    clock.advance(2 * DAY);
    store.prune();
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.cursor(PEER, CHILD, A)).toBeUndefined();
    expect(fired).toBe(1);
    store.close();
  });

  it('a record that moves no cursor fires nothing: the only watcher is the actor (R12)', () => {
    const { store } = openStore();
    store.watch(watchReq(COORD, CHILD));
    let fired = 0;
    store.onLocalChange(() => fired++);
    const own = { ...human(), actorType: 'agent' as const, actorId: COORD };
    expect(store.record(own)?.sequence).toBe(1);
    expect(store.recordMany([own, own]).map((e) => e?.sequence)).toEqual([2, 3]);
    expect(fired).toBe(0);
    expect(store.pendingNotices(COORD)).toEqual([]);
    store.record(human());
    expect(fired).toBe(1);
    store.close();
  });
});

describe('constructor options and cleanup', () => {
  it('refuses a bad synchronous mode or busy timeout before opening anything', () => {
    const path = fresh();
    for (const synchronous of ['normal', 'ON', '']) {
      const e = thrown(() => createSqliteStore({ path, synchronous: synchronous as SynchronousMode, now: () => T0 }));
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toMatch(/OFF, NORMAL, FULL, EXTRA/);
    }
    for (const busyTimeoutMs of [-1, 1.5, Number.NaN, 2 ** 53]) {
      const e = thrown(() => createSqliteStore({ path, busyTimeoutMs, now: () => T0 }));
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toBe('busyTimeoutMs must be a non-negative safe integer');
    }
    expect(scalar(connect(':memory:'), 'SELECT 1')).toBe(1);
    for (const synchronous of ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const) {
      const s = createSqliteStore({ path: fresh(), synchronous, busyTimeoutMs: 0, now: () => T0 });
      expect([Number(sqliteConnection(s).pragma('synchronous')), Number(sqliteConnection(s).pragma('busy_timeout'))]).toEqual([
        ['OFF', 'NORMAL', 'FULL', 'EXTRA'].indexOf(synchronous),
        0,
      ]);
      s.close();
    }
  });

  it('defaults: :memory:, WAL on a file, NORMAL, 5000 ms, the auto driver', () => {
    const mem = createSqliteStore({ now: () => T0 });
    expect([mem.path, mem.driver]).toEqual([':memory:', 'better-sqlite3']);
    mem.close();
    const path = fresh();
    const s = createSqliteStore({ path, now: () => T0 });
    const c = sqliteConnection(s);
    expect([c.pragma('journal_mode'), Number(c.pragma('synchronous')), Number(c.pragma('busy_timeout'))]).toEqual(['wal', 1, 5000]);
    expect(sqliteHandle(s).name).toBe(path);
    s.close();
  });

  it('a noticeLink template is checked up front and applied to every notice returned', () => {
    expect(thrown(() => createSqliteStore({ now: () => T0, noticeLink: 'ftp://x.test/' })).field).toBe('noticeLink');
    const { store } = openStore({ noticeLink: 'https://x.test/{agentId}/s' });
    const link = 'Open: [session](<https://x.test/main/s>)';
    store.record(spawn());
    store.record(human());
    const pending = store.pendingNotices(PARENT);
    expect(pending[0]?.text).toContain(link);
    expect(store.ackNotices(PARENT, pending)[0]?.text).toContain(link);
    store.record(human());
    expect(store.drainNotices(PARENT)[0]?.text).toContain(link);
    store.close();
  });

  it('a failure after the file opened closes it and is a typed open error; a close failing then is not the error reported', () => {
    const { driver, state } = faultyDriver();
    const bad = [...MIGRATIONS, { version: MIGRATIONS.length + 1, description: 'bad', up: () => { throw Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' }); } }];
    const path = fresh();
    const e = thrown(() => new SqliteStore({ path, driver, now: () => T0 }, { migrations: bad }));
    expect(e).toBeInstanceOf(StateDatabaseOpenError);
    expect([e.code, e.path]).toEqual(['cannot-open', path]);
    expect(e.message).toContain('disk full');
    expect(state.closes).toBe(1);
    state.closeError = new Error('close failed too');
    const e2 = thrown(() => new SqliteStore({ path, driver, now: () => T0 }, { migrations: bad }));
    expect(e2.message).toContain('disk full');
    expect(state.closes).toBe(2);
  });

  it('a driver that cannot open is a typed open error', () => {
    const error = Object.assign(new Error('locked'), { code: 'SQLITE_BUSY' });
    const e = thrown(() => createSqliteStore({ path: fresh(), now: () => T0, driver: { name: 'x', open: () => { throw error; } } }));
    expect([e.constructor, e.code, e.cause]).toEqual([StateDatabaseOpenError, 'busy', error]);
  });
});

describe('a closed store refuses every call; the factory and the handles', () => {
  it('every entry point throws "store is closed" after close', () => {
    const { store } = openStore();
    store.close();
    const calls = [
      () => store.record(human()),
      () => store.recordMany([human()]),
      () => store.watch(watchReq()),
      () => store.unwatch(watchReq()),
      () => store.stateVersion(CHILD, A),
      () => store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }),
      () => store.pendingNotices(PARENT),
      () => store.drainNotices(PARENT),
      () => store.ackNotices(PARENT, []),
      () => store.prune(),
      () => store.resetSession(PARENT),
      () => store.deleteSession(CHILD, A),
      () => store.restart(),
      () => store.listPending(),
      () => store.changeToken(),
      () => store.isWatched(CHILD, A),
      () => store.cursor(PARENT, CHILD, A),
      () => store.eventCount(),
    ];
    for (const call of calls) expect(thrown(call).message, String(call)).toBe('store is closed');
  });

  it('sqliteStoreFactory: a path function gives each store its own file; settings and options both apply', () => {
    const paths = [fresh(), fresh()];
    let i = 0;
    // Called once per store: two stores, two paths.
    const factory = sqliteStoreFactory({ path: () => paths[i++]!, busyTimeoutMs: 7 });
    // The factory's type is the generic StoreFactory; what it makes is a SqliteStore (synchronously).
    const a = factory({ now: () => T0, maxRows: 2 }) as SqliteStore;
    const b = factory({ now: () => T0 }) as SqliteStore;
    expect([a.path, b.path]).toEqual(paths);
    expect(Number(sqliteConnection(a).pragma('busy_timeout'))).toBe(7);
    for (const n of [1, 2, 3]) a.record(human(CHILD, { summary: `s${n}` }));
    a.prune();
    expect(a.eventCount()).toBe(2);
    a.close();
    b.close();
    const fixed = sqliteStoreFactory({ path: paths[0] })({ now: () => T0 }) as SqliteStore;
    expect(fixed.path).toBe(paths[0]);
    expect(fixed.eventCount()).toBe(2);
    fixed.close();
    const mem = sqliteStoreFactory()({ now: () => T0 }) as SqliteStore;
    expect(mem.path).toBe(':memory:');
    mem.close();
  });

  it('sqliteHandle refuses a store on another driver', () => {
    const { driver } = faultyDriver();
    const s = createSqliteStore({ now: () => T0, driver });
    expect(s.driver).toBe('faulty');
    const e = thrown(() => sqliteHandle(s));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/runs on faulty/);
    expect(sqliteConnection(s).driver).toBe('faulty');
    s.close();
  });
});

describe('R41 cap and R44 expiry at their boundaries', () => {
  it('a sequence span wider than the cap with rows exactly at the cap removes nothing', () => {
    const { store, db } = openStore({ maxRows: 3 });
    store.record(human(PEER));
    for (let i = 0; i < 3; i++) store.record(human());
    store.deleteSession(PEER, A); // rows 2..4: span 3, rows 3
    store.record(human()); // rows 2..5: span 4 > 3, rows 4
    store.deleteSession(PEER, A);
    db.exec('DELETE FROM session_state_events WHERE sequence = 3'); // rows 2, 4, 5: span 4, rows 3
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events ORDER BY sequence').map((r) => r.sequence)).toEqual([2, 4, 5]);
    expect(scalar(db, 'SELECT pruned_max_sequence FROM session_state_heads WHERE session_key = ?', CHILD)).toBe(0);
    store.record(human()); // 2, 4, 5, 6: one over
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events ORDER BY sequence').map((r) => r.sequence)).toEqual([4, 5, 6]);
    expect(scalar(db, 'SELECT pruned_max_sequence FROM session_state_heads WHERE session_key = ?', CHILD)).toBe(2);
    store.close();
  });

  it('an empty log prunes without a failure; a log within the cap keeps every row', () => {
    const { store, logger } = openStore({ maxRows: 2 });
    store.prune();
    store.record(human());
    store.record(human());
    store.prune();
    expect(store.eventCount()).toBe(2);
    expect(logger.entries).toEqual([]);
    store.close();
  });

  it('an idle cursor expires at the cutoff and not before; the expiry alone makes prune write', () => {
    const { store, clock } = openStore({ retentionMs: DAY });
    store.watch(watchReq(COORD, CHILD));
    clock.advance(DAY);
    store.prune();
    expect(store.cursor(COORD, CHILD, A)).toBeDefined(); // updated_at == cutoff: kept
    clock.advance(1);
    store.prune();
    expect(store.cursor(COORD, CHILD, A)).toBeUndefined();
    store.close();
  });

  it('a write an hour after the last prune prunes; one before does not (R43 on the write path, for batches too)', () => {
    const { store, clock, db } = openStore({ retentionMs: DAY });
    store.record(human(PEER));
    clock.advance(DAY + 1); // the PEER event is aged and a prune is due
    store.recordMany([human()]);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events WHERE session_key = ?', PEER)).toBe(0);
    store.record(human(PEER));
    clock.advance(DAY + 1);
    store.record(human(CHILD, { dedupeKey: 'd1' })); // prunes the PEER event above
    store.record(human(PEER)); // sequence 5
    clock.advance(DAY + HOUR + 1);
    // A batch of dedupe hits only inserts nothing, so it does not prune (the PEER event is aged and stays).
    expect(store.recordMany([human(CHILD, { dedupeKey: 'd1' })]).map((e) => e?.sequence)).toEqual([4]);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events WHERE session_key = ?', PEER)).toBe(1);
    store.close();
  });

  it('an onlyIfWatched record that nobody watches (R9b) writes nothing, so it does not prune either, alone or in a batch', () => {
    const { store, clock, db } = openStore({ retentionMs: DAY });
    store.record(human(PEER));
    clock.advance(DAY + HOUR + 1); // the PEER event is aged and a prune is due
    expect(store.record(human(CHILD, { onlyIfWatched: true }))).toBeUndefined();
    expect(store.recordMany([human(CHILD, { onlyIfWatched: true })])).toEqual([undefined]);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events WHERE session_key = ?', PEER)).toBe(1);
    // The next insert does prune it.
    expect(store.record(human(CHILD))?.sequence).toBe(2);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events WHERE session_key = ?', PEER)).toBe(0);
    store.close();
  });
});

describe('R9d pending cursors read back are checked', () => {
  it('a pending cursor with a negative L or an unknown provenance is corrupt-state: logged, no notice, nothing acked', () => {
    for (const [column, value] of [['last_seen', -1], ['provenance', 'group']] as const) {
      const { store, db, logger } = openStore({ path: fresh() });
      store.record(spawn());
      store.record(human());
      const other = connect(store.path);
      other.pragma('ignore_check_constraints = ON'); // a damaged or crafted row
      other.prepare(`UPDATE session_watch_cursors SET ${column} = ?`).run(value);
      other.close();
      expect(store.pendingNotices(PARENT), column).toEqual([]);
      expect(store.drainNotices(PARENT), column).toEqual([]);
      const entries = logger.entries.filter((e) => e.details?.code === 'corrupt-state');
      // R9d: the row is skipped and logged once (the drain reads it again and says nothing more).
      expect(entries.map((e) => e.message), column).toEqual(['sqlite store: skipped a corrupt cursor row']);
      expect(String(entries[0]?.details?.table)).toContain('session_watch_cursors');
      expect(rows(db, `SELECT ${column} AS v FROM session_watch_cursors`)).toEqual([{ v: value }]);
      store.close();
    }
  });

  it('L = 0 with every known provenance is a valid pending notice', () => {
    const { store } = openStore();
    store.watch(watchReq(COORD, CHILD, { provenance: 'ambient' }));
    store.watch(watchReq(PEER, CHILD));
    store.record(human());
    expect(store.pendingNotices(COORD).map((n) => [n.lastSeenSequence, n.wake])).toEqual([[0, 'next-turn']]);
    expect(store.pendingNotices(PEER).map((n) => [n.lastSeenSequence, n.wake])).toEqual([[0, 'immediate']]);
    expect(store.listPending().map((p) => [p.watcherSessionKey, p.lastSeenSequence, p.wake])).toEqual(
      expect.arrayContaining([[COORD, 0, 'next-turn'], [PEER, 0, 'immediate']]),
    );
    store.close();
  });
});

describe('R9d read-back errors name the SQLite table and column (rows.ts)', () => {
  it('a damaged cursor, event or head row is a CorruptStateError or UnsafeIntegerError naming its table (and column)', () => {
    const { store, db } = openStore({ path: fresh() });
    store.watch(watchReq());
    store.record(human());
    const other = connect(store.path);
    other.pragma('ignore_check_constraints = ON'); // a damaged or crafted row
    // A cursor: store.cursor hands the decoder's error to the caller.
    other.exec('UPDATE session_watch_cursors SET last_seen = -1');
    const corruptCursor = thrown(() => store.cursor(COORD, CHILD, A));
    expect([corruptCursor.constructor, corruptCursor.code, corruptCursor.table]).toEqual([CorruptStateError, 'corrupt-state', 'session_watch_cursors']);
    other.exec('UPDATE session_watch_cursors SET last_seen = 0, updated_at = 9007199254740993');
    const bigCursor = thrown(() => store.cursor(COORD, CHILD, A));
    expect([bigCursor.constructor, bigCursor.code, bigCursor.field]).toEqual([UnsafeIntegerError, 'unsafe-integer', 'session_watch_cursors.updated_at']);
    // An event and a head, read back from the file and decoded as the store decodes them.
    other.prepare('UPDATE session_state_events SET summary = ?').run('two\nlines');
    other.exec('UPDATE session_state_heads SET pruned_max_sequence = -1');
    other.close();
    const event = db.prepare('SELECT * FROM session_state_events').get() as EventRow;
    const corruptEvent = thrown(() => checkedEventFromRow(event));
    expect([corruptEvent.constructor, corruptEvent.table, corruptEvent.row]).toEqual([CorruptStateError, 'session_state_events', 'sequence 1']);
    const bigEvent = thrown(() => eventFromRow({ ...event, occurred_at: 2n ** 53n }));
    expect([bigEvent.constructor, bigEvent.field]).toEqual([UnsafeIntegerError, 'session_state_events.occurred_at']);
    const head = db.prepare('SELECT last_sequence, pruned_max_sequence FROM session_state_heads').get() as { last_sequence: unknown; pruned_max_sequence: unknown };
    const read = { sessionKey: CHILD, agentId: A, lastSequence: head.last_sequence, prunedMaxSequence: head.pruned_max_sequence, lowest: 1n, page: [] };
    const corruptHead = thrown(() => checkedHead(read));
    expect([corruptHead.constructor, corruptHead.table, corruptHead.row]).toEqual([CorruptStateError, 'session_state_heads', `(${JSON.stringify(CHILD)}, ${JSON.stringify(A)})`]);
    const bigHead = thrown(() => checkedHead({ ...read, lastSequence: 2n ** 53n }));
    expect([bigHead.constructor, bigHead.field]).toEqual([UnsafeIntegerError, 'session_state_heads.last_sequence']);
    const badLowest = thrown(() => checkedHead({ ...read, prunedMaxSequence: 0n, lowest: 0n }));
    expect([badLowest.constructor, badLowest.table]).toEqual([CorruptStateError, 'session_state_events']);
    store.close();
  });
});

describe('more of what the change hook, the logger and reads must not do', () => {
  it('a batch of dedupe hits, R9b skips or log-only events fires nothing; a seed with no eligible watcher neither', () => {
    const { store } = openStore();
    store.record(human(CHILD, { dedupeKey: 'k1' }));
    store.watch(watchReq(COORD, CHILD));
    let fired = 0;
    store.onLocalChange(() => fired++);
    const compacted = { sessionKey: CHILD, agentId: A, kind: 'compacted' as const, actorType: 'system' as const, summary: 'compacted' };
    expect(store.recordMany([human(CHILD, { dedupeKey: 'k1' })]).map((e) => e?.sequence)).toEqual([1]);
    expect(store.recordMany([human(PEER, { onlyIfWatched: true })])).toEqual([undefined]);
    expect(store.recordMany([compacted]).map((e) => e?.sequence)).toEqual([2]);
    expect(store.record(compacted)?.sequence).toBe(3);
    expect(store.record({ ...spawn(PEER, PARENT, 'r9'), watchers: ['bare-session', PEER] })?.sequence).toBe(4);
    expect(store.recordMany([{ ...spawn(PEER, PARENT, 'r10'), watchers: ['bare-session'] }]).map((e) => e?.sequence)).toEqual([5]);
    store.prune(); // nothing to prune
    expect(fired).toBe(0);
    expect(store.pendingNotices(COORD)).toEqual([]);
    store.close();
  });

  it('deleteSession fires when it removed cursors in both directions; an ambient re-registration still answers watched', () => {
    const { store } = openStore();
    store.watch(watchReq(COORD, CHILD));
    store.watch(watchReq(CHILD, PEER)); // CHILD watches PEER: one cursor each way
    expect(store.watch(watchReq(COORD, CHILD, { provenance: 'ambient' }))).toEqual({ watched: true });
    let fired = 0;
    store.onLocalChange(() => fired++);
    store.deleteSession(CHILD, A);
    expect(fired).toBe(1);
    expect([store.cursor(COORD, CHILD, A), store.cursor(CHILD, PEER, A)]).toEqual([undefined, undefined]);
    store.close();
  });

  it('a batch with one new event among dedupe hits prunes when a prune is due', () => {
    const { store, clock, db } = openStore({ retentionMs: DAY });
    store.record(human(CHILD, { dedupeKey: 'k' }));
    store.record(human(PEER));
    clock.advance(DAY + HOUR);
    expect(store.recordMany([human(CHILD, { dedupeKey: 'k' }), human()]).map((e) => e?.sequence)).toEqual([1, 3]);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events WHERE session_key = ?', PEER)).toBe(0);
    store.close();
  });

  it('a logger that throws is counted, never thrown; a throwing listener is logged with the path', () => {
    const { driver, state } = faultyDriver();
    const store = createSqliteStore({ path: fresh(), driver, now: () => T0, logger: { warn: () => { throw new Error('w'); }, error: () => { throw new Error('e'); } } });
    state.match = /^INSERT INTO session_state_events/;
    state.error = new Error('boom');
    expect(store.record(human())).toBeUndefined();
    expect(store.record(human())).toBeUndefined();
    expect(store.loggerFailures).toBe(2);
    store.close();
    const logger = memoryLogger();
    const s2 = createSqliteStore({ path: fresh(), now: () => T0, logger });
    s2.onLocalChange(() => {
      throw new Error('listener bug');
    });
    s2.watch(watchReq(COORD, CHILD));
    s2.record(human());
    expect(logger.entries).toStrictEqual([{ level: 'error', message: 'sqlite store: a change listener threw', details: { path: s2.path, error: 'listener bug' } }]);
    s2.close();
  });

  it('reading an identity that has no head or events logs nothing and answers the empty page', () => {
    const { store, logger } = openStore();
    const page = store.changesSince({ sessionKey: PEER, agentId: A, since: 0 });
    expect(page.stateVersion).toBe(0);
    expect(page.stateChanges.events).toEqual([]);
    expect(store.stateVersion(PEER, A)).toBe(0);
    expect(logger.entries).toEqual([]);
    store.close();
  });
});

describe('R9d values another program wrote: each read names what it could not read', () => {
  it('a head, a cursor and a page row past 2^53 - 1, a bad key and an unknown provenance: logged with their column or reason, never served', () => {
    const logger = memoryLogger();
    const store = new SqliteStore({ path: fresh(), logger, now: () => T0 });
    const watchers = ['agent:main:w1', 'agent:main:w2', 'agent:main:w3'];
    for (const w of watchers) store.watch(watchReq(w));
    store.record(human());
    store.record(human(PEER));
    const other = connect(store.path);
    other.pragma('ignore_check_constraints = ON');
    const lines = () => logger.entries.splice(0).map((e) => `${e.message}: ${JSON.stringify(e.details)}`);
    try {
      expect(watchers.map((w) => store.pendingNotices(w).length)).toEqual([1, 1, 1]);
      other.prepare('UPDATE session_state_heads SET last_sequence = ? WHERE session_key = ?').run(2n ** 53n + 1n, CHILD);
      expect(store.stateVersion(CHILD, A)).toBe(0);
      expect(store.watch(watchReq(PEER))).toEqual({ watched: false });
      expect(lines()).toEqual([
        expect.stringMatching(/^sqlite store: stateVersion failed: .*session_state_heads\.last_sequence/),
        expect.stringMatching(/^sqlite store: watch failed: .*session_state_heads\.last_sequence/),
      ]);
      expect(thrown(() => store.sessionsPage({ limit: 10 })).message).toMatch(/session_state_heads\.last_sequence/);
      for (const [watcher, set, reason] of [
        [watchers[0]!, `last_seen = ${2n ** 53n + 1n}, notified = ${2n ** 53n + 2n}, material = ${2n ** 53n + 2n}`, 'session_watch_cursors.last_seen'],
        [watchers[1]!, "target_session_key = 'agent:main:two' || char(10) || 'lines'", 'a key or agent id that R1 does not allow'],
        [watchers[2]!, "provenance = 'bogus'", 'needs last_seen >= 0 and a known provenance; has 0, \\"bogus\\"'],
      ] as const) {
        other.exec(`UPDATE session_watch_cursors SET ${set} WHERE watcher_session_key = '${watcher}'`);
        expect(store.pendingNotices(watcher)).toEqual([]);
        const [line, ...more] = lines();
        expect(more).toEqual([]);
        expect(line).toMatch(/^sqlite store: skipped a corrupt cursor row: /);
        expect(line).toContain(`"path":${JSON.stringify(store.path)}`);
        expect(line).toContain('"table":"session_watch_cursors"');
        expect(line).toContain(reason);
      }
    } finally {
      other.close();
      store.close();
    }
  });
});

describe('the store\'s smaller reads', () => {
  it('T12 spawnParents lists every recorded parent at once, and its storage failure is the logged empty list (R9)', () => {
    const { store, state, logger } = faultyStore();
    try {
      store.record(spawn());
      store.record(spawn('agent:main:c2', PARENT, 'r2'));
      store.record(human(PEER)); // no spawn: no parent
      expect(store.spawnParents().sort()).toEqual([
        ['agent:main:c2', A, PARENT],
        [CHILD, A, PARENT],
      ]);
      state.match = /FROM session_spawn_parents WHERE parent IS NOT NULL/;
      state.error = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_READ' });
      expect(store.spawnParents()).toEqual([]);
      expect(logger.entries.map((e) => e.message)).toEqual(['sqlite store: spawnParents failed']);
    } finally {
      state.match = undefined;
      store.close();
    }
  });

  it('R70 changeFiles names the WAL beside the real file; a store in memory has none; a path that is no file is named as given', () => {
    const path = fresh();
    const store = createSqliteStore({ path, now: () => T0 });
    const memory = createSqliteStore({ now: () => T0 });
    try {
      expect(store.changeFiles()).toEqual([`${realpathSync(path)}-wal`]);
      expect(memory.changeFiles()).toEqual([]);
      expect(walFileOf('')).toBeUndefined();
      expect(walFileOf('file:nowhere/x.db?mode=rwc')).toBe('file:nowhere/x.db?mode=rwc-wal');
    } finally {
      store.close();
      memory.close();
    }
  });
});

describe('R9d a prune that meets a sequence past 2^53 - 1', () => {
  it('names the column, whether the newest row or every row holds it; nothing is removed', () => {
    const big = 2n ** 53n;
    for (const [name, where] of [
      ['the newest row', 'WHERE sequence = 3'],
      ['every row', ''],
    ] as const) {
      const { store, db, logger } = openStore({ path: fresh(), maxRows: 2 });
      try {
        for (const key of [CHILD, PEER, PARENT]) store.record(human(key));
        // Highest first, so no two rows meet on one sequence.
        const other = connect(store.path);
        for (const s of [3, 2, 1]) if (where === '' || s === 3) other.prepare('UPDATE session_state_events SET sequence = ? WHERE sequence = ?').run(big + BigInt(s), s);
        other.close();
        store.prune();
        expect(logger.entries.map((e) => `${e.message}: ${String(e.details?.['error'])}`), name).toEqual([expect.stringMatching(/^sqlite store: prune failed: session_state_events\.sequence = /)]);
        expect(scalar(db, 'SELECT count(*) FROM session_state_events'), name).toBe(3);
      } finally {
        store.close();
      }
    }
  });
});
