import { CURSOR_COLUMNS } from '../shared/rows.js';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StateEvent } from '../../spec/index.js';
import { noticeOf, pendingPairOf, wakeFor } from '../core/index.js';
import type { PendingPair, PendingReadRequest, PendingSource } from '../../spec/index.js';
import { BadRows } from '../shared/pending-rows.js';
import { silentLogger } from '../shared/logger.js';
import { SqlitePendingReads } from '../sqlite/pending-reads.js';
import { rowDecoders, type CursorRow, type EventRow } from '../shared/rows.js';
import { toSafeNumber } from '../sqlite/errors.js';
import { walFileOf } from '../sqlite/sqlite-store.js';
import { EFFECTIVE_CURSORS, TABLES, openStateConnectionReadOnly } from '../sqlite/schema.js';
import type { SqliteConnection, SqliteDriverChoice, SqlValue } from '../sqlite/driver/types.js';
import {
  EVENT_VIEW_COLUMNS,
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
 * The live view's reads of a SQLite state file (R80-R82). The connection is opened read-only
 * (openStateConnectionReadOnly) and also set `query_only`, so no statement here can write the
 * file. Every page is a keyset read on an index: the heads' primary key, the events' identity
 * index, the cursors' primary key or watcher index, the events' time index.
 */

const E = TABLES.events.name;
const H = TABLES.heads.name;
const C = TABLES.cursors.name;
/** Step 7 added the effective view (a pending cursor's newer M lives in its target's slots). */
const EFFECTIVE_SINCE_VERSION = 7;
/** Schema step 8 marks cursor changes for the feed (R68). */
const MARKS_SINCE_VERSION = 8;
const decode = rowDecoders({ events: E, heads: H, cursors: C });
/** Larger than any sequence a store assigns (R7 keeps them below 2^53). */
const NO_UPPER = Number.MAX_SAFE_INTEGER;

const num = (v: unknown, field: string): number => toSafeNumber(v, field);

/** The SQL behind each page, exported so a test can ask SQLite for its plan (R82). */
export const UI_SQL = {
  headEvent: `SELECT actor_type, actor_id, kind FROM ${E} WHERE sequence = ?`,
  lowest: `SELECT min(sequence) AS m FROM ${E} WHERE agent_id = ? AND session_key = ?`,
  head: `SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${H} WHERE session_key = ? AND agent_id = ?`,
  timeline: `SELECT ${EVENT_VIEW_COLUMNS} FROM ${E} WHERE agent_id = ? AND session_key = ? AND sequence < ? ORDER BY sequence DESC LIMIT ?`,
  newest: `SELECT max(occurred_at) AS t FROM ${E}`,
  activity: `SELECT (occurred_at / ${MINUTE_MS}) * ${MINUTE_MS} AS minute, actor_type, count(*) AS n FROM ${E} WHERE occurred_at >= ? AND occurred_at < ? GROUP BY minute, actor_type`,
  pendingAll: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE notified > last_seen`,
} as const;

/**
 * The sessions page's heads half (R81, R82): a keyset walk of the heads' primary key
 * (session_key, agent_id), filtered on the way, so it costs its rows (plus the rows a filter
 * skips), never a sort.
 */
export function sessionsSql(query: Pick<SessionsQuery, 'search' | 'agent'>): string {
  const search = query.search ? ' AND (instr(lower(session_key), lower(?)) > 0 OR instr(lower(agent_id), lower(?)) > 0)' : '';
  const agent = query.agent ? ' AND agent_id = ?' : '';
  return `SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${H} WHERE (session_key, agent_id) > (?, ?)${search}${agent} ORDER BY session_key, agent_id LIMIT ?`;
}

/** The parameters of sessionsSql, in its order. */
export function sessionsParams(q: SessionsQuery): SqlValue[] {
  return [q.after?.sessionKey ?? '', q.after?.agentId ?? '', ...(q.search ? [q.search, q.search] : []), ...(q.agent ? [q.agent] : []), q.limit + 1];
}

/** The watcher half: the next watcher key after one, a single seek on the watcher index (a skip scan, one step per distinct key). */
export const NEXT_WATCHER_SQL = `SELECT min(watcher_session_key) AS k FROM ${C} WHERE watcher_session_key > ?`;
const HAS_HEAD_SQL = `SELECT 1 FROM ${H} WHERE session_key = ? LIMIT 1`;

/** SQLite's lower(): ASCII only, so a filter matches the same keys in both halves. */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
/** SQLite's BINARY order (UTF-8 bytes), which the primary key walks in; UTF-16 order differs for astral characters. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * The cursor page: a keyset walk of the cursors' primary key (target first); for one session the
 * union of its two index reads (as watcher: the watcher index; as target: the primary key under
 * each of its agents), sorted. Parameters: [session, session, session,] keyset (3), limit.
 */
export function watchesSql(from: string, query: Pick<WatchesQuery, 'session' | 'pending'>): string {
  const pending = query.pending ? ' AND notified > last_seen' : '';
  const keyset = '(target_agent_id, target_session_key, watcher_session_key) > (?, ?, ?)';
  const order = 'ORDER BY target_agent_id, target_session_key, watcher_session_key LIMIT ?';
  if (query.session === undefined) return `SELECT ${CURSOR_COLUMNS} FROM ${from} WHERE ${keyset}${pending} ${order}`;
  return `SELECT * FROM (
      SELECT ${CURSOR_COLUMNS} FROM ${from} WHERE watcher_session_key = ?
      UNION
      SELECT ${CURSOR_COLUMNS} FROM ${from} WHERE target_session_key = ? AND target_agent_id IN (SELECT agent_id FROM ${H} WHERE session_key = ?)
    ) WHERE ${keyset}${pending} ${order}`;
}

/**
 * R80: the file cannot be opened for a reader who may read it but not write its directory: a
 * WAL-mode file needs its -shm, which such a reader cannot create, and the immutable open that
 * would not need it is not available (SQLite URI filenames are off in this process).
 */
export class ReadOnlyDirectoryError extends Error {
  override readonly name = 'ReadOnlyDirectoryError';
  constructor(
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${path}: readable, but SQLite cannot read this WAL-mode file without creating ${path}-shm, and this user may not write to ${dirname(path)}; no writer has it open (there is no ${path}-wal)`,
      options,
    );
  }
}

