/**
 * The PostgreSQL read model (R80), in process: what `inspect --pg` and `ui --pg` read. The same
 * scenario as test/sqlite/read-model.test.ts, written by the real adapter into a schema of its
 * own; each answer is held against the store's own answer over the same schema, and against
 * values the scenario fixes. test/postgres/inspect.test.ts checks the printed commands.
 */
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import {
  NotAStateSchemaError,
  PgStateReader,
  PostgresAuthenticationError,
  PostgresDatabaseMissingError,
  PostgresUnreachableError,
  UnsafeIntegerError,
  createPostgresStore,
  redactUrl,
  type PostgresStore,
} from '../../src/postgres/index.js';
import { SCHEMA_VERSION } from '../../src/postgres/schema.js';
import { freePort } from '../../src/postgres/testing/embedded.js';
import { silentLogger } from '../../src/shared/logger.js';
import { BUSY, CHILD_A, CHILD_B, DAY, MANAGER, OLD, OPS, T0, fixtureClock, writeFixtureTo } from '../cli/fixture.js';
import { checkChangesSince, checkCursorsAndNotices, checkHeads, checkKeys, fixtureStats } from '../cli/fixture-checks.js';
import { usePostgres, waitFor, type FreshSchema } from './server.js';
import { PgUiSource } from '../../src/ui/pg-source.js';
import { MINUTE_MS } from '../../src/ui/source.js';
import { TEAM_T0, expectTeamPages, writeTeam } from '../ui/team-pages.js';

const pgt = usePostgres();

/** The scenario's schema: the store that wrote it, a reader of it, and the clock's time after it. */
interface Scenario {
  schema: string;
  store: PostgresStore;
  reader: PgStateReader;
  now: number;
}
let written: Promise<Scenario> | undefined;

/**
 * The scenario, written by the first test that asks rather than in beforeAll: code a hook reaches,
 * a mutation run counts as reached by no test (static) and re-runs every file for each such mutant.
 */
function scenario(): Promise<Scenario> {
  written ??= (async () => {
    const schema = pgt.schema();
    const clock = fixtureClock();
    const store = await createPostgresStore({ now: clock.now, connectionString: pgt.url(), schema, logger: silentLogger });
    await writeFixtureTo(store, clock);
    return { schema, store, now: clock.now(), reader: await PgStateReader.open(pgt.url(), schema) };
  })();
  return written;
}
afterAll(async () => {
  const s = await written?.catch(() => undefined);
  await s?.reader.close();
  await s?.store.close();
});

let adminClient: Promise<pg.Client> | undefined;
/** One admin client for the file, made on first use. */
const pgAdmin = (): Promise<pg.Client> => (adminClient ??= pgt.admin());

/** A store of its own in a fresh schema, on a clock that stands still; it and its readers closed after `body`. */
const fresh = <T>(body: (f: FreshSchema) => Promise<T>): Promise<T> => pgt.withFreshSchema(body, { now: () => T0, logger: silentLogger });

