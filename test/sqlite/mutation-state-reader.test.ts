/**
 * The SQLite read model's live-view reads (R80-R86), in process, decision by decision: the
 * sessions page merged with the keys that only watch, the cursor page's keyset, a head's fields,
 * the change token, the activity and the newest event, the feed source it hands a feed, the query
 * plans, and a file an older release wrote (no change marks: the full pending read).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStateReader } from '../../src/sqlite/index.js';
import { SqliteStore, sqliteHandle } from '../../src/sqlite/sqlite-store.js';
import { MIGRATIONS, migrate } from '../../src/sqlite/schema.js';
import { silentLogger } from '../../src/shared/logger.js';
import { connect, human, tempDir } from './helpers.js';

const dir = tempDir('state-reader');
const T0 = Date.UTC(2026, 0, 1);
const A = 'main';
let files = 0;
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

function fresh(now: () => number = () => T0): { store: SqliteStore; path: string; reader: () => SqliteStateReader } {
  const path = join(dir, `s${files++}.db`);
  const store = new SqliteStore({ path, now, logger: silentLogger });
  open.push(store);
  return {
    store,
    path,
    reader: () => {
      const r = SqliteStateReader.open(path);
      open.push(r);
      return r;
    },
  };
}

const watch = (watcherSessionKey: string, targetSessionKey: string) => ({ watcherSessionKey, targetSessionKey, agentId: A });
/** A sessions page as its keys and whether there is more. */
async function page(r: SqliteStateReader, q: Parameters<SqliteStateReader['sessionsPage']>[0]): Promise<[string[], boolean]> {
  const p = await r.sessionsPage(q);
  return [p.rows.map((x) => x.sessionKey), p.more];
}

describe('R81 the sessions page: heads merged with keys that only watch', () => {
  it('keys with a head and keys that only watch interleave in key order, a page at a time, the watcher-only ones as (key, \'\')', async () => {
    const { store, reader } = fresh();
    for (const k of ['agent:main:a', 'agent:main:c', 'agent:main:e']) store.record(human(k));
    // b and d only watch; c watches too but has a head, so it is listed once, as a head.
    store.watch(watch('agent:main:b', 'agent:main:a'));
    store.watch(watch('agent:main:d', 'agent:main:a'));
    store.watch(watch('agent:main:c', 'agent:main:e'));
    const r = reader();
    const all = await r.sessionsPage({ limit: 10 });
    expect(all.more).toBe(false);
    expect(all.rows.map((x) => `${x.sessionKey}/${x.agentId}`)).toEqual(['agent:main:a/main', 'agent:main:b/', 'agent:main:c/main', 'agent:main:d/', 'agent:main:e/main']);
    expect(all.rows.find((x) => x.sessionKey === 'agent:main:b')).toEqual({ sessionKey: 'agent:main:b', agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true });
    expect(all.rows.find((x) => x.sessionKey === 'agent:main:a')!.watcherOnly).toBeUndefined();
    // Pages of two: a b | c d | e.
    expect(await page(r, { limit: 2 })).toEqual([['agent:main:a', 'agent:main:b'], true]);
    expect(await page(r, { limit: 2, after: { sessionKey: 'agent:main:b', agentId: '' } })).toEqual([['agent:main:c', 'agent:main:d'], true]);
    expect(await page(r, { limit: 2, after: { sessionKey: 'agent:main:d', agentId: '' } })).toEqual([['agent:main:e'], false]);
    // Exactly a page: no more.
    expect(await page(r, { limit: 5 })).toEqual([['agent:main:a', 'agent:main:b', 'agent:main:c', 'agent:main:d', 'agent:main:e'], false]);
  });

  it('watcher-only keys past the heads\' page wait for a later page; a search matches them by ASCII case-folded substring; an agent filter leaves them out', async () => {
    const { store, reader } = fresh();
    store.record(human('agent:main:a'));
    store.record(human('agent:main:b'));
    for (const w of ['agent:main:x-Worker', 'agent:main:y-worker', 'agent:main:z']) store.watch(watch(w, 'agent:main:a'));
    const r = reader();
    // The heads' page (a, b) and one more key: the watchers after b wait.
    expect(await page(r, { limit: 1 })).toEqual([['agent:main:a'], true]);
    expect(await page(r, { limit: 2, after: { sessionKey: 'agent:main:a', agentId: A } })).toEqual([['agent:main:b', 'agent:main:x-Worker'], true]);
    const search = await r.sessionsPage({ limit: 10, search: 'WORKER' });
    expect(search.rows.map((x) => x.sessionKey)).toEqual(['agent:main:x-Worker', 'agent:main:y-worker']);
    expect((await r.sessionsPage({ limit: 10, agent: A })).rows.map((x) => x.sessionKey)).toEqual(['agent:main:a', 'agent:main:b']);
  });

  it('a page of watchers alone: one key past the page is enough to say there is more', async () => {
    const { store, reader } = fresh();
    // The target has no head either (nothing recorded): three keys that only watch.
    for (const w of ['agent:main:w1', 'agent:main:w2', 'agent:main:w3']) store.watch(watch(w, 'agent:main:t'));
    const r = reader();
    expect(await page(r, { limit: 2 })).toEqual([['agent:main:w1', 'agent:main:w2'], true]);
    expect(await page(r, { limit: 2, after: { sessionKey: 'agent:main:w2', agentId: '' } })).toEqual([['agent:main:w3'], false]);
    expect(await page(r, { limit: 3 })).toEqual([['agent:main:w1', 'agent:main:w2', 'agent:main:w3'], false]);
  });

  it('the first page starts before every key, an upper-case one too', async () => {
    const { store, reader } = fresh();
    // A head's key may be any key; a watcher's is an agent's (agent:...).
    store.record(human('Alpha'));
    store.watch(watch('agent:main:w', 'Alpha'));
    const r = reader();
    expect((await r.sessionsPage({ limit: 10 })).rows.map((x) => x.sessionKey)).toEqual(['Alpha', 'agent:main:w']);
    expect((await r.cursorsPage({ limit: 10 })).map((c) => `${c.targetSessionKey}<-${c.watcherSessionKey}`)).toEqual(['Alpha<-agent:main:w']);
  });

  it('order is by UTF-8 bytes: a key with an astral character after one with U+FFFD, heads and watchers alike', async () => {
    const { store, reader } = fresh();
    const astral = 'agent:main:\u{1F600}';
    const replacement = 'agent:main:\uFFFD';
    store.record(human(astral));
    store.watch(watch(replacement, astral));
    store.watch(watch(`${astral}-w`, astral));
    const rows = (await reader().sessionsPage({ limit: 10 })).rows.map((x) => x.sessionKey);
    // UTF-16 order would put the astral key (a surrogate, 0xD83D) first.
    expect(rows).toEqual([replacement, astral, `${astral}-w`]);
  });
});

