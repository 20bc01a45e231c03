/**
 * The LISTEN connection behind subscribeRemote, decision by decision, on a real server: which
 * channels it listens on as listeners come, change and go (R75); who hears a wake, and once per
 * commit; a listener that throws; a dropped connection, a server that is not there, a listener
 * added while it reconnects, and a stop while it connects (R63: every return is followed by a
 * wake naming nobody, so each listener re-reads).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { watcherRouteHash, wakeGroupOf } from '../../src/core/index.js';
import { RemoteListener } from '../../src/postgres/remote-listener.js';
import { allChannel, groupChannel, listenedChannels } from '../../src/postgres/wake-channels.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { freePort } from '../../src/postgres/testing/embedded.js';
import { usePostgres, waitFor } from './server.js';

const pgc = usePostgres();


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hash = (w: string) => watcherRouteHash(`agent:main:${w}`);
/** `n` watcher hashes in distinct wake groups. */
function hashesInDistinctGroups(n: number, tag: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const h = hash(`${tag}-${i}`);
    if (seen.has(wakeGroupOf(h))) continue;
    seen.add(wakeGroupOf(h));
    out.push(h);
  }
  return out;
}

let channels = 0;
/** A listener on a channel of its own, with the application name it connects under. */
function listener(options: { holdMs?: number; port?: number } = {}) {
  const channel = `rl_test_${process.pid}_${channels++}`;
  const log = memoryLogger();
  const applicationName = `${channel}_app`;
  const url = new URL(pgc.url());
  if (options.port !== undefined) url.port = String(options.port);
  const rl = new RemoteListener(pg, { connectionString: url.toString(), application_name: applicationName, connectionTimeoutMillis: 2_000 }, channel, log, 'test target', options.holdMs ?? 0);
  return { rl, channel, log, applicationName };
}

/** Calls of one listener: the payloads it was handed (undefined: a wake naming nobody). */
function recorder() {
  const calls: (string | undefined)[] = [];
  const fn = (payload?: string) => void calls.push(payload);
  return { calls, fn };
}

async function notify(channel: string, payload: string): Promise<void> {
  const admin = await pgc.admin();
  await admin.query('SELECT pg_notify($1, $2)', [channel, payload]);
}

async function connectionsOf(applicationName: string): Promise<number> {
  const admin = await pgc.admin();
  const r = await admin.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
  return Number(r.rows[0]!.n);
}

