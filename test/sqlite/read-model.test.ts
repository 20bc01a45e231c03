/**
 * The SQLite read model's inspect reads (R80), in process: what `inspect` prints comes from these,
 * and test/cli/inspect.test.ts checks them through the built CLI. Here each answer is held against
 * the store's own answer over the same file, and against values the fixture fixes.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { SqliteStateReader } from '../../src/sqlite/index.js';
import { SCHEMA_VERSION } from '../../src/sqlite/schema.js';
import { SqliteStore, sqliteHandle } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';
import { DAY, T0, writeFixture } from '../cli/fixture.js';
import { checkChangesSince, checkCursorsAndNotices, checkHeads, checkKeys, fixtureStats } from '../cli/fixture-checks.js';
import { tempDir } from './helpers.js';

const dir = tempDir('read-model');
const db = join(dir, 'state.db');
let store: SqliteStore;
let reader: SqliteStateReader;
let now = 0;

beforeAll(() => {
  const f = writeFixture(db);
  store = f.store;
  now = f.clock.now();
  reader = SqliteStateReader.open(db);
});
afterAll(async () => {
  await reader.close();
  store.close();
});

describe('heads (R5, R32, R33)', () => {
  it('one row per identity in key order, each as the store answers it', async () => {
    await checkHeads(reader, store);
  });

  it('a head with nothing retained starts its history one past the head (R32); numbers past 2^53 are shown exactly', async () => {
    const path = join(dir, 'edges.db');
    const s = new SqliteStore({ path, now: () => T0, logger: silentLogger });
    s.record({ sessionKey: 'agent:main:gone', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
    s.record({ sessionKey: 'agent:main:big', agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
    const h = sqliteHandle(s);
    h.prepare("DELETE FROM session_state_events WHERE session_key = 'agent:main:gone'").run();
    h.prepare("UPDATE session_state_heads SET pruned_max_sequence = 1 WHERE session_key = 'agent:main:gone'").run();
    h.prepare("UPDATE session_state_heads SET updated_at = 9007199254740993 WHERE session_key = 'agent:main:big'").run();
    const r = SqliteStateReader.open(path);
    try {
      const heads = await r.heads();
      expect(heads.find((x) => x.sessionKey === 'agent:main:gone')).toMatchObject({ stateVersion: 1, retainedEvents: 0, earliestAvailableSequence: 2, prunedMaxSequence: 1 });
      expect(heads.find((x) => x.sessionKey === 'agent:main:big')!.updatedAt).toBe('9007199254740993');
    } finally {
      await r.close();
      s.close();
    }
  });
});

describe('keys', () => {
  it('agentsOf lists the agents of a bare key in order; hasHead and knowsSession see heads and cursors, not strangers', async () => {
    await checkKeys(reader);
  });
});

describe('changesSince (R30-R35)', () => {
  it('answers exactly as the store does, pages and gaps included', async () => {
    await checkChangesSince(reader, store);
  });
});

describe('cursors and notices (R20, R26)', () => {
  it('every cursor as stored, in key order, pending when N > L, filtered by watcher and by target; pending notices as the store has them, not acked', async () => {
    await checkCursorsAndNotices(reader, store);
  });
});

describe('stats', () => {
  it('counts what is in the file, and what is past the cap and the retention', async () => {
    const h = sqliteHandle(store);
    const count = (sql: string) => Number((h.prepare(sql).raw().get() as unknown[])[0]);
    const rows = count('SELECT count(*) FROM session_state_events');
    const s = await reader.stats({ now: now + DAY, maxRows: LIMITS.maxRows, retentionMs: LIMITS.retentionMs });
    expect(s).toMatchObject({
      path: db,
      schemaVersion: SCHEMA_VERSION,
      supportedSchemaVersion: SCHEMA_VERSION,
      journalMode: 'wal',
      highestSequence: count("SELECT seq FROM sqlite_sequence WHERE name = 'session_state_events'"),
      ...fixtureStats(now, rows),
    });
    expect(s.fileBytes).toBeGreaterThan(0);
    expect(s.walBytes).toBeGreaterThan(0); // the store holds the file open in WAL mode

    const tight = await reader.stats({ now: now + 2 * DAY, maxRows: 10, retentionMs: DAY });
    expect(tight.rowsUntilCap).toBe(0);
    expect(tight.eventsPastRetention).toBe(rows);
    expect(tight.cursorsPastRetention).toBe(3);
    // Everything recorded at or after the cutoff is not past it.
    expect((await reader.stats({ now, maxRows: rows + 5, retentionMs: 0 })).rowsUntilCap).toBe(5);
  });

  it('an empty file: no oldest event, no newest time, the whole cap ahead', async () => {
    const path = join(dir, 'empty.db');
    new SqliteStore({ path, now: () => T0, logger: silentLogger }).close();
    const r = SqliteStateReader.open(path);
    try {
      const s = await r.stats({ now: T0, maxRows: 100, retentionMs: DAY });
      expect(s).toMatchObject({ rows: 0, sessions: 0, cursors: 0, watchers: 0, pendingPairs: 0, oldestEvent: null, newestOccurredAt: null, rowsUntilCap: 100, highestSequence: 0, walBytes: 0 });
      expect(await r.heads()).toEqual([]);
    } finally {
      await r.close();
    }
  });
});

describe('order (R26: UTF-16 code units, where SQLite walks its keys in UTF-8 byte order)', () => {
  it('heads and cursors sort a key with an astral character before one with U+FFFD', async () => {
    const path = join(dir, 'order.db');
    const s = new SqliteStore({ path, now: () => T0, logger: silentLogger });
    // UTF-8 puts U+FFFD (EF BF BD) before U+1F600 (F0 ...); UTF-16 puts U+1F600 (D83D ...) first.
    const bmp = 'agent:main:\uFFFD';
    const astral = 'agent:main:\u{1F600}';
    for (const key of [bmp, astral]) s.record({ sessionKey: key, agentId: 'main', kind: 'compacted', actorType: 'system', summary: 'compacted' });
    s.watch({ watcherSessionKey: astral, targetSessionKey: bmp, agentId: 'main' });
    for (const t of [bmp, astral]) s.watch({ watcherSessionKey: 'agent:main:w', targetSessionKey: t, agentId: 'main' });
    // A head another program wrote at 0 with nothing retained: its history starts at 0, not 1 (R32).
    sqliteHandle(s).prepare("INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES ('agent:main:zero', 'main', 0, 0, 0)").run();
    const r = SqliteStateReader.open(path);
    try {
      const heads = await r.heads();
      expect(heads.map((h) => h.sessionKey)).toEqual(['agent:main:zero', astral, bmp]);
      expect(heads.find((h) => h.sessionKey === 'agent:main:zero')).toMatchObject({ stateVersion: 0, retainedEvents: 0, earliestAvailableSequence: 0 });
      expect((await r.cursors()).map((c) => `${c.watcherSessionKey} ${c.targetSessionKey}`)).toEqual([`agent:main:w ${astral}`, `agent:main:w ${bmp}`, `${astral} ${bmp}`]);
    } finally {
      await r.close();
      s.close();
    }
  });
});
