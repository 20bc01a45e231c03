/**
 * The PostgreSQL store's edges in process, as test/sqlite/mutation-store.test.ts holds SQLite's:
 * each entry point's logged fallback when the server fails its statements (R9, R35), the change
 * hook's exact firing on this handle (R62), a failing close, and an idle connection that dies.
 * Failures are real: the store's schema is renamed away under it, so every statement it sends
 * fails on the server with 42P01, and renamed back to show nothing was written.
 */
import { describe, expect, it } from 'vitest';
import { PgStateReader, createPostgresStore, postgresStoreFactory, type PostgresStore } from '../../src/postgres/index.js';
import { checkPosition, needsTransaction } from '../../src/postgres/pending-reads.js';
import { ROUTE_EVERYONE, routePayload } from '../../src/core/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { A, CHILD, COORD, DAY, PARENT, PEER, T0, human, spawn } from '../contract/harness.js';
import { usePostgres, waitFor } from './server.js';

const pg = usePostgres();
const watchReq = (watcher = COORD, target = CHILD, extra = {}) => ({ watcherSessionKey: watcher, targetSessionKey: target, agentId: A, ...extra });

async function open(settings: Record<string, unknown> = {}) {
  const schema = pg.schema();
  const logger = memoryLogger();
  const clock = { t: T0 };
  const store = await createPostgresStore({ now: () => clock.t, connectionString: pg.url(), schema, logger, maxConnections: 2, ...settings });
  let fired = 0;
  store.onLocalChange(() => void fired++);
  /** How many times the change hook fired during `fn`. */
  const count = async (fn: () => unknown): Promise<number> => {
    const before = fired;
    await fn();
    return fired - before;
  };
  return { store, schema, logger, clock, count, fired: () => fired };
}

/** The test server's URL with another database in it. */
function databaseUrl(database: string): string {
  const url = new URL(pg.url());
  url.pathname = `/${database}`;
  return url.toString();
}

/** The sequence behind the events' `sequence` column of `schema`. */
async function eventsSequence(admin: Awaited<ReturnType<typeof pg.admin>>, schema: string): Promise<string> {
  return (await admin.query(`SELECT pg_get_serial_sequence('"${schema}".session_state_events', 'sequence') AS s`)).rows[0]!.s;
}

/** Every row of the store's three tables, in a fixed order. */
async function tables(schema: string) {
  const admin = await pg.admin();
  const all = async (table: string, order: string) => (await admin.query(`SELECT * FROM "${schema}".${table} ORDER BY ${order}`)).rows;
  return {
    events: await all('session_state_events', 'sequence'),
    heads: await all('session_state_heads', 'session_key, agent_id'),
    cursors: await all('session_watch_cursors', 'watcher_session_key, target_session_key'),
  };
}

async function away(schema: string, there: boolean): Promise<void> {
  const admin = await pg.admin();
  await admin.query(there ? `ALTER SCHEMA "${schema}" RENAME TO "${schema}_away"` : `ALTER SCHEMA "${schema}_away" RENAME TO "${schema}"`);
}

describe('R9/R35 storage failures: each entry point logs what failed and answers its fallback', () => {
  it('every write and read degrades to its fallback, names itself in one log line, writes nothing and fires no change', async () => {
    const { store, schema, logger, fired } = await open();
    await store.record(spawn());
    await store.record(human());
    await store.watch(watchReq());
    const [notice] = await store.pendingNotices(PARENT);
    const before = await tables(schema);
    const firedBefore = fired();
    await away(schema, true);
    try {
      const answers = {
        record: await store.record(human()),
        recordMany: await store.recordMany([human(), human(PEER)]),
        watch: await store.watch(watchReq(PEER)),
        unwatch: await store.unwatch(watchReq()),
        spawnParent: await store.spawnParent(CHILD, A),
        spawnParents: await store.spawnParents(),
        sessionsPage: await store.sessionsPage({ limit: 5 }),
        stateVersion: await store.stateVersion(CHILD, A),
        changesSince: await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }),
        pending: await store.pendingNotices(PARENT),
        drain: await store.drainNotices(PARENT),
        ack: await store.ackNotices(PARENT, [{ contextKey: notice!.contextKey, lastSeenSequence: notice!.lastSeenSequence }]),
      };
      await store.resetSession(PARENT);
      await store.deleteSession(CHILD, A);
      await store.prune();
      expect(answers).toEqual({
        record: undefined,
        recordMany: [undefined, undefined],
        watch: { watched: false },
        unwatch: { unwatched: false },
        spawnParent: undefined,
        spawnParents: [],
        sessionsPage: [],
        stateVersion: 0,
        changesSince: expect.objectContaining({ stateVersion: 0, stateChanges: expect.objectContaining({ events: [] }) }),
        pending: [],
        drain: [],
        ack: [],
      });
    } finally {
      await away(schema, false);
    }
    expect(fired()).toBe(firedBefore);
    expect(logger.entries.map((e) => e.message)).toEqual(
      ['record', 'recordMany', 'watch', 'unwatch', 'spawnParent', 'spawnParents', 'sessionsPage', 'stateVersion', 'changesSince', 'pendingNotices', 'drainNotices', 'ackNotices', 'resetSession', 'deleteSession', 'prune'].map(
        (op) => `postgres store: ${op} failed`,
      ),
    );
    for (const e of logger.entries) {
      expect(e.level).toBe('error');
      expect(e.details).toMatchObject({ target: store.target, schema, name: 'error', code: '42P01' });
      expect(String(e.details?.['error'])).toMatch(/does not exist/);
      expect(JSON.stringify(e.details)).not.toContain('ssk-test'); // no password in a log line
    }
    expect(await tables(schema)).toEqual(before);
    // Still pending, so nothing was lost (R9).
    expect(await store.pendingNotices(PARENT)).toEqual([notice]);
    await store.close();
  });

  it('isWatched never answers false on a failure: it logs and throws', async () => {
    const { store, schema, logger } = await open();
    await store.watch(watchReq());
    expect(await store.isWatched(CHILD, A)).toBe(true);
    expect(await store.isWatched(PEER, A)).toBe(false);
    await away(schema, true);
    try {
      await expect(store.isWatched(CHILD, A)).rejects.toMatchObject({ code: '42P01' });
    } finally {
      await away(schema, false);
    }
    expect(logger.entries).toEqual([{ level: 'error', message: 'postgres store: isWatched failed', details: expect.objectContaining({ target: store.target, schema, code: '42P01' }) }]);
    await store.close();
  });

  it('close: once only; a pool that fails to end is logged, not thrown', async () => {
    const { store, logger } = await open();
    const pool = store.pgPool as unknown as { end: () => Promise<void> };
    const end = pool.end.bind(pool);
    let ends = 0;
    pool.end = (() => {
      ends++;
      return Promise.reject(Object.assign(new Error('end failed'), { code: '57P01' }));
    });
    await expect(store.close()).resolves.toBeUndefined();
    await store.close();
    expect(ends).toBe(1);
    expect(logger.entries).toEqual([{ level: 'error', message: 'postgres store: close failed', details: { target: store.target, error: 'end failed', name: 'Error', code: '57P01' } }]);
    await end();
  });

  it('an idle pooled connection the server ends is a warning naming the target, and the next call takes a new one', async () => {
    const app = `ssk-idle-${process.pid}`;
    const { store, logger } = await open({ pool: { application_name: app } });
    await store.record(human());
    const admin = await pg.admin();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app]);
    await waitFor('the idle connection\'s failure to be logged', () => logger.entries.length > 0);
    expect(logger.entries[0]).toMatchObject({ level: 'warn', message: 'postgres store: an idle connection failed', details: { target: store.target, code: '57P01' } });
    expect((await store.record(human()))?.sequence).toBe(2);
    await store.close();
  });
});

