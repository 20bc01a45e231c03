import type { MaybePromise } from './contract.js';

/**
 * The store side of the change feed (R60-R63, R68-R72): what a feed (src/feed) needs from a store
 * to tell watchers, in any process, that they have notices. Beside the store contract
 * (contract.ts), not part of it; the memory, SQLite and PostgreSQL stores implement it, and the
 * core's feed rules (core/feed-diff.ts) work on its pairs.
 */
export interface PendingPair {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
  lastSeenSequence: number;
  wake: 'immediate' | 'next-turn';
}

/**
 * R68: a pair whose notice changed after a read position: it became pending, quotes another L
 * (acked with a follow-up, R28), was woken (an ambient cursor promoted, R25), or is no longer
 * pending (acked without a follow-up). `pending` says which; `lastSeenSequence` and `wake` are
 * the pair's state now (for a pair no longer pending, its L = N).
 */
export interface PairChange extends PendingPair {
  pending: boolean;
}

/**
 * R68: where a reader of pending changes stands, made by the source and opaque to everyone else
 * (SQLite and memory: the change sequence read; PostgreSQL: a transaction snapshot). A string, so
 * it can be logged and kept.
 */
export type FeedPosition = string;

/** R68, R61: what a feed asks a source's readPending: the changes after a position and, for new subscribers, a snapshot. */
export interface PendingReadRequest {
  /** Read the changes after this position; absent: no changes, only the snapshot (a first read). */
  since?: FeedPosition;
  /** R61: also read the pending pairs of these watchers ('all': of every watcher) at the same position. */
  snapshot?: 'all' | readonly string[];
  /**
   * R68: the reader wants only these watchers' changes (absent: every watcher's). A source may
   * answer more, never less; the position covers every change either way.
   */
  watchers?: readonly string[];
}

/** R68: what readPending answers: its position, the pairs changed after `since`, and the requested snapshot. */
export interface PendingRead {
  /** The position this read stands at: every change up to it is in `changes` or `snapshot`. */
  position: FeedPosition;
  /** R68: the pairs changed after `since`, each once with its state at `position`, oldest change first. */
  changes: PairChange[];
  /** The pending pairs of the requested watchers at `position` (empty when none was asked for). */
  snapshot: PendingPair[];
}

/**
 * R74: what a wake carries besides whom it names: the pairs its commit changed, each with its
 * state as that commit left it, and a mark of the commit that a position can be asked about.
 */
export interface WakeNews {
  /** The commit, opaque to everyone but its source (PostgreSQL: the transaction id). */
  mark: string;
  /** Every pair the commit changed, in the order it wrote them, with its state after the commit. */
  changes: PairChange[];
}

/**
 * R75: the wakes a remote subscription wants: `'all'`, or those naming one of these R73 routing
 * hashes (the subscribed watchers' hashes). A source MAY deliver more (a wake naming nobody in
 * particular, another hash of the same wake group); the feed still decides by R73.
 */
export type WakeInterest = 'all' | readonly string[];

/** T15: a keyed page of the watchers with a pending notice: those strictly after `after` in key order, at most `limit`. */
export interface PendingWatchersPageRequest {
  /** The last watcher of the previous page; absent: from the first. */
  after?: string;
  limit: number;
}

/** R60-R72: what a store offers a change feed: reads of pending notices, a change token and local change events. */
export interface PendingSource {
  /**
   * R68: one consistent read of what changed after a position and, for new subscribers, of what is
   * pending now. Its cost follows the change and the snapshot asked for, not everything pending.
   * Sources without it (older ones) are read through `listPending` and diffed (R60).
   */
  readPending?(request: PendingReadRequest): MaybePromise<PendingRead>;
  /** Every pending pair (N > L) of every watcher, from durable state: a full read, for sources without readPending and for tools. */
  listPending?(): MaybePromise<PendingPair[]>;
  /**
   * T15: the watchers with a pending notice, one page at a time in key order (the stores: Unicode
   * code point order), read through an index so a page costs its own watchers (MCP resources/list).
   */
  pendingWatchersPage?(request: PendingWatchersPageRequest): MaybePromise<string[]>;
  /** A cheap token that changes when another connection/process committed (SQLite: PRAGMA data_version). Absent for push-only sources. */
  changeToken?(): MaybePromise<number | string>;
  /** Called after this handle's own committed writes that may change pending state. */
  onLocalChange(listener: () => void): () => void;
  /**
   * Server push (PostgreSQL LISTEN/NOTIFY); absent on SQLite/memory. The listener gets the wake's
   * payload when there is one (R73: the watchers the commit changed, by routing hash); a call
   * without one (a reconnect, an older writer) means anything may have changed.
   */
  subscribeRemote?(listener: (payload?: string) => void, interest?: WakeInterest): MaybePromise<() => void>;
  /**
   * R75: what a remote subscription now wants to hear of (the listener given to subscribeRemote).
   * Resolves once the server delivers every later commit's wake for that interest, so a read after
   * it misses nothing; a source without it delivers every wake, as before.
   */
  remoteInterest?(listener: (payload?: string) => void, interest: WakeInterest): MaybePromise<void>;
  /**
   * R74: the news a server push's payload carries, or undefined when it carries none the source
   * can vouch for (the feed then reads). Pure and synchronous: it reads nothing.
   */
  wakeNews?(payload: string): WakeNews | undefined;
  /** R74: whether a read standing at `position` already saw the commit `mark` names. Pure. */
  positionCovers?(position: FeedPosition, mark: string): boolean;
  /**
   * R70: files another process's commit modifies (SQLite: the `-wal` file). The feed watches them
   * (fs.watch) to read at once instead of at the next poll; the token poll stays the fallback.
   */
  changeFiles?(): readonly string[];
}

/** What the kit's own stores offer: both reads (tools list everything pending; the feed reads changes). */
export type StorePendingSource = PendingSource & Required<Pick<PendingSource, 'readPending' | 'listPending' | 'pendingWatchersPage'>>;
