/**
 * R68 on PostgreSQL: the feed reads what changed after a snapshot, whatever order concurrent
 * transactions commit in. The model property of conformance/feed, and the case a counter cannot
 * handle: a transaction that started first and commits last.
 */
import { describe, expect, it } from 'vitest';
import { checkPendingReads } from '../../conformance/feed/pending-reads.js';
import { createPostgresStore } from '../../src/postgres/index.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const T0 = Date.UTC(2026, 0, 1);
const A = 'main';

describe('postgres: pending reads (R60, R61, R68)', () => {
  it('pass the model property (many watchers, long runs of commits, reads at random points)', async () => {
    await checkPendingReads({
      open: async () => {
        const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log, maxConnections: 2 });
        return { subject: store, close: () => store.close() };
      },
      numRuns: 15,
    });
    expect(pg.log.entries.filter((e) => e.level === 'error')).toEqual([]);
  });

  it('R71: a change whose transaction commits after a later one is read once, by the read after its commit', async () => {
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log });
    const schema = store.schema;
    for (const t of ['agent:main:slow', 'agent:main:fast']) await store.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: t, agentId: A });
    const start = await store.readPending({});
    // A transaction that writes a change and stays open (as a slow writer would), stamped with its own id.
    const slow = await pg.admin();
    await slow.query('BEGIN');
    await slow.query(
      `UPDATE "${schema}".session_watch_cursors SET notified = 5, material = 5, changed_xid = pg_current_xact_id() WHERE target_session_key = 'agent:main:slow'`,
    );
    // A later transaction commits first, through the store.
    await store.record({ sessionKey: 'agent:main:fast', agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human turn' });
    const first = await store.readPending({ since: start.position });
    expect(first.changes.map((c) => [c.targetSessionKey, c.pending])).toEqual([['agent:main:fast', true]]);
    await slow.query('COMMIT');
    const second = await store.readPending({ since: first.position });
    expect(second.changes.map((c) => [c.targetSessionKey, c.pending, c.lastSeenSequence])).toEqual([['agent:main:slow', true, 0]]);
    const third = await store.readPending({ since: second.position });
    expect(third.changes).toEqual([]); // read once
    await store.close();
  });

  it('a position that is not a snapshot of this store is refused', async () => {
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log });
    await expect(store.readPending({ since: '12' })).rejects.toThrow(RangeError);
    await store.close();
  });
});
