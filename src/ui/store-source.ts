import type { PendingPair, PendingSource, StateEvent, WatchCursor } from '../../spec/index.js';
import { noticeOf, wakeFor } from '../core/index.js';
import type { LiveViewReads } from '../shared/read-model.js';
import type { EventRow } from '../shared/rows.js';
import {
  MINUTE_MS,
  bucketize,
  cursorRowView,
  eventView,
  pageOf,
  sessionView,
  type Activity,
  type CursorKey,
  type CursorRowView,
  type Page,
  type SessionRow,
  type SessionsQuery,
  type Timeline,
  type TimelineQuery,
  type UiSource,
  type WatchesQuery,
} from './source.js';

/**
 * The live view's pages (R80-R86) over any backend's read model: the backend answers rows from
 * its own SQL (sqlite/state-reader.ts, postgres/state-reader.ts); the pages, their clipping and
 * byte budgets, the gap and the notice text are written here once for every store.
 */

/** Larger than any sequence a store assigns (R7 keeps them below 2^53). */
const NO_UPPER = Number.MAX_SAFE_INTEGER;

export class StoreUiSource<R extends LiveViewReads = LiveViewReads> implements UiSource {
  constructor(protected readonly reads: R) {}

  get label(): string {
    return this.reads.label;
  }

  async sessions(q: SessionsQuery): Promise<Page<SessionRow, { sessionKey: string; agentId: string }>> {
    const { rows, more } = await this.reads.sessionsPage(q);
    return pageOf(rows.map(sessionView), more, (last) => ({ sessionKey: last.sessionKey, agentId: last.agentId }));
  }

  async timeline(q: TimelineQuery): Promise<Timeline> {
    const head = await this.reads.head(q.sessionKey, q.agentId);
    if (!head) return { events: [] };
    const rows = await this.reads.timelineRows(q.sessionKey, q.agentId, q.before ?? NO_UPPER, q.limit + 1);
    return timelineOf(head, rows, q.limit, (r) => this.reads.decodeEvent(r));
  }

  async watches(q: WatchesQuery): Promise<Page<CursorRowView, CursorKey>> {
    return cursorPage(await this.reads.cursorsPage({ ...q, limit: q.limit + 1 }), q.limit);
  }

  async activity(minutes: number): Promise<Activity> {
    const newest = await this.reads.newestOccurredAt();
    const end = Math.floor((newest ?? Date.now()) / MINUTE_MS) * MINUTE_MS;
    const from = end - (minutes - 1) * MINUTE_MS;
    return { end, buckets: bucketize(end, minutes, await this.reads.activityRows(from, end + MINUTE_MS)) };
  }

  changeToken(): Promise<string> {
    return this.reads.changeToken();
  }

  listPending(): Promise<PendingPair[]> {
    return this.reads.listPending();
  }

  feedSource(): PendingSource {
    return this.reads.feedSource();
  }

  close(): Promise<void> {
    return this.reads.close();
  }
}

/** R82, R83: a timeline page of event rows (read up to limit + 1), its strings clipped and its bytes bounded; the gap only on the page that reaches the oldest retained event. */
export function timelineOf(head: SessionRow, rows: readonly EventRow[], limit: number, decodeRow: (row: EventRow) => StateEvent): Timeline {
  const page = pageOf(
    rows.slice(0, limit).map((r) => eventView(r, decodeRow)),
    rows.length > limit,
    (e) => e.sequence,
  );
  const out: Timeline = { head: sessionView(head), events: page.rows };
  if (page.next !== undefined) {
    out.next = page.next;
    if (page.byteLimited) out.byteLimited = true;
  } else if (head.prunedMaxSequence > 0) out.gap = { prunedMaxSequence: head.prunedMaxSequence, earliestAvailableSequence: head.earliestAvailableSequence };
  return out;
}

/** R82, R84: a cursor page (cursors read up to limit + 1), each with its notice, strings clipped, bytes bounded. */
export function cursorPage(cursors: readonly WatchCursor[], limit: number): Page<CursorRowView, CursorKey> {
  return pageOf(cursors.slice(0, limit).map((c) => cursorRowView(cursorView(c))), cursors.length > limit, (last) => ({
    targetAgentId: last.targetAgentId,
    targetSessionKey: last.targetSessionKey,
    watcherSessionKey: last.watcherSessionKey,
  }));
}

/** One cursor as the page shows it: as stored (a corrupt row is shown, not refused), with its lane and, when pending, its notice (R20, R23, R25). */
export function cursorView(c: WatchCursor): CursorRowView {
  const pending = c.notifiedSequence > c.lastSeenSequence;
  const view: CursorRowView = { ...c, pending, wake: wakeFor(c.watcherSessionKey, c.provenance) };
  if (pending) {
    // The same builder pendingNotices uses, so the text is byte for byte the tools' (R23, R84).
    const notice = noticeOf(c);
    view.noticeText = notice.text;
    view.contextKey = notice.contextKey;
  }
  return view;
}