describe('R81 a head\'s row', () => {
  it('the head event\'s actor and kind while it is retained; a pruned head starts its history one past itself; head 0 at 0', async () => {
    let now = T0;
    const { store, reader } = fresh(() => now);
    store.record(human('agent:main:kept'));
    store.record({ sessionKey: 'agent:main:kept', agentId: A, kind: 'compacted', actorType: 'system', summary: 'compacted' });
    store.record(human('agent:main:gone'));
    const h = sqliteHandle(store);
    h.prepare("DELETE FROM session_state_events WHERE session_key = 'agent:main:gone'").run();
    h.prepare("UPDATE session_state_heads SET pruned_max_sequence = last_sequence WHERE session_key = 'agent:main:gone'").run();
    now += 5;
    const r = reader();
    const kept = (await r.head('agent:main:kept', A))!;
    expect(kept).toMatchObject({ sessionKey: 'agent:main:kept', agentId: A, stateVersion: 2, prunedMaxSequence: 0, earliestAvailableSequence: 1, updatedAt: T0, lastActorType: 'system', lastKind: 'compacted' });
    expect(kept.lastActorId).toBeUndefined();
    const typed = (await r.sessionsPage({ limit: 10, search: 'gone' })).rows[0]!;
    // Sequences are the store's (kept took 1 and 2): gone's head is 3, all of it pruned.
    expect(typed).toMatchObject({ stateVersion: 3, prunedMaxSequence: 3, earliestAvailableSequence: 4 });
    expect(typed.lastActorType).toBeUndefined();
    expect(await r.head('agent:main:nobody', A)).toBeUndefined();
    // The actor's id when the head event has one.
    store.record(human('agent:main:kept'));
    const again = (await reader().head('agent:main:kept', A))!;
    expect([again.lastActorType, again.lastActorId, again.lastKind]).toEqual(['human', 'telegram:42', 'human_direct_message']);
  });
});

