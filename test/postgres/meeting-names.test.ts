/**
 * The names the PostgreSQL stores of one schema meet on, in every process: the wake channel
 * (R73-R75), the prune lock (R43: one pruner at a time) and each identity's write lock (R7's
 * order per identity). Processes of two releases share a store (R73, R75), so these are fixed
 * functions of the schema and identity, and a store in another schema never shares them. The
 * expected values are computed here, apart from the store's code: 64-bit FNV-1a over each part
 * followed by 0x1f, which no key contains (R1).
 */
import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPostgresStore } from '../../src/postgres/index.js';
import { routePayload, wakeGroupOf, watcherRouteHash } from '../../src/core/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { A, CHILD, COORD, PARENT, T0, human, spawn } from '../contract/harness.js';
import { usePostgres, waitFor } from './server.js';

const pgc = usePostgres();

/** 64-bit FNV-1a over the UTF-16 code units of each part and a 0x1f after it, unsigned. */
function fnv64(...parts: string[]): bigint {
  const text = parts.map((p) => `${p}\u001f`).join('');
  let h = 14695981039346656037n;
  for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 1099511628211n);
  return h;
}
const channelOf = (schema: string) => `ssk_${fnv64('session-state-kit', schema).toString(36)}`;
const pruneLockOf = (schema: string) => [0x53534b31, Number(BigInt.asIntN(32, fnv64('session-state-kit', schema)))];
/** An advisory lock's bigint key as pg_locks shows it: classid the high 32 bits, objid the low. */
const lockRowOf = (key: bigint) => ({ classid: String(Number(BigInt.asUintN(64, key) >> 32n)), objid: String(Number(BigInt.asUintN(32, key))) });

async function open(schema = pgc.schema()) {
  const store = await createPostgresStore({ now: () => T0, connectionString: pgc.url(), schema, logger: memoryLogger(), maxConnections: 3 });
  return { store, schema };
}

async function listenOn(client: pg.Client, channels: string[]): Promise<string[]> {
  const heard: string[] = [];
  client.on('notification', (n) => void heard.push(n.channel));
  for (const c of channels) await client.query(`LISTEN "${c}"`);
  return heard;
}

