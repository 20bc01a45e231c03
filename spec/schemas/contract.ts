import type { ChangesSinceRequest, ChangesSinceResponse } from './changes-since.js';
import type { UnwatchRequest, UnwatchResult, WatchRequest, WatchResult } from './cursor.js';
import type { RecordInput, StateEvent } from './event.js';
import type { Notice, NoticeAck } from './notice.js';

/**
 * The implementation contract (PROTOCOL.md "Implementation contract"). Every implementation,
 * ours or another team's, is a factory of this shape; the conformance suite drives only this.
 * Methods may return promises; callers always await.
 */
/** A value or a promise of it: a contract method may answer either way; callers always await. */
export type MaybePromise<T> = T | Promise<T>;

/** What a StoreFactory receives: the clock, the limits tests may override (R40, R41) and the opt-in notice link (R23b). */
export interface CreateOptions {
  /** The clock. Stores never read time any other way. */
  now: () => number;
  /** R40 override (tests use small values); defaults to LIMITS.retentionMs. */
  retentionMs?: number;
  /** R41 override; defaults to LIMITS.maxRows. */
  maxRows?: number;
  /** R23b: opt-in link template for notice texts (`{sessionKey}`, `{agentId}` placeholders); absent: the plain R23 text. */
  noticeLink?: string;
}

/** The store every implementation provides (PROTOCOL.md section 7); the conformance suite drives only these methods. */
export interface SessionStateStore {
  /** R3-R19. The stored event, the existing one on a dedupe hit, or undefined when nothing was
   * written (storage failure, which is logged, or onlyIfWatched with no watcher). Bad input throws
   * a ValidationError and writes nothing. */
  record(input: RecordInput): MaybePromise<StateEvent | undefined>;
  /** R9e (optional): records the inputs in order in one transaction; result i is what record(inputs[i])
   * would have returned after the earlier ones. One bad input rejects the batch (nothing written). */
  recordMany?(inputs: readonly RecordInput[]): MaybePromise<(StateEvent | undefined)[]>;
  /** R21-R22; R21b with `provenance: 'ambient'`. */
  watch(request: WatchRequest): MaybePromise<WatchResult>;
  /** R52: deletes the watcher's cursor on the target identity (and so its pending notice). */
  unwatch(request: UnwatchRequest): MaybePromise<UnwatchResult>;
  /** R5: the session's head; 0 when it has none. */
  stateVersion(sessionKey: string, agentId: string): MaybePromise<number>;
  /** R30-R35. Never moves a cursor. */
  changesSince(request: ChangesSinceRequest): MaybePromise<ChangesSinceResponse>;
  /** R26: pending notices of one watcher (its cursors with N > L), in (targetSessionKey, targetAgentId) order, not acked. */
  pendingNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  /** R27: the same notices, acked in one transaction (at-most-once); follow-ups (R28) appear on a later read. */
  drainNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  /** R27b: acks exactly the given notices that are still pending with the same L (at-least-once delivery); returns those acked. */
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): MaybePromise<Notice[]>;
  /** R40-R44 with the store's clock. */
  prune(): MaybePromise<void>;
  /** R50: the watcher's cursors (and so its pending notices) go; its own log stays. */
  resetSession(sessionKey: string): MaybePromise<void>;
  /** R51: the session's events, head, and cursors in both directions go. */
  deleteSession(sessionKey: string, agentId: string): MaybePromise<void>;
  /** R29: drop in-memory state (caches, the prune clock) as a process restart would, then prune. Changes no cursor. */
  restart(): MaybePromise<void>;
  /** Releases the store's resources (connections, timers); the store is not used afterwards. */
  close(): MaybePromise<void>;
}

/** Creates a fresh, empty store: what an implementation hands the conformance suite. */
export type StoreFactory = (options: CreateOptions) => MaybePromise<SessionStateStore>;
