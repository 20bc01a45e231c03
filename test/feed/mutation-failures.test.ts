/**
 * What the feed and delivery do when the things around them fail, by what they log and what they
 * still do: a source whose hooks throw or reject, an unsubscribe that fails, a listener that is no
 * function, an ack that fails, a store that answers no list; plus the default file watcher over a
 * real file, and delivery's idle() and tracked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../spec/index.js';
import { createNoticeFeed, startDelivery, type NoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const T = 'agent:main:target';
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, test: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await wait(5);
  }
}

describe('the feed around failures', () => {
  it('R63 an onLocalChange that throws is logged and the feed still reads by its poll', async () => {
    const src = new FakeSource();
    const logger = memoryLogger();
    const source: PendingSource = {
      listPending: () => src.listPending(),
      changeToken: () => src.changeToken(),
      onLocalChange: () => {
        throw new Error('no hooks here');
      },
    };
    const feed = createNoticeFeed(source, { logger, pollIntervalMs: 10, watchFiles: false });
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: A });
    src.commit([pendingPair(A, T, 1)]);
    await until('a signal by poll', () => got.length > 0);
    expect(logger.entries.find((e) => e.level === 'error')).toMatchObject({ message: 'notice feed: onLocalChange failed; local commits are seen on the next tick', details: { error: 'no hooks here' } });
    feed.close();
  });

  it('R63 a subscribeRemote that rejects is logged ("polling only"), and an unsubscribe that throws is a warning', async () => {
    const src = new FakeSource();
    const logger = memoryLogger();
    const source: PendingSource = {
      listPending: () => src.listPending(),
      onLocalChange: () => () => {
        throw new Error('already gone');
      },
      subscribeRemote: () => Promise.reject(new Error('connection refused')),
    };
    const feed = createNoticeFeed(source, { logger, pollIntervalMs: 10, watchFiles: false });
    const stop = feed.subscribe(() => {});
    await until('the push failure to be logged', () => logger.entries.length > 0);
    expect(logger.entries[0]).toMatchObject({ level: 'error', message: 'notice feed: subscribing to server push failed; polling only', details: { error: 'connection refused' } });
    stop();
    expect(logger.entries.at(-1)).toMatchObject({ level: 'warn', message: 'notice feed: unsubscribing from the source failed', details: { error: 'already gone' } });
    feed.close();
  });

  it('subscribe refuses a listener that is no function, by name, and subscribes nothing', () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { logger: memoryLogger(), watchFiles: false });
    expect(() => feed.subscribe('listener' as never)).toThrow(new TypeError('subscribe: listener must be a function'));
    expect(src.listCalls).toBe(0);
    feed.close();
    expect(() => feed.subscribe(() => {})).toThrow('notice feed is closed');
  });

  it('R62 R70 the default file watcher never keeps the process alive; a source whose changeFiles throws still subscribes and polls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-feed-watch-'));
    try {
      const file = join(dir, 'state.db-wal');
      writeFileSync(file, 'x');
      const src = new FakeSource();
      const kept = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
      const before = kept();
      const watching = createNoticeFeed({ listPending: () => src.listPending(), changeToken: () => src.changeToken(), onLocalChange: (l) => src.onLocalChange(l), changeFiles: () => [file] }, { logger: memoryLogger(), pollIntervalMs: 3_600_000 });
      watching.subscribe(() => {});
      await until('the first read', () => src.listCalls > 0);
      expect(kept()).toBe(before);
      watching.close();

      const throwing = createNoticeFeed(
        {
          listPending: () => src.listPending(),
          changeToken: () => src.changeToken(),
          onLocalChange: (l) => src.onLocalChange(l),
          changeFiles: () => {
            throw new Error('no files yet');
          },
        },
        { logger: memoryLogger(), pollIntervalMs: 10 },
      );
      const got: NoticeSignal[] = [];
      expect(() => throwing.subscribe((s) => void got.push(s), { watcherSessionKey: A })).not.toThrow();
      src.commit([pendingPair(A, T, 7)]);
      await until('a signal by poll', () => got.length > 0);
      throwing.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R70 the default file watcher reads at once when a file the source names changes (the poll is an hour)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-feed-watch-'));
    try {
      const file = join(dir, 'state.db-wal');
      writeFileSync(file, 'x');
      const src = new FakeSource();
      const source: PendingSource = { listPending: () => src.listPending(), changeToken: () => src.changeToken(), onLocalChange: (l) => src.onLocalChange(l), changeFiles: () => [file] };
      const feed = createNoticeFeed(source, { logger: memoryLogger(), pollIntervalMs: 3_600_000 });
      const got: NoticeSignal[] = [];
      feed.subscribe((s) => void got.push(s), { watcherSessionKey: A });
      await until('the first read', () => src.listCalls > 0);
      await wait(50);
      src.commit([pendingPair(A, T, 1)]);
      writeFileSync(file, 'xy');
      await until('a signal by file event', () => got.length > 0);
      expect(got[0]!.changed).toEqual([pendingPair(A, T, 1)]);
      feed.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('delivery around failures', () => {
  const notice = (l: number): Notice => ({ watcherSessionKey: 'agent:main:main', targetSessionKey: T, targetAgentId: 'main', lastSeenSequence: l, contextKey: 'session-state:1:1', wake: 'immediate', text: 'news' });
  function fakeFeed() {
    let listener: ((s: NoticeSignal) => void) | undefined;
    const feed = { subscribe: (l: (s: NoticeSignal) => void) => ((listener = l), () => (listener = undefined)) } as unknown as NoticeFeed;
    return { feed, signal: () => listener?.({ watcherSessionKey: 'agent:main:main', changed: [pendingPair('agent:main:main', T, 1)] }) };
  }

  it('R67 an ack that fails is logged with the watcher and retried; a store that answers no list is an unexpected failure, logged', async () => {
    const logger = memoryLogger();
    const { feed, signal } = fakeFeed();
    let ackFails = true;
    const store = {
      pendingNotices: async () => [notice(1)],
      ackNotices: async (_w: string, page: Notice[]) => {
        if (ackFails) throw new Error('database is locked');
        return page;
      },
    };
    const delivered: Notice[][] = [];
    const d = startDelivery({ store: store as never, feed, logger, deliver: (_w, n) => void delivered.push(n), retryMs: 20, wake: { coalesceMs: 0 } });
    signal();
    await d.idle();
    expect(logger.entries[0]).toMatchObject({ level: 'error', message: 'notice delivery: ack failed; the notices stay pending and will be delivered again', details: { watcherSessionKey: 'agent:main:main', error: 'database is locked' } });
    ackFails = false;
    await until('the retry', () => delivered.length === 2);
    d.close();

    const broken = memoryLogger();
    const f2 = fakeFeed();
    const d2 = startDelivery({ store: { pendingNotices: async () => undefined, ackNotices: async () => [] } as never, feed: f2.feed, logger: broken, deliver: () => {} });
    f2.signal();
    await d2.idle();
    expect(broken.entries[0]).toMatchObject({ level: 'error', message: 'notice delivery: unexpected failure', details: { watcherSessionKey: 'agent:main:main' } });
    d2.close();
  });

  it('R67 a failed read and a failed deliver are logged with the watcher (and the page size)', async () => {
    const logger = memoryLogger();
    const { feed, signal } = fakeFeed();
    let readFails = true;
    const store = {
      pendingNotices: async () => {
        if (readFails) throw new Error('disk I/O error');
        return [notice(1), notice(2)];
      },
      ackNotices: async (_w: string, page: Notice[]) => page,
    };
    const d = startDelivery({
      store: store as never,
      feed,
      logger,
      deliver: () => {
        throw new Error('runtime busy');
      },
      retryMs: 10,
      wake: { coalesceMs: 0 },
    });
    signal();
    await d.idle();
    expect(logger.entries[0]).toMatchObject({ message: 'notice delivery: reading pending notices failed; retrying later', details: { watcherSessionKey: 'agent:main:main', error: 'disk I/O error' } });
    readFails = false;
    await until('a failed deliver', () => logger.entries.length >= 2);
    expect(logger.entries[1]).toMatchObject({ message: 'notice delivery: deliver failed; the notices stay pending and are retried', details: { watcherSessionKey: 'agent:main:main', notices: 2, error: 'runtime busy' } });
    d.close();
  });

  it('R64 notices that durable state says cannot wake the watcher are not delivered and not remembered; idle() waits for a delivery in flight; tracked counts watchers', async () => {
    const { feed, signal } = fakeFeed();
    const later = { ...notice(1), wake: 'next-turn' as const };
    const delivered: Notice[][] = [];
    const d = startDelivery({ store: { pendingNotices: async () => [later], ackNotices: async (_w: string, p: Notice[]) => p } as never, feed, logger: memoryLogger(), deliver: (_w, n) => void delivered.push(n) });
    signal();
    await d.idle();
    expect(delivered).toEqual([]);
    expect(d.tracked).toBe(0);
    d.close();

    const slow = fakeFeed();
    let finish!: () => void;
    const d2 = startDelivery({
      store: { pendingNotices: async () => [notice(1)], ackNotices: async (_w: string, p: Notice[]) => p } as never,
      feed: slow.feed,
      logger: memoryLogger(),
      deliver: () => new Promise<void>((r) => (finish = r)),
    });
    slow.signal();
    await wait(10);
    expect(d2.tracked).toBe(1);
    let idle = false;
    const waiting = d2.idle().then(() => (idle = true));
    await wait(10);
    expect(idle).toBe(false);
    finish();
    await waiting;
    expect(idle).toBe(true);
    expect(d2.tracked).toBe(0);
    d2.close();
  });
});