describe('the change hook (onLocalChange) fires exactly for writes that can change pending state', () => {
  it('watch: only a promotion of a pending cursor; unwatch, reset, delete: only when a pending cursor went', async () => {
    const { store, count } = await open();
    expect(await count(() => store.watch(watchReq(COORD, CHILD, { provenance: 'ambient' })))).toBe(0); // a new cursor at the head: nothing pending
    expect(await count(() => store.record(human()))).toBe(1);
    expect(await count(() => store.watch(watchReq(COORD, CHILD, { provenance: 'ambient' })))).toBe(0); // ambient again: nothing written
    expect((await store.pendingNotices(COORD)).map((n) => n.wake)).toEqual(['next-turn']);
    expect(await count(() => store.watch(watchReq(COORD, CHILD)))).toBe(1); // promoted while pending: its wake changed (R25)
    expect((await store.pendingNotices(COORD)).map((n) => n.wake)).toEqual(['immediate']);
    expect(await count(() => store.watch(watchReq(COORD, CHILD)))).toBe(0); // explicit again
    expect(await count(() => store.watch(watchReq(PEER, CHILD, { provenance: 'ambient' })))).toBe(0);
    expect(await count(() => store.watch(watchReq(PEER, CHILD)))).toBe(0); // promoted, but nothing pending
    expect(await count(() => store.watch(watchReq(CHILD, CHILD)))).toBe(0); // self: refused
    expect(await count(() => store.unwatch(watchReq(PARENT, CHILD)))).toBe(0); // no such cursor
    expect(await count(() => store.unwatch(watchReq(PEER, CHILD)))).toBe(0); // a settled cursor went: no notice changed
    expect(await store.cursor(PEER, CHILD, A)).toBeUndefined();
    await store.watch(watchReq(PEER, CHILD));
    await store.record(human());
    expect(await count(() => store.unwatch(watchReq(PEER, CHILD)))).toBe(1); // a pending one
    expect(await count(() => store.resetSession(PARENT))).toBe(0);
    expect(await count(() => store.resetSession(COORD))).toBe(1);
    await store.watch(watchReq(PARENT, CHILD));
    expect(await count(() => store.deleteSession(PEER, A))).toBe(0);
    await store.record(human());
    expect(await count(() => store.deleteSession(CHILD, A))).toBe(1);
    expect(await store.cursor(PARENT, CHILD, A)).toBeUndefined();
    await store.close();
  });

  it('ackNotices and drainNotices fire when they acked something; a batch fires once if any input wrote a cursor, never if none did', async () => {
    const { store, count } = await open();
    await store.record(spawn());
    await store.record(human());
    const [notice] = await store.pendingNotices(PARENT);
    const ack = { contextKey: notice!.contextKey, lastSeenSequence: notice!.lastSeenSequence };
    expect(await count(() => store.ackNotices(PARENT, [{ ...ack, lastSeenSequence: ack.lastSeenSequence + 5 }]))).toBe(0);
    expect(await count(() => store.ackNotices(PARENT, []))).toBe(0);
    expect(await count(() => store.ackNotices(PARENT, [ack]))).toBe(1);
    expect(await count(() => store.ackNotices(PARENT, [ack]))).toBe(0); // acked already
    expect(await count(async () => expect((await store.recordMany([human(PEER), human(PEER)])).map((e) => e?.sequence)).toEqual([3, 4]))).toBe(0); // nobody watches PEER
    expect(await count(async () => expect((await store.recordMany([human(PEER), human(), human(PEER), human()])).map((e) => e?.sequence)).toEqual([5, 6, 7, 8]))).toBe(1);
    expect(await count(async () => expect(await store.recordMany([])).toEqual([]))).toBe(0);
    // A batch of a dedupe hit and an R9b skip writes no cursor: nothing to fire.
    await store.record({ ...human(), dedupeKey: 'once' });
    expect(await count(() => store.recordMany([{ ...human(), dedupeKey: 'once' }, { ...human(PEER), onlyIfWatched: true }]))).toBe(0);
    expect(await count(() => store.drainNotices(COORD))).toBe(0); // nothing pending for it
    expect(await count(() => store.drainNotices(PARENT))).toBe(1);
    expect(await count(() => store.drainNotices(PARENT))).toBe(1); // the follow-up the batch's second write left (R28)
    expect(await count(() => store.drainNotices(PARENT))).toBe(0);
    await store.close();
  });

  it('a record that moves no cursor fires nothing: the only watcher is the actor (R12), or the record was a dedupe hit (R8)', async () => {
    const { store, count } = await open();
    await store.watch(watchReq(COORD, CHILD));
    const own = { ...human(), actorType: 'agent' as const, actorId: COORD };
    expect(await count(async () => expect((await store.record(own))?.sequence).toBe(1))).toBe(0);
    expect(await count(async () => expect((await store.recordMany([own, own])).map((e) => e?.sequence)).toEqual([2, 3]))).toBe(0);
    expect(await store.pendingNotices(COORD)).toEqual([]);
    expect(await count(() => store.record(human(CHILD, { dedupeKey: 'once' })))).toBe(1);
    await store.drainNotices(COORD);
    expect(await count(async () => expect((await store.record(human(CHILD, { dedupeKey: 'once' })))?.sequence).toBe(4))).toBe(0);
    expect(await store.pendingNotices(COORD)).toEqual([]);
    await store.close();
  });

  it('prune fires only when an expired cursor had a pending notice', async () => {
    const { store, clock, count } = await open({ retentionMs: DAY });
    expect(await count(() => store.prune())).toBe(0); // nothing to prune at all
    // A prune another store is running (it holds the schema's prune lock) is skipped, and fires nothing.
    await store.record(spawn());
    await store.record(human());
    clock.t += 2 * DAY;
    const admin = await pg.admin();
    await admin.query('BEGIN');
    await admin.query('SELECT pg_advisory_xact_lock($1, $2)', [...store.pruneLockKeys]);
    expect(await count(() => store.prune())).toBe(0);
    await admin.query('ROLLBACK');
    expect(await count(() => store.prune())).toBe(1); // now it expires the pending cursor
    await store.watch(watchReq(PEER, CHILD)); // settled
    clock.t += 2 * DAY;
    expect(await count(() => store.prune())).toBe(0);
    expect(await store.cursor(PEER, CHILD, A)).toBeUndefined();
    await store.record(spawn());
    await store.record(human());
    await store.watch(watchReq(PEER, CHILD)); // settled, expires with the pending one
    clock.t += 2 * DAY;
    expect(await count(() => store.prune())).toBe(1);
    expect(await store.pendingNotices(PARENT)).toEqual([]);
    expect(await store.cursor(PEER, CHILD, A)).toBeUndefined();
    await store.close();
  });

  it('a listener removed hears nothing more', async () => {
    const { store } = await open();
    let heard = 0;
    await store.record(spawn());
    const off = store.onLocalChange(() => void heard++);
    await store.record(human());
    expect(heard).toBe(1);
    off();
    await store.record(human());
    expect(heard).toBe(1);
    await store.close();
  });
});

