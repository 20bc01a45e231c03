/**
 * The change feed (src/feed) over PostgreSQL: push-only (no change token), driven by LISTEN/NOTIFY
 * from other machines; a dropped listening connection costs no signal (R60-R63 via D2).
 */
import { describe, expect, it } from 'vitest';
import { createNoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { createPostgresStore } from '../../src/postgres/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { usePostgres, waitFor } from './server.js';

const pg = usePostgres();
const T0 = Date.UTC(2026, 0, 1);
const A = 'main';
const W = 'agent:main:main';


describe('createNoticeFeed over PostgreSQL', () => {
  it('a notice raised on one machine reaches a feed on another by server push, also across a dropped listening connection', async () => {
    const schema = pg.schema();
    const a = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: pg.log });
    const log = memoryLogger();
    const b = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: log });
    expect((b as PendingSource).changeToken).toBeUndefined(); // push-only: no polling of a token
    // A long poll interval: anything seen within the test came by push (or a re-read after reconnecting).
    const feed = createNoticeFeed(b, { pollIntervalMs: 3_600_000, logger: log });
    const signals: NoticeSignal[] = [];
    const stop = feed.subscribe((s) => void signals.push(s), { watcherSessionKey: W });
    await waitFor('the listening connection', () => b.listenerPid !== undefined);

    await a.watch({ watcherSessionKey: W, targetSessionKey: 'agent:main:peer-1', agentId: A });
    await a.record({ sessionKey: 'agent:main:peer-1', agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    await waitFor('a signal for the first notice', () => signals.some((s) => s.changed.some((p) => p.targetSessionKey === 'agent:main:peer-1')));

    // The listening connection dies; a notice raised meanwhile is signalled after it is back.
    const admin = await pg.admin();
    const pid = b.listenerPid;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await a.watch({ watcherSessionKey: W, targetSessionKey: 'agent:main:peer-2', agentId: A });
    await a.record({ sessionKey: 'agent:main:peer-2', agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    await waitFor('a signal for the notice raised while disconnected', () => signals.some((s) => s.changed.some((p) => p.targetSessionKey === 'agent:main:peer-2')));
    expect(b.listenerPid).not.toBe(pid);
    stop();
    feed.close();
    await a.close();
    await b.close();
  });
});
