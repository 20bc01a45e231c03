/**
 * R9d on PostgreSQL: values read back are checked with the same decoder as on SQLite
 * (src/shared/rows.ts). Rows crafted through the pool (bypassing the protocol) that no store could
 * have written are a logged CorruptStateError naming table and row, and changesSince serves none
 * of them (R35 degrades), mirroring test/harden/sqlite-edges.test.ts.
 */
import { describe, expect, it } from 'vitest';
import * as sqlite from '../../src/sqlite/index.js';
import { CorruptStateError, UnsafeIntegerError, createPostgresStore, type PostgresStore } from '../../src/postgres/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { usePostgres } from './server.js';

const pg = usePostgres();
const A = 'main';
const CHILD = 'agent:main:child';
const COORD = 'agent:main:coordinator';
const T0 = Date.UTC(2026, 0, 1);

function human() {
  return { sessionKey: CHILD, agentId: A, kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram' };
}

async function open(): Promise<{ store: PostgresStore; log: ReturnType<typeof memoryLogger>; schema: string }> {
  const log = memoryLogger();
  const schema = pg.schema();
  const store = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: log, maxConnections: 2 });
  return { store, log, schema };
}

describe('R9d values read back are checked (PostgreSQL)', () => {
  it('R9d: both adapters throw the same classes (one decoder, one UnsafeIntegerError, one CorruptStateError)', () => {
    expect(CorruptStateError).toBe(sqlite.CorruptStateError);
    expect(UnsafeIntegerError).toBe(sqlite.UnsafeIntegerError);
  });

  it('R9d: an event row that fails the spec schema is never returned (corrupt-state logged, R35 degrade)', async () => {
    const { store, log, schema } = await open();
    const e = (await store.record(human()))!;
    await store.pgPool.query(`UPDATE "${schema}".session_state_events SET summary = $1 WHERE sequence = $2`, ['two\nlines', e.sequence]);
    const page = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
    expect(page.stateChanges.events).toEqual([]);
    const entry = log.entries.find((x) => x.message.includes('changesSince'));
    expect(entry?.details?.['code']).toBe('corrupt-state');
    expect(entry?.details?.['name']).toBe('CorruptStateError');
    expect(String(entry?.details?.['error'])).toMatch(new RegExp(`session_state_events row sequence ${e.sequence}`));
    await store.close();
  });

  it('R9d: an event with a kind the spec does not know is never returned', async () => {
    const { store, log, schema } = await open();
    const e = (await store.record(human()))!;
    await store.pgPool.query(`UPDATE "${schema}".session_state_events SET kind = 'no_such_kind' WHERE sequence = $1`, [e.sequence]);
    expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events).toEqual([]);
    const entry = log.entries.find((x) => x.details?.['code'] === 'corrupt-state');
    expect(String(entry?.details?.['error'])).toContain(`session_state_events row sequence ${e.sequence} is corrupt`);
    await store.close();
  });

  it('R9d: a negative sequence is corrupt-state', async () => {
    const { store, log, schema } = await open();
    await store.record(human());
    await store.pgPool.query(`UPDATE "${schema}".session_state_events SET sequence = -7`);
    // The page (sequence > since) skips it, but earliestAvailableSequence would be -7.
    expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.earliestAvailableSequence).toBe(0);
    const entry = log.entries.find((x) => x.details?.['code'] === 'corrupt-state');
    expect(String(entry?.details?.['error'])).toContain('session_state_events row sequence -7');
    await store.close();
  });

  it('R9d: a head below one of its own events is corrupt-state naming the head row', async () => {
    const { store, log, schema } = await open();
    await store.record(human());
    await store.record(human());
    await store.pgPool.query(`UPDATE "${schema}".session_state_heads SET last_sequence = 1`);
    expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events).toEqual([]);
    const entry = log.entries.find((x) => x.details?.['code'] === 'corrupt-state');
    expect(String(entry?.details?.['error'])).toContain(`session_state_heads row (${JSON.stringify(CHILD)}, "main")`);
    await store.close();
  });

  it('R9d: a cursor with a negative last_seen is corrupt-state naming table and row; pendingNotices logs it once and skips it', async () => {
    const { store, log, schema } = await open();
    await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    await store.pgPool.query(`UPDATE "${schema}".session_watch_cursors SET last_seen = -3, notified = -3, material = -3`);
    const thrown = await store.cursor(COORD, CHILD, A).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(CorruptStateError);
    expect(String((thrown as Error).message)).toMatch(/session_watch_cursors row .*coordinator.*corrupt/);
    // notified > last_seen so the row is pending: reading it back must not hand out a notice quoting -3.
    await store.pgPool.query(`UPDATE "${schema}".session_watch_cursors SET notified = 1, material = 1`);
    expect(await store.pendingNotices(COORD)).toEqual([]);
    expect(await store.pendingNotices(COORD)).toEqual([]);
    const entries = log.entries.filter((x) => x.message.includes('skipped a corrupt cursor row'));
    expect(entries).toHaveLength(1); // logged once, however often it is read
    expect(entries[0]?.details?.['code']).toBe('corrupt-state');
    expect(String(entries[0]?.details?.['error'])).toContain(`session_watch_cursors row (${JSON.stringify(COORD)}, ${JSON.stringify(CHILD)}, "main")`);
    await store.close();
  });

  it('R9d: a sequence past 2^53 - 1 read back is an UnsafeIntegerError, logged, never a rounded number', async () => {
    const { store, log, schema } = await open();
    await store.record(human());
    await store.pgPool.query(`UPDATE "${schema}".session_state_heads SET last_sequence = 9007199254740993`);
    expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events).toEqual([]);
    const entry = log.entries.find((x) => x.message.includes('changesSince'));
    expect(entry?.details?.['name']).toBe('UnsafeIntegerError');
    expect(String(entry?.details?.['error'])).toContain('session_state_heads.last_sequence = 9007199254740993');
    await store.close();
  });
});