describe('T15 pages: a limit of one, and refusals before any statement', () => {
  it('a limit of one is a page of one row; zero, a fraction, NaN or a key of the wrong type is a RangeError naming the method, and nothing is read', async () => {
    const { store, logger } = await open();
    await store.record(spawn());
    await store.record(spawn(PEER, COORD, 'r2'));
    await store.record(human());
    await store.record(human(PEER));
    expect((await store.sessionsPage({ limit: 1 })).map((r) => r.sessionKey)).toEqual([PEER]);
    expect((await store.sessionsPage({ limit: 1, after: { sessionKey: PEER, agentId: A } })).map((r) => [r.sessionKey, r.spawnParent])).toEqual([[CHILD, PARENT]]);
    expect(await store.sessionsPage({ limit: 1, after: { sessionKey: CHILD, agentId: A } })).toEqual([]);
    expect(await store.pendingWatchersPage({ limit: 1 })).toEqual([COORD]);
    expect(await store.pendingWatchersPage({ limit: 1, after: COORD })).toEqual([PARENT]);
    expect(await store.pendingWatchersPage({ limit: 1, after: PARENT })).toEqual([]);
    for (const limit of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      await expect(store.sessionsPage({ limit })).rejects.toThrow(new RangeError(`sessionsPage: limit must be a positive integer, got ${String(limit)}`));
      await expect(store.pendingWatchersPage({ limit })).rejects.toThrow(new RangeError(`pendingWatchersPage: limit must be a positive integer, got ${String(limit)}`));
    }
    for (const after of [{ sessionKey: CHILD }, { agentId: A }, { sessionKey: 1, agentId: A }]) {
      await expect(store.sessionsPage({ limit: 1, after: after as never })).rejects.toThrow(new RangeError('sessionsPage: after must name a session (sessionKey, agentId)'));
    }
    await expect(store.pendingWatchersPage({ limit: 1, after: 7 as never })).rejects.toThrow(new RangeError('pendingWatchersPage: after must be a watcher key'));
    expect(logger.entries).toEqual([]);
    await store.close();
  });
});

