import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChangesSinceResponse, Notice, PendingPair, PendingReadRequest, PendingSource, StateEvent, WatchCursor } from '../../spec/index.js';
import { normalizeChangesSince, pendingNoticesOf, pendingPairOf } from '../core/index.js';
import { silentLogger } from '../shared/logger.js';
import { BadRows } from '../shared/pending-rows.js';
import {
  EVENT_VIEW_COLUMNS,
  MINUTE_MS,
  type CursorView,
  type CursorsPageQuery,
  type ExactInt,
  type HeadView,
  type InspectReads,
  type LiveViewReads,
  type SessionRow,
  type SessionsPageQuery,
  type StatsView,
} from '../shared/read-model.js';
import { CURSOR_COLUMNS, rowDecoders, type CursorRow, type EventRow } from '../shared/rows.js';
import { readChangesSince } from './changes-read.js';
import { readTransaction } from './driver/transaction.js';
import type { SqliteConnection, SqliteDriverChoice, SqlValue } from './driver/types.js';
import { toSafeNumber } from './errors.js';
import { SqlitePendingReads } from './pending-reads.js';
import { EFFECTIVE_CURSORS, SCHEMA_VERSION, TABLES, openStateConnectionReadOnly } from './schema.js';
import { SQL } from './sql.js';
import { walFileOf } from './sqlite-store.js';

/**
 * The read model of a SQLite state file (shared/read-model.ts): what `inspect` and the live view
 * read, on one read-only connection that is also set `query_only`, so nothing here can write the
 * file (R80); WAL lets these reads run while a live store writes. Rows decode exactly as the
 * store decodes them, and the changesSince and pending reads are the store's own statements.
 * Every live-view page is a keyset read on an index (R82): the heads' primary key, the events'
 * identity index, the cursors' primary key or watcher index, the events' time index.
 */

const E = TABLES.events.name;
const H = TABLES.heads.name;
const C = TABLES.cursors.name;
/** Step 7 keeps a pending cursor's newer M and updated_at in its target's slots; older files have no view. */
const EFFECTIVE_SINCE_VERSION = 7;
/** Schema step 8 marks cursor changes for the feed (R68). */
const MARKS_SINCE_VERSION = 8;
const decode = rowDecoders({ events: E, heads: H, cursors: C });
const n = toSafeNumber;

/** The SQL behind each live-view page, exported so a test can ask SQLite for its plan (R82). */
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
export function sessionsSql(query: Pick<SessionsPageQuery, 'search' | 'agent'>): string {
  const search = query.search ? ' AND (instr(lower(session_key), lower(?)) > 0 OR instr(lower(agent_id), lower(?)) > 0)' : '';
  const agent = query.agent ? ' AND agent_id = ?' : '';
  return `SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${H} WHERE (session_key, agent_id) > (?, ?)${search}${agent} ORDER BY session_key, agent_id LIMIT ?`;
}

/** The parameters of sessionsSql, in its order. */
export function sessionsParams(q: SessionsPageQuery): SqlValue[] {
  return [q.after?.sessionKey ?? '', q.after?.agentId ?? '', ...(q.search ? [q.search, q.search] : []), ...(q.agent ? [q.agent] : []), q.limit + 1];
}

/** The watcher half: the next watcher key after one, a single seek on the watcher index (a skip scan, one step per distinct key). */
export const NEXT_WATCHER_SQL = `SELECT min(watcher_session_key) AS k FROM ${C} WHERE watcher_session_key > ?`;
const HAS_HEAD_SQL = `SELECT 1 FROM ${H} WHERE session_key = ? LIMIT 1`;

/**
 * The cursor page: a keyset walk of the cursors' primary key (target first); for one session the
 * union of its two index reads (as watcher: the watcher index; as target: the primary key under
 * each of its agents), sorted. Parameters: [session, session, session,] keyset (3), limit.
 */
