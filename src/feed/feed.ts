import { watch as fsWatch } from 'node:fs';
import { changesBetween, snapshotPending, type PendingSnapshot } from '../core/index.js';
import { consoleLogger, errorDetails, guardedLogger, type Logger } from '../shared/logger.js';
import type { FeedPosition, PairChange, PendingPair, PendingRead, PendingReadRequest, PendingSource, WakeNews } from '../../spec/index.js';
import { Audience } from './fan-out.js';
import { NewsAhead } from './news.js';
import { signalIterable } from './signals.js';
import type { NoticeFeed, NoticeFeedOptions } from './types.js';

/**
 * The change feed (R60-R63, R68-R72). It tells listeners, in any process, when a watcher gains a
 * pending notice. Durable state is the only truth: a read asks the source what changed after the
 * position the previous read stood at (R68), so its cost follows the change, not everything
 * pending; a subscriber's first signals come from a snapshot read at the same position (R61). A
 * tick that is missed, a read that fails or a change that lands during a read is caught up by the
 * next read from the same position instead of being lost (R63). Reads are triggered by a changed
 * `changeToken()` (polled only while someone listens, and checked at once when a file the source
 * names changes, R70), by this handle's own commits (`onLocalChange`) and by server push
 * (`subscribeRemote`). This file is *when to read*; who hears what a read found is fan-out.ts,
 * and `signals()` is an adapter over `subscribe` (signals.ts).
 */

/** R62: how often a feed polls the source's change token by default while someone listens, in ms. */
export const DEFAULT_POLL_INTERVAL_MS = 200;
const MAX_POLL_INTERVAL_MS = 3_600_000;
/** R74: a feed that handed out news reads from its position within this many ms by default. */
export const DEFAULT_NEWS_CONFIRM_MS = 10_000;
/** R74: past this many pairs handed out from news and not yet seen by a read, a wake reads instead. */
const MAX_NEWS_AHEAD = 10_000;
/**
 * R70: after a file event with the token unmoved, look again this much later: a writer's WAL
 * frames land before it publishes the commit (SQLite's -shm index), so the first look can be early.
 */