describe('R41 the cap, at its edge and over a sequence with gaps', () => {
  it('exactly maxRows rows stay; one more removes the oldest and raises its watermark; a span wider than the rows removes nothing it need not', async () => {
    const { store, schema } = await open({ maxRows: 3 });
    const admin = await pg.admin();
    const sequences = async () => (await admin.query<{ s: string }>(`SELECT sequence::text AS s FROM "${schema}".session_state_events ORDER BY sequence`)).rows.map((r) => Number(r.s));
    for (let i = 0; i < 3; i++) await store.record(human(PEER));
    await store.prune();
    expect(await sequences()).toEqual([1, 2, 3]);
    await store.record(human(CHILD));
    await store.prune();
    expect(await sequences()).toEqual([2, 3, 4]);
    expect((await store.changesSince({ sessionKey: PEER, agentId: A, since: 0 })).stateChanges).toMatchObject({ historyGap: true, earliestAvailableSequence: 2 });
    // A deleted session leaves a gap in the sequence.
    await store.record(human(COORD));
    await store.record(human(PEER));
    await store.deleteSession(COORD, A);
    expect(await sequences()).toEqual([2, 3, 4, 6]);
    await store.prune();
    expect(await sequences()).toEqual([3, 4, 6]);
    await store.deleteSession(CHILD, A);
    expect(await sequences()).toEqual([3, 6]);
    // The span (3..6) is wider than the cap, the rows (2) are not: the walk finds nothing to cut.
    await store.prune();
    expect(await sequences()).toEqual([3, 6]);
    expect((await store.changesSince({ sessionKey: PEER, agentId: A, since: 0 })).stateChanges).toMatchObject({ historyGap: true, earliestAvailableSequence: 3 });
    await store.close();
  });
});

describe('R73 the wakes of writes that end or reopen nothing but a pending pair', () => {
  it('unwatch, reset and delete of a pending pair, and a prune that expires one, wake another handle; the same writes on settled pairs do not', async () => {
    const { store: a, schema, clock } = await open({ retentionMs: DAY });
    const b = await createPostgresStore({ now: () => clock.t, connectionString: pg.url(), schema, logger: memoryLogger() });
    const heard: string[] = [];
    const off = await b.subscribeRemote((p) => void heard.push(p ?? '(none)'));
    const SENTINEL = 'agent:main:sentinel';
    await a.watch(watchReq(SENTINEL, 'agent:main:beacon'));
    /** The wakes `fn` sent, in order: a sentinel write after it, whose wake arrives after theirs, closes the list. */
    const wakesOf = async (fn: () => unknown): Promise<string[]> => {
      const from = heard.length;
      const sentinelWakes = () => heard.slice(from).filter((p) => p.startsWith(`${routePayload([SENTINEL])};`)).length;
      await fn();
      await a.record(human('agent:main:beacon'));
      await waitFor('the sentinel\'s wake', () => sentinelWakes() >= 1);
      // A write that changes pairs carries its news (R74: a payload with `;`); these carry names
      // only. A call without a payload (the listener's connection coming up) is no write's.
      const wakes = heard.slice(from).filter((p) => p === ROUTE_EVERYONE || (p.startsWith('w:') && !p.includes(';')));
      await a.drainNotices(SENTINEL);
      // The drain's wake names the sentinel too: heard late, it would close the next call's list
      // before that call's own wakes arrived. So it is awaited here.
      await waitFor('the sentinel\'s drain\'s wake', () => sentinelWakes() >= 2);
      return wakes;
    };
    try {
      // Settled pairs: nothing to tell anyone.
      await a.watch(watchReq(COORD, CHILD));
      expect(await wakesOf(() => a.unwatch(watchReq(COORD, CHILD)))).toEqual([]);
      await a.watch(watchReq(COORD, CHILD));
      expect(await wakesOf(() => a.resetSession(COORD))).toEqual([]);
      await a.watch(watchReq(COORD, CHILD));
      expect(await wakesOf(() => a.deleteSession(CHILD, A))).toEqual([]);
      // A prune that expires only settled cursors (this one and the sentinel's): no wake either.
      await a.watch(watchReq(COORD, CHILD));
      clock.t += 2 * DAY;
      expect(
        await wakesOf(async () => {
          await a.prune();
          await a.watch(watchReq(SENTINEL, 'agent:main:beacon'));
        }),
      ).toEqual([]);
      expect(await a.cursor(COORD, CHILD, A)).toBeUndefined(); // it did expire
      // Pending pairs: the watcher's route, or everyone's where the watchers are not read back.
      await a.watch(watchReq(COORD, CHILD));
      await a.record(human());
      expect(await wakesOf(() => a.unwatch(watchReq(COORD, CHILD))), JSON.stringify(heard)).toEqual([routePayload([COORD])]);
      await a.watch(watchReq(COORD, CHILD));
      await a.record(human());
      expect(await wakesOf(() => a.resetSession(COORD)), JSON.stringify(heard)).toEqual([routePayload([COORD])]);
      await a.watch(watchReq(COORD, CHILD));
      await a.record(human());
      // Everything heard goes into the message: a wake missing here once, in one run in many, is a race to name.
      expect(await wakesOf(() => a.deleteSession(CHILD, A)), JSON.stringify(heard)).toEqual([ROUTE_EVERYONE]);
      await a.watch(watchReq(COORD, CHILD));
      await a.record(human());
      clock.t += 2 * DAY;
      expect(
        await wakesOf(async () => {
          await a.prune();
          await a.watch(watchReq(SENTINEL, 'agent:main:beacon')); // its settled cursor expired too
        }),
        JSON.stringify(heard),
      ).toEqual([ROUTE_EVERYONE]);
    } finally {
      await off();
      await b.close();
      await a.close();
    }
  });
});