describe('R42 watermarks over rows another writer left (PostgreSQL, as in SQLite)', () => {
  const DAY = 86_400_000;
  const PEER = 'agent:main:peer';
  async function openAt(clock: { now: number }, maxRows?: number) {
    const schema = pg.schema();
    const store = await createPostgresStore({ now: () => clock.now, connectionString: pg.url(), schema, logger: memoryLogger(), maxConnections: 2, retentionMs: DAY, ...(maxRows ? { maxRows } : {}) });
    const foreign = (occurredAt: number, recordedAt: number) =>
      store.pgPool.query(
        `INSERT INTO "${schema}".session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES ($1, 'main', 'human_direct_message', 'human', $2, $3, 's')`,
        [PEER, occurredAt, recordedAt],
      );
    const heads = async () =>
      Object.fromEntries(
        (await store.pgPool.query(`SELECT session_key, last_sequence, pruned_max_sequence, updated_at FROM "${schema}".session_state_heads`)).rows.map((h) => [
          h.session_key,
          [Number(h.last_sequence), Number(h.pruned_max_sequence), Number(h.updated_at)],
        ]),
      );
    return { store, foreign, heads };
  }

  it('R42, R5 aged rows whose head is missing still leave their watermark, in the head R5 asks for (the highest of them)', async () => {
    const clock = { now: T0 };
    const { store, foreign, heads } = await openAt(clock);
    await store.record(human());
    // Two rows the store never saw, the higher sequence older.
    await foreign(T0, T0 + 5);
    await foreign(T0 - 3_600_000, T0 + 7);
    expect((await heads())[PEER]).toBeUndefined();
    clock.now = T0 + 2 * DAY;
    await store.prune();
    // [last_sequence, pruned_max_sequence, updated_at]: a head the store wrote keeps its time.
    expect(await heads()).toEqual({ [CHILD]: [1, 1, T0], [PEER]: [3, 3, T0 + 7] });
    const read = await store.changesSince({ sessionKey: PEER, agentId: A, since: 2 });
    expect(read.stateVersion).toBe(3);
    expect(read.stateChanges.historyGap).toBe(true);
    expect((await store.changesSince({ sessionKey: PEER, agentId: A, since: 3 })).stateChanges.historyGap).toBe(false);
    await store.close();
  });

  it('R41, R42 the cap does the same for rows whose head is missing', async () => {
    const clock = { now: T0 };
    const { store, foreign, heads } = await openAt(clock, 2);
    await foreign(T0, T0 + 1); // 1
    await foreign(T0, T0 + 2); // 2
    await store.record(human()); // 3
    await store.record(human()); // 4
    await store.prune(); // keeps the newest two: 3 and 4
    expect(await heads()).toEqual({ [CHILD]: [4, 0, T0], [PEER]: [2, 2, T0 + 2] });
    expect((await store.changesSince({ sessionKey: PEER, agentId: A, since: 1 })).stateChanges.historyGap).toBe(true);
    await store.close();
  });
});
