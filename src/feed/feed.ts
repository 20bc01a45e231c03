import { watch as fsWatch } from 'node:fs';
import { changesBetween, compareFeedPairs, newsByWatcher, parseRoutePayload, snapshotPending, watcherRouteHash, type PendingSnapshot } from '../core/index.js';
import { consoleLogger, errorDetails, guardedLogger, type Logger } from '../shared/logger.js';
import type { FeedPosition, PairChange, PendingPair, PendingRead, PendingReadRequest, PendingSource } from './types.js';
import type { KitAbortSignal } from '../shared/abort.js';

/**
 * The change feed (R60-R63, R68-R72). It tells listeners, in any process, when a watcher gains a
 * pending notice. Durable state is the only truth: a read asks the source what changed after the
 * position the previous read stood at (R68), so its cost follows the change, not everything
 * pending; a subscriber's first signals come from a snapshot read at the same position (R61). A
 * tick that is missed, a read that fails or a change that lands during a read is caught up by the
 * next read from the same position instead of being lost (R63). Reads are triggered by a changed
 * `changeToken()` (polled only while someone listens, and checked at once when a file the source
 * names changes, R70), by this handle's own commits (`onLocalChange`) and by server push
 * (`subscribeRemote`).
 */

export interface NoticeSignal {
  watcherSessionKey: string;
  /**
   * R60: the watcher's pairs that are news in this signal (newly pending, quoting another L, or
   * woken), in R26 order. At a subscriber's first signal for a watcher (R61): every pending pair
   * of the watcher. Never empty. The watcher's whole pending set is `pendingNotices`.
   */
  changed: PendingPair[];
}

/** R60-R63: the change feed: tells listeners, in any process, when a watcher gains a pending notice. */
export interface NoticeFeed {
  /** listener is called when `watcherSessionKey` (or any watcher) gains a new pending notice
   * (a new pair or a new L); also once at subscribe for every already-pending watcher. */
  subscribe(listener: (s: NoticeSignal) => void, options?: { watcherSessionKey?: string }): () => void;
  /** The same signals as an async iterable (optionally for one watcher); a slow consumer loses no news (buffered per watcher); it ends when `signal` aborts or the feed closes. */
  signals(options?: { watcherSessionKey?: string; signal?: KitAbortSignal }): AsyncIterable<NoticeSignal>;
  /** Stops the feed: polling and file watching stop, subscribers are dropped and `signals` iterators end. */
  close(): void;
}

/**
 * Watches one file; calls `onChange` on every event (`'rename'` when the file went away or was
 * replaced: the feed then watches the path again at its next poll); returns its stop. Throws when
 * the file cannot be watched.
 */
export type FileWatcher = (path: string, onChange: (event: 'change' | 'rename') => void) => () => void;

/** R62, R70: options of a notice feed: poll interval, logger and how files are watched. */
export interface NoticeFeedOptions {
  /** How often `changeToken()` is polled while someone listens; default 200 ms. An integer 1..3,600,000. */
  pollIntervalMs?: number;
  /** Where read and listener failures go (they are never thrown into listeners); default the console. */
  logger?: Logger;
  /**
   * R70: how the feed watches the files a source names (`changeFiles`); default fs.watch. `false`:
   * never, poll only (for file systems whose change events are unreliable, e.g. network mounts).
   */
  watchFiles?: FileWatcher | false;
}

/** R62: how often a feed polls the source's change token by default while someone listens, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 200;
const MAX_POLL_INTERVAL_MS = 3_600_000;
/**
 * R70: after a file event with the token unmoved, look again this much later: a writer's WAL
 * frames land before it publishes the commit (SQLite's -shm index), so the first look can be early.
 */
const FILE_EVENT_RECHECKS_MS = [2, 10, 40] as const;
/**
 * R73: every feed on one connection hears the same payload of a commit, one after another: the
 * last one parsed is kept, so a process parses each payload once, not once per feed.
 */
let lastPayload: string | undefined;
let lastRoute: ReadonlySet<string> | 'everyone' = 'everyone';
function routeOf(payload: string | undefined): ReadonlySet<string> | 'everyone' {
  if (payload === undefined) return 'everyone';
  if (payload !== lastPayload) {
    lastRoute = parseRoutePayload(payload);
    lastPayload = payload;
  }
  return lastRoute;
}

/** R68: past this many watchers a read asks for every watcher's changes rather than send the list each time. */
const MAX_WATCHERS_ASKED = 256;

interface Subscriber {
  listener: (s: NoticeSignal) => void;
  watcherSessionKey: string | undefined;
  /** R61: waits for the read that serves its first signals from a snapshot. */
  fresh: boolean;
  /** Set while a read carries its snapshot; a read that fails leaves it fresh. */
  serving: boolean;
}

