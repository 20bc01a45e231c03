/**
 * R75 and R76 on PostgreSQL: a commit's wake goes to the store's channel and to its watchers' wake
 * groups' channels (or `_all`); a handle whose subscriptions name their watchers listens on those
 * groups only, hands each wake to the subscriptions it may concern, once per commit; a feed that
 * subscribes a watcher of a new group hears of it. A held connection delays wakes and loses none.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseRoutePayload, ROUTE_EVERYONE, watcherRouteHash, wakeGroupOf } from '../../src/core/index.js';
import { createNoticeFeed, type NoticeSignal } from '../../src/feed/index.js';
import { createPostgresStore, MAX_WAKE_HOLD_MS, type PostgresStore } from '../../src/postgres/index.js';
import { allChannel, concerns, groupChannel, listenedChannels, MAX_LISTENED_GROUPS, namedGroups, wakeChannels } from '../../src/postgres/wake-channels.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { usePostgres, waitFor } from './server.js';

const pgc = usePostgres();
const T0 = Date.UTC(2026, 0, 1);
const A = 'main';

const groupOf = (watcher: string) => wakeGroupOf(watcherRouteHash(watcher));

/** `n` watcher keys, each in a wake group none of the others (nor `avoid`) is in. */
function watchersInDistinctGroups(n: number, avoid: readonly string[] = []): string[] {
  const seen = new Set(avoid.map(groupOf));
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const w = `agent:main:grouped-${i}`;
    if (seen.has(groupOf(w))) continue;
    seen.add(groupOf(w));
    out.push(w);
  }
  return out;
}


async function open(schema: string, extra: { wakeHoldMs?: number } = {}): Promise<PostgresStore> {
  return createPostgresStore({ now: () => T0, connectionString: pgc.url(), schema, logger: pgc.log, ...extra });
}

/** A person typed into `target`: every watcher of it gets a pending notice, and the commit wakes them. */
const typed = (s: PostgresStore, target: string) => s.record({ sessionKey: target, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'typed by a person' });

/** A listener as an older release (or a tool) would be: LISTEN on the store's channel only. */
async function baseTap(channel: string): Promise<{ payloads: string[]; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: pgc.url() });
  await client.connect();
  const payloads: string[] = [];
  client.on('notification', (m) => void (m.channel === channel && payloads.push(m.payload ?? '')));
  await client.query(`LISTEN ${channel}`);
  return { payloads, close: () => client.end() };
}

describe('R75 the channels', () => {
  it('R75 a wake goes to the store channel and its groups (news: up to 4; names alone: 1), else to _all', () => {
    const ws = watchersInDistinctGroups(5);
    const g = ws.map((w) => groupChannel('ssk_x', groupOf(w)));
    expect(wakeChannels('ssk_x', [ws[0]!], false)).toEqual(['ssk_x', g[0]]);
    expect(wakeChannels('ssk_x', [ws[0]!, ws[1]!], true)).toEqual(['ssk_x', ...[g[0], g[1]].sort()]);
    expect(wakeChannels('ssk_x', ws.slice(0, 4), true)).toEqual(['ssk_x', ...g.slice(0, 4).sort()]);
    expect(wakeChannels('ssk_x', ws, true)).toEqual(['ssk_x', 'ssk_x_all']);
    expect(wakeChannels('ssk_x', [ws[0]!, ws[1]!], false)).toEqual(['ssk_x', 'ssk_x_all']);
    expect(wakeChannels('ssk_x', ROUTE_EVERYONE, false)).toEqual(['ssk_x', 'ssk_x_all']);
    // Two watchers of one group: one channel.
    const twin = Array.from({ length: 100_000 }, (_, i) => `agent:main:twin-${i}`).find((w) => w !== ws[0] && groupOf(w) === groupOf(ws[0]!))!;
    expect(wakeChannels('ssk_x', [ws[0]!, twin], false)).toEqual(['ssk_x', g[0]]);
    expect(wakeChannels('ssk_x', [], true)).toEqual(['ssk_x']);
  });

  it('R75 a process listens on its groups and _all, or on the store channel when one subscription wants everything or past 256 groups', () => {
    const ws = watchersInDistinctGroups(MAX_LISTENED_GROUPS + 1);
    const groups = (xs: string[]) => new Set(xs.map(groupOf));
    expect([...listenedChannels('ssk_x', [groups(ws.slice(0, 2)), groups(ws.slice(1, 3))])]).toEqual(['ssk_x_all', ...ws.slice(0, 3).map((w) => groupChannel('ssk_x', groupOf(w))).sort()]);
    expect([...listenedChannels('ssk_x', [groups(ws.slice(0, 2)), undefined])]).toEqual(['ssk_x']);
    expect(listenedChannels('ssk_x', [groups(ws.slice(0, MAX_LISTENED_GROUPS))]).size).toBe(MAX_LISTENED_GROUPS + 1);
    expect([...listenedChannels('ssk_x', [groups(ws)])]).toEqual(['ssk_x']);
    expect(allChannel('ssk_x')).toBe('ssk_x_all');
  });

  it('R75 a wake concerns a subscription whose groups it names, and everyone when it names nobody in particular', () => {
    const [w1, w2] = watchersInDistinctGroups(2);
    const mine = new Set([groupOf(w1!)]);
    expect(concerns(namedGroups(`w:${watcherRouteHash(w1!)}`), mine)).toBe(true);
    expect(concerns(namedGroups(`w:${watcherRouteHash(w2!)}`), mine)).toBe(false);
    expect(concerns(namedGroups(`w:${watcherRouteHash(w2!)};x:12;[]`), mine)).toBe(false);
    for (const p of [undefined, '*', 'garbled', `w:${watcherRouteHash(w2!).slice(0, 5)}`]) expect(concerns(namedGroups(p), mine), String(p)).toBe(true);
    expect(concerns(namedGroups(`w:${watcherRouteHash(w2!)}`), undefined)).toBe(true);
  });
});