describe('the channels a listener connection listens on', () => {
  it('R75 the union of its listeners\' groups and _all; a change of interest and a removal move them; the last removal closes the connection', async () => {
    const { rl, channel, applicationName } = listener();
    const [h1, h2, h3] = hashesInDistinctGroups(3, 'union');
    const a = recorder();
    const b = recorder();
    const stopA = await rl.add(a.fn, [h1!]);
    expect(rl.channels).toEqual([...listenedChannels(channel, [new Set([wakeGroupOf(h1!)])])].sort());
    expect(rl.channels).toEqual([allChannel(channel), groupChannel(channel, wakeGroupOf(h1!))].sort());
    const stopB = await rl.add(b.fn, [h2!]);
    expect(rl.channels).toEqual([allChannel(channel), groupChannel(channel, wakeGroupOf(h1!)), groupChannel(channel, wakeGroupOf(h2!))].sort());
    // A wider interest listens on the new group; a narrower one leaves the old.
    await rl.interest(b.fn, [h2!, h3!]);
    expect(rl.channels).toContain(groupChannel(channel, wakeGroupOf(h3!)));
    await rl.interest(b.fn, [h3!]);
    expect(rl.channels).toEqual([allChannel(channel), groupChannel(channel, wakeGroupOf(h1!)), groupChannel(channel, wakeGroupOf(h3!))].sort());
    // One listener wanting everything: the store's channel alone.
    await rl.interest(b.fn, 'all');
    expect(rl.channels).toEqual([channel]);
    // The interest of a listener that is not there changes nothing.
    await rl.interest(recorder().fn, [h2!]);
    expect(rl.channels).toEqual([channel]);
    stopB();
    await waitFor('the channels of the one left', () => rl.channels.join() === [allChannel(channel), groupChannel(channel, wakeGroupOf(h1!))].sort().join());
    // A second removal of the same listener changes nothing.
    stopB();
    expect(await connectionsOf(applicationName)).toBe(1);
    // What the server says it listens on agrees (the new channel before the old one left).
    await notify(groupChannel(channel, wakeGroupOf(h1!)), `w:${h1!}`);
    await waitFor('a wake on the first group', () => a.calls.includes(`w:${h1!}`));
    stopA();
    await waitFor('the connection closed', () => rl.pid === undefined);
    for (let i = 0; i < 100 && (await connectionsOf(applicationName)) > 0; i++) await sleep(50);
    expect(await connectionsOf(applicationName)).toBe(0);
    expect(rl.channels).toEqual([]);
  });

  it('R75 a wake goes to the listeners whose groups it names, to those wanting everything, and to all when it names nobody', async () => {
    const { rl, channel } = listener();
    const [h1, h2] = hashesInDistinctGroups(2, 'who');
    const one = recorder();
    const two = recorder();
    const all = recorder();
    await rl.add(one.fn, [h1!]);
    await rl.add(two.fn, [h2!]);
    // With one listener wanting everything the connection listens on the store's channel.
    await rl.add(all.fn, 'all');
    await notify(channel, `w:${h1!}`);
    await notify(channel, '');
    await waitFor('the wake naming nobody', () => all.calls.length === 2 && two.calls.length === 1);
    // `one` came first, so R63's wake after the connect reached it alone.
    expect(one.calls).toEqual([undefined, `w:${h1!}`, undefined]);
    expect(two.calls).toEqual([undefined]);
    expect(all.calls).toEqual([`w:${h1!}`, undefined]);
    await rl.stop();
  });

  it('R75 the same names on a group channel twice are two commits, heard twice; the same news (one transaction) twice is heard once', async () => {
    const { rl, channel } = listener();
    const [h1] = hashesInDistinctGroups(1, 'twice');
    const a = recorder();
    await rl.add(a.fn, [h1!]);
    const group = groupChannel(channel, wakeGroupOf(h1!));
    await notify(group, `w:${h1!}`);
    await notify(group, `w:${h1!}`);
    const news = `w:${h1!};x:12345;[]`;
    await notify(group, news);
    await notify(allChannel(channel), news);
    await notify(group, `w:${h1!}`);
    await waitFor('the last wake', () => a.calls.length >= 5);
    await sleep(200);
    expect(a.calls).toEqual([undefined, `w:${h1!}`, `w:${h1!}`, news, `w:${h1!}`]);
    await rl.stop();
  });

  it('R9 a listener that throws is logged with its message, and the others still hear the wake', async () => {
    const { rl, channel, log } = listener();
    const heard = recorder();
    await rl.add(() => {
      throw new Error('listener broke');
    }, 'all');
    await rl.add(heard.fn, 'all');
    // The first wake (R63's after connecting) went to both already.
    await notify(channel, 'w:abc');
    await waitFor('the second listener', () => heard.calls.includes('w:abc'));
    const thrown = log.entries.filter((e) => e.message === 'postgres store: a remote change listener threw');
    expect(thrown.length).toBeGreaterThanOrEqual(1);
    expect(thrown.every((e) => e.level === 'error' && e.details?.['error'] === 'listener broke')).toBe(true);
    await rl.stop();
  });
});