describe('the names stores of a schema meet on', () => {
  it('R73/R75 the wake channel is a fixed function of the schema, one per schema', async () => {
    const a = await open();
    const b = await open();
    try {
      expect(channelOf(a.schema)).not.toBe(channelOf(b.schema));
      const heard = await listenOn(await pgc.admin(), [channelOf(a.schema), channelOf(b.schema)]);
      await a.store.record(spawn());
      await a.store.record(human());
      await waitFor('a wake on the first schema\'s channel', () => heard.includes(channelOf(a.schema)));
      await b.store.record(spawn());
      await b.store.record(human());
      await waitFor('a wake on the second schema\'s channel', () => heard.includes(channelOf(b.schema)));
      // One connection hears commits in commit order: each write woke its own schema's channel only.
      const firstB = heard.indexOf(channelOf(b.schema));
      expect(heard.slice(0, firstB).every((c) => c === channelOf(a.schema))).toBe(true);
      expect(heard.slice(firstB).every((c) => c === channelOf(b.schema))).toBe(true);
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });

  it('R43 the prune lock is the kit\'s class and the schema\'s key, the same for every store of the schema', async () => {
    const a = await open();
    const again = await open(a.schema);
    const b = await open();
    try {
      expect(a.store.pruneLockKeys).toEqual(pruneLockOf(a.schema));
      expect(again.store.pruneLockKeys).toEqual(a.store.pruneLockKeys);
      expect(b.store.pruneLockKeys).toEqual(pruneLockOf(b.schema));
      expect(b.store.pruneLockKeys[1]).not.toBe(a.store.pruneLockKeys[1]);
    } finally {
      for (const s of [a, again, b]) await s.store.close();
    }
  });

  it('R7 a write waits for its identity\'s lock, keyed by schema, agent and session; a batch takes each of its identities\' locks; a watch and a delete take the target\'s', async () => {
    const { store, schema } = await open();
    const holder = await pgc.admin();
    const watcher = await pgc.admin();
    const child = fnv64(schema, A, CHILD);
    const parent = fnv64(schema, A, PARENT);
    // Parts are kept apart: moving a character across the separator names another lock.
    expect(fnv64(schema, A, CHILD)).not.toBe(fnv64(schema, A + CHILD.slice(0, 1), CHILD.slice(1)));
    const waiting = async (key: bigint) =>
      (await watcher.query("SELECT classid::text, objid::text FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1")).rows.some(
        (r) => r.classid === lockRowOf(key).classid && r.objid === lockRowOf(key).objid,
      );
    try {
      await store.record(spawn());
      for (const [key, write] of [
        [child, () => store.record(human())],
        [parent, () => store.recordMany([human(CHILD), human(PARENT)])],
        [child, () => store.recordMany([human(PARENT), human(CHILD)])],
        // A watch and a delete take the target's lock: a record in flight lands before or after (R22, R51).
        [child, () => store.watch({ watcherSessionKey: 'agent:main:w', targetSessionKey: CHILD, agentId: A }).then((r) => r.watched || undefined)],
        [child, () => store.deleteSession(CHILD, A).then(() => true)],
      ] as const) {
        await holder.query('SELECT pg_advisory_lock($1::bigint)', [BigInt.asIntN(64, key).toString()]);
        let done = false;
        const pending = write().then((r) => {
          done = true;
          return r;
        });
        try {
          await waitFor(`a write waiting for lock ${key}`, () => waiting(key));
          expect(done).toBe(false);
        } finally {
          await holder.query('SELECT pg_advisory_unlock($1::bigint)', [BigInt.asIntN(64, key).toString()]);
        }
        const result = await pending;
        expect(Array.isArray(result) ? result.every((e) => e !== undefined) : result !== undefined).toBe(true);
      }
    } finally {
      await store.close();
    }
  });
});

describe('R73/R74 what a commit says on the channel', () => {
  it('a wake names exactly the watchers whose notice the commit changed, with their pairs\' news; a commit that changed none says `w:`', async () => {
    const { store, schema } = await open();
    const admin = await pgc.admin();
    const payloads: string[] = [];
    admin.on('notification', (n) => {
      if (n.channel === channelOf(schema)) payloads.push(n.payload ?? '');
    });
    await admin.query(`LISTEN "${channelOf(schema)}"`);
    try {
      await store.record(spawn());
      await store.record(human());
      await store.record(human());
      await store.drainNotices(PARENT); // acks L=2; the third event reopens the pair once (R28)
      await store.drainNotices(PARENT); // acks L=3: settled
      await store.drainNotices(PARENT); // nothing pending: no write, no wake
      // An ambient pair (R21b) wakes next turn; promoted to explicit while pending, it wakes at once (R25): its notice changed.
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A, provenance: 'ambient' }); // a new settled cursor: no wake
      await store.record(human());
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A, provenance: 'explicit' });
      await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A, provenance: 'explicit' }); // spawn to explicit: the same wake, so `w:`
      // A marker after the writes: one connection hears notifications in commit order.
      await admin.query('SELECT pg_notify($1, $2)', [channelOf(schema), 'marker']);
      await waitFor('the marker', () => payloads.includes('marker'));
      const news = (l: number, n: number) => `${routePayload([PARENT])};x:*;${JSON.stringify([[PARENT, CHILD, A, l, n, 'spawn']])}`;
      expect(payloads.map((p) => p.replace(/;x:\d+;/, ';x:*;'))).toEqual([
        'w:', // the spawn: a new cursor, no notice
        news(1, 2), // the first human message: pending
        'w:', // the second: the pending notice is byte-identical (R24), so nobody is named
        news(2, 3),
        news(3, 3),
        `${routePayload([COORD, PARENT])};x:*;${JSON.stringify([[COORD, CHILD, A, 3, 4, 'ambient'], [PARENT, CHILD, A, 3, 4, 'spawn']])}`,
        `${routePayload([COORD])};x:*;${JSON.stringify([[COORD, CHILD, A, 3, 4, 'explicit']])}`,
        'w:',
        'marker',
      ]);
    } finally {
      await store.close();
    }
  });

  it('R75 one commit\'s news for watchers in two wake groups goes to both groups\' channels, not to `_all`', async () => {
    const { store, schema } = await open();
    const groupOf = (key: string) => `${channelOf(schema)}_g${wakeGroupOf(watcherRouteHash(key))}`;
    expect(groupOf(PARENT)).not.toBe(groupOf(COORD));
    const channels = [channelOf(schema), `${channelOf(schema)}_all`, groupOf(PARENT), groupOf(COORD)];
    const heard = await listenOn(await pgc.admin(), channels);
    try {
      await store.record(spawn());
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
      const before = heard.length;
      await store.record(human());
      await waitFor('the wake on the store\'s channel', () => heard.slice(before).includes(channelOf(schema)));
      const admin = await pgc.admin();
      await admin.query('SELECT pg_notify($1, $2)', [channelOf(schema), 'marker']);
      // The marker after it on one connection: every channel's copy of the commit's wake came first.
      await waitFor('the marker', () => heard.slice(before).filter((c) => c === channelOf(schema)).length === 2);
      expect(heard.slice(before).sort()).toEqual([channelOf(schema), channelOf(schema), groupOf(PARENT), groupOf(COORD)].sort());
      // A commit that changed no notice (both pairs pending already, R24) says `w:` on the store's channel only.
      const after = heard.length;
      await store.record(human());
      await admin.query('SELECT pg_notify($1, $2)', [channelOf(schema), 'marker']);
      await waitFor('the second marker', () => heard.slice(after).filter((c) => c === channelOf(schema)).length === 2);
      expect(heard.slice(after)).toEqual([channelOf(schema), channelOf(schema)]);
    } finally {
      await store.close();
    }
  });

  it('R73/R75 an ack, an unwatch and a reset of a pending pair wake the watcher\'s own group channel', async () => {
    const { store, schema } = await open();
    const groupOf = (key: string) => `${channelOf(schema)}_g${wakeGroupOf(watcherRouteHash(key))}`;
    const admin = await pgc.admin();
    const heard = await listenOn(admin, [channelOf(schema), groupOf(PARENT), groupOf(COORD)]);
    /** The channels `fn`'s commits woke, closed by a marker on the store's channel. */
    const channelsOf = async (fn: () => Promise<unknown>): Promise<string[]> => {
      const from = heard.length;
      await fn();
      await admin.query('SELECT pg_notify($1, $2)', [channelOf(schema), 'marker']);
      await waitFor('the marker', () => heard.length > from && heard[heard.length - 1] === channelOf(schema));
      return heard.slice(from, -1).filter((c) => c !== channelOf(schema));
    };
    try {
      expect(
        await channelsOf(async () => {
          await store.record(spawn());
          await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
          await store.record(human());
        }),
      ).toEqual([groupOf(PARENT), groupOf(COORD)].sort());
      expect(await channelsOf(async () => store.ackNotices(PARENT, await store.pendingNotices(PARENT)))).toEqual([groupOf(PARENT)]);
      expect(await channelsOf(() => store.unwatch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A }))).toEqual([groupOf(COORD)]);
      expect(await channelsOf(() => store.record(human()))).toEqual([groupOf(PARENT)]);
      expect(await channelsOf(() => store.resetSession(PARENT))).toEqual([groupOf(PARENT)]);
    } finally {
      await store.close();
    }
  });
});
