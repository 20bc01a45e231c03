/**
 * The PostgreSQL schema's steps (postgres/schema.ts) on a real server: a schema at an older step is
 * brought forward step by step, keeping what it holds (step 3 backfills the spawn parents from the
 * retained log); an up-to-date one is only read; a step that fails leaves the schema where it was;
 * two machines migrating at once take turns; steps not numbered 1, 2, 3 are refused before
 * anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { NotAStateSchemaError, createPostgresStore } from '../../src/postgres/index.js';
import { MIGRATIONS, SCHEMA_VERSION, migrate, readSchemaVersion, type PgMigrationStep } from '../../src/postgres/schema.js';
import { silentLogger } from '../../src/shared/logger.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const T0 = Date.UTC(2026, 0, 1);

/** The rows of a schema's version table: [version, description]. */
async function versions(schema: string): Promise<[number, string][]> {
  const admin = await pg.admin();
  return (await admin.query<{ version: number; description: string }>(`SELECT version, description FROM "${schema}".session_state_schema ORDER BY version`)).rows.map((r) => [r.version, r.description]);
}

describe('postgres schema steps', () => {
  it('a schema at step 1 is brought to the newest step by step, its rows kept and its spawn parents backfilled (T12)', async () => {
    const schema = pg.schema();
    const admin = await pg.admin();
    expect(await migrate(admin, schema, MIGRATIONS.slice(0, 1))).toBe(1);
    expect(await versions(schema)).toEqual([[1, MIGRATIONS[0]!.description]]);
    expect(await readSchemaVersion(admin, schema)).toBe(1);
    // What a release of step 1 wrote: a spawn and a person's message.
    const insert = `INSERT INTO "${schema}".session_state_events (session_key, agent_id, kind, actor_type, actor_id, occurred_at, recorded_at, summary) VALUES ($1, 'main', $2, $3, $4, $5, $5, $6) RETURNING sequence`;
    await admin.query(insert, ['agent:main:subagent:a', 'child_spawned', 'agent', 'agent:main:main', T0, 'child session spawned']);
    await admin.query(insert, ['agent:main:subagent:a', 'human_direct_message', 'human', null, T0 + 1, 'human message via telegram']);
    await admin.query(`INSERT INTO "${schema}".session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES ('agent:main:subagent:a', 'main', 2, 0, $1)`, [T0 + 1]);

    const store = await createPostgresStore({ now: () => T0 + 2, connectionString: pg.url(), schema, logger: silentLogger });
    try {
      expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => [m.version, m.description]));
      const read = await store.changesSince({ sessionKey: 'agent:main:subagent:a', agentId: 'main', since: 0 });
      expect(read.stateChanges.events.map((e) => [e.sequence, e.kind])).toEqual([[1, 'child_spawned'], [2, 'human_direct_message']]);
      expect(await store.spawnParent('agent:main:subagent:a', 'main')).toBe('agent:main:main');
      // The store writes on from where the old release stopped.
      expect((await store.record({ sessionKey: 'agent:main:subagent:a', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' }))?.sequence).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('an up-to-date schema is only read: no lock, no transaction', async () => {
    const schema = pg.schema();
    const admin = await pg.admin();
    expect(await migrate(admin, schema)).toBe(SCHEMA_VERSION);
    const sent: string[] = [];
    const counting = { query: (sql: string, values?: unknown[]) => (sent.push(sql), admin.query(sql, values)) } as unknown as typeof admin;
    expect(await migrate(counting, schema)).toBe(SCHEMA_VERSION);
    expect(sent).toHaveLength(2);
    expect(sent.every((s) => s.startsWith('SELECT'))).toBe(true);
    // From a lower step: the migration lock, then a transaction that reads again, then the lock let go.
    const older = pg.schema();
    await migrate(admin, older, MIGRATIONS.slice(0, 2));
    sent.length = 0;
    expect(await migrate(counting, older)).toBe(SCHEMA_VERSION);
    expect(sent.slice(2, 4)).toEqual(['SELECT pg_advisory_lock($1, $2)', 'BEGIN']);
    expect(sent.slice(-2)).toEqual(['COMMIT', 'SELECT pg_advisory_unlock($1, $2)']);
    const held = await admin.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
    expect(held.rows[0]).toEqual({ n: 0 });
    expect(await versions(older)).toEqual(MIGRATIONS.map((m) => [m.version, m.description]));
  });

  it('a step that fails rolls the whole migration back: the schema stays at its step', async () => {
    const schema = pg.schema();
    const admin = await pg.admin();
    await migrate(admin, schema, MIGRATIONS.slice(0, 1));
    const broken: PgMigrationStep[] = [...MIGRATIONS.slice(0, 2), { version: 3, description: 'broken', sql: (s) => `CREATE TABLE ${s}.half_done (x int); SELECT no_such_function()` }];
    await expect(migrate(admin, schema, broken)).rejects.toMatchObject({ code: '42883' });
    expect(await versions(schema)).toEqual([[1, MIGRATIONS[0]!.description]]);
    const half = await admin.query(`SELECT to_regclass('"${schema}".half_done') AS t, to_regclass('"${schema}".session_spawn_parents') AS p`);
    expect(half.rows[0]).toEqual({ t: null, p: null });
    const column = await admin.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'changed_xid'`, [schema]);
    expect(column.rowCount).toBe(0);
    // The connection is usable again: no transaction left open, no lock kept.
    const held = await admin.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
    expect(held.rows[0]).toEqual({ n: 0 });
    expect(await migrate(admin, schema)).toBe(SCHEMA_VERSION);
  });

  it('connections migrating one new schema at once take turns: each step applied once, none fails', async () => {
    // The one that waits must see the tables the other created (a re-check inside a transaction
    // that began before the wait did not: "relation already exists").
    const clients = [await pg.admin(), await pg.admin(), await pg.admin()];
    for (let round = 0; round < 5; round++) {
      const schema = pg.schema();
      expect(await Promise.all(clients.map((c) => migrate(c, schema)))).toEqual(clients.map(() => SCHEMA_VERSION));
      expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => [m.version, m.description]));
    }
  });

  it('stores opened at once on one new schema all open, over one migration', async () => {
    const schema = pg.schema();
    const stores = await Promise.all([1, 2, 3].map(() => createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: silentLogger, maxConnections: 1 })));
    try {
      expect(await versions(schema)).toEqual(MIGRATIONS.map((m) => [m.version, m.description]));
      await stores[0]!.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      expect(await stores[2]!.stateVersion('agent:main:a', 'main')).toBe(1);
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('a schema that exists but holds nothing is migrated into; one with our events table and no version table is not ours', async () => {
    const admin = await pg.admin();
    const empty = pg.schema();
    await admin.query(`CREATE SCHEMA "${empty}"`);
    expect(await readSchemaVersion(admin, empty)).toBe(0);
    expect(await migrate(admin, empty)).toBe(SCHEMA_VERSION);
    const foreign = pg.schema();
    await admin.query(`CREATE SCHEMA "${foreign}"; CREATE TABLE "${foreign}".session_state_events (x int)`);
    const e = await readSchemaVersion(admin, foreign).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(NotAStateSchemaError);
    expect((e as Error).message).toContain('it has a session_state_events table but no session_state_schema table');
    await expect(migrate(admin, foreign)).rejects.toBeInstanceOf(NotAStateSchemaError);
  });

  it('steps not numbered 1, 2, 3, ... are refused before anything is sent', async () => {
    const sent: string[] = [];
    const client = { query: (sql: string) => (sent.push(sql), Promise.reject(new Error('not reached'))) } as never;
    const step = (version: number): PgMigrationStep => ({ version, description: `step ${version}`, sql: () => '' });
    await expect(migrate(client, 'x', [step(1), step(3)])).rejects.toThrow(new Error('migration steps must be numbered 1, 2, 3, ...; step 1 has version 3'));
    await expect(migrate(client, 'x', [step(2)])).rejects.toThrow(new Error('migration steps must be numbered 1, 2, 3, ...; step 0 has version 2'));
    expect(sent).toEqual([]);
  });
});