describe('R63 the listener connection over its life', () => {
  it('R63 a first connect and every reconnect wake each listener once, naming nobody; a drop is logged and the connection comes back', async () => {
    const { rl, channel, log } = listener();
    const a = recorder();
    const [h1] = hashesInDistinctGroups(1, 'drop');
    await rl.add(a.fn, [h1!]);
    expect(a.calls).toEqual([undefined]);
    // A first connect is not a return: nothing logged.
    expect(log.entries).toEqual([]);
    const pid = rl.pid;
    expect(pid).toBeTypeOf('number');
    const admin = await pgc.admin();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor('the listener to come back', () => rl.pid !== undefined && rl.pid !== pid);
    await waitFor('the wake after reconnecting', () => a.calls.length === 2);
    expect(a.calls).toEqual([undefined, undefined]);
    // The connection's error and its end are one drop.
    expect(log.entries.filter((e) => /listening connection dropped/.test(e.message))).toHaveLength(1);
    const dropped = log.entries.find((e) => /listening connection dropped; reconnecting/.test(e.message));
    expect(dropped?.level).toBe('warn');
    expect(dropped?.details?.['target']).toBe('test target');
    const back = log.entries.find((e) => /listening connection is back/.test(e.message));
    expect(back?.level).toBe('warn');
    expect(back?.details?.['target']).toBe('test target');
    // It listens again on what it listened on before.
    expect(rl.channels).toEqual([allChannel(channel), groupChannel(channel, wakeGroupOf(h1!))].sort());
    await notify(groupChannel(channel, wakeGroupOf(h1!)), `w:${h1!}`);
    await waitFor('a wake on the new connection', () => a.calls.length === 3);
    expect(a.calls[2]).toBe(`w:${h1!}`);
    await rl.stop();
  });

  it('R63 a listener added while the connection is away is listened for when it comes back, and woken then', async () => {
    const { rl, channel, log, applicationName } = listener();
    const [h1, h2] = hashesInDistinctGroups(2, 'away');
    const a = recorder();
    const b = recorder();
    await rl.add(a.fn, [h1!]);
    const pid = rl.pid;
    const admin = await pgc.admin();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor('the drop to be seen', () => rl.pid === undefined);
    // Added during the backoff: resolves without a connection (the reconnect reads, R63).
    await rl.add(b.fn, [h2!]);
    await waitFor('the listener to come back', () => rl.pid !== undefined);
    await waitFor('both woken', () => a.calls.length === 2 && b.calls.length === 1);
    expect(b.calls).toEqual([undefined]);
    expect(rl.channels).toContain(groupChannel(channel, wakeGroupOf(h2!)));
    await notify(groupChannel(channel, wakeGroupOf(h2!)), `w:${h2!}`);
    await waitFor('the new listener\'s wake', () => b.calls.length === 2);
    // One connection came back, once: no second connect from the backoff's timer.
    await sleep(400);
    expect(a.calls).toEqual([undefined, undefined]);
    expect(b.calls).toEqual([undefined, `w:${h2!}`]);
    expect(await connectionsOf(applicationName)).toBe(1);
    // Adding while away changed no channels on a connection that was not there, and logged nothing.
    expect(log.entries.filter((e) => /changing the channels listened on failed/.test(e.message))).toEqual([]);
    await rl.stop();
  });

  it('R63 a server that is not there: each attempt fails, is logged, and the next waits twice as long (from 100 ms)', async () => {
    const port = await freePort();
    const { rl, log } = listener({ port });
    const a = recorder();
    const started = Date.now();
    await rl.add(a.fn, 'all');
    // Attempts at about 0, 0.1, 0.3, 0.7, 1.5 and 3.1 s: six within 3.6 s (fewer on a slow machine).
    await sleep(3_600 - (Date.now() - started));
    const failures = log.entries.filter((e) => /cannot LISTEN for changes; retrying/.test(e.message));
    await rl.stop();
    expect(failures.every((e) => e.level === 'error' && e.details?.['target'] === 'test target')).toBe(true);
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.length).toBeLessThanOrEqual(7);
    expect(a.calls).toEqual([]);
    // Stopped: no attempt after.
    const after = log.entries.length;
    await sleep(400);
    expect(log.entries.length).toBe(after);
  });

  it('a stop while the first connect is under way ends that connection: nothing listens, nobody is woken', async () => {
    const { rl, applicationName } = listener();
    const a = recorder();
    const adding = rl.add(a.fn, 'all');
    await rl.stop();
    await adding;
    expect(rl.pid).toBeUndefined();
    expect(rl.channels).toEqual([]);
    for (let i = 0; i < 100 && (await connectionsOf(applicationName)) > 0; i++) await sleep(50);
    expect(await connectionsOf(applicationName)).toBe(0);
    expect(a.calls).toEqual([]);
  });

  it('a change of channels that fails is logged with the target and leaves the channels as they were', async () => {
    const { rl, channel, log } = listener();
    const [h1, h2] = hashesInDistinctGroups(2, 'fails');
    const a = recorder();
    await rl.add(a.fn, [h1!]);
    const before = rl.channels;
    // The connection fails its next statement, as one going away would.
    const client = (rl as unknown as { client: { query: (sql: string) => Promise<unknown> } }).client;
    const query = client.query.bind(client);
    client.query = () => Promise.reject(Object.assign(new Error('connection going away'), { code: '57P01' }));
    await rl.interest(a.fn, [h2!]);
    expect(rl.channels).toEqual(before);
    const failed = log.entries.filter((e) => e.message === 'postgres store: changing the channels listened on failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.level).toBe('warn');
    expect(failed[0]!.details?.['target']).toBe('test target');
    // Back to working: the next change goes through.
    client.query = query;
    await rl.interest(a.fn, [h2!]);
    expect(rl.channels).toContain(groupChannel(channel, wakeGroupOf(h2!)));
    await rl.stop();
  });

  it('a listener added while a stop waits for the connect keeps the connection that comes up', async () => {
    const { rl, channel, applicationName } = listener();
    const a = recorder();
    const b = recorder();
    const adding = rl.add(a.fn, 'all');
    const stopping = rl.stop();
    const again = rl.add(b.fn, 'all');
    await Promise.all([adding, stopping, again]);
    await sleep(100);
    expect(rl.pid).toBeTypeOf('number');
    expect(await connectionsOf(applicationName)).toBe(1);
    await notify(channel, 'w:abc');
    await waitFor('the wake', () => b.calls.includes('w:abc'));
    // `a` was stopped before the connection came up: it hears nothing.
    expect(a.calls).toEqual([]);
    await rl.stop();
  });

  it('a listener added after a stop opens a connection again', async () => {
    const { rl, channel } = listener();
    const a = recorder();
    await rl.add(a.fn, 'all');
    await rl.stop();
    expect(rl.pid).toBeUndefined();
    const b = recorder();
    await rl.add(b.fn, 'all');
    expect(rl.pid).toBeTypeOf('number');
    await notify(channel, 'w:abc');
    await waitFor('the wake', () => b.calls.includes('w:abc'));
    // The stopped listener was forgotten.
    expect(a.calls).toEqual([undefined]);
    await rl.stop();
  });
});
