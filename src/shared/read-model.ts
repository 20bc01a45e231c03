import { LIMITS, type ChangesSinceResponse, type Notice, type PendingPair, type PendingSource, type StateEvent, type WatchCursor } from '../../spec/index.js';
import { encodeContextKey, noticeText } from '../core/index.js';
import type { EventRow } from './rows.js';

/**
 * A backend's read model: what `inspect`, the live view and the tools' hosts read from a store
 * without writing (R80), one implementation per backend beside its SQL (sqlite/state-reader.ts,
 * postgres/state-reader.ts), so a host imports a backend's front door and nothing behind it. The
 * views here are backend-neutral: the same page, the same clipping, the same notice text on every
 * store.
 */

/** R82: what a string longer than the view shows ends with. */
export const CLIP_MARK = '\u2026[clipped]';

const LONGEST_KEY = '\u{10FFFF}'.repeat(LIMITS.keyMaxLength);
/**
 * R82: the most code points the view shows of each kind of string: what R1 and R3 allow, and for
 * derived text what the longest allowed keys make. Another program writing the file with SQL can
 * store anything; what is longer is cut there and marked with CLIP_MARK.
 */
export const SHOWN = {
  key: LIMITS.keyMaxLength,
  agentId: LIMITS.agentIdMaxLength,
  summary: LIMITS.summaryMaxLength,
  /** Kinds, actor types, provenances: closed lists of short names. */
  name: LIMITS.agentIdMaxLength,
  /** R4: closed schemas of a few ids each. */
  payload: 4 * LIMITS.keyMaxLength,
  /** R23: two keys and a sequence. */
  notice: [...noticeText(LONGEST_KEY, Number.MAX_SAFE_INTEGER)].length,
  contextKey: encodeContextKey('a'.repeat(LIMITS.agentIdMaxLength), LONGEST_KEY).length,
} as const;

/** The text itself when it has at most `max` code points, else its first `max` and CLIP_MARK; reads no further than that. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text; // UTF-16 units >= code points
  let units = 0;
  for (let points = 0; points < max && units < text.length; points++) units += text.codePointAt(units)! > 0xffff ? 2 : 1;
  return units >= text.length ? text : text.slice(0, units) + CLIP_MARK;
}

/** A head as the live view shows it (R81): its version, R32 floor and head event's actor, or a key that only watches. */
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


/**
 * The events' columns for the view, each text cut one code point past what it shows (SQLite and
 * PostgreSQL both count substr in characters): a row another program wrote oversized never reaches
 * this process whole, and the extra code point tells clipEvent it was cut (R82).
 */
export const EVENT_VIEW_COLUMNS = [
  'sequence',
  `substr(session_key, 1, ${SHOWN.key + 1}) AS session_key`,
  `substr(agent_id, 1, ${SHOWN.agentId + 1}) AS agent_id`,
  `substr(kind, 1, ${SHOWN.name + 1}) AS kind`,
  `substr(actor_type, 1, ${SHOWN.name + 1}) AS actor_type`,
  `substr(actor_id, 1, ${SHOWN.key + 1}) AS actor_id`,
  'occurred_at',
  'recorded_at',
  `substr(summary, 1, ${SHOWN.summary + 1}) AS summary`,
  `substr(session_id, 1, ${SHOWN.key + 1}) AS session_id`,
  `substr(run_id, 1, ${SHOWN.key + 1}) AS run_id`,
  `substr(payload_json, 1, ${SHOWN.payload + 1}) AS payload_json`,
  `substr(dedupe_key, 1, ${SHOWN.key + 1}) AS dedupe_key`,
].join(', ');

/** The live view's activity buckets are minutes. */
export const MINUTE_MS = 60_000;

/**
 * An integer as stored, for display: a number when it is safe, else its exact decimal digits.
 * inspect shows what is in the file, even values no store could have written (past 2^53 - 1,
 * negative): it is how an operator finds such a row, so it must not refuse it.
 */
export type ExactInt = number | string;

/** A head as `inspect heads` shows it. */
export interface HeadView {
  sessionKey: string;
  agentId: string;
  /** R5 */
  stateVersion: ExactInt;
  /** R33, R42 */
  prunedMaxSequence: ExactInt;
  updatedAt: ExactInt;
  /** Events of this identity still in the log. */
  retainedEvents: number;
  /** R32, as changesSince would report it. */
  earliestAvailableSequence: ExactInt;
}

/** A cursor as `inspect cursors` shows it: as stored, not through the store's checked decoder. */
export interface CursorView {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
  lastSeenSequence: ExactInt;
  notifiedSequence: ExactInt;
  materialSequence: ExactInt;
  provenance: WatchCursor['provenance'];
  updatedAt: ExactInt;
  /** R20: a notice is pending iff N > L. */
  pending: boolean;
}