/** SQLite's codes for a -shm (or -wal) a read-only connection could not create (R80). */
const NEEDS_SHARED_MEMORY = /^SQLITE_(READONLY_DIRECTORY|READONLY_CANTINIT|CANTOPEN)/;
const sqliteCode = (error: unknown): string => {
  for (let e = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  }
  return '';
};

/** How the file is read: shared (sees every commit) or immutable (a snapshot, reopened when the file changes). */
type OpenMode = 'shared' | 'immutable';

/**
 * R80: a read-only connection; when that fails for want of a -shm and no writer has the file open
 * (no -wal), an immutable one (`file:...?immutable=1`), which needs neither lock nor -shm.
 */
function openView(path: string, driver: SqliteDriverChoice | undefined): { db: SqliteConnection; mode: OpenMode } {
  const options = driver === undefined ? {} : { driver };
  // Absolute: with URI filenames on, a relative name that begins with "file:" would be read as one.
  const file = resolve(path);
  try {
    return { db: openStateConnectionReadOnly(file, options), mode: 'shared' };
  } catch (error) {
    if (!NEEDS_SHARED_MEMORY.test(sqliteCode(error)) || existsSync(`${file}-wal`) || !readable(file)) throw error;
    try {
      return { db: openStateConnectionReadOnly(`${pathToFileURL(file).href}?immutable=1`, options), mode: 'immutable' };
    } catch (immutableError) {
      throw new ReadOnlyDirectoryError(path, { cause: immutableError });
    }
  }
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** What changes when anything writes the file: a commit checkpointed into it, or a writer's -wal appearing. */
function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${existsSync(`${path}-wal`)}`;
  } catch {
    return 'gone';
  }
}

export class SqliteUiSource implements UiSource {
  private readonly cursorsFrom: string;
  private readonly marks: boolean;

  /** R68: the feed's reads, where the file marks changes (schema step 8); absent on an older file, which this read-only view never migrates. */
  private reads: SqlitePendingReads | undefined;
  /** Bumped on each reopen, so the change token moves with it (R86). */
  private generation = 0;
  private stamp = '';

  private constructor(
    private db: SqliteConnection,
    private mode: OpenMode,
    readonly label: string,
    private readonly path: string = label,
    private readonly driver: SqliteDriverChoice | undefined = undefined,
  ) {
    const version = num(db.pragma('user_version'), 'user_version');
    this.cursorsFrom = version >= EFFECTIVE_SINCE_VERSION ? EFFECTIVE_CURSORS : C;
    this.marks = version >= MARKS_SINCE_VERSION;
    this.attach(db, mode);
  }

  private attach(db: SqliteConnection, mode: OpenMode): void {
    // Belt and braces beside the read-only open: SQLite refuses any write on this connection (R80).
    db.pragma('query_only = 1');
    this.db = db;
    this.mode = mode;
    this.reads = this.marks ? new SqlitePendingReads(db, new BadRows(silentLogger, 'ui')) : undefined;
    if (mode === 'immutable') this.stamp = fileStamp(resolve(this.path));
  }

  /**
   * Opens an existing state file read-only; throws the adapter's typed errors (NotAStateDatabaseError,
   * SchemaTooNewError), and ReadOnlyDirectoryError when this user cannot read it at all (R80).
   */
  static open(path: string, options: { driver?: SqliteDriverChoice } = {}): SqliteUiSource {
    const { db, mode } = openView(path, options.driver);
    return new SqliteUiSource(db, mode, path, path, options.driver);
  }

  /** 'immutable' while the file is read without a -shm (R80), else 'shared'. */
  get openMode(): OpenMode {
    return this.mode;
  }

  /**
   * R80, R86: an immutable connection sees no commit, so the file itself is watched: when it (or a
   * writer's -wal) changed, it is read afresh, shared once a writer's -wal and -shm exist.
   */
  private refresh(): void {
    if (this.mode !== 'immutable' || fileStamp(resolve(this.path)) === this.stamp) return;
    const next = openView(this.path, this.driver);
    this.db.close();
    this.attach(next.db, next.mode);
    this.generation++;
  }

  /** The plan SQLite chooses for a statement (tests assert pages read through an index, R82). */
  plan(sql: string, ...params: SqlValue[]): string[] {
    return this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((r) => String(r['detail']));
  }

  private headRow(r: Record<string, unknown>): SessionRow {
    const stateVersion = num(r['last_sequence'], `${H}.last_sequence`);
    const sessionKey = String(r['session_key']);
    const agentId = String(r['agent_id']);
    const lowest = this.db.prepare(UI_SQL.lowest).get(agentId, sessionKey)?.['m'];
    const row: SessionRow = {
      sessionKey,
      agentId,
      stateVersion,
      prunedMaxSequence: num(r['pruned_max_sequence'], `${H}.pruned_max_sequence`),
      // R32, as changesSince reports it.
      earliestAvailableSequence: lowest === null || lowest === undefined ? (stateVersion > 0 ? stateVersion + 1 : 0) : num(lowest, `${E}.sequence`),
      updatedAt: num(r['updated_at'], `${H}.updated_at`),
    };
    const last = stateVersion > 0 ? this.db.prepare(UI_SQL.headEvent).get(stateVersion) : undefined;
    if (last) {
      row.lastActorType = String(last['actor_type']) as SessionRow['lastActorType'] & string;
      if (last['actor_id'] !== null) row.lastActorId = String(last['actor_id']);
      row.lastKind = String(last['kind']);
    }
    return row;
  }

  /**
   * R81, R82: the heads page merged with the keys that only watch (cursors but no head), which sort
   * as (key, ''). The watcher half steps through distinct watcher keys by index seeks and stops past
   * the heads half's last row: keys with a head in that range are at most a page, keys without one
   * are what it collects (plus the keys a filter skips).
   */
  async sessions(q: SessionsQuery): Promise<Page<SessionRow, { sessionKey: string; agentId: string }>> {
    this.refresh();
    const heads = this.db.prepare(sessionsSql(q)).all(...sessionsParams(q));
    type Row = { sessionKey: string; agentId: string; raw?: Record<string, unknown> };
    const merged: Row[] = heads.map((r) => ({ sessionKey: String(r['session_key']), agentId: String(r['agent_id']), raw: r }));
    if (!q.agent) {
      const bound = heads.length > q.limit ? merged[merged.length - 1]!.sessionKey : undefined;
      const next = this.db.prepare(NEXT_WATCHER_SQL);
      const hasHead = this.db.prepare(HAS_HEAD_SQL);
      const needle = q.search === undefined ? undefined : asciiLower(q.search);
      let key = q.after?.sessionKey ?? '';
      for (let found = 0; found <= q.limit; ) {
        const k = next.get(key)?.['k'];
        if (k === null || k === undefined) break;
        key = String(k);
        if (bound !== undefined && byUtf8(key, bound) > 0) break;
        if (needle !== undefined && !asciiLower(key).includes(needle)) continue;
        if (hasHead.get(key) !== undefined) continue;
        merged.push({ sessionKey: key, agentId: '' });
        found++;
      }
      merged.sort((a, b) => byUtf8(a.sessionKey, b.sessionKey) || byUtf8(a.agentId, b.agentId));
    }
    const rows = merged.slice(0, q.limit).map((r): SessionRow =>
      sessionView(r.raw ? this.headRow(r.raw) : { sessionKey: r.sessionKey, agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true }),
    );
    return pageOf(rows, merged.length > q.limit, (last) => ({ sessionKey: last.sessionKey, agentId: last.agentId }));
  }

  async timeline(q: TimelineQuery): Promise<Timeline> {
    this.refresh();
    const h = this.db.prepare(UI_SQL.head).get(q.sessionKey, q.agentId);
    if (!h) return { events: [] };
    const head = this.headRow(h);
    const rows = this.db.prepare(UI_SQL.timeline).all(q.agentId, q.sessionKey, q.before ?? NO_UPPER, q.limit + 1) as EventRow[];
    return timelineOf(head, rows, q.limit, (r) => decode.eventFromRow(r));
  }

  async watches(q: WatchesQuery): Promise<Page<CursorRowView, CursorKey>> {
    this.refresh();
    const a = q.after;
    const params: SqlValue[] = [
      ...(q.session === undefined ? [] : [q.session, q.session, q.session]),
      a?.targetAgentId ?? '',
      a?.targetSessionKey ?? '',
      a?.watcherSessionKey ?? '',
      q.limit + 1,
    ];
    const rows = this.db.prepare(watchesSql(this.cursorsFrom, q)).all(...params) as CursorRow[];
    return cursorPage(rows, q.limit);
  }

  async activity(minutes: number): Promise<Activity> {
    this.refresh();
    const newest = this.db.prepare(UI_SQL.newest).get()?.['t'];
    const endAt = newest === null || newest === undefined ? Date.now() : num(newest, `${E}.occurred_at`);
    const end = Math.floor(endAt / MINUTE_MS) * MINUTE_MS;
    const from = end - (minutes - 1) * MINUTE_MS;
    const rows = this.db.prepare(UI_SQL.activity).all(from, end + MINUTE_MS);
    return { end, buckets: bucketize(end, minutes, rows.map((r) => ({ minute: num(r['minute'], 'minute'), actorType: String(r['actor_type']), count: num(r['n'], 'count') }))) };
  }

  async changeToken(): Promise<string> {
    this.refresh();
    // Changes when another connection (any process) committed to the file (R86), or on a reopen (R80).
    return `${this.generation}:${num(this.db.pragma('data_version'), 'data_version')}`;
  }

  async listPending(): Promise<PendingPair[]> {
    this.refresh();
    if (this.reads) return this.reads.listPending();
    return (this.db.prepare(UI_SQL.pendingAll).all() as CursorRow[]).map((r) => pendingPairOf(decode.cursorAsStored(r)));
  }

  feedSource(): PendingSource {
    return {
      // The reads of the connection open now (R80 may reopen it).
      ...(this.marks ? { readPending: (request: PendingReadRequest) => this.reads!.read(request) } : {}),
      listPending: () => this.listPending(),
      changeToken: () => this.changeToken(),
      onLocalChange: () => () => {}, // this connection never writes (R80)
      changeFiles: () => [walFileOf(this.path) ?? `${this.path}-wal`], // R70: beside the real file, not a link
    };
  }

  async close(): Promise<void> {
    this.db.close();
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

/** R82, R84: a cursor page (rows read up to limit + 1), each with its notice, strings clipped, bytes bounded. */
export function cursorPage(rows: readonly CursorRow[], limit: number): Page<CursorRowView, CursorKey> {
  return pageOf(rows.slice(0, limit).map((r) => cursorRowView(cursorView(r))), rows.length > limit, (last) => ({
    targetAgentId: last.targetAgentId,
    targetSessionKey: last.targetSessionKey,
    watcherSessionKey: last.watcherSessionKey,
  }));
}

/** One cursor as the page shows it: as stored (a corrupt row is shown, not refused), with its lane and, when pending, its notice (R20, R23, R25). */
export function cursorView(row: CursorRow): CursorRowView {
  const c = decode.cursorAsStored(row);
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