/** How many connections the server holds under `applicationName`. */
async function connections(applicationName: string): Promise<number> {
  const r = await (await pgAdmin()).query<{ n: string }>('SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
  return Number(r.rows[0]!.n);
}

function withCredentials(url: string, change: (u: URL) => void): string {
  const u = new URL(url);
  change(u);
  return u.toString();
}

describe('heads (R5, R32, R33)', () => {
  it('one row per identity in key order, each as the store answers it', async () => {
    const { store, reader } = await scenario();
    await checkHeads(reader, store);
  });

  it('a head with nothing retained starts its history one past the head, one at 0 at 0 (R32); a value past 2^53 is an error naming its column', async () => {
    const admin = await pgAdmin();
    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      await s.record({ sessionKey: 'agent:main:gone', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      await admin.query(`DELETE FROM "${name}".session_state_events WHERE session_key = 'agent:main:gone'`);
      await admin.query(`UPDATE "${name}".session_state_heads SET pruned_max_sequence = 1 WHERE session_key = 'agent:main:gone'`);
      await admin.query(`INSERT INTO "${name}".session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES ('agent:main:zero', 'main', 0, 0, 0)`);
      const r = await openReader();
      const heads = await r.heads();
      expect(heads.find((x) => x.sessionKey === 'agent:main:gone')).toEqual({
        sessionKey: 'agent:main:gone', agentId: 'main', stateVersion: 1, prunedMaxSequence: 1, updatedAt: T0, retainedEvents: 0, earliestAvailableSequence: 2,
      });
      expect(heads.find((x) => x.sessionKey === 'agent:main:zero')).toMatchObject({ stateVersion: 0, retainedEvents: 0, earliestAvailableSequence: 0 });
      // The live view's head reads the same rule (R32).
      expect(await r.head('agent:main:gone', 'main')).toEqual({ sessionKey: 'agent:main:gone', agentId: 'main', stateVersion: 1, earliestAvailableSequence: 2, prunedMaxSequence: 1, updatedAt: T0 });
      expect(await r.head('agent:main:nobody', 'main')).toBeUndefined();
      expect(await r.head('agent:main:zero', 'main')).toMatchObject({ stateVersion: 0, earliestAvailableSequence: 0 });
      expect((await r.head('agent:main:zero', 'main'))!.lastKind).toBeUndefined();
      await admin.query(`UPDATE "${name}".session_state_heads SET updated_at = 9007199254740993 WHERE session_key = 'agent:main:gone'`);
      const e = await r.heads().catch((error: unknown) => error);
      expect(e).toBeInstanceOf(UnsafeIntegerError);
      expect(String((e as Error).message)).toContain('session_state_heads.updated_at');
    });
  });
});

describe('keys', () => {
  it('agentsOf lists the agents of a bare key in order; hasHead and knowsSession see heads and cursors, not strangers', async () => {
    const { reader } = await scenario();
    await checkKeys(reader);
  });

  it('agentsOf sorts what the server returns in any order: agents recorded last-first come back first-first', async () => {
    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      for (const agent of ['zed', 'ops', 'main', 'Alpha']) await s.record({ sessionKey: 'team', agentId: agent, kind: 'compacted', actorType: 'system', summary: 'compacted' });
      const r = await openReader();
      expect(await r.agentsOf('team')).toEqual(['Alpha', 'main', 'ops', 'zed']);
    });
  });

  it('knowsSession finds a key that is only a target of a cursor', async () => {
    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      await s.watch({ watcherSessionKey: 'agent:main:w', targetSessionKey: 'agent:main:quiet', agentId: 'main' });
      const r = await openReader();
      expect(await r.hasHead('agent:main:quiet', 'main')).toBe(false);
      expect(await r.knowsSession('agent:main:quiet')).toBe(true);
      expect(await r.knowsSession('agent:main:w')).toBe(true);
    });
  });
});

describe('changesSince (R30-R35)', () => {
  it('answers exactly as the store does, pages and gaps included', async () => {
    const { store, reader } = await scenario();
    await checkChangesSince(reader, store);
    const page = await reader.changesSince({ sessionKey: BUSY, agentId: 'main', since: 0, limit: 5 });
    expect(page.stateChanges.events).toHaveLength(5);
    expect(page.stateChanges.truncated).toBe(true);
  });
});

describe('cursors and notices (R20, R26)', () => {
  it('every cursor as stored, in key order, pending when N > L, filtered by watcher and by target; pending notices as the store has them, not acked', async () => {
    const { store, reader } = await scenario();
    await checkCursorsAndNotices(reader, store);
    // Each cursor whole, as the store's checked decoder reads it.
    for (const c of await reader.cursors()) {
      const { pending, ...stored } = c;
      expect(stored).toEqual(await store.cursor(c.watcherSessionKey, c.targetSessionKey, c.targetAgentId));
      expect(pending).toBe(c.notifiedSequence > c.lastSeenSequence);
    }
  });
});

