import type { StateEvent, WakePolicy, WatchCursor } from '../../spec/index.js';
import type { PendingPair, PendingSource } from '../feed/types.js';

/**
 * What the live view reads from a store (SQLite file or PostgreSQL schema). Every read is one
 * bounded page (R82): a page of sessions, of one session's events, of cursors, or the activity of
 * one time window. Nothing here writes (R80).
 */

export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

export interface SessionRow {
  sessionKey: string;
  agentId: string;
  /** R5 */
  stateVersion: number;
  /** R33, R42 */
  prunedMaxSequence: number;
  /** R32: the lowest retained sequence, or head + 1 when nothing is retained (0 for head 0). */
  earliestAvailableSequence: number;
  /** When the head last moved. */
  updatedAt: number;
  /** The head event's actor, when it is still retained. */
  lastActorType?: StateEvent['actorType'];
  lastActorId?: string;
  lastKind?: string;
  /**
   * A key that only watches (it has cursors but never recorded an event): agentId is '', the
   * numbers are 0, and its page shows its watches (R81).
   */
  watcherOnly?: true;
}

export interface SessionsQuery {
  /** Substring of the session key or the agent id. */
  search?: string;
  /** Exact agent id. */
  agent?: string;
  /** Keyset: the last row of the previous page. */
  after?: { sessionKey: string; agentId: string };
  limit: number;
}

export interface Page<T, C> {
  rows: T[];
  /** The keyset to ask for the next page; absent on the last page. */
  next?: C;
}

export interface TimelineQuery {
  sessionKey: string;
  agentId: string;
  /** Events with a sequence below this (the previous page's oldest); absent: the newest page. */
  before?: number;
  limit: number;
}

export interface Timeline {
  head?: SessionRow;
  /** Newest first. */
  events: StateEvent[];
  /** The oldest shown sequence, to ask for the next (older) page; absent when this page reaches the oldest retained event. */
  next?: number;
  /** R33: set on the page that reaches the oldest retained event when history below it was pruned. */
  gap?: { prunedMaxSequence: number; earliestAvailableSequence: number };
}

export interface CursorRowView extends WatchCursor {
  /** R20: N > L. */
  pending: boolean;
  /** R25: the lane a notice on this cursor takes. */
  wake: WakePolicy;
  /** R23: the exact text the watcher's model reads, when pending (the same makeNotice as the tools). */
  noticeText?: string;
  contextKey?: string;
}

export interface CursorKey {
  targetAgentId: string;
  targetSessionKey: string;
  watcherSessionKey: string;
}

export interface WatchesQuery {
  /** Only cursors whose watcher or target is this session key. */
  session?: string;
  /** Only pending cursors (N > L). */
  pending?: boolean;
  after?: CursorKey;
  limit: number;
}

export interface ActivityBucket {
  /** Start of the minute, epoch ms. */
  minute: number;
  human: number;
  agent: number;
  system: number;
}

export interface Activity {
  /** The window's last minute (the newest event's minute, or now with no events). */
  end: number;
  buckets: ActivityBucket[];
}

export interface UiSource {
  /** Where the store lives, for the page header (a URL without its password). */
  readonly label: string;
  sessions(query: SessionsQuery): Promise<Page<SessionRow, { sessionKey: string; agentId: string }>>;
  timeline(query: TimelineQuery): Promise<Timeline>;
  watches(query: WatchesQuery): Promise<Page<CursorRowView, CursorKey>>;
  activity(minutes: number): Promise<Activity>;
  /** A cheap token that changes when any process committed (R86). */
  changeToken(): Promise<number | string>;
  /** Every pending pair (a full read). */
  listPending(): Promise<PendingPair[]>;
  /**
   * What the change feed reads (R86): what changed after a position (R68) where the store's schema
   * marks changes, every pending pair (R60's diff) where an older schema does not; and, on SQLite,
   * the `-wal` file whose events bring another process's commit at once (R70).
   */
  feedSource(): PendingSource;
  close(): Promise<void>;
}

export const MINUTE_MS = 60_000;

/** Empty buckets for `minutes` minutes ending at `endMinute`, filled from (minute, actor, count) rows. */
export function bucketize(endMinute: number, minutes: number, rows: Iterable<{ minute: number; actorType: string; count: number }>): ActivityBucket[] {
  const start = endMinute - (minutes - 1) * MINUTE_MS;
  const buckets: ActivityBucket[] = [];
  for (let i = 0; i < minutes; i++) buckets.push({ minute: start + i * MINUTE_MS, human: 0, agent: 0, system: 0 });
  for (const r of rows) {
    const i = Math.round((r.minute - start) / MINUTE_MS);
    const b = buckets[i];
    if (b && (r.actorType === 'human' || r.actorType === 'agent' || r.actorType === 'system')) b[r.actorType] += r.count;
  }
  return buckets;
}
