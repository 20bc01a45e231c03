/**
 * What only a server with several clients can show: several pools (machines) writing one identity
 * at once, draining one watcher at once, one pruner at a time, and the LISTEN/NOTIFY feed hooks
 * including a dropped listening connection.
 */
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../spec/index.js';
import { routePayload } from '../../src/core/index.js';
import { createNoticeFeed } from '../../src/feed/index.js';
import { createPostgresStore, type PostgresStore } from '../../src/postgres/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { usePostgres, waitFor } from './server.js';

const pg = usePostgres();
const A = 'main';
const TARGET = 'agent:main:target';
const T0 = Date.UTC(2026, 0, 1);

function human(sessionKey = TARGET, extra: Record<string, unknown> = {}) {
  return { sessionKey, agentId: A, kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram', ...extra };
}

async function machines(n: number, schema = pg.schema(), now: () => number = () => T0): Promise<PostgresStore[]> {
  const out: PostgresStore[] = [];
  for (let i = 0; i < n; i++) out.push(await createPostgresStore({ now, connectionString: pg.url(), schema, logger: pg.log, maxConnections: 6 }));
  return out;
}

async function closeAll(stores: PostgresStore[]): Promise<void> {
  for (const s of stores) await s.close();
}


describe('postgres: several machines at once', () => {
  it('R5 R7 concurrent records on one identity: unique sequences, the head is the highest, and a reader never finds an event below a version it already saw', async () => {
    const stores = await machines(3);
    let stop = false;
    const violations: string[] = [];
    // A reader on its own pool: once it saw stateVersion v, every event <= v must already be readable.
    const reader = (async () => {
      let seen = 0;
      let have = new Set<number>();
      while (!stop) {
        const r = await stores[0]!.changesSince({ sessionKey: TARGET, agentId: A, since: 0, limit: 200 });
        const seqs = r.stateChanges.events.map((e) => e.sequence);
        for (const s of have) if (!seqs.includes(s) && !r.stateChanges.truncated) violations.push(`event ${s} vanished`);
        for (const s of seqs) if (s <= seen && !have.has(s)) violations.push(`event ${s} appeared after version ${seen} was seen`);
        if (r.stateVersion < seen) violations.push(`head went back from ${seen} to ${r.stateVersion}`);
        seen = Math.max(seen, r.stateVersion);
        have = new Set(seqs);
      }
    })();
    const per = 40;
    const results = await Promise.all(
      stores.flatMap((s, m) => Array.from({ length: 4 }, async (_, w) => {
        const got: number[] = [];
        for (let i = 0; i < per / 4; i++) {
          const e = await s.record(human(TARGET, { dedupeKey: `m${m}-w${w}-${i}` }));
          if (!e) throw new Error('record failed');
          got.push(e.sequence);
        }
        return got;
      })),
    );
    stop = true;
    await reader;
    const all = results.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(3 * per);
    for (const s of stores) expect(await s.stateVersion(TARGET, A)).toBe(Math.max(...all));
    const page = await stores[1]!.changesSince({ sessionKey: TARGET, agentId: A, since: 0 });
    expect(page.stateChanges.events.map((e) => e.sequence)).toEqual([...all].sort((a, b) => a - b));
    expect(violations).toEqual([]);
    await closeAll(stores);
  });

  it('R8 two machines recording one dedupe key at once store it once and both get the same event', async () => {
    const stores = await machines(3);
    for (let round = 0; round < 10; round++) {
      const events = await Promise.all(stores.map((s, i) => s.record(human(`agent:main:s${i}`, { dedupeKey: `k${round}` }))));
      expect(events.every((e) => e !== undefined)).toBe(true);
      expect(new Set(events.map((e) => e!.sequence)).size).toBe(1);
    }
    expect(await stores[0]!.eventCount()).toBe(10);
    await closeAll(stores);
  });

  it('R27 concurrent drainers on three machines: every notice goes to exactly one of them, none is lost', async () => {
    const stores = await machines(3);
    const watcher = 'agent:main:coordinator';
    const targets = Array.from({ length: 6 }, (_, i) => `agent:main:peer-${i}`);
    for (const t of targets) expect((await stores[0]!.watch({ watcherSessionKey: watcher, targetSessionKey: t, agentId: A })).watched).toBe(true);
    const delivered: Notice[] = [];
    let writing = true;
    const drainers = stores.map(async (s) => {
      while (writing) {
        delivered.push(...(await s.drainNotices(watcher)));
        await new Promise((r) => setTimeout(r, 1));
      }
    });
    const writers = stores.map(async (s, m) => {
      for (let i = 0; i < 30; i++) await s.record(human(targets[(i + m) % targets.length]!));
    });
    await Promise.all(writers);
    writing = false;
    await Promise.all(drainers);
    delivered.push(...(await stores[0]!.drainNotices(watcher)));
    // Each (target, L) at most once, and in the end every target is acked to its head.
    const keys = delivered.map((n) => `${n.targetSessionKey}@${n.lastSeenSequence}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(await stores[2]!.pendingNotices(watcher)).toEqual([]);
    for (const t of targets) {
      const c = await stores[0]!.cursor(watcher, t, A);
      expect(c?.lastSeenSequence).toBe(await stores[0]!.stateVersion(t, A));
      // the L's delivered for a target chain up: each drained notice starts where the previous ended
      const ls = delivered.filter((n) => n.targetSessionKey === t).map((n) => n.lastSeenSequence).sort((a, b) => a - b);
      expect(ls[0]).toBe(0);
    }
    await closeAll(stores);
  });

  it('R40-R44 one pruner at a time: while another machine holds the prune lock, prune skips; afterwards it prunes', async () => {
    let now = T0;
    const [a] = await machines(1, pg.schema(), () => now);
    await a!.record(human());
    await a!.record(human());
    now += 31 * 86_400_000;
    const admin = await pg.admin();
    await admin.query('BEGIN');
    await admin.query('SELECT pg_advisory_xact_lock($1, $2)', [...a!.pruneLockKeys]);
    await a!.prune();
    expect(await a!.eventCount()).toBe(2); // the other "pruner" holds the lock
    await admin.query('COMMIT');
    await a!.prune();
    expect(await a!.eventCount()).toBe(0);
    expect((await a!.changesSince({ sessionKey: TARGET, agentId: A, since: 0 })).stateChanges.historyGap).toBe(true);
    await a!.close();
  });
});

describe('postgres: PendingSource over LISTEN/NOTIFY', () => {
  it('a commit on one machine reaches another machine\'s subscribeRemote; listPending reads durable state', async () => {
    const [a, b] = await machines(2);
    let pushes = 0;
    const unsubscribe = await b!.subscribeRemote(() => void pushes++);
    let local = 0;
    a!.onLocalChange(() => void local++);
    await a!.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: TARGET, agentId: A });
    await a!.record(human());
    expect(local).toBe(1);
    await waitFor('a push', () => pushes >= 1);
    expect(await b!.listPending()).toEqual([{ watcherSessionKey: 'agent:main:main', targetSessionKey: TARGET, targetAgentId: A, lastSeenSequence: 0, wake: 'immediate' }]);
    // a log-only event changes no pending state: no push
    const before = pushes;
    await a!.record({ sessionKey: TARGET, agentId: A, kind: 'compacted', actorType: 'system', summary: 'session compacted' });
    await a!.drainNotices('agent:main:main');
    await waitFor('the drain\'s push', () => pushes > before);
    expect(await b!.listPending()).toEqual([]);
    unsubscribe();
    await a!.close();
    await b!.close();
  });

  it('R73 each push names the watchers its commit changed (routing hashes); unwatch and reset name the watcher; a feed subscribed to another watcher does not read', async () => {
    const [a, b] = await machines(2);
    const payloads: (string | undefined)[] = [];
    const unsubscribe = await b!.subscribeRemote((p) => void payloads.push(p));
    const W1 = 'agent:main:w1';
    const W2 = 'agent:main:w2';
    await a!.watch({ watcherSessionKey: W1, targetSessionKey: TARGET, agentId: A });
    await a!.watch({ watcherSessionKey: W2, targetSessionKey: TARGET, agentId: A });
    await a!.record(human());
    // R74: a record's push also carries the pairs' news after R73's names.
    const names = (p: string | undefined) => p?.split(';x:')[0];
    await waitFor('the record\'s push', () => payloads.some((p) => names(p) === routePayload([W1, W2]) && p!.includes(';x:')));
    // A feed on b subscribed to W1 reads on a commit for W1, not on one that changed only W2's pair.
    let reads = 0;
    const counted = { readPending: (r: Parameters<PostgresStore['readPending']>[0]) => (reads++, b!.readPending(r)), listPending: () => b!.listPending(), onLocalChange: (l: () => void) => b!.onLocalChange(l), subscribeRemote: (l: (p?: string) => void) => b!.subscribeRemote(l), pendingWatchersPage: (r: never) => b!.pendingWatchersPage(r) };
    const feed = createNoticeFeed(counted, { logger: pg.log });
    const signals: string[] = [];
    feed.subscribe((s) => void signals.push(s.watcherSessionKey), { watcherSessionKey: W1 });
    await waitFor('the first signal', () => signals.length === 1);
    const settled = reads;
    await a!.drainNotices(W2);
    await waitFor('the drain\'s push', () => names(payloads.at(-1)) === routePayload([W2]));
    await new Promise((r) => setTimeout(r, 300));
    expect(reads).toBe(settled);
    await a!.drainNotices(W1);
    await waitFor('a read for W1', () => reads > settled);
    feed.close();
    await a!.record(human());
    await a!.unwatch({ watcherSessionKey: W2, targetSessionKey: TARGET, agentId: A });
    await waitFor('the unwatch\'s push', () => names(payloads.at(-1)) === routePayload([W2]));
    await a!.resetSession(W1);
    await waitFor('the reset\'s push', () => names(payloads.at(-1)) === routePayload([W1]));
    unsubscribe();
    await a!.close();
    await b!.close();
  });

  it('a dropped listening connection reconnects, listens again and calls the listener, so a change made meanwhile is not lost', async () => {
    const log = memoryLogger();
    const schema = pg.schema();
    const a = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: pg.log });
    const b = await createPostgresStore({ now: () => T0, connectionString: pg.url(), schema, logger: log });
    let pushes = 0;
    await b.subscribeRemote(() => void pushes++);
    const pid = b.listenerPid;
    expect(pid).toBeTypeOf('number');
    const admin = await pg.admin();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    // a change while the listener may be away: its NOTIFY can be lost, the re-read is not
    await a.watch({ watcherSessionKey: 'agent:main:main', targetSessionKey: TARGET, agentId: A });
    await a.record(human());
    await waitFor('the listener to come back', () => b.listenerPid !== undefined && b.listenerPid !== pid);
    await waitFor('a push after reconnecting', () => pushes >= 1);
    expect(log.entries.some((e) => /listening connection dropped/.test(e.message))).toBe(true);
    expect((await b.listPending()).map((p) => p.targetSessionKey)).toEqual([TARGET]);
    // and it keeps working afterwards
    const after = pushes;
    await a.drainNotices('agent:main:main');
    await waitFor('a push on the new connection', () => pushes > after);
    await a.close();
    await b.close();
  });
});

describe('T12 the durable spawn parent on PostgreSQL (schema step 3)', () => {
  it('T12 the first spawn names the parent, kept through pruning; a later spawn and another machine agree', async () => {
    let now = T0;
    const DAY = 86_400_000;
    const schema = pg.schema();
    const [a, b] = await machines(2, schema, () => now);
    try {
      const spawn = (parent: string) => ({ sessionKey: 'agent:main:worker', agentId: A, kind: 'child_spawned' as const, actorType: 'agent' as const, actorId: parent, summary: 'child session spawned' });
      await a!.record(spawn('agent:main:lead'));
      now = T0 + 31 * DAY;
      await a!.record(human('agent:main:worker'));
      await a!.prune();
      expect((await a!.changesSince({ sessionKey: 'agent:main:worker', agentId: A, since: 0 })).stateChanges.historyGap).toBe(true);
      await b!.record(spawn('agent:main:intruder'));
      expect(await b!.spawnParent('agent:main:worker', A)).toBe('agent:main:lead');
      expect(await a!.spawnParent('agent:main:nobody', A)).toBeUndefined();
    } finally {
      await closeAll([a!, b!]);
    }
  });
});