describe('R81 the cursor page', () => {
  it('a keyset in (target agent, target, watcher) order; a session as watcher or target; pending only', async () => {
    const { store, reader } = fresh();
    store.watch(watch('agent:main:w1', 'agent:main:t1'));
    store.watch(watch('agent:main:w2', 'agent:main:t1'));
    store.watch(watch('agent:main:w1', 'agent:main:t2'));
    store.record(human('agent:main:t1'));
    const r = reader();
    const key = (c: { watcherSessionKey: string; targetSessionKey: string }) => `${c.targetSessionKey}<-${c.watcherSessionKey}`;
    expect((await r.cursorsPage({ limit: 10 })).map(key)).toEqual(['agent:main:t1<-agent:main:w1', 'agent:main:t1<-agent:main:w2', 'agent:main:t2<-agent:main:w1']);
    const first = await r.cursorsPage({ limit: 1 });
    expect(first.map(key)).toEqual(['agent:main:t1<-agent:main:w1']);
    const after = { targetAgentId: A, targetSessionKey: 'agent:main:t1', watcherSessionKey: 'agent:main:w1' };
    expect((await r.cursorsPage({ limit: 10, after })).map(key)).toEqual(['agent:main:t1<-agent:main:w2', 'agent:main:t2<-agent:main:w1']);
    expect((await r.cursorsPage({ limit: 10, after: { ...after, watcherSessionKey: 'agent:main:w2' } })).map(key)).toEqual(['agent:main:t2<-agent:main:w1']);
    expect((await r.cursorsPage({ limit: 10, session: 'agent:main:w1' })).map(key)).toEqual(['agent:main:t1<-agent:main:w1', 'agent:main:t2<-agent:main:w1']);
    // As a target: the cursors on it, for the agents it has a head for (t2 has none yet).
    expect((await r.cursorsPage({ limit: 10, session: 'agent:main:t1' })).map(key)).toEqual(['agent:main:t1<-agent:main:w1', 'agent:main:t1<-agent:main:w2']);
    expect(await r.cursorsPage({ limit: 10, session: 'agent:main:t2' })).toEqual([]);
    expect((await r.cursorsPage({ limit: 10, pending: true })).map(key)).toEqual(['agent:main:t1<-agent:main:w1', 'agent:main:t1<-agent:main:w2']);
  });
});

describe('R86 the change token, the newest event, the activity', () => {
  it('the token moves when another connection commits and stays while nothing does', async () => {
    const { store, reader } = fresh();
    store.record(human('agent:main:a'));
    const r = reader();
    const t1 = await r.changeToken();
    expect(await r.changeToken()).toBe(t1);
    expect(t1).toMatch(/^\d+:\d+$/);
    store.record(human('agent:main:a'));
    const t2 = await r.changeToken();
    expect(t2).not.toBe(t1);
    expect(await r.changeToken()).toBe(t2);
  });

  it('the newest event\'s time (none on an empty file), and events per minute by actor type', async () => {
    let now = T0;
    const { store, reader } = fresh(() => now);
    const r = reader();
    expect(await r.newestOccurredAt()).toBeUndefined();
    store.record(human('agent:main:a'));
    now = T0 + 61_000;
    store.record(human('agent:main:a'));
    store.record({ sessionKey: 'agent:main:a', agentId: A, kind: 'compacted', actorType: 'system', summary: 'compacted' });
    expect(await reader().newestOccurredAt()).toBe(T0 + 61_000);
    const rows = await reader().activityRows(T0, T0 + 120_000);
    // Each row's minute as the time it starts at (ms).
    expect(rows.map((x) => `${(x.minute - T0) / 60_000}:${x.actorType}:${x.count}`).sort()).toEqual(['0:human:1', '1:human:1', '1:system:1']);
  });
});

