import type { StateEvent, WakePolicy, WatchCursor } from '../../spec/index.js';
import { MINUTE_MS, SHOWN, clip, type SessionRow } from '../shared/read-model.js';
import type { PendingPair, PendingSource } from '../../spec/index.js';

/**
 * What the live view reads from a store (SQLite file or PostgreSQL schema). Every read is one
 * bounded page (R82): a page of sessions, of one session's events, of cursors, or the activity of
 * one time window. Nothing here writes (R80).
 */

// Where the reads and the live view meet: what a backend's read model answers (shared/read-model.ts).
export { CLIP_MARK, EVENT_VIEW_COLUMNS, MINUTE_MS, SHOWN, clip, type SessionRow } from '../shared/read-model.js';

export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;
/** R82: most bytes of rows one page answers with; a page that reaches it stops early, with `next`. */
export const MAX_PAGE_BYTES = 1024 * 1024;

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
