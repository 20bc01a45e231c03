import { compareFeedPairs } from '../core/index.js';
import type { PendingPair } from '../../spec/index.js';
import type { KitAbortSignal } from '../shared/abort.js';
import type { NoticeFeed, NoticeSignal } from './types.js';

/**
 * `signals()`: a feed's signals as an async iterable, a thin adapter over `subscribe`. One
 * buffered signal per watcher, its news merged (a later listing of a pair wins): a slow consumer
 * loses no news, and the buffer is bounded by the watchers and their pairs.
 */
export function signalIterable(
  subscribe: NoticeFeed['subscribe'],
  life: { closed: () => boolean; ends: Set<() => void> },
  iterOptions: { watcherSessionKey?: string; signal?: KitAbortSignal },
): AsyncIterable<NoticeSignal> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<NoticeSignal> {
      // One buffered signal per watcher, its news merged (a later listing of a pair wins): a slow
      // consumer loses no news, and the buffer is bounded by the watchers and their pairs.
      const buffered = new Map<string, NoticeSignal>();
      // Callers of next() not yet answered, oldest first (for-await asks one at a time; others may not).
      const waiting: ((r: IteratorResult<NoticeSignal>) => void)[] = [];
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        unsubscribe?.();
        iterOptions.signal?.removeEventListener('abort', finish);
        life.ends.delete(finish);
        buffered.clear();
        for (const w of waiting.splice(0)) w({ value: undefined, done: true });
      };
      let unsubscribe: (() => void) | undefined;
      if (life.closed() || iterOptions.signal?.aborted) done = true;
      else {
        life.ends.add(finish);
        iterOptions.signal?.addEventListener('abort', finish, { once: true });
        unsubscribe = subscribe(
          (s) => {
            const w = waiting.shift();
            if (w) return w({ value: s, done: false });
            const before = buffered.get(s.watcherSessionKey);
            buffered.set(s.watcherSessionKey, before ? { watcherSessionKey: s.watcherSessionKey, changed: mergePairs(before.changed, s.changed) } : s);
          },
          iterOptions.watcherSessionKey === undefined ? {} : { watcherSessionKey: iterOptions.watcherSessionKey },
        );
      }
      return {
        next() {
          const first = buffered.entries().next();
          if (!first.done) {
            buffered.delete(first.value[0]);
            return Promise.resolve({ value: first.value[1], done: false });
          }
          if (done) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => void waiting.push(resolve));
        },
        return() {
          finish();
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}

/** Two signals' news for one watcher as one: a pair in both takes the later listing (its newer L or wake). */
function mergePairs(before: readonly PendingPair[], later: readonly PendingPair[]): PendingPair[] {
  const slot = (p: PendingPair) => `${p.targetAgentId}\u0000${p.targetSessionKey}`;
  const merged = new Map(before.map((p) => [slot(p), p]));
  for (const p of later) merged.set(slot(p), p);
  return [...merged.values()].sort(compareFeedPairs);
}