describe('R75 over PostgreSQL', () => {
  it('R75 a handle hears the commits of its groups and _all, not the others; an older release on the store channel hears them all', async () => {
    const schema = pgc.schema();
    const a = await open(schema);
    const b = await open(schema);
    const [mine, other] = watchersInDistinctGroups(2);
    const heard: (string | undefined)[] = [];
    const stop = await b.subscribeRemote((p) => void heard.push(p), [watcherRouteHash(mine!)]);
    expect(b.remoteChannels).toEqual([allChannel(b.notifyChannel), groupChannel(b.notifyChannel, groupOf(mine!))].sort());
    const tap = await baseTap(b.notifyChannel);
    await a.watch({ watcherSessionKey: mine!, targetSessionKey: 'agent:main:t-mine', agentId: A });
    await a.watch({ watcherSessionKey: other!, targetSessionKey: 'agent:main:t-other', agentId: A });
    heard.length = 0;

    await typed(a, 'agent:main:t-other');
    await typed(a, 'agent:main:t-mine');
    await waitFor('the wake naming my watcher', () => heard.some((p) => p?.includes('t-mine')));
    // One queue, read in order: the other group's wake came first, had it come at all.
    expect(heard.filter((p) => p?.includes('t-other'))).toEqual([]);
    expect(heard.filter((p) => p?.includes('t-mine'))).toHaveLength(1);
    await waitFor('both wakes on the store channel', () => tap.payloads.filter((p) => p.includes('t-other') || p.includes('t-mine')).length === 2);

    // A wake naming everyone (a deleted session with pending notices) reaches every group through _all.
    heard.length = 0;
    await a.deleteSession('agent:main:t-other', A);
    await waitFor('the wake naming everyone', () => heard.includes(ROUTE_EVERYONE));
    stop();
    await tap.close();
    await a.close();
    await b.close();
  });

  it('R75 one commit naming two of a subscription\'s groups reaches it once; another subscription of one of them, once too', async () => {
    const schema = pgc.schema();
    const a = await open(schema);
    const b = await open(schema);
    const [w1, w2, w3] = watchersInDistinctGroups(3);
    const both: string[] = [];
    const one: string[] = [];
    const stopBoth = await b.subscribeRemote((p) => void (p !== undefined && both.push(p)), [watcherRouteHash(w1!), watcherRouteHash(w2!)]);
    const stopOne = await b.subscribeRemote((p) => void (p !== undefined && one.push(p)), [watcherRouteHash(w2!)]);
    // On the same connection, a subscription of a third group only: the others' wakes are not handed to it.
    const third: string[] = [];
    const stopThird = await b.subscribeRemote((p) => void (p !== undefined && third.push(p)), [watcherRouteHash(w3!)]);
    for (const w of [w1!, w2!]) await a.watch({ watcherSessionKey: w, targetSessionKey: 'agent:main:shared', agentId: A });
    await a.watch({ watcherSessionKey: w3!, targetSessionKey: 'agent:main:after', agentId: A });
    await a.watch({ watcherSessionKey: w1!, targetSessionKey: 'agent:main:after', agentId: A });
    both.length = 0;
    one.length = 0;
    third.length = 0;
    await typed(a, 'agent:main:shared');
    // A later commit, heard by both subscriptions, marks the point by which every copy has arrived.
    await a.watch({ watcherSessionKey: w2!, targetSessionKey: 'agent:main:after', agentId: A });
    await typed(a, 'agent:main:after');
    await waitFor('the later wake', () => [both, one, third].every((xs) => xs.some((p) => p.includes('agent:main:after'))));
    const shared = (xs: string[]) => xs.filter((p) => p.includes('agent:main:shared'));
    expect(shared(both)).toHaveLength(1);
    expect(shared(one)).toHaveLength(1);
    expect(shared(third)).toEqual([]);
    // The payload went to two group channels: the store sent it twice, the subscription heard it once.
    expect(parseRoutePayload(shared(both)[0])).toEqual(new Set([watcherRouteHash(w1!), watcherRouteHash(w2!)]));
    stopBoth();
    stopOne();
    stopThird();
    await a.close();
    await b.close();
  });

  it('R75 a feed that subscribes a watcher of a new group hears its commits; everything, then narrow again, moves the channels', async () => {
    const schema = pgc.schema();
    const a = await open(schema);
    const b = await open(schema);
    const [w1, w2] = watchersInDistinctGroups(2);
    const feed = createNoticeFeed(b, { logger: memoryLogger() });
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: w1! });
    await waitFor('the first group', () => b.remoteChannels.includes(groupChannel(b.notifyChannel, groupOf(w1!))));
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: w2! });
    await waitFor('the second group', () => b.remoteChannels.includes(groupChannel(b.notifyChannel, groupOf(w2!))));
    await a.watch({ watcherSessionKey: w2!, targetSessionKey: 'agent:main:t2', agentId: A });
    await typed(a, 'agent:main:t2');
    await waitFor('the signal for the new watcher', () => got.some((s) => s.watcherSessionKey === w2 && s.changed.some((p) => p.targetSessionKey === 'agent:main:t2')));

    const offAll = feed.subscribe(() => {});
    await waitFor('the store channel', () => b.remoteChannels.join() === b.notifyChannel);
    offAll();
    await waitFor('the groups again', () => b.remoteChannels.length === 3);
    feed.close();
    await a.close();
    await b.close();
  });
});

