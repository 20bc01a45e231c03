/**
 * The live view on PostgreSQL (`ui --pg <url>`): the same pages as on SQLite, read on a session
 * whose transactions are all read-only, from a store written by the real PostgreSQL adapter.
 */
import pgm from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from '../../src/postgres/index.js';
import { PgUiSource } from '../../src/ui/pg-source.js';
import { startUiServer } from '../../src/ui/server.js';
import { CLIP_MARK, SHOWN } from '../../src/ui/source.js';
import { usePostgres } from '../postgres/server.js';
import { runCli, useBuiltCli } from '../cli/helpers.js';
import { startUi } from './browser.js';

const pg = usePostgres();
const cli = useBuiltCli();
const MANAGER = 'agent:main:main';
const CHILD = 'agent:main:subagent:research';
/** The store and source every test reads: written by the first test that asks (a hook's work counts as static in a mutation run). */
let opened: Promise<{ store: PostgresStore; source: PgUiSource; schema: string }> | undefined;
function team(): Promise<{ store: PostgresStore; source: PgUiSource; schema: string }> {
  opened ??= (async () => {
    const schema = pg.schema();
    const store = await createPostgresStore({ connectionString: pg.url(), schema, logger: pg.log });
    await store.record({ sessionKey: CHILD, agentId: 'main', kind: 'child_spawned', actorType: 'agent', actorId: MANAGER, summary: 'child session spawned', watchers: [MANAGER] });
    await store.record({ sessionKey: CHILD, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: '<b>not bold</b>', payload: { channel: 'telegram' } });
    return { store, schema, source: await PgUiSource.open(pg.url(), schema, 'test server') };
  })();
  return opened;
}

afterAll(async () => {
  const t = await opened?.catch(() => undefined);
  await t?.source.close();
  await t?.store.close();
});

