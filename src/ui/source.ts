import { LIMITS, type StateEvent, type WakePolicy, type WatchCursor } from '../../spec/index.js';
import { encodeContextKey, noticeText } from '../core/index.js';
import type { PendingPair, PendingSource } from '../../spec/index.js';

/**
 * What the live view reads from a store (SQLite file or PostgreSQL schema). Every read is one
 * bounded page (R82): a page of sessions, of one session's events, of cursors, or the activity of
 * one time window. Nothing here writes (R80).
 */

export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;
/** R82: most bytes of rows one page answers with; a page that reaches it stops early, with `next`. */
export const MAX_PAGE_BYTES = 1024 * 1024;

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
  /** R82: set when the page stopped before its row limit because it reached MAX_PAGE_BYTES. */
  byteLimited?: true;
}

/**
 * R82: the leading rows whose JSON fits in `budget` bytes (at least one row, so paging always
 * moves), and whether rows were left out.
 */
export function withinBudget<T>(rows: readonly T[], budget = MAX_PAGE_BYTES): { rows: T[]; cut: boolean } {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(rows[i])) + 1;
    if (bytes > budget && i > 0) return { rows: rows.slice(0, i), cut: true };
  }
  return { rows: [...rows], cut: false };
}

/** R82: a keyset page of `rows` (at most the limit) cut to MAX_PAGE_BYTES; `more`: rows past the limit exist. */
export function pageOf<T, C>(rows: readonly T[], more: boolean, keyOf: (row: T) => C): Page<T, C> {
  const fit = withinBudget(rows);
  const last = fit.rows[fit.rows.length - 1];
  if (!last || (!fit.cut && !more)) return { rows: fit.rows };
  return { rows: fit.rows, next: keyOf(last), ...(fit.cut ? { byteLimited: true as const } : {}) };
}

export interface TimelineQuery {
  sessionKey: string;
  agentId: string;
  /** Events with a sequence below this (the previous page's oldest); absent: the newest page. */
  before?: number;
  limit: number;
}

/** An event as the view shows it: strings clipped (SHOWN), and a payload too long to show as its clipped JSON text. */
export type EventView = StateEvent & { payloadClipped?: string };

export interface Timeline {
  head?: SessionRow;
  /** Newest first. */
  events: EventView[];
  /** The oldest shown sequence, to ask for the next (older) page; absent when this page reaches the oldest retained event. */
  next?: number;
  /** R33: set on the page that reaches the oldest retained event when history below it was pruned. */
  gap?: { prunedMaxSequence: number; earliestAvailableSequence: number };
  /** R82: set when the page stopped before its row limit because it reached MAX_PAGE_BYTES. */
  byteLimited?: true;
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

const longerThan = (text: string, max: number) => text.length > max && clip(text, max) !== text;

/**
 * R82: an event row as the view shows it, decoded by `decode` unless its payload is longer than
 * shown (then it is shown as clipped JSON text, never parsed from a cut string).
 */
export function eventView<R extends { payload_json: string | null }>(row: R, decode: (row: R) => StateEvent): EventView {
  const longPayload = row.payload_json !== null && longerThan(row.payload_json, SHOWN.payload) ? row.payload_json : undefined;
  const e = decode(longPayload === undefined ? row : { ...row, payload_json: null });
  const view: EventView = {
    ...e,
    sessionKey: clip(e.sessionKey, SHOWN.key),
    agentId: clip(e.agentId, SHOWN.agentId),
    kind: clip(e.kind, SHOWN.name) as StateEvent['kind'],
    actorType: clip(e.actorType, SHOWN.name) as StateEvent['actorType'],
    summary: clip(e.summary, SHOWN.summary),
  };
  if (e.actorId !== undefined) view.actorId = clip(e.actorId, SHOWN.key);
  if (e.sessionId !== undefined) view.sessionId = clip(e.sessionId, SHOWN.key);
  if (e.runId !== undefined) view.runId = clip(e.runId, SHOWN.key);
  if (e.dedupeKey !== undefined) view.dedupeKey = clip(e.dedupeKey, SHOWN.key);
  if (longPayload !== undefined) view.payloadClipped = clip(longPayload, SHOWN.payload);
  return view;
}

/** R82: a session row's strings as the view shows them. */
export function sessionView(row: SessionRow): SessionRow {
  const view: SessionRow = { ...row, sessionKey: clip(row.sessionKey, SHOWN.key), agentId: clip(row.agentId, SHOWN.agentId) };
  if (row.lastActorId !== undefined) view.lastActorId = clip(row.lastActorId, SHOWN.key);
  if (row.lastKind !== undefined) view.lastKind = clip(row.lastKind, SHOWN.name);
  if (row.lastActorType !== undefined) view.lastActorType = clip(row.lastActorType, SHOWN.name) as SessionRow['lastActorType'];
  return view;
}

/** R82: a cursor row's strings as the view shows them (the notice text is built from the stored keys first, R84). */
export function cursorRowView(row: CursorRowView): CursorRowView {
  const view: CursorRowView = {
    ...row,
    watcherSessionKey: clip(row.watcherSessionKey, SHOWN.key),
    targetSessionKey: clip(row.targetSessionKey, SHOWN.key),
    targetAgentId: clip(row.targetAgentId, SHOWN.agentId),
    provenance: clip(row.provenance, SHOWN.name) as CursorRowView['provenance'],
  };
  if (row.noticeText !== undefined) view.noticeText = clip(row.noticeText, SHOWN.notice);
  if (row.contextKey !== undefined) view.contextKey = clip(row.contextKey, SHOWN.contextKey);
  return view;
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