const FILE_EVENT_RECHECKS_MS = [2, 10, 40] as const;
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
  const newsConfirmMs = options.newsConfirmMs ?? DEFAULT_NEWS_CONFIRM_MS;
  if (typeof newsConfirmMs !== 'number' || !Number.isSafeInteger(newsConfirmMs) || newsConfirmMs < 1 || newsConfirmMs > MAX_POLL_INTERVAL_MS) {
    throw new RangeError(`newsConfirmMs must be an integer from 1 to ${MAX_POLL_INTERVAL_MS}, got ${String(newsConfirmMs)}`);
  }
  const watchFile = options.watchFiles === undefined ? defaultFileWatcher : options.watchFiles;
  if (watchFile !== false && typeof watchFile !== 'function') throw new TypeError('createNoticeFeed: watchFiles must be a function or false');
  const logger = guardedLogger(options.logger ?? consoleLogger);
  const read: (request: PendingReadRequest) => Promise<PendingRead> =
    typeof source.readPending === 'function' ? async (request) => source.readPending!(request) : listingReader(source);
  /** Who hears what a read finds (fan-out.ts). */
  const audience = new Audience(logger);
  /** R74: pairs handed out from news that the position has not seen; only with a source that can tell. */
  const ahead = typeof source.wakeNews === 'function' && typeof source.positionCovers === 'function' ? new NewsAhead((p, m) => source.positionCovers!(p, m)) : undefined;
  /** R74: poll ticks since the last read while news waits for one; a read comes after newsConfirmMs. */
  let newsTicks = 0;
  const confirmTicks = Math.max(1, Math.ceil(newsConfirmMs / pollIntervalMs));
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
        // R61: the subscribers still waiting for their first signals are served by this read's
        // snapshot; R68: only the watchers listened to, while nobody hears every one.
        const { served, snapshot, watchers } = audience.nextRead();
        let result: PendingRead;
        try {
          result = await read({ ...(position === undefined ? {} : { since: position }), ...(snapshot === undefined ? {} : { snapshot }), ...(watchers === undefined ? {} : { watchers }) });
        } catch (error) {
          audience.unserve(served);
          mustRead = true;
          safeLog('error', 'notice feed: reading pending notices failed; retrying on the next tick', errorDetails(error));
          return;
        }
        if (gen !== generation) {
          audience.unserve(served);
          return; // stopped meanwhile
        }
        position = result.position;
        lastToken = token;
        mustRead = false;
        newsTicks = 0;
        audience.publishChanges(ahead ? ahead.settle(result.position, result.changes) : result.changes);
        audience.publishSnapshot(result.snapshot, served);
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
      else if (ahead !== undefined && ahead.size > 0 && ++newsTicks >= confirmTicks) await refresh(); // R74: news is confirmed by a read
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

  /**
   * R73: a server push that names the watchers its commit changed wakes a read only when one of
   * them is subscribed here (or a subscriber listens to every watcher). Skipping is safe: the
   * position stays where it was, so the next read still sees that commit's changes.
   */
  const remoteWake = (payload?: string) => {
    if (running && audience.hears(payload) && !handOutNews(payload)) void refresh();
  };

  /**
   * R74: a wake carrying its commit's news is handed out without a read, when the feed stands at
   * a position (a read has served everyone waiting for a snapshot), the source vouches for the
   * news, and the position has not seen that commit (if it has, the read already told). Anything
   * else: false, and the wake reads as R73 says.
   */
  const handOutNews = (payload: string | undefined): boolean => {
    if (payload === undefined || ahead === undefined || position === undefined || mustRead || audience.waiting || ahead.size >= MAX_NEWS_AHEAD) return false;
    let news: WakeNews | undefined;
    let covered: boolean;
    try {
      news = source.wakeNews!(payload);
      if (news === undefined) return false;
      covered = source.positionCovers!(position, news.mark) === true;
    } catch (error) {
      safeLog('warn', 'notice feed: reading the news a wake carries failed; reading instead', errorDetails(error));
      return false;
    }
    if (!covered) audience.publishChanges(ahead.take(news, (w) => audience.listensTo(w)));
    return true;
  };

  /** R75: a source that can narrow which wakes reach this feed. */
  const narrows = typeof source.remoteInterest === 'function';
  /** R75: what the source was last told this feed wants (undefined: no remote subscription yet). */
  let interest: { version: number; told: 'all' | ReadonlySet<string> } | undefined;
  let telling = false;

  /**
   * R75: tells the source what the subscribers now want, once per burst of subscribes (a process
   * subscribing 10,000 watchers in a loop tells once). When it wants more than before, a read
   * follows the source's answer: a commit before its LISTEN took effect woke nobody here.
   */
  const tellInterest = () => {
    if (!narrows || telling || !running || interest === undefined || interest.version === audience.interestVersion) return;
    telling = true;
    const gen = generation;
    void Promise.resolve()
      .then(async () => {
        while (running && gen === generation && interest !== undefined && interest.version !== audience.interestVersion) {
          const version = audience.interestVersion;
          const next = audience.interest();
          const before = interest.told;
          await source.remoteInterest!(remoteWake, next);
          if (gen !== generation) return;
          interest = { version, told: next === 'all' ? 'all' : new Set(next) };
          const widened = before !== 'all' && (next === 'all' || next.some((h) => !before.has(h)));
          if (widened) void refresh();
        }
      })
      .catch((error: unknown) => {
        // The source keeps its last interest; wakes the feed does not hear are read by R74's and R63's reads.
        safeLog('error', 'notice feed: telling the source which wakes to deliver failed', errorDetails(error));
      })
      .finally(() => {
        telling = false;
      });
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
      let version = -1;
      let told: 'all' | string[] = 'all';
      Promise.resolve()
        .then(() => {
          version = audience.interestVersion;
          told = audience.interest();
          return source.subscribeRemote!(remoteWake, told);
        })
        .then(
          (stop) => {
            if (gen !== generation) return stop();
            stopRemote = stop;
            if (!narrows) return;
            // R75: the connection may have begun listening for these watchers only now, after this
            // feed's first read: a commit between the two is in durable state, and this read sees it.
            interest = { version, told: told === 'all' ? 'all' : new Set(told) };
            void refresh();
            tellInterest();
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
    interest = undefined;
    // Nobody listens: the next subscriber starts from a fresh snapshot (R61), not from a stale position.
    position = undefined;
    lastToken = undefined;
    ahead?.clear();
  };

  const endIterators = new Set<() => void>();

  const subscribe: NoticeFeed['subscribe'] = (listener, subOptions = {}) => {
    if (closed) throw new Error('notice feed is closed');
    if (typeof listener !== 'function') throw new TypeError('subscribe: listener must be a function');
    const remove = audience.add(listener, subOptions.watcherSessionKey);
    if (!running) start();
    else {
      void refresh(); // R61: the newcomer's first signals come from a snapshot read
      tellInterest();
    }
    return () => {
      if (remove() && audience.size === 0 && running) stop();
      else tellInterest();
    };
  };

  const signals: NoticeFeed['signals'] = (iterOptions = {}) => signalIterable(subscribe, { closed: () => closed, ends: endIterators }, iterOptions);

  return {
    subscribe,
    signals,
    close() {
      if (closed) return;
      closed = true;
      for (const end of [...endIterators]) end();
      audience.clear();
      if (running) stop();
    },
  };
}