describe('R68 and R9d: the feed\'s reads of the store', () => {
  it('which reads need one snapshot transaction; positions this store did not make are refused by name', async () => {
    expect([{}, { since: '1:2:' }, { snapshot: [] }, { snapshot: ['agent:main:a'] }, { snapshot: 'all' as const }, { since: '1:2:', watchers: ['x'] }].map((r) => needsTransaction(r))).toEqual([false, false, false, true, true, false]);
    for (const ok of ['1:2:', '10:12:10,11', '0:0:']) expect(() => checkPosition(ok)).not.toThrow();
    for (const bad of ['x1:2:', '1:2:3x', '1:2', ' 1:2:', '1:2:3 ', '']) {
      expect(() => checkPosition(bad)).toThrow(new RangeError(`readPending: not a position of this store: ${JSON.stringify(bad)}`));
    }
  });

  it('a read with nothing changed reports no bad row; a corrupt cursor row is skipped by every read and logged once', async () => {
    const { store, schema, logger } = await open();
    await store.record(spawn());
    const start = await store.readPending({ snapshot: 'all' });
    expect(start.snapshot).toEqual([]);
    const quiet = await store.readPending({ since: start.position });
    expect(quiet.changes).toEqual([]);
    expect(logger.entries).toEqual([]);
    // A row another program wrote, pending: an L below 0, which no store writes (R9d).
    const admin = await pg.admin();
    await admin.query(
      `INSERT INTO "${schema}".session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at, changed_xid) VALUES ('agent:main:bad', $1, 'main', -1, 1, 1, 'explicit', $2, pg_current_xact_id())`,
      [PEER, T0],
    );
    await store.record(human());
    const after = await store.readPending({ since: quiet.position, snapshot: 'all' });
    expect(after.changes.map((c) => c.watcherSessionKey)).toEqual([PARENT]);
    expect(after.snapshot.map((c) => c.watcherSessionKey)).toEqual([PARENT]);
    expect((await store.listPending()).map((c) => c.watcherSessionKey)).toEqual([PARENT]);
    expect(logger.entries.map((e) => [e.level, e.message, e.details?.['row'], e.details?.['target']])).toEqual([['error', 'postgres store: skipped a corrupt cursor row', expect.stringContaining('agent:main:bad'), store.target]]);
    await store.close();
  });
});