describe('stats', () => {
  it('counts what is in the schema, and what is past the cap and the retention', async () => {
    const { schema, reader, now } = await scenario();
    const admin = await pgAdmin();
    const count = async (sql: string) => Number((await admin.query<{ v: string }>(sql)).rows[0]!.v);
    const rows = await count(`SELECT count(*)::text AS v FROM "${schema}".session_state_events`);
    const s = await reader.stats({ now: now + DAY, maxRows: LIMITS.maxRows, retentionMs: LIMITS.retentionMs });
    expect(s).toMatchObject({
      path: `${redactUrl(pgt.url())} schema ${schema}`,
      schemaVersion: SCHEMA_VERSION,
      supportedSchemaVersion: SCHEMA_VERSION,
      journalMode: 'postgresql',
      walBytes: 0,
      highestSequence: await count(`SELECT last_value::text AS v FROM "${schema}".session_state_sequence`),
      ...fixtureStats(now, rows),
    });
    expect(s.highestSequence).toBe(rows + 2); // two pruned
    // The tables of this schema only: the sum of their sizes as the server reports them.
    expect(s.fileBytes).toBe(
      await count(`SELECT sum(pg_total_relation_size(c.oid))::text AS v FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${schema}' AND c.relkind = 'r'`),
    );
    expect(s.fileBytes).toBeGreaterThan(0);

    const tight = await reader.stats({ now: now + 2 * DAY, maxRows: 10, retentionMs: DAY });
    expect(tight.rowsUntilCap).toBe(0);
    expect(tight.eventsPastRetention).toBe(rows);
    expect(tight.cursorsPastRetention).toBe(3);
    // Past the retention is strictly older than the cutoff: what was recorded at the cutoff stays.
    const before = async (table: string, column: string, t: number) => count(`SELECT count(*)::text AS v FROM "${schema}".${table} WHERE ${column} < ${t}`);
    const atNow = await reader.stats({ now, maxRows: rows + 5, retentionMs: 0 });
    expect(atNow).toMatchObject({ rowsUntilCap: 5, eventsPastRetention: await before('session_state_events', 'occurred_at', now), cursorsPastRetention: await before('session_watch_cursors', 'updated_at', now) });
    expect(atNow.eventsPastRetention).toBeLessThan(rows);
    const justAfter = await reader.stats({ now: now + 1, maxRows: rows, retentionMs: 0 });
    expect(justAfter).toMatchObject({ rowsUntilCap: 0, eventsPastRetention: rows, cursorsPastRetention: 3 });
  });

  it('an empty schema: no oldest event, no newest time, no sequence drawn, the whole cap ahead', async () => {
    await fresh(async ({ reader: openReader }) => {
      const r = await openReader();
      const st = await r.stats({ now: T0, maxRows: 100, retentionMs: DAY });
      expect(st).toMatchObject({ rows: 0, sessions: 0, cursors: 0, watchers: 0, pendingPairs: 0, oldestEvent: null, newestOccurredAt: null, rowsUntilCap: 100, highestSequence: 0 });
      expect(await r.heads()).toEqual([]);
      expect(await r.newestOccurredAt()).toBeUndefined();
    });
  });
});

describe('order (R26: UTF-16 code units, where the server sorts COLLATE "C" text in UTF-8 byte order)', () => {
  it('heads and cursors sort a key with an astral character before one with U+FFFD', async () => {
    // UTF-8 puts U+FFFD (EF BF BD) before U+1F600 (F0 ...); UTF-16 puts U+1F600 (D83D ...) first.
    const bmp = 'team-\uFFFD';
    const astral = 'team-\u{1F600}';
    await fresh(async ({ store: s, reader: openReader }) => {
      for (const key of [bmp, astral]) for (const agent of ['main', 'ops']) await s.record({ sessionKey: key, agentId: agent, kind: 'compacted', actorType: 'system', summary: 'compacted' });
      await s.watch({ watcherSessionKey: 'agent:main:v', targetSessionKey: bmp, agentId: 'main' });
      for (const t of [bmp, astral]) for (const agent of ['ops', 'main']) await s.watch({ watcherSessionKey: 'agent:main:w', targetSessionKey: t, agentId: agent });
      const r = await openReader();
      expect((await r.heads()).map((h) => `${h.sessionKey}/${h.agentId}`)).toEqual([`${astral}/main`, `${astral}/ops`, `${bmp}/main`, `${bmp}/ops`]);
      expect(await r.agentsOf(bmp)).toEqual(['main', 'ops']);
      expect((await r.cursors()).map((c) => `${c.watcherSessionKey} ${c.targetSessionKey}/${c.targetAgentId}`)).toEqual([
        `agent:main:v ${bmp}/main`,
        `agent:main:w ${astral}/main`,
        `agent:main:w ${astral}/ops`,
        `agent:main:w ${bmp}/main`,
        `agent:main:w ${bmp}/ops`,
      ]);
    });
  });
});