/** A store's size and retention facts, as `inspect stats` shows them. */
export interface StatsView {
  /** The file, or the URL (without its password) and schema. */
  path: string;
  schemaVersion: number;
  supportedSchemaVersion: number;
  /** SQLite's journal mode, or `postgresql`. */
  journalMode: string;
  fileBytes: number;
  walBytes: number;
  /** Retained events, counted (COUNT(*)). */
  rows: number;
  /** Highest sequence ever assigned (R7), 0 for a fresh store. */
  highestSequence: number;
  sessions: number;
  sessionsWithPrunedHistory: number;
  cursors: number;
  watchers: number;
  /** Cursors with N > L: the pending notices (R20). */
  pendingPairs: number;
  now: number;
  oldestEvent: { sequence: number; occurredAt: number; ageMs: number } | null;
  newestOccurredAt: number | null;
  maxRows: number;
  rowsUntilCap: number;
  retentionMs: number;
  /** Events a prune at `now` would remove by age (R40). */
  eventsPastRetention: number;
  /** Cursors a prune at `now` would expire (R44). */
  cursorsPastRetention: number;
}

/** What `inspect` reads: every method one snapshot of the store (a read transaction). */
export interface InspectReads {
  /** Where the store lives (a file path, or a URL without its password). */
  readonly path: string;
  /** Every head, with its retained events and R32 floor, in UTF-16 order of key and agent. */
  heads(): Promise<HeadView[]>;
  /** Agents that have a head under this session key, in UTF-16 order. */
  agentsOf(sessionKey: string): Promise<string[]>;
  /** Whether this identity has a head (it recorded an event). */
  hasHead(sessionKey: string, agentId: string): Promise<boolean>;
  /** A key the store mentions anywhere: as a session with a head, a watcher, or a watched target. */
  knowsSession(sessionKey: string): Promise<boolean>;
  /** R30-R33: what the store's changesSince answers, from the same statement. */
  changesSince(request: { sessionKey: string; agentId: string; since: number; limit?: number }): Promise<ChangesSinceResponse>;
  /** The cursors of one watcher, of one target, or all, as stored, in UTF-16 order. */
  cursors(filter?: { watcher?: string; target?: string }): Promise<CursorView[]>;
  /** R20, R26: exactly what the store's pendingNotices returns. */
  pendingNotices(watcherSessionKey: string): Promise<Notice[]>;
  /** Size and retention facts, with what a prune at `now` would remove (R40, R44). */
  stats(options: { now: number; maxRows: number; retentionMs: number }): Promise<StatsView>;
  /** Closes the reader's connection. */
  close(): Promise<void>;
}

/** The sessions page's query (R81): a substring of key or agent, an exact agent, a keyset. */
export interface SessionsPageQuery {
  search?: string;
  agent?: string;
  after?: { sessionKey: string; agentId: string };
  limit: number;
}

/** The cursor page's query (R81): cursors of one session (as watcher or target), pending only, a keyset. */
export interface CursorsPageQuery {
  session?: string;
  pending?: boolean;
  after?: { targetAgentId: string; targetSessionKey: string; watcherSessionKey: string };
  limit: number;
}

/**
 * What the live view reads (R80-R86), each read one bounded page on an index (R82). Rows come
 * decoded; the page logic above them (clipping, budgets, notice text) is the live view's, once for
 * every backend.
 */
export interface LiveViewReads {
  /** Where the store lives, for the page header (a URL without its password). */
  readonly label: string;
  /** Up to `limit` rows in (session key, agent id) order: heads, merged with the keys that only watch; `more` when rows follow. */
  sessionsPage(query: SessionsPageQuery): Promise<{ rows: SessionRow[]; more: boolean }>;
  /** One head with its R32 floor and its head event's actor, or undefined. */
  head(sessionKey: string, agentId: string): Promise<SessionRow | undefined>;
  /** Up to `limit` events below `before`, newest first, their texts cut one code point past what is shown (EVENT_VIEW_COLUMNS). */
  timelineRows(sessionKey: string, agentId: string, before: number, limit: number): Promise<EventRow[]>;
  /** Decodes a row timelineRows returned, as the store decodes it. */
  decodeEvent(row: EventRow): StateEvent;
  /** Up to `limit` cursors as stored, in (target agent, target key, watcher) order. */
  cursorsPage(query: CursorsPageQuery): Promise<WatchCursor[]>;
  /** The newest event's time, or undefined for an empty store. */
  newestOccurredAt(): Promise<number | undefined>;
  /** Events per minute and actor type in [from, to). */
  activityRows(from: number, to: number): Promise<{ minute: number; actorType: string; count: number }[]>;
  /** A cheap token that changes when any process committed (R86). */
  changeToken(): Promise<string>;
  /** Every pending pair (R20, a full read). */
  listPending(): Promise<PendingPair[]>;
  /** What the change feed reads (R68, R70, R86). */
  feedSource(): PendingSource;
  /** Closes the reader's connection. */
  close(): Promise<void>;
}
