/**
 * R68 on PostgreSQL: the feed reads what changed after a snapshot, whatever order concurrent
 * transactions commit in. The model property of conformance/feed, and the case a counter cannot
 * handle: a transaction that started first and commits last.
 */
import { describe, expect, it } from 'vitest';
import { checkPendingReads } from '../../conformance/feed/pending-reads.js';
import { createPostgresStore } from '../../src/postgres/index.js';
import { statements } from '../../src/postgres/sql.js';
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

  it('R68, R71: the change reads go through the change index on a table the planner has no statistics for, and a named read through the watchers too (EXPLAIN)', async () => {
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log });
    try {
      const s = `"${store.schema}"`;
      const admin = await pg.admin();
      // 3,000 cursor rows written by as many commits, never analyzed (a fresh fleet's table
      // before autovacuum comes by).
      for (let i = 0; i < 3000; i += 100) {
        await Promise.all(
          Array.from({ length: 100 }, (_, j) =>
            store.record({ sessionKey: `agent:main:t${i + j}`, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human turn', watchers: [`agent:main:w${(i + j) % 1000}`] }),
          ),
        );
      }
      const since = (await store.readPending({})).position;
      const sql = statements(store.schema);
      const explain = async (text: string, values: unknown[]) => ((await admin.query(`EXPLAIN (COSTS OFF) ${text}`, values)).rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      for (const [name, text] of [['changesNow', sql.changesNow], ['changedSince', sql.changedSince]] as const) {
        const every = await explain(text, [since, null]);
        expect(every, name).toMatch(/session_watch_cursors_changed/);
        expect(every, name).not.toMatch(/Seq Scan/);
        const named = await explain(text, [since, ['agent:main:w1', 'agent:main:w2']]);
        expect(named, name).not.toMatch(/Seq Scan/);
      }
      // And the one-statement read answers: nothing changed after a position taken after the insert.
      expect((await store.readPending({ since, watchers: ['agent:main:w1'] })).changes).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a position that is not a snapshot of this store is refused', async () => {
    const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema: pg.schema(), logger: pg.log });
    await expect(store.readPending({ since: '12' })).rejects.toThrow(RangeError);
    await store.close();
  });
});