describe('the connection (R80)', () => {
  it('every transaction is READ ONLY: the server refuses a write on the reader\'s own connection, live or snapshot', async () => {
    const { schema, reader } = await scenario();
    for (const consistency of ['live', 'snapshot'] as const) {
      const r = await PgStateReader.open(pgt.url(), schema, { consistency });
      const client = (r as unknown as { client: pg.Client }).client;
      try {
        await expect(client.query(`DELETE FROM "${schema}".session_state_events`)).rejects.toMatchObject({ code: '25006' });
      } finally {
        await r.close();
      }
    }
    expect((await reader.heads()).length).toBe(6);
  });

  it('snapshot holds one view for its life; live sees each new commit; close ends the connection', async () => {
    const app = `ssk-rm-${process.pid}-snap`;
    await fresh(async ({ store: s, schema: name }) => {
      await s.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      const snap = await PgStateReader.open(pgt.url(), name, { consistency: 'snapshot', applicationName: app });
      const live = await PgStateReader.open(pgt.url(), name);
      expect(await connections(app)).toBe(1);
      expect((await snap.heads()).map((h) => h.stateVersion)).toEqual([1]);
      await s.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      expect((await snap.heads()).map((h) => h.stateVersion)).toEqual([1]);
      expect((await live.heads()).map((h) => h.stateVersion)).toEqual([2]);
      await snap.close();
      await live.close();
      await waitFor('the snapshot reader\'s connection to end', async () => (await connections(app)) === 0);
    });
  });

  it('names itself to the server, and in its label: the URL without its password, the schema unless public', async () => {
    const { schema, reader } = await scenario();
    expect(await connections('session-state-kit-reader')).toBeGreaterThanOrEqual(1);
    expect(reader.label).toBe(`${redactUrl(pgt.url())} schema ${schema}`);
    expect(reader.path).toBe(redactUrl(pgt.url()));
    expect(reader.schema).toBe(schema);
    expect(reader.schemaVersion).toBe(SCHEMA_VERSION);
    const labelled = await PgStateReader.open(pgt.url(), schema, { label: 'the team db' });
    try {
      expect(labelled.label).toBe(`the team db schema ${schema}`);
    } finally {
      await labelled.close();
    }
    const pub = await createPostgresStore({ now: () => T0, connectionString: pgt.url(), logger: silentLogger });
    await pub.close();
    const r = await PgStateReader.open(pgt.url(), 'public', { label: 'the team db' });
    try {
      expect(r.label).toBe('the team db');
    } finally {
      await r.close();
    }
  });

  it('the schema is public unless named', async () => {
    const pub = await createPostgresStore({ now: () => T0, connectionString: pgt.url(), logger: silentLogger });
    await pub.close();
    const r = await PgStateReader.open(pgt.url());
    try {
      expect(r.schema).toBe('public');
      expect(r.label).toBe(redactUrl(pgt.url()));
    } finally {
      await r.close();
    }
  });

  it('a connection the server ends fails the next read, not the process', async () => {
    const { schema } = await scenario();
    const admin = await pgAdmin();
    const app = `ssk-rm-${process.pid}-ended`;
    const r = await PgStateReader.open(pgt.url(), schema, { applicationName: app });
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app]);
      await waitFor('the ended connection to be gone', async () => (await connections(app)) === 0);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the client's error event, if it comes, comes now
      await expect(r.heads()).rejects.toThrow();
    } finally {
      await r.close();
    }
  });

  it('redactUrl hides the password only, and names a string that is no URL without repeating it', () => {
    expect(redactUrl('postgres://u:secret@h:5432/db')).toBe('postgres://u:***@h:5432/db');
    expect(redactUrl('postgres://u@h:5432/db')).toBe('postgres://u@h:5432/db');
    expect(redactUrl('not a url with secret')).toBe('(connection string)');
  });
});

