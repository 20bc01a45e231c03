import { diffPending, snapshotPending, type PendingSnapshot } from '../core/index.js';
import { consoleLogger, errorDetails, guardedLogger, type Logger } from '../shared/logger.js';
import type { PendingPair, PendingSource } from './types.js';
import type { KitAbortSignal } from '../shared/abort.js';

/**
 * The change feed (issue 14, design D2; R60-R63). It tells listeners, in any process, when a
 * watcher gains a pending notice. Durable state is the only truth: every signal comes from a full
 * `listPending()` read, diffed (src/core/feed-diff) against the previous read, so a tick that is
 * missed, a read that fails, or a change that lands during a read is caught up by the next read
 * instead of being lost (R63). Reads are triggered by a changed `changeToken()` (polled only while
 * someone listens), by this handle's own commits (`onLocalChange`) and by server push
 * (`subscribeRemote`).
 */

export interface NoticeSignal {
  watcherSessionKey: string;
  pending: PendingPair[];
}

export interface NoticeFeed {
  /** listener is called when `watcherSessionKey` (or any watcher) gains a new pending notice
   * (a new pair or a new L); also once at subscribe for every already-pending watcher. */
  subscribe(listener: (s: NoticeSignal) => void, options?: { watcherSessionKey?: string }): () => void;
  signals(options?: { watcherSessionKey?: string; signal?: KitAbortSignal }): AsyncIterable<NoticeSignal>;
  close(): void;
}

export interface NoticeFeedOptions {
  /** How often `changeToken()` is polled while someone listens; default 200 ms. An integer 1..3,600,000. */
  pollIntervalMs?: number;
  /** Where read and listener failures go (they are never thrown into listeners); default the console. */
  logger?: Logger;
}

export const DEFAULT_POLL_INTERVAL_MS = 200;
const MAX_POLL_INTERVAL_MS = 3_600_000;

interface Subscriber {
  listener: (s: NoticeSignal) => void;
  watcherSessionKey: string | undefined;
  /** R61: waits for its first read, which signals it every already-pending watcher. */
  initial: boolean;
  /** Reads started before it subscribed; only a later one may answer its initial signal. */
  after: number;
}

