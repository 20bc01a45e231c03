import type { KitAbortSignal } from '../shared/abort.js';
import type { Logger } from '../shared/logger.js';
import type { PendingPair } from '../../spec/index.js';

/**
 * The feed's types: what it offers (NoticeFeed, NoticeSignal, its options), and its source
 * contract, as `session-state-kit/feed` has always exported it; the contract is declared once,
 * beside the store contract (spec/schemas/feed-source.ts), so the stores implement it without
 * importing the feed.
 */
export type { FeedPosition, PairChange, PendingPair, PendingRead, PendingReadRequest, PendingSource, PendingWatchersPageRequest, StorePendingSource, WakeInterest, WakeNews } from '../../spec/index.js';

/** R60: one signal: a watcher and its pairs that are news. */
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

/** R62, R70, R74: options of a notice feed: poll interval, news confirmation, logger and how files are watched. */
export interface NoticeFeedOptions {
  /** How often `changeToken()` is polled while someone listens; default 200 ms. An integer 1..3,600,000. */
  pollIntervalMs?: number;
  /**
   * R74: after handing out news a wake carried, read from the position within this many ms (the
   * poll's ticks count it), so news a lost wake never brought is found; default 10,000. An integer 1..3,600,000.
   */
  newsConfirmMs?: number;
  /** Where read and listener failures go (they are never thrown into listeners); default the console. */
  logger?: Logger;
  /**
   * R70: how the feed watches the files a source names (`changeFiles`); default fs.watch. `false`:
   * never, poll only (for file systems whose change events are unreliable, e.g. network mounts).
   */
  watchFiles?: FileWatcher | false;
}
