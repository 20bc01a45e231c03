import type { MaybePromise } from '../../spec/index.js';

/**
 * The store side of the change feed (issue 14, design D2): what a feed needs from a store to tell
 * watchers, in any process, that they have notices. Not part of the store contract; memory,
 * SQLite and PostgreSQL stores implement it.
 */
export interface PendingPair {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
  lastSeenSequence: number;
  wake: 'immediate' | 'next-turn';
}

export interface PendingSource {
  /** Every pending pair (N > L) of every watcher, from durable state. */
  listPending(): MaybePromise<PendingPair[]>;
  /** A cheap token that changes when another connection/process committed (SQLite: PRAGMA data_version). Absent for push-only sources. */
  changeToken?(): MaybePromise<number | string>;
  /** Called after this handle's own committed writes that may change pending state. */
  onLocalChange(listener: () => void): () => void;
  /** Server push (PostgreSQL LISTEN/NOTIFY); absent on SQLite/memory. */
  subscribeRemote?(listener: () => void): MaybePromise<() => void>;
}
