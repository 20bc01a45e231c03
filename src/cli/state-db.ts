import { CURSOR_COLUMNS } from '../shared/rows.js';
import { existsSync, statSync } from 'node:fs';
import type { ChangesSinceResponse, Notice, StateEvent, WatchCursor } from '../../spec/index.js';
import { isPending, normalizeChangesSince, pendingNoticesOf } from '../core/index.js';
import { NotAStateDatabaseError, SchemaTooNewError, StateDatabaseError, toSafeNumber } from '../sqlite/errors.js';
import { EFFECTIVE_CURSORS, SCHEMA_VERSION, TABLES, openStateConnectionReadOnly } from '../sqlite/schema.js';
import { readTransaction } from '../sqlite/driver/transaction.js';
import type { SqliteConnection, SqlValue } from '../sqlite/driver/types.js';
import { SQL } from '../sqlite/sql.js';
import { readChangesSince } from '../sqlite/changes-read.js';
import { walFileOf } from '../sqlite/sqlite-store.js';
import { cursorFromRow, eventFromRow, type CursorRow, type EventRow } from '../sqlite/rows.js';
import { DatabaseProblem } from './io.js';

/**
 * Read-only views of a SQLite state database for `inspect`. The connection is opened read-only
 * on whichever driver this runtime has (openStateConnectionReadOnly: better-sqlite3, else
 * node:sqlite on Node 22+, bun:sqlite on Bun), so nothing here can write the file; WAL lets
 * these reads run while a live store writes. Protocol meaning (changesSince pages,
 * pending notices and their text) comes from src/core, exactly as the store computes it; the
 * changesSince reads reuse the store's own statements (SQL.head/page/lowestRetained).
 */

const E = TABLES.events.name;
const H = TABLES.heads.name;
const C = TABLES.cursors.name;
/** Step 7 keeps a pending cursor's newer M and updated_at in its target's slots; older files have no view. */
const EFFECTIVE_SINCE_VERSION = 7;

// Rows decode exactly as the store decodes them (one implementation in src/sqlite/rows.ts).
const toEvent = (row: EventRow): StateEvent => eventFromRow(row);
const toCursor = cursorFromRow;
const n = toSafeNumber;

/**
 * An integer as stored, for display: a number when it is safe, else its exact decimal digits.
 * heads and cursors show what is in the file, even values no store could have written (past
 * 2^53 - 1, negative): inspect is how an operator finds such a row, so it must not refuse it.
 */
export type ExactInt = number | string;
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
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

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

export interface StatsView {
  path: string;
  schemaVersion: number;
  supportedSchemaVersion: number;
  journalMode: string;
  fileBytes: number;
  walBytes: number;
  /** Retained events, counted (COUNT(*)). */
  rows: number;
  /** Highest sequence ever assigned (R7), 0 for a fresh file. */
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

/** Opens the file read-only, turning every way that can fail into a DatabaseProblem (exit 3) with a hint. */
export function openReadOnly(path: string): SqliteConnection {
  if (!existsSync(path)) throw new DatabaseProblem(`${path}: no such file`, ['pass the path of a state database file written by the SQLite adapter']);
  if (!statSync(path).isFile()) throw new DatabaseProblem(`${path}: not a regular file`);
  try {
    return openStateConnectionReadOnly(path);
  } catch (error) {
    throw toDatabaseProblem(error, path);
  }
}

/** Maps adapter and SQLite errors to exit 3; anything else is rethrown as is. */
export function toDatabaseProblem(error: unknown, path: string, command = 'inspect'): unknown {
  if (error instanceof SchemaTooNewError) {
    // The adapter's message already says which versions and what to do.
    return new DatabaseProblem(error.message);
  }
  if (error instanceof NotAStateDatabaseError) {
    return new DatabaseProblem(error.message, [`${command} reads files written by the SQLite adapter (createSqliteStore({ path }))`]);
  }
  if (error instanceof StateDatabaseError) return new DatabaseProblem(`${path}: ${error.message}`);
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string' && code.startsWith('SQLITE_')) {
    const busy = code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
    return new DatabaseProblem(`${path}: ${error.message} (${code})`, busy ? ['another process holds a lock; retry in a moment'] : []);
  }
  return error;
}

export class StateDbReader {
  constructor(
    readonly db: SqliteConnection,
    readonly path: string,
  ) {}

  close(): void {
    this.db.close();
  }

  /** One read transaction: every query inside sees the same snapshot, even while a writer commits. */
  snapshot<T>(fn: () => T): T {
    return readTransaction(this.db, fn);
  }

  heads(): HeadView[] {
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

  /** Agents that have a head under this session key. */
  agentsOf(sessionKey: string): string[] {
    const rows = this.db.prepare(`SELECT agent_id FROM ${H} WHERE session_key = ?`).all(sessionKey) as { agent_id: string }[];
    return rows.map((r) => r.agent_id).sort(byCodeUnits);
  }

  hasHead(sessionKey: string, agentId: string): boolean {
    return this.db.prepare(SQL.head).get(sessionKey, agentId) !== undefined;
  }

  /** A key the file mentions anywhere: as a session with a head, a watcher, or a watched target. */
  knowsSession(sessionKey: string): boolean {
    const hit = this.db
      .prepare(
        `SELECT 1 FROM ${H} WHERE session_key = ? UNION ALL SELECT 1 FROM ${C} WHERE watcher_session_key = ? UNION ALL SELECT 1 FROM ${C} WHERE target_session_key = ? LIMIT 1`,
      )
      .get(sessionKey, sessionKey, sessionKey);
    return hit !== undefined;
  }

  /** R30-R33: what the store's changesSince answers: the same read (sqlite/changes-read.ts). */
  changesSince(request: { sessionKey: string; agentId: string; since: number; limit?: number }): ChangesSinceResponse {
    const r = normalizeChangesSince(request);
    return this.snapshot(() =>
      readChangesSince({ head: this.db.prepare(SQL.head), page: this.db.prepare(SQL.page), lowestRetained: this.db.prepare(SQL.lowestRetained) }, r, toEvent),
    );
  }

  cursors(filter: { watcher?: string; target?: string } = {}): CursorView[] {
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
    const from = n(this.db.pragma('user_version'), 'user_version') >= EFFECTIVE_SINCE_VERSION ? EFFECTIVE_CURSORS : C;
    const sql = `SELECT ${CURSOR_COLUMNS} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
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

  /**
   * R20, R26: this watcher's pending notices, exactly as pendingNotices returns them: one per cursor
   * with N > L, quoting L, with the core's text and context key, in R26 order.
   */
  pendingNotices(watcherSessionKey: string): Notice[] {
    const rows = this.db.prepare(`SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = ? AND notified > last_seen`).all(watcherSessionKey) as CursorRow[];
    return pendingNoticesOf(rows.map(toCursor));
  }

  stats(options: { now: number; maxRows: number; retentionMs: number }): StatsView {
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
}
