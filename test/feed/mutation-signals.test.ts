/**
 * `signals()` by exact results: a buffered signal comes back as a value (not the end), `return()`
 * answers the end and leaves the iterator ended, and an abort signal's listener is removed when
 * the iterator ends another way.
 */
import { describe, expect, it } from 'vitest';
import { createNoticeFeed, type NoticeSignal } from '../../src/feed/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { FakeSource, pendingPair } from './fake-source.js';

const A = 'agent:main:a';
const T = 'agent:main:target';

const tick = () => new Promise((r) => setTimeout(r, 5));

/** Whether a promise settles within a few macrotasks; the mutant that never ends would hang. */
async function settlesSoon<T>(p: Promise<T>): Promise<{ settled: true; value: T } | { settled: false }> {
  const timeout = new Promise<{ settled: false }>((r) => setTimeout(() => r({ settled: false }), 50));
  return Promise.race([p.then((value) => ({ settled: true as const, value })), timeout]);
}

describe('signals() by exact results', () => {
  it('a buffered signal is a value, not the end; return() answers the end, and next() after it too', async () => {
    const src = new FakeSource();
    src.pairs = [pendingPair(A, T, 1)];
    const feed = createNoticeFeed(src, { logger: memoryLogger(), pollIntervalMs: 10 });
    const it = feed.signals({ watcherSessionKey: A })[Symbol.asyncIterator]();
    await tick(); // the snapshot's signal arrives while nobody waits: buffered
    await tick();
    const first = await it.next();
    expect(first).toEqual({ value: { watcherSessionKey: A, changed: [pendingPair(A, T, 1)] }, done: false } satisfies IteratorResult<NoticeSignal>);
    expect(await it.return!()).toEqual({ value: undefined, done: true });
    expect(await settlesSoon(it.next())).toEqual({ settled: true, value: { value: undefined, done: true } });
    feed.close();
  });

  it('an iterator ended by return() takes its listener off the abort signal it was given', async () => {
    const src = new FakeSource();
    const feed = createNoticeFeed(src, { logger: memoryLogger(), pollIntervalMs: 10 });
    const listeners = new Map<string, Set<unknown>>();
    const signal = {
      aborted: false,
      addEventListener: (type: string, fn: unknown) => void (listeners.get(type) ?? listeners.set(type, new Set()).get(type)!).add(fn),
      removeEventListener: (type: string, fn: unknown) => void listeners.get(type)?.delete(fn),
    };
    const it = feed.signals({ signal: signal as never })[Symbol.asyncIterator]();
    expect(listeners.get('abort')?.size).toBe(1);
    await it.return!();
    expect(listeners.get('abort')?.size).toBe(0);
    feed.close();
  });
});