function defaultFileWatcher(path: string, onChange: (event: 'change' | 'rename') => void): () => void {
  const w = fsWatch(path, { persistent: false }, (event) => onChange(event === 'rename' ? 'rename' : 'change'));
  // A watched file that vanishes (a WAL deleted by the last connection's close) is watched again at the next poll.
  w.on('error', () => w.close());
  return () => w.close();
}

/** R68 for a source that can only list everything pending: the old full read, diffed against the previous one. */
function listingReader(source: PendingSource): (request: PendingReadRequest) => Promise<PendingRead> {
  let previous: PendingSnapshot<PendingPair> | undefined;
  let reads = 0;
  return async (request) => {
    const next = snapshotPending(await source.listPending!());
    const changes: PairChange[] = request.since === undefined ? [] : changesBetween(previous, next);
    previous = next;
    const wanted = request.snapshot;
    const snapshot: PendingPair[] = [];
    if (wanted === 'all') for (const pairs of next.values()) snapshot.push(...pairs);
    else if (wanted) for (const w of new Set(wanted)) snapshot.push(...(next.get(w) ?? []));
    return { position: String(++reads), changes, snapshot };
  };
}

/** R62: one read at a time; the timer is a chain of unref'd timeouts, never a loop that spins. */
export function createNoticeFeed(source: PendingSource, options: NoticeFeedOptions = {}): NoticeFeed {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  if (typeof pollIntervalMs !== 'number' || !Number.isSafeInteger(pollIntervalMs) || pollIntervalMs < 1 || pollIntervalMs > MAX_POLL_INTERVAL_MS) {
    throw new RangeError(`pollIntervalMs must be an integer from 1 to ${MAX_POLL_INTERVAL_MS}, got ${String(pollIntervalMs)}`);
  }
  if (!source || (typeof source.readPending !== 'function' && typeof source.listPending !== 'function') || typeof source.onLocalChange !== 'function') {
    throw new TypeError('createNoticeFeed: source must implement PendingSource (readPending or listPending, and onLocalChange)');
  }
  const watchFile = options.watchFiles === undefined ? defaultFileWatcher : options.watchFiles;
  if (watchFile !== false && typeof watchFile !== 'function') throw new TypeError('createNoticeFeed: watchFiles must be a function or false');
  const logger = guardedLogger(options.logger ?? consoleLogger);
  const read: (request: PendingReadRequest) => Promise<PendingRead> =
    typeof source.readPending === 'function' ? async (request) => source.readPending!(request) : listingReader(source);
  const subscribers = new Set<Subscriber>();
  /** Subscribers that hear of every watcher, and those of one watcher each: a signal costs its listeners, not every subscriber. */
  const everyone = new Set<Subscriber>();
  const byWatcher = new Map<string, Set<Subscriber>>();
  /** Subscribers still waiting for their snapshot (R61): a read looks at these, not at every subscriber. */
  const awaitingSnapshot = new Set<Subscriber>();
  /** Where the last successful read stood (R68); undefined before the first. */
  let position: FeedPosition | undefined;
  let lastToken: number | string | undefined;
  /** Set when a read failed, or before the first read: the next tick reads whatever the token says. */
  let mustRead = true;
  let reading = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopLocal: (() => void) | undefined;
  let stopRemote: (() => void) | undefined;
  const fileStops = new Map<string, () => void>();
  const recheckTimers = new Set<ReturnType<typeof setTimeout>>();
  let running = false;
  let generation = 0;
  let closed = false;

  // A throwing logger must not break the feed either (best effort, R9).
  const safeLog = (level: 'warn' | 'error', message: string, details: Record<string, unknown>) => logger[level](message, details);

  const emit = (sub: Subscriber, watcherSessionKey: string, pairs: readonly PendingPair[]) => {
    try {
      // A copy per listener: what one listener does with its signal never reaches another.
      sub.listener({ watcherSessionKey, changed: pairs.map((p) => ({ ...p })) });
    } catch (error) {
      safeLog('error', 'notice feed: a listener threw', { watcherSessionKey, ...errorDetails(error) });
    }
  };

  /** R60: each watcher's news to its established listeners (a fresh one waits for its snapshot). */
  const publishChanges = (changes: readonly PairChange[]) => {
    if (changes.length === 0) return;
    for (const [watcher, news] of newsByWatcher(changes)) {
      const pairs: PendingPair[] = news.map(({ pending: _pending, ...pair }) => pair);
      for (const sub of [...everyone, ...(byWatcher.get(watcher) ?? [])]) {
        if (!sub.fresh && subscribers.has(sub)) emit(sub, watcher, pairs);
      }
    }
  };

  /** R61: a served subscriber's first signals, one per watcher it listens to with something pending. */
  const publishSnapshot = (snapshot: readonly PendingPair[], served: readonly Subscriber[]) => {
    const grouped = served.length > 0 ? snapshotPending(snapshot) : new Map<string, readonly PendingPair[]>();
    const watchers = [...grouped.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const sub of served) {
      sub.serving = false;
      if (!subscribers.has(sub)) continue; // unsubscribed during the read
      sub.fresh = false;
      awaitingSnapshot.delete(sub);
      for (const w of sub.watcherSessionKey === undefined ? watchers : [sub.watcherSessionKey]) {
        const pairs = grouped.get(w);
        if (pairs && pairs.length > 0) emit(sub, w, [...pairs].sort(compareFeedPairs));
      }
    }
  };

  /** R63: reads until no change arrived during the read; a failure keeps the position and retries next tick. */
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
        // The token first: a commit between the two reads then shows as a changed token next tick.
        let token: number | string | undefined;
        try {
          token = source.changeToken ? await source.changeToken() : undefined;
        } catch (error) {
          // Read anyway: an unknown token only makes the next tick read once more.
          safeLog('error', 'notice feed: reading the change token failed; retrying on the next tick', errorDetails(error));
        }
        // R61: the subscribers still waiting for their first signals are served by this read's snapshot.
        const served = [...awaitingSnapshot].filter((s) => !s.serving);
        for (const s of served) s.serving = true;
        const snapshot: PendingReadRequest['snapshot'] = served.some((s) => s.watcherSessionKey === undefined)
          ? 'all'
          : served.length > 0
            ? [...new Set(served.map((s) => s.watcherSessionKey!))]
            : undefined;
        let result: PendingRead;
        try {
          // R68: a feed none of whose subscribers hears every watcher asks only for its watchers'
          // changes (a fleet's replica reads its own pairs, not every commit's), up to a list
          // short enough to send with every read.
          const only = everyone.size === 0 && byWatcher.size <= MAX_WATCHERS_ASKED ? [...byWatcher.keys()] : undefined;
          result = await read({ ...(position === undefined ? {} : { since: position }), ...(snapshot === undefined ? {} : { snapshot }), ...(only === undefined ? {} : { watchers: only }) });
        } catch (error) {
          for (const s of served) s.serving = false;
          mustRead = true;
          safeLog('error', 'notice feed: reading pending notices failed; retrying on the next tick', errorDetails(error));
          return;
        }
        if (gen !== generation) {
          for (const s of served) s.serving = false;
          return; // stopped meanwhile
        }
        position = result.position;
        lastToken = token;
        mustRead = false;
        publishChanges(result.changes);
        publishSnapshot(result.snapshot, served);
      } while (again && gen === generation);
    } finally {
      reading = false;
      // Stopped and restarted during the read: the new run's first read was folded into this one.
      if (running && gen !== generation) void refresh();
    }
  };

  /** Reads when the token moved (another connection committed); returns whether it did. */
  const checkToken = async (gen: number): Promise<boolean> => {
    if (!source.changeToken) return false;
    let token: number | string | undefined;
    try {
      token = await source.changeToken();
    } catch (error) {
      mustRead = true;
      safeLog('error', 'notice feed: reading the change token failed; retrying on the next tick', errorDetails(error));
      return false;
    }
    if (token === undefined || token === lastToken || gen !== generation) return false;
    await refresh();
    return true;
  };

  const tick = async (): Promise<void> => {
    timer = undefined;
    const gen = generation;
    try {
      armFiles();
      if (mustRead) await refresh();
      else await checkToken(gen);
    } finally {
      if (gen === generation && running && timer === undefined) schedule();
    }
  };

  const schedule = () => {
    timer = setTimeout(() => void tick(), pollIntervalMs);
    // The feed never keeps a process alive on its own.
    (timer as { unref?: () => void }).unref?.();
  };

  /** R70: a file event: look at the token now, and a little later while it has not moved. */
  const onFileEvent = () => {
    if (!running) return;
    const gen = generation;
    void checkToken(gen).then((moved) => {
      if (moved) return;
      for (const ms of FILE_EVENT_RECHECKS_MS) {
        const t = setTimeout(() => {
          recheckTimers.delete(t);
          if (running && gen === generation) void checkToken(gen);
        }, ms);
        (t as { unref?: () => void }).unref?.();
        recheckTimers.add(t);
      }
    });
  };

  /** R70: watches the source's files not yet watched; one that cannot be watched now is tried again next tick. */
  const armFiles = () => {
    if (!running || watchFile === false || !source.changeFiles) return;
    let files: readonly string[];
    try {
      files = source.changeFiles();
    } catch {
      return;
    }
    for (const path of files) {
      if (fileStops.has(path)) continue;
      try {
        let stop: (() => void) | undefined;
        stop = watchFile(path, (event) => {
          if (event === 'rename') {
            // The file went away (a WAL removed by the last connection's close) or was replaced:
            // this watch follows the old file, so drop it; the next poll watches the path again.
            fileStops.delete(path);
            try {
              stop?.();
            } catch {
              // already closed
            }
          }
          onFileEvent();
        });
        fileStops.set(path, () => stop?.());
      } catch {
        // Not there yet (a WAL appears with the first write) or not watchable here: the poll covers it.
      }
    }
  };

  const disarmFiles = () => {
    for (const stop of fileStops.values()) {
      try {
        stop();
      } catch {
        // already gone
      }
    }
    fileStops.clear();
    for (const t of recheckTimers) clearTimeout(t);
    recheckTimers.clear();
  };

  const wakeUp = () => {
    if (running) void refresh();
  };

  /** R73: the routing hashes of the watchers subscribed by key, and how many of those watchers share each. */
  const routeHashes = new Map<string, string>();
  const hashWatchers = new Map<string, number>();
  const addRoute = (watcher: string) => {
    const h = watcherRouteHash(watcher);
    routeHashes.set(watcher, h);
    hashWatchers.set(h, (hashWatchers.get(h) ?? 0) + 1);
  };
  const dropRoute = (watcher: string) => {
    const h = routeHashes.get(watcher);
    if (h === undefined) return;
    routeHashes.delete(watcher);
    const n = (hashWatchers.get(h) ?? 1) - 1;
    if (n > 0) hashWatchers.set(h, n);
    else hashWatchers.delete(h);
  };

  /**
   * R73: a server push that names the watchers its commit changed wakes a read only when one of
   * them is subscribed here (or a subscriber listens to every watcher). Skipping is safe: the
   * position stays where it was, so the next read still sees that commit's changes.
   */
  const remoteWake = (payload?: string) => {
    if (!running) return;
    const named = routeOf(payload);
    if (named !== 'everyone' && everyone.size === 0) {
      let touched = false;
      for (const h of named) {
        if (hashWatchers.has(h)) {
          touched = true;
          break;
        }
      }
      if (!touched) return;
    }
    void refresh();
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
        .then(() => source.subscribeRemote!(remoteWake))
        .then(
          (stop) => {
            if (gen === generation) stopRemote = stop;
            else stop();
          },
          (error: unknown) => safeLog('error', 'notice feed: subscribing to server push failed; polling only', errorDetails(error)),
        );
    }
    armFiles();
    schedule();
    void refresh();
  };

  const stop = () => {
    running = false;
    generation++;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    disarmFiles();
    for (const f of [stopLocal, stopRemote]) {
      try {
        f?.();
      } catch (error) {
        safeLog('warn', 'notice feed: unsubscribing from the source failed', errorDetails(error));
      }
    }
    stopLocal = stopRemote = undefined;
    // Nobody listens: the next subscriber starts from a fresh snapshot (R61), not from a stale position.
    position = undefined;
    lastToken = undefined;
  };

  const endIterators = new Set<() => void>();

  const subscribe: NoticeFeed['subscribe'] = (listener, subOptions = {}) => {
    if (closed) throw new Error('notice feed is closed');
    if (typeof listener !== 'function') throw new TypeError('subscribe: listener must be a function');
    const watcher = subOptions.watcherSessionKey;
    const sub: Subscriber = { listener, watcherSessionKey: watcher, fresh: true, serving: false };
    subscribers.add(sub);
    awaitingSnapshot.add(sub);
    if (watcher === undefined) everyone.add(sub);
    else {
      let set = byWatcher.get(watcher);
      if (!set) {
        byWatcher.set(watcher, (set = new Set()));
        addRoute(watcher);
      }
      set.add(sub);
    }
    if (!running) start();
    else void refresh(); // R61: the newcomer's first signals come from a snapshot read
    return () => {
      if (!subscribers.delete(sub)) return;
      awaitingSnapshot.delete(sub);
      if (watcher === undefined) everyone.delete(sub);
      else {
        const set = byWatcher.get(watcher);
        set?.delete(sub);
        if (set?.size === 0) {
          byWatcher.delete(watcher);
          dropRoute(watcher);
        }
      }
      if (subscribers.size === 0 && running) stop();
    };
  };

  const signals: NoticeFeed['signals'] = (iterOptions = {}) => ({
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
  });

  return {
    subscribe,
    signals,
    close() {
      if (closed) return;
      closed = true;
      for (const end of [...endIterators]) end();
      subscribers.clear();
      awaitingSnapshot.clear();
      everyone.clear();
      byWatcher.clear();
      if (running) stop();
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
