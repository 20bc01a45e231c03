/**
 * Bad configuration is a typed error with a hint, thrown by createPostgresStore (the caller
 * configured something wrong), never a store that logs failures forever.
 */
import { describe, expect, it } from 'vitest';
import {
  PostgresAuthenticationError,
  PostgresPrivilegeError,
  PostgresStoreError,
  PostgresUnreachableError,
  SchemaTooNewError,
  UnsafeIntegerError,
  createPostgresStore,
  toSafeNumber,
} from '../../src/postgres/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { freePort } from '../../src/postgres/testing/embedded.js';
import { SCHEMA_VERSION } from '../../src/postgres/schema.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const now = () => Date.UTC(2026, 0, 1);

async function openError(p: Promise<unknown>): Promise<PostgresStoreError> {
  try {
    const store = (await p) as { close(): Promise<void> };
    await store.close();
  } catch (error) {
    expect(error).toBeInstanceOf(PostgresStoreError);
    return error as PostgresStoreError;
  }
  throw new Error('expected the open to fail');
}

function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

describe('postgres: typed configuration errors', () => {
  it('an unreachable server is PostgresUnreachableError naming host and port, with a hint', async () => {
    const port = await freePort(); // nothing listens there
    const e = await openError(createPostgresStore({ now, connectionString: `postgres://u:secret@127.0.0.1:${port}/db`, connectionTimeoutMs: 2000 }));
    expect(e).toBeInstanceOf(PostgresUnreachableError);
    expect(e.code).toBe('unreachable');
    expect(e.message).toContain(`127.0.0.1:${port}/db`);
    expect(e.message).not.toContain('secret');
    expect(e.hint).toMatch(/server runs/);
  });

  it('the error names where pg connects: a connection string\'s fields over the pool\'s, and without a database the user\'s name (decoded)', async () => {
    const port = await freePort();
    const bare = await openError(createPostgresStore({ now, connectionString: `postgres://some%20one@127.0.0.1:${port}`, connectionTimeoutMs: 2000 }));
    expect(bare.message).toContain(`127.0.0.1:${port}/some one:`);
    // pg reads the string over the pool's own fields: this one tries the string's port.
    const both = await openError(createPostgresStore({ now, connectionString: `postgres://u@127.0.0.1:${port}/db`, pool: { host: 'elsewhere.invalid', port: 1, database: 'pooled' }, connectionTimeoutMs: 2000 }));
    expect(both.message).toContain(`127.0.0.1:${port}/db:`);
    const pooled = await openError(createPostgresStore({ now, pool: { host: '127.0.0.1', port, database: 'pooled', user: 'pu' }, connectionTimeoutMs: 2000 }));
    expect(pooled.message).toContain(`127.0.0.1:${port}/pooled:`);
  });

  it('a wrong password is PostgresAuthenticationError naming the user', async () => {
    const e = await openError(createPostgresStore({ now, connectionString: withCredentials(pg.url(), 'postgres', 'wrong-password'), schema: pg.schema() }));
    expect(e).toBeInstanceOf(PostgresAuthenticationError);
    expect(e.code).toBe('authentication');
    expect(e.message).toContain('postgres');
    expect(e.message).not.toContain('wrong-password');
    expect(e.hint).toMatch(/password/);
  });

  it('a role without privileges is PostgresPrivilegeError, whether it cannot create the schema or cannot write its tables', async () => {
    const admin = await pg.admin();
    const role = `ssk_limited_${process.pid}`;
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'limited'`);
    const url = withCredentials(pg.url(), role, 'limited');
    // 1. may not create a schema in this database
    const e1 = await openError(createPostgresStore({ now, connectionString: url, schema: pg.schema() }));
    expect(e1).toBeInstanceOf(PostgresPrivilegeError);
    expect(e1.code).toBe('privilege');
    expect(e1.hint).toMatch(/GRANT/);
    // 2. the schema exists (migrated by its owner), the role may read but not write
    const schema = pg.schema();
    const owner = await createPostgresStore({ now, connectionString: pg.url(), schema, logger: memoryLogger() });
    await owner.close();
    await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
    const e2 = await openError(createPostgresStore({ now, connectionString: url, schema }));
    expect(e2).toBeInstanceOf(PostgresPrivilegeError);
    expect(e2.message).toContain(`permission denied: INSERT on ${schema}.session_state_events`);
    await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
  });

  it('a schema migrated by a newer release is SchemaTooNewError, and nothing is changed', async () => {
    const schema = pg.schema();
    const store = await createPostgresStore({ now, connectionString: pg.url(), schema, logger: memoryLogger() });
    await store.close();
    const admin = await pg.admin();
    await admin.query(`INSERT INTO "${schema}".session_state_schema (version, description) VALUES (99, 'from the future')`);
    const e = await openError(createPostgresStore({ now, connectionString: pg.url(), schema }));
    expect(e).toBeInstanceOf(SchemaTooNewError);
    expect((e as SchemaTooNewError).foundVersion).toBe(99);
    expect((e as SchemaTooNewError).supportedVersion).toBe(SCHEMA_VERSION);
    expect(e.hint).toMatch(/upgrade session-state-kit/);
    const versions = await admin.query(`SELECT version FROM "${schema}".session_state_schema ORDER BY version`);
    expect(versions.rows.map((r) => r.version)).toEqual([...Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), 99]);
  });

  it('bigint columns decode exactly and refuse values past 2^53 - 1: a record there writes nothing and is logged', async () => {
    expect(toSafeNumber('9007199254740991', 'x')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toSafeNumber('9007199254740992', 'x')).toThrow(UnsafeIntegerError);
    const log = memoryLogger();
    const schema = pg.schema();
    const store = await createPostgresStore({ now, connectionString: pg.url(), schema, logger: log });
    const admin = await pg.admin();
    await admin.query(`SELECT setval('"${schema}".session_state_sequence', 9007199254740991)`);
    const input = { sessionKey: 'agent:main:x', agentId: 'main', kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram' };
    expect(await store.record(input)).toBeUndefined();
    expect(log.entries.map((e) => e.details?.['name'])).toEqual(['UnsafeIntegerError']);
    expect(await store.stateVersion('agent:main:x', 'main')).toBe(0);
    expect((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".session_state_events`)).rows[0].n).toBe(0);
    await store.close();
  });
});
