/**
 * R62, R63 over a feed's life: a feed stopped during a read reads nothing after it, even with a
 * change owed; one restarted during a read serves its newcomer at once (not at the next poll); a
 * closed feed reads nothing on a source that cannot take its listeners back; and a server-push
 * subscription that lands after the feed stopped is handed back, not kept.
 */
import { describe, expect, it, vi } from 'vitest';
import { createNoticeFeed, type NoticeSignal, type PendingSource } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, fakeTimersEachTest, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const T = 'agent:main:target';

const settle = fakeTimersEachTest();

describe('a feed over its life', () => {
  for (const how of ['by its last subscriber leaving during the read', 'by its own listener, from the read\'s signal'] as const) {
    it(`R63 stopped ${how} while another read is owed, it reads nothing after the stop`, async () => {
      const src = new FakeSource();
      const feed = createNoticeFeed(src, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
      let stop: () => void = () => {};
      const byListener = how.startsWith('by its own listener');
      stop = feed.subscribe(() => (byListener ? stop() : undefined), { watcherSessionKey: A });
      await settle();
      let open!: () => void;
      src.gate = new Promise((r) => (open = r));
      src.commitLocal([pendingPair(A, T, 1)]); // a read starts and blocks
      await settle();
      src.commitLocal([pendingPair(A, T, 2)]); // a change during it: another read is owed
      const reads = src.listCalls;
      if (!byListener) stop(); // the last subscriber leaves: the feed stops
      src.gate = undefined;
      open();
      await settle();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(src.listCalls).toBe(reads);
      feed.close();
    });
  }

  it('R61 restarted during a read, its newcomer is served at once, not at the next poll', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    const stop = feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    let open!: () => void;
    src.gate = new Promise((r) => (open = r));
    src.commitLocal([pendingPair(A, T, 1)]); // a read starts and blocks
    await settle();
    stop();
    const got: NoticeSignal[] = [];
    feed.subscribe((s) => void got.push(s), { watcherSessionKey: A }); // a new run, while the old read is in flight
    src.gate = undefined;
    open();
    await settle();
    await settle();
    expect(got.map((s) => s.changed)).toEqual([[pendingPair(A, T, 1)]]);
    feed.close();
  });

  it('R62 a closed feed reads nothing, even on a source whose local-change listener cannot be taken back', async () => {
    const src = new FakeSource();
    const fire = new Set<() => void>();
    const sticky: PendingSource = {
      listPending: () => src.listPending(),
      changeToken: () => src.changeToken(),
      onLocalChange: (l) => {
        fire.add(l);
        return () => {}; // never removes it
      },
    };
    const feed = createNoticeFeed(sticky, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    feed.close();
    const reads = src.listCalls;
    for (const l of fire) l();
    await settle();
    expect(src.listCalls).toBe(reads);
  });

  it('R62 a server-push subscription that lands after the feed stopped is handed back at once', async () => {
    const src = new FakeSource();
    let land!: () => void;
    const listeners = new Set<unknown>();
    const slow: PendingSource = {
      listPending: () => src.listPending(),
      onLocalChange: (l) => src.onLocalChange(l),
      subscribeRemote: async (l) => {
        await new Promise<void>((r) => (land = r));
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    const feed = createNoticeFeed(slow, { logger: memoryLogger(), pollIntervalMs: 3_600_000, watchFiles: false });
    const stop = feed.subscribe(() => {}, { watcherSessionKey: A });
    await settle();
    stop(); // stopped before the subscription lands
    land();
    await settle();
    expect(listeners.size).toBe(0);
    feed.close();
  });
});