export function watchesSql(from: string, query: Pick<CursorsPageQuery, 'session' | 'pending'>): string {
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
export type SqliteReadMode = 'shared' | 'immutable';

/** How a state reader opens its file. */
export interface SqliteStateReaderOptions {
  driver?: SqliteDriverChoice;
  /**
   * R80: when the file cannot be read shared for want of a -shm and no writer has it open, read
   * it immutable (a snapshot, reopened when the file changes). Default true; `inspect` passes
   * false and reports the problem instead.
   */
  immutableFallback?: boolean;
  /**
   * Opens one read-only connection to a path or `file:` URI (default: openStateConnectionReadOnly
   * with `driver`). Tests pass one that refuses as SQLite does for a reader who may not write the
   * folder, which a process running as root never sees.
   */
  open?: (path: string) => SqliteConnection;
}

function openView(path: string, options: SqliteStateReaderOptions): { db: SqliteConnection; mode: SqliteReadMode } {
  const driverOptions = options.driver === undefined ? {} : { driver: options.driver };
  const open = options.open ?? ((p: string) => openStateConnectionReadOnly(p, driverOptions));
  if (options.immutableFallback === false) return { db: open(path), mode: 'shared' };
  // Absolute: with URI filenames on, a relative name that begins with "file:" would be read as one.
  const file = resolve(path);
  try {
    return { db: open(file), mode: 'shared' };
  } catch (error) {
    if (!NEEDS_SHARED_MEMORY.test(sqliteCode(error)) || existsSync(`${file}-wal`) || !readable(file)) throw error;
    try {
      return { db: open(`${pathToFileURL(file).href}?immutable=1`), mode: 'immutable' };
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

/** An integer as stored (ExactInt): a number when safe, else its exact digits. */
function exact(value: unknown): ExactInt {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : String(value);
  return value === null || value === undefined ? 'NULL' : String(value);
}
const big = (v: ExactInt): bigint => {
  try {
    return BigInt(v);
  } catch {
    return 0n;
  }
};

/** UTF-16 code-unit order, as R26 orders notices (SQLite's BINARY collation compares UTF-8 bytes, which differs). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** SQLite's lower(): ASCII only, so a filter matches the same keys in both halves. */
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
/** SQLite's BINARY order (UTF-8 bytes), which the primary key walks in; UTF-16 order differs for astral characters. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The read model of a SQLite state file: what `inspect` and the live view read (InspectReads, LiveViewReads), never writing it (R80). */
export class SqliteStateReader implements InspectReads, LiveViewReads {
  private readonly cursorsFrom: string;
  private readonly marks: boolean;
  readonly schemaVersion: number;
  /** R68: the feed's reads, where the file marks changes (schema step 8); absent on an older file, which this reader never migrates. */
  private reads: SqlitePendingReads | undefined;
  /** Bumped on each reopen, so the change token moves with it (R86). */
  private generation = 0;
  private stamp = '';

  private constructor(
    private db: SqliteConnection,
    private mode: SqliteReadMode,
    readonly path: string,
    private readonly options: SqliteStateReaderOptions,
  ) {
    this.schemaVersion = n(db.pragma('user_version'), 'user_version');
    this.cursorsFrom = this.schemaVersion >= EFFECTIVE_SINCE_VERSION ? EFFECTIVE_CURSORS : C;
    this.marks = this.schemaVersion >= MARKS_SINCE_VERSION;
    this.attach(db, mode);
  }

  /**
   * Opens an existing state file read-only; throws the adapter's typed errors (NotAStateDatabaseError,
   * SchemaTooNewError), and ReadOnlyDirectoryError when this user cannot read it at all (R80).
   */
  static open(path: string, options: SqliteStateReaderOptions = {}): SqliteStateReader {
    const { db, mode } = openView(path, options);
    return new SqliteStateReader(db, mode, path, options);
  }

  get label(): string {
    return this.path;
  }

  /** 'immutable' while the file is read without a -shm (R80), else 'shared'. */
  get openMode(): SqliteReadMode {
    return this.mode;
  }

  private attach(db: SqliteConnection, mode: SqliteReadMode): void {
    // Belt and braces beside the read-only open: SQLite refuses any write on this connection (R80).
    db.pragma('query_only = 1');
    this.db = db;
    this.mode = mode;
    this.reads = this.marks ? new SqlitePendingReads(db, new BadRows(silentLogger, 'reader')) : undefined;
    if (mode === 'immutable') this.stamp = fileStamp(resolve(this.path));
  }

  /**
   * R80, R86: an immutable connection sees no commit, so the file itself is watched: when it (or a
   * writer's -wal) changed, it is read afresh, shared once a writer's -wal and -shm exist.
   */
  private refresh(): void {
    if (this.mode !== 'immutable' || fileStamp(resolve(this.path)) === this.stamp) return;
    const next = openView(this.path, this.options);
    this.db.close();
    this.attach(next.db, next.mode);
    this.generation++;
  }

  /** One read transaction: every query inside sees the same snapshot, even while a writer commits. */
  private snapshot<T>(fn: () => T): T {
    return readTransaction(this.db, fn);
  }

  /** The plan SQLite chooses for a statement (tests assert pages read through an index, R82). */
  plan(sql: string, ...params: SqlValue[]): string[] {
    return this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((r) => String(r['detail']));
  }

  async close(): Promise<void> {
    this.db.close();
  }

  // --- inspect (InspectReads) ---

  async heads(): Promise<HeadView[]> {
    return this.snapshot(() => {
      const counts = new Map<string, { n: number; min: ExactInt }>();
      const grouped = this.db
        .prepare(`SELECT agent_id, session_key, count(*) AS n, min(sequence) AS min_sequence FROM ${E} GROUP BY agent_id, session_key`)
        .all() as { agent_id: string; session_key: string; n: unknown; min_sequence: unknown }[];
      for (const g of grouped) counts.set(JSON.stringify([g.session_key, g.agent_id]), { n: n(g.n, 'count'), min: exact(g.min_sequence) });
      const rows = this.db.prepare(`SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${H}`).all() as {
        session_key: string;
        agent_id: string;
        last_sequence: unknown;
        pruned_max_sequence: unknown;
        updated_at: unknown;
      }[];
      return rows
        .map((r): HeadView => {
          const stateVersion = exact(r.last_sequence);
          const retained = counts.get(JSON.stringify([r.session_key, r.agent_id]));
          return {
            sessionKey: r.session_key,
            agentId: r.agent_id,
            stateVersion,
            prunedMaxSequence: exact(r.pruned_max_sequence),
            updatedAt: exact(r.updated_at),
            retainedEvents: retained?.n ?? 0,
            // R32, the same rule buildChangesSince applies (in bigint: the head may be past 2^53).
            earliestAvailableSequence: retained ? retained.min : big(stateVersion) > 0n ? exact(big(stateVersion) + 1n) : 0,
          };
        })
        .sort((a, b) => byCodeUnits(a.sessionKey, b.sessionKey) || byCodeUnits(a.agentId, b.agentId));
    });
  }

  async agentsOf(sessionKey: string): Promise<string[]> {
    const rows = this.db.prepare(`SELECT agent_id FROM ${H} WHERE session_key = ?`).all(sessionKey) as { agent_id: string }[];
    return rows.map((r) => r.agent_id).sort(byCodeUnits);
  }

  async hasHead(sessionKey: string, agentId: string): Promise<boolean> {
    return this.db.prepare(SQL.head).get(sessionKey, agentId) !== undefined;
  }

  async knowsSession(sessionKey: string): Promise<boolean> {
    const hit = this.db
      .prepare(
        `SELECT 1 FROM ${H} WHERE session_key = ? UNION ALL SELECT 1 FROM ${C} WHERE watcher_session_key = ? UNION ALL SELECT 1 FROM ${C} WHERE target_session_key = ? LIMIT 1`,
      )
      .get(sessionKey, sessionKey, sessionKey);
    return hit !== undefined;
  }

  async changesSince(request: { sessionKey: string; agentId: string; since: number; limit?: number }): Promise<ChangesSinceResponse> {
    const r = normalizeChangesSince(request);
    return this.snapshot(() =>
      readChangesSince({ head: this.db.prepare(SQL.head), page: this.db.prepare(SQL.page), lowestRetained: this.db.prepare(SQL.lowestRetained) }, r, (row) =>
        decode.eventFromRow(row),
      ),
    );
  }

  async cursors(filter: { watcher?: string; target?: string } = {}): Promise<CursorView[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.watcher !== undefined) {
      where.push('watcher_session_key = ?');
      params.push(filter.watcher);
    }
    if (filter.target !== undefined) {
      where.push('target_session_key = ?');
      params.push(filter.target);
    }
    const sql = `SELECT ${CURSOR_COLUMNS} FROM ${this.cursorsFrom}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    return (this.db.prepare(sql).all(...params) as CursorRow[])
      .map((row): CursorView => {
        // Shown as stored, not through the store's checked decoder: a corrupt row is what an operator looks for.
        const c = {
          watcherSessionKey: row.watcher_session_key,
          targetSessionKey: row.target_session_key,
          targetAgentId: row.target_agent_id,
          lastSeenSequence: exact(row.last_seen),
          notifiedSequence: exact(row.notified),
          materialSequence: exact(row.material),
          provenance: row.provenance as WatchCursor['provenance'],
          updatedAt: exact(row.updated_at),
        };
        return { ...c, pending: big(c.notifiedSequence) > big(c.lastSeenSequence) };
      })
      .sort(
        (a, b) =>
          byCodeUnits(a.watcherSessionKey, b.watcherSessionKey) ||
          byCodeUnits(a.targetSessionKey, b.targetSessionKey) ||
          byCodeUnits(a.targetAgentId, b.targetAgentId),
      );
  }

  async pendingNotices(watcherSessionKey: string): Promise<Notice[]> {
    const rows = this.db.prepare(`SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = ? AND notified > last_seen`).all(watcherSessionKey) as CursorRow[];
    return pendingNoticesOf(rows.map((r) => decode.cursorFromRow(r)));
  }

  async stats(options: { now: number; maxRows: number; retentionMs: number }): Promise<StatsView> {
    const one = (sql: string, field: string, ...params: SqlValue[]): number => {
      const row = this.db.prepare(sql).get(...params);
      const first = row === undefined ? undefined : Object.values(row)[0];
      return first !== undefined && first !== null ? n(first, field) : 0;
    };
    const cutoff = options.now - options.retentionMs;
    const facts = this.snapshot(() => {
      const oldest = this.db.prepare(`SELECT sequence, occurred_at FROM ${E} INDEXED BY session_state_events_occurred ORDER BY occurred_at LIMIT 1`).get() as
        | { sequence: unknown; occurred_at: unknown }
        | undefined;
      const newest = this.db.prepare(`SELECT max(occurred_at) AS t FROM ${E}`).get() as { t: unknown };
      const hasSequenceTable = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get() !== undefined;
      return {
        schemaVersion: n(this.db.pragma('user_version'), 'user_version'),
        journalMode: String(this.db.pragma('journal_mode')),
        rows: one(`SELECT count(*) FROM ${E}`, 'count'),
        highestSequence: hasSequenceTable ? one('SELECT seq FROM sqlite_sequence WHERE name = ?', 'sqlite_sequence.seq', E) : 0,
        sessions: one(`SELECT count(*) FROM ${H}`, 'count'),
        sessionsWithPrunedHistory: one(`SELECT count(*) FROM ${H} WHERE pruned_max_sequence > 0`, 'count'),
        cursors: one(`SELECT count(*) FROM ${C}`, 'count'),
        watchers: one(`SELECT count(DISTINCT watcher_session_key) FROM ${C}`, 'count'),
        pendingPairs: one(`SELECT count(*) FROM ${C} WHERE notified > last_seen`, 'count'),
        eventsPastRetention: one(`SELECT count(*) FROM ${E} WHERE occurred_at < ?`, 'count', cutoff),
        cursorsPastRetention: one(`SELECT count(*) FROM ${C} WHERE updated_at < ?`, 'count', cutoff),
        oldest: oldest ? { sequence: n(oldest.sequence, `${E}.sequence`), occurredAt: n(oldest.occurred_at, `${E}.occurred_at`) } : undefined,
        newestOccurredAt: newest.t === null ? null : n(newest.t, `${E}.occurred_at`),
      };
    });
    const { oldest, ...rest } = facts;
    return {
      path: this.path,
      supportedSchemaVersion: SCHEMA_VERSION,
      fileBytes: statSync(this.path).size,
      walBytes: ((wal) => (existsSync(wal) ? statSync(wal).size : 0))(walFileOf(this.path) ?? `${this.path}-wal`),
      ...rest,
      now: options.now,
      oldestEvent: oldest ? { ...oldest, ageMs: options.now - oldest.occurredAt } : null,
      maxRows: options.maxRows,
      rowsUntilCap: Math.max(0, options.maxRows - facts.rows),
      retentionMs: options.retentionMs,
    };
  }

  // --- the live view (LiveViewReads) ---

  private headRow(r: Record<string, unknown>): SessionRow {
    const stateVersion = n(r['last_sequence'], `${H}.last_sequence`);
    const sessionKey = String(r['session_key']);
    const agentId = String(r['agent_id']);
    const lowest = this.db.prepare(UI_SQL.lowest).get(agentId, sessionKey)?.['m'];
    const row: SessionRow = {
      sessionKey,
      agentId,
      stateVersion,
      prunedMaxSequence: n(r['pruned_max_sequence'], `${H}.pruned_max_sequence`),
      // R32, as changesSince reports it.
      earliestAvailableSequence: lowest === null || lowest === undefined ? (stateVersion > 0 ? stateVersion + 1 : 0) : n(lowest, `${E}.sequence`),
      updatedAt: n(r['updated_at'], `${H}.updated_at`),
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
  async sessionsPage(q: SessionsPageQuery): Promise<{ rows: SessionRow[]; more: boolean }> {
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
    const rows = merged
      .slice(0, q.limit)
      .map((r): SessionRow =>
        r.raw ? this.headRow(r.raw) : { sessionKey: r.sessionKey, agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true },
      );
    return { rows, more: merged.length > q.limit };
  }

  async head(sessionKey: string, agentId: string): Promise<SessionRow | undefined> {
    this.refresh();
    const h = this.db.prepare(UI_SQL.head).get(sessionKey, agentId);
    return h ? this.headRow(h) : undefined;
  }

  async timelineRows(sessionKey: string, agentId: string, before: number, limit: number): Promise<EventRow[]> {
    this.refresh();
    return this.db.prepare(UI_SQL.timeline).all(agentId, sessionKey, before, limit) as EventRow[];
  }

  decodeEvent(row: EventRow): StateEvent {
    return decode.eventFromRow(row);
  }

  async cursorsPage(q: CursorsPageQuery): Promise<WatchCursor[]> {
    this.refresh();
    const a = q.after;
    const params: SqlValue[] = [
      ...(q.session === undefined ? [] : [q.session, q.session, q.session]),
      a?.targetAgentId ?? '',
      a?.targetSessionKey ?? '',
      a?.watcherSessionKey ?? '',
      q.limit,
    ];
    return (this.db.prepare(watchesSql(this.cursorsFrom, q)).all(...params) as CursorRow[]).map((r) => decode.cursorAsStored(r));
  }

  async newestOccurredAt(): Promise<number | undefined> {
    this.refresh();
    const newest = this.db.prepare(UI_SQL.newest).get()?.['t'];
    return newest === null || newest === undefined ? undefined : n(newest, `${E}.occurred_at`);
  }

  async activityRows(from: number, to: number): Promise<{ minute: number; actorType: string; count: number }[]> {
    this.refresh();
    return this.db.prepare(UI_SQL.activity).all(from, to).map((r) => ({ minute: n(r['minute'], 'minute'), actorType: String(r['actor_type']), count: n(r['n'], 'count') }));
  }

  async changeToken(): Promise<string> {
    this.refresh();
    // Changes when another connection (any process) committed to the file (R86), or on a reopen (R80).
    return `${this.generation}:${n(this.db.pragma('data_version'), 'data_version')}`;
  }

  /** Every pending pair (R20): the feed's full read, and the live view's where an older schema marks no changes. */
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
}