describe('open: typed errors, and no connection left behind', () => {
  it('a schema no store opened is NotAStateSchemaError, and the connection it made is ended', async () => {
    const app = `ssk-rm-${process.pid}-none`;
    const e = await PgStateReader.open(pgt.url(), 'nobody_here', { applicationName: app }).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(NotAStateSchemaError);
    expect(e).toMatchObject({ code: 'not-a-state-schema', schema: 'nobody_here' });
    expect((e as Error).message).toContain('never opened by a store');
    await waitFor('the refused reader\'s connection to end', async () => (await connections(app)) === 0);
  });

  it('nobody listening is PostgresUnreachableError naming the target without its password', async () => {
    const port = await freePort();
    const e = await PgStateReader.open(`postgres://u:secret@127.0.0.1:${port}/db`).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(PostgresUnreachableError);
    expect(e).toMatchObject({ code: 'unreachable', target: `postgres://u:***@127.0.0.1:${port}/db` });
    expect((e as Error).message).not.toContain('secret');
  });

  it('a wrong password is PostgresAuthenticationError; a database that does not exist is PostgresDatabaseMissingError', async () => {
    const { schema } = await scenario();
    const wrong = await PgStateReader.open(withCredentials(pgt.url(), (u) => void (u.password = 'wrong-password')), schema).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(PostgresAuthenticationError);
    expect((wrong as Error).message).not.toContain('wrong-password');
    const missing = await PgStateReader.open(withCredentials(pgt.url(), (u) => void (u.pathname = '/no_such_db')), schema).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PostgresDatabaseMissingError);
    expect(missing).toMatchObject({ code: 'database-missing' });
    expect((missing as Error).message).toContain('no_such_db');
  });
});