describe('lost races: a transaction is retried on a serialization failure, a deadlock or a raced dedupe key, six attempts in all; any other failure once', () => {
  /**
   * A trigger that fails every insert of an event with `code`, counting attempts in a sequence
   * (a sequence is not rolled back with the transaction that used it).
   */
  async function failingInserts(schema: string, code: string): Promise<() => Promise<number>> {
    const admin = await pg.admin();
    await admin.query(`CREATE SEQUENCE "${schema}".attempts`);
    await admin.query(
      `CREATE FUNCTION "${schema}".fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('"${schema}".attempts'); RAISE EXCEPTION 'lost a race' USING ERRCODE = '${code}'; END $$`,
    );
    await admin.query(`CREATE TRIGGER fail_insert BEFORE INSERT ON "${schema}".session_state_events FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_insert()`);
    return async () => Number((await admin.query(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM "${schema}".attempts`)).rows[0].n);
  }

  for (const [code, attempts] of [['40001', 6], ['40P01', 6], ['23505', 6], ['P0001', 1], ['22023', 1]] as const) {
    it(`SQLSTATE ${code}: ${attempts} attempt(s), then the logged fallback (R9)`, async () => {
      const { store, schema, logger } = await open();
      try {
        const attemptsSoFar = await failingInserts(schema, code);
        expect(await store.record(human())).toBeUndefined();
        expect(await attemptsSoFar()).toBe(attempts);
        expect(logger.entries.map((e) => [e.level, e.message, e.details?.['code']])).toEqual([['error', 'postgres store: record failed', code]]);
        expect(await store.stateVersion(CHILD, A)).toBe(0);
      } finally {
        await store.close();
      }
    });
  }
});

describe('a pooled connection carries no listener of a finished transaction', () => {
  it('many transactions on one connection leave its error listeners as they were (no MaxListenersExceededWarning)', async () => {
    const { store } = await open({ maxConnections: 1 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      await store.record(spawn());
      for (let i = 0; i < 15; i++) await store.record(human());
      await new Promise((r) => setTimeout(r, 50)); // warnings are emitted on a later tick
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
      expect(await store.stateVersion(CHILD, A)).toBe(16);
    } finally {
      process.off('warning', onWarning);
      await store.close();
    }
  });
});

describe('R9 the caller\'s code that the store calls: a throwing logger or change listener never fails a write', () => {
  it('a logger that throws is counted, and the write answers its fallback; a change listener that throws is logged by name', async () => {
    const { store, schema, logger } = await open();
    await store.record(spawn());
    store.onLocalChange(() => {
      throw new Error('listener broke');
    });
    expect((await store.record(human()))?.sequence).toBe(2); // a notice: the listeners run
    expect(logger.entries.map((e) => [e.level, e.message, e.details?.['error']])).toEqual([['error', 'postgres store: a change listener threw', 'listener broke']]);
    const broken = await createPostgresStore({
      now: () => T0,
      connectionString: pg.url(),
      schema,
      logger: { warn() {}, error() { throw new Error('logger broke'); } },
    });
    await away(schema, true);
    try {
      expect(broken.loggerFailures).toBe(0);
      expect(await broken.record(human())).toBeUndefined();
      expect(broken.loggerFailures).toBe(1);
    } finally {
      await away(schema, false);
      await broken.close();
      await store.close();
    }
  });

  it('a store opened without a schema uses public', async () => {
    const admin = await pg.admin();
    const database = `ssk_public_${process.pid}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const url = databaseUrl(database);
    const store = await createPostgresStore({ now: () => T0, connectionString: url, logger: memoryLogger() });
    try {
      expect(store.schema).toBe('public');
      await store.record(human());
      const there = new (await import('pg')).default.Client({ connectionString: url });
      await there.connect();
      try {
        expect((await there.query('SELECT count(*)::int AS n FROM public.session_state_events')).rows[0].n).toBe(1);
      } finally {
        await there.end();
      }
    } finally {
      await store.close();
      await admin.query(`DROP DATABASE ${database}`);
    }
  });
});

describe('R9d values another program wrote, and reads of what is not there', () => {
  it('a head, a page row and a cursor past 2^53 - 1: each read logs the column and serves the rest; a sequence past it is a refused record', async () => {
    const { store, schema, logger } = await open();
    const admin = await pg.admin();
    const W = 'agent:main:w1';
    const lines = () => logger.entries.splice(0).map((e) => `${e.message}: ${JSON.stringify(e.details)}`);
    try {
      for (const target of [CHILD, PEER]) await store.watch(watchReq(W, target));
      await store.record(human());
      await store.record(human(PEER));
      expect((await store.pendingNotices(W)).map((n) => n.targetSessionKey).sort()).toEqual([CHILD, PEER].sort());
      const big = (2n ** 53n + 1n).toString();
      await admin.query(`UPDATE "${schema}".session_state_heads SET last_sequence = $1 WHERE session_key = $2`, [big, CHILD]);
      expect(await store.stateVersion(CHILD, A)).toBe(0);
      expect(await store.watch(watchReq(PARENT, CHILD))).toEqual({ watched: false });
      expect(await store.sessionsPage({ limit: 10 })).toEqual([]);
      expect(lines()).toEqual([
        expect.stringMatching(/^postgres store: stateVersion failed: .*session_state_heads\.last_sequence/),
        expect.stringMatching(/^postgres store: watch failed: .*session_state_heads\.last_sequence/),
        expect.stringMatching(/^postgres store: sessionsPage failed: .*session_state_heads\.last_sequence/),
      ]);
      await admin.query(`UPDATE "${schema}".session_watch_cursors SET last_seen = $1, notified = $1, material = $1 WHERE target_session_key = $2`, [big, CHILD]);
      await admin.query(`UPDATE "${schema}".session_watch_cursors SET notified = material + 1, material = material + 1 WHERE target_session_key = $1`, [CHILD]);
      expect((await store.pendingNotices(W)).map((n) => n.targetSessionKey)).toEqual([PEER]);
      expect(lines()).toEqual([expect.stringMatching(/^postgres store: skipped a corrupt cursor row: .*session_watch_cursors\.last_seen/)]);
      // The next sequence is 2^53: the insert is rolled back, nothing is written.
      const sequence = await eventsSequence(admin, schema);
      await admin.query(`SELECT setval($1, $2, false)`, [sequence, (2n ** 53n).toString()]);
      expect(await store.record(human(PARENT))).toBeUndefined();
      expect(lines()).toEqual([expect.stringMatching(/^postgres store: record failed: .*session_state_events\.sequence/)]);
      expect(await store.stateVersion(PARENT, A)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('T12 the spawn parent is the first spawn\'s even when the session had events before it; spawnParents lists each; an unknown session has none, quietly', async () => {
    const { store, logger } = await open();
    try {
      await store.record(human());
      await store.record(spawn());
      await store.record(spawn('agent:main:c2', PEER, 'r2'));
      expect(await store.spawnParent(CHILD, A)).toBe(PARENT);
      expect(await store.spawnParent('agent:main:nobody', A)).toBeUndefined();
      expect((await store.spawnParents()).sort()).toEqual([
        ['agent:main:c2', A, PEER],
        [CHILD, A, PARENT],
      ]);
      expect(logger.entries).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('T15 the first page starts before every key, upper case and digits included; R43 a prune of an empty store logs nothing', async () => {
    const { store, logger } = await open();
    try {
      await store.prune();
      for (const key of ['0', 'Alpha', CHILD]) await store.record(human(key));
      expect((await store.sessionsPage({ limit: 10 })).map((r) => r.sessionKey)).toEqual(['0', 'Alpha', CHILD]);
      expect(logger.entries).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('R9d a prune that meets a sequence past 2^53 - 1', () => {
  it('names the column, whether an aged row, the newest row or every row holds it; nothing is removed', async () => {
    const big = 2n ** 53n;
    for (const [name, settings, update] of [
      ['an aged row', { retentionMs: DAY }, (s: string) => `UPDATE "${s}".session_state_events SET sequence = sequence + ${big} WHERE sequence = 1`],
      ['the newest row', { maxRows: 2 }, (s: string) => `UPDATE "${s}".session_state_events SET sequence = sequence + ${big} WHERE sequence = 3`],
      ['every row', { maxRows: 2 }, (s: string) => `UPDATE "${s}".session_state_events SET sequence = sequence + ${big}`],
    ] as const) {
      const { store, schema, logger, clock } = await open(settings);
      try {
        for (const key of [CHILD, PEER, PARENT]) await store.record(human(key));
        await (await pg.admin()).query(update(schema));
        if ('retentionMs' in settings) clock.t += 2 * DAY;
        await store.prune();
        expect(logger.entries.map((e) => `${e.message}: ${String(e.details?.['error'])}`), name).toEqual([expect.stringMatching(/^postgres store: prune failed: session_state_events\.sequence = /)]);
        expect(await store.eventCount(), name).toBe(3);
      } finally {
        await store.close();
      }
    }
  });
});

describe('R23b the notice link on PostgreSQL', () => {
  it('a template is checked before any connection and applied to every notice returned', async () => {
    // Nothing listens on port 1: a check after connecting would fail as unreachable instead.
    const refused = await createPostgresStore({ now: () => T0, connectionString: 'postgres://nobody@127.0.0.1:1/none', noticeLink: 'ftp://x.test/' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ field: 'noticeLink' });
    const { store } = await open({ noticeLink: 'https://x.test/{agentId}/s' });
    try {
      const link = 'Open: [session](<https://x.test/main/s>)';
      await store.record(spawn());
      await store.record(human());
      const pending = await store.pendingNotices(PARENT);
      expect(pending[0]?.text).toContain(link);
      expect((await store.ackNotices(PARENT, pending))[0]?.text).toContain(link);
      await store.record(human());
      expect((await store.drainNotices(PARENT))[0]?.text).toContain(link);
    } finally {
      await store.close();
    }
  });
});

describe('the store\'s life: a refused clock at open, calls after close, R43 on the batch path', () => {
  it('R6 a clock that reads out of range at open is a ClockError, and the open leaves no connection behind', async () => {
    const app = `ssk-clock-${process.pid}`;
    const refused = await createPostgresStore({ now: () => -1, connectionString: pg.url(), schema: pg.schema(), logger: memoryLogger(), pool: { application_name: app } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'ClockError' });
    const admin = await pg.admin();
    await waitFor('the pool\'s connections to close', async () => (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [app])).rows[0].n === 0);
  });

  it('every entry point throws "store is closed" after close', async () => {
    const { store } = await open();
    await store.close();
    const calls: (() => Promise<unknown>)[] = [() => store.record(human()), () => store.stateVersion(CHILD, A), () => store.pendingNotices(PARENT), () => store.watch(watchReq()), () => store.prune()];
    for (const call of calls) {
      await expect(Promise.resolve().then(call)).rejects.toThrow('store is closed');
    }
  });

  it('R43 a batch prunes when one of its inputs was inserted and a prune is due; a batch of dedupe hits or R9b skips, or a lone dedupe hit, does not', async () => {
    const { store, clock } = await open({ retentionMs: DAY });
    await store.record({ ...human(), dedupeKey: 'd1' });
    await store.record(human(PEER));
    clock.t += 2 * DAY; // both events aged, a prune due
    expect(await store.recordMany([{ ...human(), dedupeKey: 'd1' }, { ...human(COORD), onlyIfWatched: true }])).toEqual([expect.objectContaining({ sequence: 1 }), undefined]);
    expect((await store.record({ ...human(), dedupeKey: 'd1' }))?.sequence).toBe(1);
    expect(await store.eventCount()).toBe(2); // nothing pruned
    expect(await store.recordMany([{ ...human(), dedupeKey: 'd1' }, human(PARENT)])).toEqual([expect.objectContaining({ sequence: 1 }), expect.objectContaining({ sequence: 3 })]);
    expect(await store.eventCount()).toBe(1); // the two aged ones went
    await store.close();
  });
});

describe('R9d an event whose payload does not decode', () => {
  it('is returned without its payload, and the drop is logged with the schema, the target, the sequence and why', async () => {
    const { store, schema, logger } = await open();
    try {
      await store.record({ ...human(), payload: { channel: 'telegram' } });
      await (await pg.admin()).query(`UPDATE "${schema}".session_state_events SET payload_json = '{not json'`);
      const page = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
      expect(page.stateChanges.events.map((e) => [e.sequence, e.payload])).toEqual([[1, undefined]]);
      expect(logger.entries).toEqual([
        { level: 'warn', message: 'postgres store: dropped an unreadable payload', details: { target: store.target, schema, sequence: 1, reason: expect.stringMatching(/^payload_json does not parse: /) } },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('a connection the server ends in the middle of a write', () => {
  it('is the write\'s logged failure (57P01), and the next write takes a new connection', async () => {
    const app = `ssk-midtx-${process.pid}`;
    const { store, schema, logger } = await open({ pool: { application_name: app } });
    const admin = await pg.admin();
    await admin.query(`CREATE FUNCTION "${schema}".slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$`);
    await admin.query(`CREATE TRIGGER slow_insert BEFORE INSERT ON "${schema}".session_state_events FOR EACH ROW EXECUTE FUNCTION "${schema}".slow_insert()`);
    try {
      const write = store.record(human());
      const inInsert = async () => (await admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'PgSleep'", [app])).rows as { pid: number }[];
      await waitFor('the write to wait in its insert', async () => (await inInsert()).length === 1);
      await admin.query('SELECT pg_terminate_backend($1)', [(await inInsert())[0]!.pid]);
      expect(await write).toBeUndefined();
      expect(logger.entries.map((e) => [e.level, e.message, e.details?.['code']])).toEqual([['error', 'postgres store: record failed', '57P01']]);
      await admin.query(`DROP TRIGGER slow_insert ON "${schema}".session_state_events`);
      expect((await store.record(human()))?.sequence).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

describe('the store\'s connections and the smaller refusals', () => {
  it('the pool keeps to maxConnections; the listening connection names itself', async () => {
    const app = `ssk-pool-${process.pid}`;
    const { store } = await open({ maxConnections: 2, pool: { application_name: app } });
    const admin = await pg.admin();
    try {
      await Promise.all(Array.from({ length: 8 }, () => store.stateVersion(CHILD, A)));
      expect((await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [app])).rows[0].n).toBeLessThanOrEqual(2);
      const off = await store.subscribeRemote(() => {});
      expect((await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND pid = $2', ['session-state-kit-listen', store.listenerPid])).rows[0].n).toBe(1);
      await off();
    } finally {
      await store.close();
    }
  });

  it('a server that accepts but never answers fails the open after connectionTimeoutMs, not the default 5 s', async () => {
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const e = await createPostgresStore({ now: () => T0, connectionString: `postgres://u@127.0.0.1:${port}/db`, connectionTimeoutMs: 300, logger: memoryLogger() }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'unreachable' });
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('a database that is not UTF8 is refused at open, naming its encoding', async () => {
    const admin = await pg.admin();
    const database = `ssk_latin1_${process.pid}`;
    await admin.query(`CREATE DATABASE ${database} ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`);
    try {
      const e = await createPostgresStore({ now: () => T0, connectionString: databaseUrl(database), logger: memoryLogger() }).catch((x: unknown) => x);
      expect(e).toMatchObject({ name: 'PostgresEncodingError' });
      expect((e as Error).message).toContain('LATIN1');
    } finally {
      await admin.query(`DROP DATABASE ${database}`);
    }
  });

  it('drainNotices and pendingNotices name the watcher field they refuse', async () => {
    const { store } = await open();
    try {
      const reads: (() => Promise<unknown>)[] = [() => store.drainNotices(''), () => store.pendingNotices('')];
      for (const read of reads) {
        await expect(Promise.resolve().then(read)).rejects.toMatchObject({ field: 'watcherSessionKey' });
      }
    } finally {
      await store.close();
    }
  });

  it('R29 a restart prunes what aged; a factory with a fixed schema opens stores in it', async () => {
    const { store, clock, schema } = await open({ retentionMs: DAY });
    await store.record(human());
    clock.t += 2 * DAY;
    await store.restart();
    expect(await store.eventCount()).toBe(0);
    await store.close();
    const again = (await postgresStoreFactory({ connectionString: pg.url(), schema, logger: memoryLogger() })({ now: () => T0 })) as PostgresStore;
    try {
      expect(again.schema).toBe(schema);
      expect(await again.stateVersion(CHILD, A)).toBe(1);
    } finally {
      await again.close();
    }
  });
});

describe('schema names that need quoting', () => {
  it('a schema named with both quote characters opens, writes and reads; a schema that is not a string is a RangeError naming it', async () => {
    const schema = `ssk "q" 'it's' ${process.pid}`;
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: memoryLogger() });
    try {
      await store.record(spawn());
      expect((await store.record(human()))?.sequence).toBe(2);
      expect(await store.pendingNotices(PARENT)).toHaveLength(1);
      const admin = await pg.admin();
      expect((await admin.query('SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1', [schema])).rows[0].n).toBe(1);
    } finally {
      await store.close();
    }
    for (const bad of [5, null, {}]) {
      const e = await createPostgresStore({ now: () => T0, connectionString: 'postgres://nobody@127.0.0.1:1/none', schema: bad as unknown as string }).catch((x: unknown) => x);
      expect(e, String(bad)).toBeInstanceOf(RangeError);
      expect((e as Error).message).toBe(`schema must be a non-empty PostgreSQL identifier without NUL, got ${JSON.stringify(bad)}`);
    }
  });
});

describe('R9d the read model over values past 2^53 - 1', () => {
  it('each read names the column it could not read: heads, a head, the stats, the newest event', async () => {
    const { store, schema } = await open();
    const reader = await PgStateReader.open(pg.url(), schema);
    const admin = await pg.admin();
    const big = (2n ** 53n + 1n).toString();
    const sql = (text: string, values: unknown[] = []) => admin.query(text.replaceAll('S.', `"${schema}".`), values);
    const stats = () => reader.stats({ now: T0, maxRows: 50_000, retentionMs: 30 * DAY });
    try {
      await store.record(human());
      await store.record(human());
      await sql(`UPDATE S.session_state_events SET sequence = sequence + ${2n ** 53n}`);
      await expect(reader.heads()).rejects.toThrow(/^session_state_events\.sequence = /);
      await expect(stats()).rejects.toThrow(/^session_state_events\.sequence = /);
      await expect(reader.head(CHILD, A)).rejects.toThrow(/^sequence = /);
      await sql(`UPDATE S.session_state_events SET sequence = sequence - ${2n ** 53n}`);
      for (const [column, heads, head] of [
        ['last_sequence', /^session_state_heads\.last_sequence = /, /^last_sequence = /],
        ['pruned_max_sequence', /^session_state_heads\.pruned_max_sequence = /, /^pruned_max_sequence = /],
        ['updated_at', /^session_state_heads\.updated_at = /, /^updated_at = /],
      ] as const) {
        const before = (await sql(`SELECT ${column}::text AS v FROM S.session_state_heads`)).rows[0].v as string;
        await sql(`UPDATE S.session_state_heads SET ${column} = $1`, [big]);
        await expect(reader.heads(), column).rejects.toThrow(heads);
        await expect(reader.head(CHILD, A), column).rejects.toThrow(head);
        await sql(`UPDATE S.session_state_heads SET ${column} = $1`, [before]);
      }
      // The newest event past it, the oldest not: the stats' newest and newestOccurredAt name it.
      await sql('UPDATE S.session_state_events SET occurred_at = $1 WHERE sequence = 2', [big]);
      await expect(stats()).rejects.toThrow(/^session_state_events\.occurred_at = /);
      await expect(reader.newestOccurredAt()).rejects.toThrow(/^occurred_at = /);
      await sql('UPDATE S.session_state_events SET occurred_at = $1', [big]); // the oldest too
      await expect(stats()).rejects.toThrow(/^session_state_events\.occurred_at = /);
      await sql('UPDATE S.session_state_events SET occurred_at = $1', [T0]);
      const sequence = await eventsSequence(admin, schema);
      await admin.query('SELECT setval($1, $2, true)', [sequence, big]);
      await expect(stats()).rejects.toThrow(/\.last_value = /);
    } finally {
      await reader.close();
      await store.close();
    }
  });
});