describe('ui --pg', () => {
  it('R80: the source names itself to the server and in the header, with the label given or the URL without its password', async () => {
    const { source, schema } = await team();
    const admin = new pgm.Client({ connectionString: pg.url() });
    await admin.connect();
    try {
      const names = await admin.query<{ n: string }>("SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = 'session-state-kit-ui'");
      expect(Number(names.rows[0]!.n)).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.end();
    }
    expect(source.label).toContain('test server');
    const unlabeled = await PgUiSource.open(pg.url(), schema);
    try {
      expect(unlabeled.label).not.toContain('test server');
      expect(unlabeled.label).toContain(new URL(pg.url()).host);
    } finally {
      await unlabeled.close();
    }
  });

  it('R81, R83: sessions and a timeline read as on SQLite', async () => {
    const { source } = await team();
    const sessions = await source.sessions({ limit: 50 });
    expect(sessions.rows).toEqual([
      { sessionKey: MANAGER, agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true },
      expect.objectContaining({ sessionKey: CHILD, agentId: 'main', stateVersion: 2, prunedMaxSequence: 0, earliestAvailableSequence: 1, lastActorType: 'human', lastKind: 'human_direct_message' }),
    ]);
    expect((await source.sessions({ limit: 1 })).next).toEqual({ sessionKey: MANAGER, agentId: '' });
    expect((await source.sessions({ limit: 50, after: { sessionKey: MANAGER, agentId: '' } })).rows.map((r) => r.sessionKey)).toEqual([CHILD]);
    expect((await source.sessions({ limit: 50, search: 'RESEARCH' })).rows).toHaveLength(1);
    expect((await source.sessions({ limit: 50, agent: 'main' })).rows).toHaveLength(1);
    expect((await source.sessions({ limit: 50, agent: 'other' })).rows).toHaveLength(0);
    const t = await source.timeline({ sessionKey: CHILD, agentId: 'main', limit: 1 });
    expect(t.events.map((e) => e.summary)).toEqual(['<b>not bold</b>']);
    expect(t.next).toBe(2);
    expect(t.gap).toBeUndefined();
  });

  it('R84: a pending notice carries the text pendingNotices returns', async () => {
    const { store, source } = await team();
    const expected = await store.pendingNotices(MANAGER);
    expect(expected).toHaveLength(1);
    const page = await source.watches({ limit: 50, pending: true });
    expect(page.rows.map((c) => c.noticeText)).toEqual([expected[0]!.text]);
    expect(page.rows[0]).toMatchObject({ provenance: 'spawn', wake: 'immediate', pending: true });
    expect((await source.watches({ limit: 50, session: MANAGER })).rows).toHaveLength(1);
    expect((await source.listPending()).map((p) => p.watcherSessionKey)).toEqual([MANAGER]);
  });

  it('R86: the change token moves with a new event and with an ack', async () => {
    const { store, source } = await team();
    const t0 = await source.changeToken();
    expect(await source.changeToken()).toBe(t0);
    await store.record({ sessionKey: CHILD, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const t1 = await source.changeToken();
    expect(t1).not.toBe(t0);
    await store.drainNotices(MANAGER);
    const t2 = await source.changeToken();
    expect(t2).not.toBe(t1);
  });

  it('R80: the session refuses writes, and the server serves the store', async () => {
    const { source, schema } = await team();
    const client = (source as unknown as { reads: { client: { query(sql: string): Promise<unknown> } } }).reads.client;
    await expect(client.query(`CREATE TABLE "${schema}".ui_probe (a int)`)).rejects.toThrow(/read-only/);
    const server = await startUiServer({ source });
    try {
      const res = await fetch(`${server.base}api/sessions`, { headers: { authorization: `Bearer ${server.token}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { rows: unknown[] }).rows).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('R80, R87: the CLI serves a PostgreSQL store on loopback, and a schema without the tables is exit 3', async () => {
    const { schema } = await team();
    const ui = await startUi(cli.path(), ['--pg', pg.url(), '--schema', schema]);
    try {
      expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
      const res = await fetch(`${ui.base}api/timeline?session=${encodeURIComponent(CHILD)}&agent=main`, { headers: ui.auth });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { head: { stateVersion: number } }).head.stateVersion).toBe(3);
    } finally {
      expect(await ui.stop()).toBe(0);
    }
    const empty = await runCli(cli.path(), ['ui', '--pg', pg.url(), '--schema', pg.schema()]);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toMatch(/no session-state tables/);
  });

  it('R82: rows another program wrote past R3 come clipped, cut in the query (1 MiB summary and payload)', async () => {
    const other = pg.schema();
    const writer = await createPostgresStore({ connectionString: pg.url(), schema: other, logger: pg.log });
    const raw = new pgm.Client({ connectionString: pg.url() });
    await raw.connect();
    let view: PgUiSource | undefined;
    try {
      await writer.record({ sessionKey: CHILD, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'normal' });
      await raw.query(
        `INSERT INTO "${other}".session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary, payload_json)
         VALUES ($1, 'main', 'human_direct_message', 'human', 1, 1, repeat('m', 1048576), '{"channel":"' || repeat('c', 1048576) || '"}')`,
        [CHILD],
      );
      await raw.query(`UPDATE "${other}".session_state_heads SET last_sequence = (SELECT max(sequence) FROM "${other}".session_state_events)`);
      view = await PgUiSource.open(pg.url(), other, 'test server');
      const t = await view.timeline({ sessionKey: CHILD, agentId: 'main', limit: 50 });
      expect(t.events.map((e) => e.summary)).toEqual([`${'m'.repeat(SHOWN.summary)}${CLIP_MARK}`, 'normal']);
      expect(t.events[0]!.payload).toBeUndefined();
      expect(t.events[0]!.payloadClipped).toBe(`{"channel":"${'c'.repeat(SHOWN.payload - 12)}${CLIP_MARK}`);
    } finally {
      await view?.close();
      await raw.end();
      await writer.close();
    }
  });
});