describe('R76 held reads of wakes', () => {
  it('R76 wakeHoldMs outside 0..1000 or not an integer is refused, naming the field, before any connection', async () => {
    for (const bad of [-1, 1.5, MAX_WAKE_HOLD_MS + 1, '10', Number.NaN]) {
      await expect(createPostgresStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none', wakeHoldMs: bad as number, logger: memoryLogger() }), String(bad)).rejects.toThrow(RangeError);
      await expect(createPostgresStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none', wakeHoldMs: bad as number, logger: memoryLogger() })).rejects.toThrow(/wakeHoldMs/);
    }
  });

  it('R76 the first wake after a quiet spell comes at once; those during the hold wait for it, and none is lost', async () => {
    const HOLD = MAX_WAKE_HOLD_MS;
    const schema = pgc.schema();
    const a = await open(schema);
    const held = await open(schema, { wakeHoldMs: HOLD });
    const prompt = await open(schema, { wakeHoldMs: 0 });
    const W = 'agent:main:held-watcher';
    const times = (into: Map<string, number>) => (p?: string) => {
      const t = /agent:main:(held-\d)/.exec(p ?? '')?.[1];
      if (t !== undefined && !into.has(t)) into.set(t, Date.now());
    };
    const atHeld = new Map<string, number>();
    const atPrompt = new Map<string, number>();
    const stopHeld = await held.subscribeRemote(times(atHeld), [watcherRouteHash(W)]);
    const stopPrompt = await prompt.subscribeRemote(times(atPrompt), [watcherRouteHash(W)]);
    for (const t of ['held-1', 'held-2', 'held-3']) await a.watch({ watcherSessionKey: W, targetSessionKey: `agent:main:${t}`, agentId: A });
    // Let the watches' own wakes (if any) and their holds pass: a quiet spell.
    await new Promise((r) => setTimeout(r, HOLD + 500));

    const before = Date.now();
    await typed(a, 'agent:main:held-1');
    await waitFor('the first wake', () => atHeld.has('held-1'));
    const first = atHeld.get('held-1')!;
    expect(first - before).toBeLessThan(HOLD);
    await typed(a, 'agent:main:held-2');
    await typed(a, 'agent:main:held-3');
    await waitFor('the held wakes', () => atHeld.has('held-2') && atHeld.has('held-3'));
    // The hold starts after the first wake is handed over; a timer never fires early.
    expect(atHeld.get('held-2')! - first).toBeGreaterThanOrEqual(HOLD - 20);
    expect(atHeld.get('held-3')! - first).toBeGreaterThanOrEqual(HOLD - 20);
    // Without a hold, the same wakes came well before the held ones.
    expect(atPrompt.get('held-2')!).toBeLessThan(atHeld.get('held-2')!);
    stopHeld();
    stopPrompt();
    await a.close();
    await held.close();
    await prompt.close();
  });

  it('R76 a store closed while its listening connection holds reads still closes (the socket is read again to see its end)', async () => {
    const schema = pgc.schema();
    const a = await open(schema);
    const held = await open(schema, { wakeHoldMs: MAX_WAKE_HOLD_MS });
    const W = 'agent:main:closing-watcher';
    let woke = 0;
    await held.subscribeRemote(() => void woke++, [watcherRouteHash(W)]);
    await a.watch({ watcherSessionKey: W, targetSessionKey: 'agent:main:closing-target', agentId: A });
    const before = woke;
    await typed(a, 'agent:main:closing-target');
    await waitFor('the wake that starts a hold', () => woke > before);
    // Ending a connection waits for the server's end of the socket, which a socket that does not read never sees.
    const closed = await Promise.race([held.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open after 10 s'), 10_000))]);
    expect(closed).toBe('closed');
    await a.close();
  });
});