/** R62: one read at a time; the timer is a chain of unref'd timeouts, never a loop that spins. */
export function createNoticeFeed(source: PendingSource, options: NoticeFeedOptions = {}): NoticeFeed {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  if (typeof pollIntervalMs !== 'number' || !Number.isSafeInteger(pollIntervalMs) || pollIntervalMs < 1 || pollIntervalMs > MAX_POLL_INTERVAL_MS) {
    throw new RangeError(`pollIntervalMs must be an integer from 1 to ${MAX_POLL_INTERVAL_MS}, got ${String(pollIntervalMs)}`);
  }
  if (!source || typeof source.listPending !== 'function' || typeof source.onLocalChange !== 'function') {
    throw new TypeError('createNoticeFeed: source must implement PendingSource (listPending, onLocalChange)');
  }
  const logger = guardedLogger(options.logger ?? consoleLogger);
  const subscribers = new Set<Subscriber>();
  let snapshot: PendingSnapshot<PendingPair> | undefined;
  let lastToken: number | string | undefined;
  /** Set when a read failed, or before the first read: the next tick reads whatever the token says. */
  let mustRead = true;
  let reading = false;
  let readsStarted = 0;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopLocal: (() => void) | undefined;
  let stopRemote: (() => void) | undefined;
  let running = false;
  let generation = 0;
  let closed = false;

  // A throwing logger must not break the feed either (best effort, R9).
  const safeLog = (level: 'warn' | 'error', message: string, details: Record<string, unknown>) => logger[level](message, details);

  const emit = (sub: Subscriber, signal: NoticeSignal) => {
    try {
      sub.listener(signal);
    } catch (error) {
      safeLog('error', 'notice feed: a listener threw', { watcherSessionKey: signal.watcherSessionKey, ...errorDetails(error) });
    }
  };

  const publish = (next: PendingSnapshot<PendingPair>, changed: readonly string[], readId: number) => {
    const copy = (w: string): NoticeSignal => ({ watcherSessionKey: w, pending: (next.get(w) ?? []).map((p) => ({ ...p })) });
    const everyone = diffPending(undefined, next);
    for (const sub of [...subscribers]) {
      if (!subscribers.has(sub)) continue; // unsubscribed by an earlier listener of this round
      // A read that began before this subscriber came may predate what it must hear of (R61): it
      // waits for the read its subscription asked for, which shows it everything pending.
      if (sub.initial && readId <= sub.after) continue;
      const watchers = sub.initial ? everyone : changed;
      sub.initial = false;
      for (const w of watchers) if (sub.watcherSessionKey === undefined || sub.watcherSessionKey === w) emit(sub, copy(w));
    }
  };

  /** R63: reads until no change arrived during the read; a failure keeps the old snapshot and retries next tick. */
  const refresh = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const gen = generation;
    try {
      do {
        again = false;
        const readId = ++readsStarted;
        // The token first: a commit between the two reads then shows as a changed token next tick.
        let token: number | string | undefined;
        try {
          token = source.changeToken ? await source.changeToken() : undefined;
        } catch (error) {
          // Read anyway: an unknown token only makes the next tick read once more.
          safeLog('error', 'notice feed: reading the change token failed; retrying on the next tick', errorDetails(error));
        }
        try {
          const pairs = await source.listPending();
          if (gen !== generation) return; // stopped meanwhile
          const next = snapshotPending(pairs);
          const changed = diffPending(snapshot, next);
          snapshot = next;
          lastToken = token;
          mustRead = false;
          publish(next, changed, readId);
        } catch (error) {
          mustRead = true;
          safeLog('error', 'notice feed: reading pending notices failed; retrying on the next tick', errorDetails(error));
          return;
        }
      } while (again && gen === generation);
    } finally {
      reading = false;
      // Stopped and restarted during the read: the new run's first read was folded into this one.
      if (running && gen !== generation) void refresh();
    }
  };

  const tick = async (): Promise<void> => {
    timer = undefined;
    const gen = generation;
    try {
      if (mustRead) {
        await refresh();
      } else if (source.changeToken) {
        let token: number | string | undefined;
        try {
          token = await source.changeToken();
        } catch (error) {
          mustRead = true;
          safeLog('error', 'notice feed: reading the change token failed; retrying on the next tick', errorDetails(error));
        }
        if (token !== undefined && token !== lastToken && gen === generation) await refresh();
      }
    } finally {
      if (gen === generation && running && timer === undefined) schedule();
    }
  };

  const schedule = () => {
    timer = setTimeout(() => void tick(), pollIntervalMs);
    // The feed never keeps a process alive on its own.
    (timer as { unref?: () => void }).unref?.();
  };

  const wakeUp = () => {
    if (running) void refresh();
  };

  const start = () => {
    running = true;
    generation++;
    mustRead = true;
    try {
      stopLocal = source.onLocalChange(wakeUp);
    } catch (error) {
      safeLog('error', 'notice feed: onLocalChange failed; local commits are seen on the next tick', errorDetails(error));
    }
    if (source.subscribeRemote) {
      const gen = generation;
      Promise.resolve()
        .then(() => source.subscribeRemote!(wakeUp))
        .then(
          (stop) => {
            if (gen === generation) stopRemote = stop;
            else stop();
          },
          (error: unknown) => safeLog('error', 'notice feed: subscribing to server push failed; polling only', errorDetails(error)),
        );
    }
    schedule();
    void refresh();
  };

  const stop = () => {
    running = false;
    generation++;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    for (const f of [stopLocal, stopRemote]) {
      try {
        f?.();
      } catch (error) {
        safeLog('warn', 'notice feed: unsubscribing from the source failed', errorDetails(error));
      }
    }
    stopLocal = stopRemote = undefined;
    // Nobody listens: the next subscriber starts from a fresh read (R61), not from a stale snapshot.
    snapshot = undefined;
    lastToken = undefined;
  };

  const endIterators = new Set<() => void>();

  const subscribe: NoticeFeed['subscribe'] = (listener, subOptions = {}) => {
    if (closed) throw new Error('notice feed is closed');
    if (typeof listener !== 'function') throw new TypeError('subscribe: listener must be a function');
    const sub: Subscriber = { listener, watcherSessionKey: subOptions.watcherSessionKey, initial: true, after: readsStarted };
    subscribers.add(sub);
    if (!running) start();
    else void refresh(); // R61: the newcomer's initial signals come from a fresh read
    return () => {
      if (!subscribers.delete(sub)) return;
      if (subscribers.size === 0 && running) stop();
    };
  };

  const signals: NoticeFeed['signals'] = (iterOptions = {}) => ({
    [Symbol.asyncIterator](): AsyncIterator<NoticeSignal> {
      // Latest signal per watcher: a slow consumer sees each watcher's current pending set once,
      // and the buffer is bounded by the number of watchers.
      const buffered = new Map<string, NoticeSignal>();
      // Callers of next() not yet answered, oldest first (for-await asks one at a time; others may not).
      const waiting: ((r: IteratorResult<NoticeSignal>) => void)[] = [];
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        unsubscribe?.();
        iterOptions.signal?.removeEventListener('abort', finish);
        endIterators.delete(finish);
        buffered.clear();
        for (const w of waiting.splice(0)) w({ value: undefined, done: true });
      };
      let unsubscribe: (() => void) | undefined;
      if (closed || iterOptions.signal?.aborted) done = true;
      else {
        endIterators.add(finish);
        iterOptions.signal?.addEventListener('abort', finish, { once: true });
        unsubscribe = subscribe(
          (s) => {
            const w = waiting.shift();
            if (w) w({ value: s, done: false });
            else {
              buffered.delete(s.watcherSessionKey);
              buffered.set(s.watcherSessionKey, s);
            }
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
  });

  return {
    subscribe,
    signals,
    close() {
      if (closed) return;
      closed = true;
      for (const end of [...endIterators]) end();
      subscribers.clear();
      if (running) stop();
    },
  };
}