describe('R80 the feed source a reader hands a feed', () => {
  it('reads pending pairs by marks, names the WAL beside the file, and never hears local commits', async () => {
    const { store, path, reader } = fresh();
    store.watch(watch('agent:main:w', 'agent:main:t'));
    store.record(human('agent:main:t'));
    const r = reader();
    const source = r.feedSource();
    expect(typeof source.readPending).toBe('function');
    expect(source.changeFiles!()).toEqual([`${path}-wal`]);
    expect(await source.changeToken!()).toBe(await r.changeToken());
    let heard = 0;
    const stop = source.onLocalChange(() => void heard++);
    store.record(human('agent:main:t'));
    stop();
    expect(heard).toBe(0);
    expect((await source.listPending!()).map((p) => `${p.watcherSessionKey}->${p.targetSessionKey}`)).toEqual(['agent:main:w->agent:main:t']);
    const read = await source.readPending!({ snapshot: 'all' });
    expect(read.snapshot?.map((p) => p.targetSessionKey)).toEqual(['agent:main:t']);
  });

  it('a file of the release that brought change marks (step 8) is read by marks', async () => {
    const path = join(dir, `marks${files++}.db`);
    const raw = connect(path);
    migrate(raw, path, MIGRATIONS.slice(0, 8));
    raw.close();
    const r = SqliteStateReader.open(path);
    open.push(r);
    expect(typeof r.feedSource().readPending).toBe('function');
  });

  it('a file an older release wrote (no change marks): no marked read, the full pending read instead', async () => {
    const path = join(dir, `old${files++}.db`);
    const raw = connect(path);
    // Release 7 wrote no change marks (they came with step 8).
    migrate(raw, path, MIGRATIONS.slice(0, 7));
    raw.prepare("INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at, folded) VALUES ('agent:main:w', 'agent:main:t', 'main', 0, 2, 2, 'spawn', ?, 0)").run(T0);
    raw.prepare("INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at, folded) VALUES ('agent:main:w', 'agent:main:u', 'main', 3, 3, 3, 'spawn', ?, 0)").run(T0);
    raw.close();
    const r = SqliteStateReader.open(path);
    open.push(r);
    expect(r.feedSource().readPending).toBeUndefined();
    expect((await r.listPending()).map((p) => `${p.watcherSessionKey}->${p.targetSessionKey}:${p.lastSeenSequence}`)).toEqual(['agent:main:w->agent:main:t:0']);
  });
});

describe('R82 every page read is planned on an index', () => {
  it('plan() returns SQLite\'s query plan lines for a statement', async () => {
    const { store, reader } = fresh();
    store.record(human('agent:main:a'));
    const lines = reader().plan('SELECT * FROM session_state_events WHERE agent_id = ? AND session_key = ? AND sequence > ?', A, 'agent:main:a', 0);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => typeof l === 'string' && l.length > 0)).toBe(true);
    expect(lines.join(' ')).toMatch(/SEARCH session_state_events USING/);
  });
});

describe('R9d the read model over values another program wrote past 2^53 - 1', () => {
  it('the stats and a head name the column they cannot read', async () => {
    const path = join(tempDir('reader-big'), 'big.db');
    const store = new SqliteStore({ path, now: () => 1_000, logger: silentLogger });
    store.record(human('agent:main:a'));
    store.record(human('agent:main:a'));
    store.close();
    const other = connect(path);
    const big = 2n ** 53n + 1n;
    const r = SqliteStateReader.open(path);
    const stats = () => r.stats({ now: 1_000, maxRows: 50_000, retentionMs: 86_400_000 });
    try {
      other.prepare(`UPDATE session_state_events SET sequence = sequence + ${2n ** 53n}`).run();
      await expect(stats()).rejects.toThrow(/^session_state_events\.sequence = /);
      await expect(r.head('agent:main:a', 'main')).rejects.toThrow(/^session_state_events\.sequence = /);
      other.prepare(`UPDATE session_state_events SET sequence = sequence - ${2n ** 53n}`).run();
      other.prepare('UPDATE session_state_events SET occurred_at = ? WHERE sequence = 2').run(big);
      await expect(stats()).rejects.toThrow(/^session_state_events\.occurred_at = /); // the newest
      await expect(r.newestOccurredAt()).rejects.toThrow(/^session_state_events\.occurred_at = /);
      other.prepare('UPDATE session_state_events SET occurred_at = ?').run(big); // the oldest too
      await expect(stats()).rejects.toThrow(/^session_state_events\.occurred_at = /);
      other.prepare('UPDATE session_state_events SET occurred_at = 1000').run();
      for (const column of ['last_sequence', 'pruned_max_sequence', 'updated_at']) {
        const before = other.prepare(`SELECT ${column} AS v FROM session_state_heads`).get() as { v: number };
        other.prepare(`UPDATE session_state_heads SET ${column} = ?`).run(big);
        await expect(r.head('agent:main:a', 'main'), column).rejects.toThrow(new RegExp(`^session_state_heads\\.${column} = `));
        other.prepare(`UPDATE session_state_heads SET ${column} = ?`).run(before.v);
      }
    } finally {
      r.close();
      other.close();
    }
  });
});
