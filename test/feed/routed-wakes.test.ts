/**
 * R73: a server push that names the watchers its commit changed wakes a read only where one of
 * them is subscribed; a push without a payload, with "*", or with one cut short, garbled or out of
 * order still reads, and a skipped wake loses nothing.
 */
import { describe, expect, it } from 'vitest';
import { routePayload } from '../../src/core/index.js';
import { createNoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, fakeTimersEachTest, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const B = 'agent:main:b';
const C = 'agent:main:c';
const T = 'agent:main:target';

const settle = fakeTimersEachTest();

/** A push-only source (as PostgreSQL is to the feed) whose pushes carry what the test says. */
function pushSource() {
  const src = new FakeSource();
  const pushers = new Set<(payload?: string) => void>();
  const source: PendingSource = {
    listPending: () => src.listPending(),
    onLocalChange: (l) => src.onLocalChange(l),
    subscribeRemote: async (l) => {
      pushers.add(l);
      return () => pushers.delete(l);
    },
  };
  const push = (payload?: string) => {
    for (const p of pushers) p(payload);
  };
  return { src, source, push };
}

async function subscribed(source: PendingSource, watcher?: string) {
  const feed = createNoticeFeed(source, { logger: memoryLogger() });
  const got: NoticeSignal[] = [];
  feed.subscribe((s) => void got.push(s), watcher === undefined ? {} : { watcherSessionKey: watcher });
  await settle();
  return { feed, got };
}

describe('R73 routed wake-ups in the feed', () => {
  it('R73 a push naming only other watchers reads nothing; one naming a subscribed watcher reads', async () => {
    const { src, source, push } = pushSource();
    const { feed, got } = await subscribed(source, A);
    const reads = src.listCalls;
    src.pairs = [pendingPair(B, T, 1)];
    push(routePayload([B, C]));
    await settle();
    expect(src.listCalls).toBe(reads);
    push(routePayload([]));
    await settle();
    expect(src.listCalls).toBe(reads);
    src.pairs = [pendingPair(B, T, 1), pendingPair(A, T, 2)];
    push(routePayload([C, A]));
    await settle();
    expect(src.listCalls).toBe(reads + 1);
    expect(got.map((s) => s.watcherSessionKey)).toEqual([A]);
    feed.close();
  });

  it('R73 a skipped wake loses nothing: the change it named for another watcher, then one for ours, both reach a subscriber of each', async () => {
    const { src, source, push } = pushSource();
    const feed = createNoticeFeed(source, { logger: memoryLogger() });
    const forA: NoticeSignal[] = [];
    feed.subscribe((s) => void forA.push(s), { watcherSessionKey: A });
    await settle();
    src.pairs = [pendingPair(A, T, 1)];
    push(routePayload([B])); // wrongly routed (a hash collision would be the mirror case): skipped
    await settle();
    expect(forA).toEqual([]);
    push(routePayload([A]));
    await settle();
    expect(forA.map((s) => s.changed)).toEqual([[pendingPair(A, T, 1)]]);
    feed.close();
  });

  it('R73 no payload (a reconnect), "*", a payload cut short, garbled or in another form all read', async () => {
    const { src, source, push } = pushSource();
    const { feed } = await subscribed(source, A);
    const cut = routePayload([B, C]).slice(0, 7);
    const payloads = [undefined, '*', cut, 'w:zzzzzzzz', `${routePayload([B])} `, 'B', ''];
    let reads = src.listCalls;
    for (const p of payloads) {
      src.pairs = [pendingPair(A, T, reads)];
      push(p);
      await settle();
      expect(src.listCalls, JSON.stringify(p)).toBe(reads + 1);
      reads = src.listCalls;
    }
    feed.close();
  });

  it('R73 order does not matter: pushes for others and for ours in any order read once for ours', async () => {
    const { src, source, push } = pushSource();
    const { feed, got } = await subscribed(source, A);
    const reads = src.listCalls;
    src.pairs = [pendingPair(A, T, 4)];
    for (const p of [routePayload([C]), routePayload([A, B]), routePayload([B])]) push(p);
    await settle();
    expect(src.listCalls - reads).toBeGreaterThanOrEqual(1);
    expect(got.map((s) => s.watcherSessionKey)).toEqual([A]);
    feed.close();
  });

  it('R73 a subscriber of every watcher makes every push read', async () => {
    const { src, source, push } = pushSource();
    const { feed, got } = await subscribed(source);
    const reads = src.listCalls;
    src.pairs = [pendingPair(B, T, 1)];
    push(routePayload([B]));
    await settle();
    expect(src.listCalls).toBe(reads + 1);
    expect(got.map((s) => s.watcherSessionKey)).toEqual([B]);
    feed.close();
  });
});