describe('the live view\'s reads (R81-R86)', () => {
  it('a small team, page by page, as on SQLite (test/ui/team-pages.ts)', async () => {
    const name = pgt.schema();
    let t = TEAM_T0;
    const s = await createPostgresStore({ now: () => t, connectionString: pgt.url(), schema: name, logger: silentLogger });
    try {
      t = await writeTeam(s, { advance: (ms) => void (t += ms), now: () => t });
      const source = await PgUiSource.open(pgt.url(), name);
      try {
        await expectTeamPages(source, t);
        // R85: one row per minute and actor type, from inclusive, to exclusive.
        const minute = (at: number) => Math.floor(at / MINUTE_MS) * MINUTE_MS;
        const reader = (source as unknown as { reads: PgStateReader }).reads;
        const rows = async (from: number, to: number) =>
          (await reader.activityRows(from, to)).map((r) => `${r.minute - minute(TEAM_T0)} ${r.actorType} ${r.count}`).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
        expect(await rows(TEAM_T0, TEAM_T0 + 3 * MINUTE_MS)).toEqual(['0 human 1', `${MINUTE_MS} human 1`, `${2 * MINUTE_MS} human 1`]);
        expect(await rows(TEAM_T0 + 1, TEAM_T0 + 3 * MINUTE_MS + 1)).toEqual([`${MINUTE_MS} human 1`, `${2 * MINUTE_MS} human 1`, `${3 * MINUTE_MS} agent 1`, `${3 * MINUTE_MS} human 1`]);
        expect(await reader.newestOccurredAt()).toBe(TEAM_T0 + 3 * MINUTE_MS);
      } finally {
        await source.close();
      }
    } finally {
      await s.close();
    }
  });

  it('sessions: keyed after an identity, filtered by agent and by a search of key or agent; a watcher with a head of its own is listed once', async () => {
    const { reader } = await scenario();
    const page = async (q: Parameters<PgStateReader['sessionsPage']>[0]) => (await reader.sessionsPage(q)).rows.map((r) => `${r.sessionKey}/${r.agentId}${r.watcherOnly ? ' watches' : ''}`);
    expect(await page({ limit: 20 })).toEqual([
      `${BUSY}/main`, `${MANAGER}/ watches`, `${OLD}/main`, `${CHILD_A}/main`, `${CHILD_B}/main`, `${OPS}/ watches`, 'global/main', 'global/ops',
    ]);
    expect(await page({ limit: 20, after: { sessionKey: 'global', agentId: 'main' } })).toEqual(['global/ops']);
    expect(await page({ limit: 20, after: { sessionKey: CHILD_B, agentId: 'main' } })).toEqual([`${OPS}/ watches`, 'global/main', 'global/ops']);
    expect(await page({ limit: 20, agent: 'ops' })).toEqual(['global/ops']);
    expect(await page({ limit: 20, search: 'OPS' })).toEqual([`${OPS}/ watches`, 'global/ops']);
    expect(await page({ limit: 20, search: 'Subagent:A' })).toEqual([`${CHILD_A}/main`]);
    expect(await page({ limit: 20, search: '', agent: '' })).toHaveLength(8); // empty filters filter nothing
    // The first page starts before every key, upper case included ('A' sorts before most strings).
    await fresh(async ({ store: up, schema: upper, reader: openReader }) => {
      await up.record({ sessionKey: 'A-team', agentId: 'Ops', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      await up.watch({ watcherSessionKey: 'agent:main:w', targetSessionKey: 'A-team', agentId: 'Ops' });
      const r = await openReader();
      expect((await r.sessionsPage({ limit: 5 })).rows.map((x) => `${x.sessionKey}/${x.agentId}`)).toEqual(['A-team/Ops', 'agent:main:w/']);
      expect((await r.cursorsPage({ limit: 5 })).map((c) => `${c.targetAgentId} ${c.targetSessionKey}`)).toEqual(['Ops A-team']);
    });
    const two = await reader.sessionsPage({ limit: 2 });
    expect(two.more).toBe(true);
    expect((await reader.sessionsPage({ limit: 8 })).more).toBe(false);
    expect((await reader.sessionsPage({ limit: 7 })).more).toBe(true);

    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      await s.watch({ watcherSessionKey: 'agent:main:w', targetSessionKey: 'agent:main:t', agentId: 'main' });
      await s.record({ sessionKey: 'agent:main:w', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      const r = await openReader();
      expect((await r.sessionsPage({ limit: 5 })).rows).toEqual([
        { sessionKey: 'agent:main:w', agentId: 'main', stateVersion: 1, prunedMaxSequence: 0, earliestAvailableSequence: 1, updatedAt: T0, lastActorType: 'system', lastKind: 'compacted' },
      ]);
    });
  });

  it('watches: keyed by target agent, target and watcher, pending only, or touching one session', async () => {
    const { store, reader } = await scenario();
    const key = (c: { watcherSessionKey: string; targetSessionKey: string; targetAgentId: string }) => `${c.targetAgentId} ${c.targetSessionKey} ${c.watcherSessionKey}`;
    const all = [`main ${CHILD_A} ${MANAGER}`, `main ${CHILD_B} ${MANAGER}`, `ops global ${OPS}`];
    expect((await reader.cursorsPage({ limit: 10 })).map(key)).toEqual(all);
    const walked: string[] = [];
    let after: Parameters<PgStateReader['cursorsPage']>[0]['after'];
    for (let i = 0; i < 5; i++) {
      const got = await reader.cursorsPage({ limit: 1, ...(after ? { after } : {}) });
      if (got.length === 0) break;
      walked.push(key(got[0]!));
      after = got[0]!;
    }
    expect(walked).toEqual(all);
    expect((await reader.cursorsPage({ limit: 10, pending: true })).map(key)).toEqual([all[0], all[2]]);
    expect((await reader.cursorsPage({ limit: 10, session: MANAGER })).map(key)).toEqual([all[0], all[1]]);
    expect((await reader.cursorsPage({ limit: 10, session: CHILD_B })).map(key)).toEqual([all[1]]);
    expect((await reader.cursorsPage({ limit: 10, session: CHILD_B, pending: true })).map(key)).toEqual([]);
    const page = await reader.cursorsPage({ limit: 10 });
    for (const c of page) expect(c).toEqual(await store.cursor(c.watcherSessionKey, c.targetSessionKey, c.targetAgentId));
  });

  it('a timeline row decodes to the event changesSince returns', async () => {
    const { store, reader } = await scenario();
    const rows = await reader.timelineRows(BUSY, 'main', Number.MAX_SAFE_INTEGER, 3);
    const events = (await store.changesSince({ sessionKey: BUSY, agentId: 'main', since: 0 })).stateChanges.events;
    expect(rows.map((r) => reader.decodeEvent(r))).toEqual(events.slice(-3).reverse());
    expect((await reader.timelineRows(BUSY, 'main', events[1]!.sequence, 3)).map((r) => reader.decodeEvent(r))).toEqual([events[0]]);
  });
});

describe('the feed\'s reads (R60, R68, R86)', () => {
  it('the change token moves with an event and with an ack, and stays while nothing changes; pending pairs and R68 reads answer as the store does', async () => {
    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      await s.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:a', agentId: 'main' });
      await s.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:b', agentId: 'main' });
      await s.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hi' });
      for (const consistency of ['live', 'snapshot'] as const) {
        const r = await PgStateReader.open(pgt.url(), name, { consistency });
        try {
          const source = r.feedSource();
          expect(source.readPending).toBeTypeOf('function');
          expect(source.onLocalChange(() => {})).toBeTypeOf('function');
          expect(await r.listPending()).toEqual(await s.listPending());
          const first = await source.readPending!({ snapshot: 'all' });
          expect(first.snapshot).toEqual(await s.listPending());
          expect(first.changes).toEqual([]);
          const only = await source.readPending!({ snapshot: ['agent:main:nobody'] });
          expect(only.snapshot).toEqual([]);
          expect(await source.changeToken!()).toBe(await source.changeToken!());
        } finally {
          await r.close();
        }
      }
      // A snapshot reader's R68 reads stay inside its one snapshot; a live reader's each end theirs.
      const snap = await PgStateReader.open(pgt.url(), name, { consistency: 'snapshot' });
      const live = await PgStateReader.open(pgt.url(), name);
      try {
        const before = (await snap.heads()).map((h) => h.stateVersion);
        await snap.feedSource().readPending!({ snapshot: 'all' });
        await live.feedSource().readPending!({ snapshot: 'all' });
        await s.record({ sessionKey: 'agent:main:c', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
        expect((await snap.heads()).map((h) => h.stateVersion)).toEqual(before);
        expect((await live.heads()).map((h) => h.sessionKey)).toContain('agent:main:c');
      } finally {
        await snap.close();
        await live.close();
      }
      const r = await openReader();
      const source = r.feedSource();
      const at = await source.readPending!({ snapshot: 'all' });
      // A read that fails inside its transaction rolls it back: the reads after it see new commits.
      await expect(source.readPending!({ since: 'not a position', snapshot: 'all' })).rejects.toThrow(RangeError);
      const t0 = await source.changeToken!();
      expect(String(t0)).toMatch(/^2:\d+$/); // the newest sequence, then the newest mark
      await s.record({ sessionKey: 'agent:main:b', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hi' });
      const t1 = await source.changeToken!();
      expect(t1).not.toBe(t0);
      const next = await source.readPending!({ since: at.position });
      expect(next.changes.map((c) => [c.targetSessionKey, c.pending])).toEqual([['agent:main:b', true]]);
      expect(next.snapshot).toEqual([]);
      await s.drainNotices('agent:main:lead');
      const t2 = await source.changeToken!();
      expect(t2).not.toBe(t1);
      expect(String(t2).split(':')[0]).toBe(String(t1).split(':')[0]); // no new event: the mark moved
      const acked = await source.readPending!({ since: next.position, watchers: ['agent:main:lead'] });
      expect(acked.changes.map((c) => [c.targetSessionKey, c.pending]).sort()).toEqual([['agent:main:a', false], ['agent:main:b', false]]);
      expect(await r.listPending()).toEqual([]);
    });
  });

  it('a schema at step 2 has change marks: R68 reads and a token of the newest sequence and mark', async () => {
    const admin = await pgAdmin();
    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      await s.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
      await admin.query(`DELETE FROM "${name}".session_state_schema WHERE version > 2`);
      const r = await openReader();
      expect(r.schemaVersion).toBe(2);
      expect(r.feedSource().readPending).toBeTypeOf('function');
      expect(await r.changeToken()).toMatch(/^1:\d+$/);
    });
  });

  it('a schema at step 1 (no change marks): no R68 reads, and a token of the pending pairs\' count and their L sum', async () => {
    const admin = await pgAdmin();
    await fresh(async ({ store: s, schema: name, reader: openReader }) => {
      await s.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:a', agentId: 'main' });
      await s.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hi' });
      await admin.query(`DELETE FROM "${name}".session_state_schema WHERE version > 1`);
      const r = await openReader();
      expect(r.schemaVersion).toBe(1);
      expect(r.feedSource().readPending).toBeUndefined();
      expect(await r.changeToken()).toBe('1:1:0');
      await s.record({ sessionKey: 'agent:main:a', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'again' });
      expect(await r.changeToken()).toBe('2:1:0');
      const [notice] = await s.pendingNotices('agent:main:lead');
      await s.ackNotices('agent:main:lead', [{ contextKey: notice!.contextKey, lastSeenSequence: notice!.lastSeenSequence }]);
      expect(await r.changeToken()).toBe('2:1:1'); // reopened past the ack (R28): one pending, L = 1
      expect(await r.feedSource().listPending!()).toEqual([{ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:a', targetAgentId: 'main', lastSeenSequence: 1, wake: 'immediate' }]);
    });
  });
});
