import type pg from 'pg';
import type { ChangesSinceResponse, Notice, PendingPair, PendingReadRequest, PendingSource, StateEvent, WatchCursor } from '../../spec/index.js';
import { isPending, normalizeChangesSince, pendingNoticesOf, pendingPairOf } from '../core/index.js';
import { silentLogger } from '../shared/logger.js';
import { BadRows } from '../shared/pending-rows.js';
import {
  EVENT_VIEW_COLUMNS,
  MINUTE_MS,
  type CursorView,
  type CursorsPageQuery,
  type HeadView,
  type InspectReads,
  type LiveViewReads,
  type SessionRow,
  type SessionsPageQuery,
  type StatsView,
} from '../shared/read-model.js';
import { CURSOR_COLUMNS, type EventRow } from '../shared/rows.js';
import { changesSinceFromRows, type ChangesSinceRow } from './changes-read.js';
import { loadPg } from './driver.js';
import { NotAStateSchemaError, classifyOpenError, toSafeNumber } from './errors.js';
import { needsTransaction, readPendingWith } from './pending-reads.js';
import { cursorAsStoredFromPgRow, cursorFromPgRow, eventFromPgRow, type PgCursorRow, type PgEventRow } from './rows.js';
import { SCHEMA_VERSION, TABLES, quoteIdent, readSchemaVersion } from './schema.js';
import { statements, type Statements } from './sql.js';

/**
 * The read model of a PostgreSQL state schema (shared/read-model.ts): what `inspect` and the live
 * view read, on one connection of its own whose transactions are all READ ONLY (R80), so the
 * server refuses any write. `inspect` holds one REPEATABLE READ transaction for its whole command,
 * so every query sees one snapshot while live stores write; the live view reads each page as it
 * comes. Integers arrive as decimal strings and are decoded exactly; the changesSince and pending
 * reads are the store's own statements.
 */

/** Schema step 2 marks cursor changes for the feed (R71). */
const MARKS_SINCE_VERSION = 2;
const n = toSafeNumber;
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The URL without its password, for messages and hints. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(connection string)';
  }
}

/** How a state reader holds its connection. */
export interface PgStateReaderOptions {
  /** `snapshot`: one REPEATABLE READ, READ ONLY transaction for the reader's life (inspect). `live` (default): each read sees the newest commits. */
  consistency?: 'snapshot' | 'live';
  /** The program name the server shows for the connection. */
  applicationName?: string;
  /** How the live view's header names the store (default: the URL without its password); the schema is added unless it is `public`. */
  label?: string;
}

/** The read model of a PostgreSQL state schema: what `inspect` and the live view read (InspectReads, LiveViewReads), in READ ONLY transactions (R80). */
export class PgStateReader implements InspectReads, LiveViewReads {
  private readonly badRows = new BadRows(silentLogger, 'reader');
  private readonly sql: Statements;

  private constructor(
    private readonly client: pg.Client,
    /** The URL without its password. */
    readonly path: string,
    readonly schema: string,
    readonly schemaVersion: number,
    private readonly consistency: 'snapshot' | 'live',
    private readonly shownAs: string = path,
  ) {
    this.sql = statements(schema);
  }

  /**
   * Connects read-only and checks the schema. Throws the adapter's typed errors (PostgresStoreError
   * and its kinds: unreachable, authentication, missing database, privilege; NotAStateSchemaError
   * for a schema no store opened), each with what to do.
   */
  static async open(url: string, schema = 'public', options: PgStateReaderOptions = {}): Promise<PgStateReader> {
    const label = redactUrl(url);
    const consistency = options.consistency ?? 'live';
    let client: pg.Client | undefined;
    try {
      const pgm = await loadPg();
      client = new pgm.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: options.applicationName ?? 'session-state-kit-reader' });
      client.on('error', () => {}); // a dropped connection fails the next read instead of the process
      await client.connect();
      await client.query(consistency === 'snapshot' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      const version = await readSchemaVersion(client, schema);
      if (version === 0) throw new NotAStateSchemaError(schema, 'it has no session-state tables (never opened by a store)');
      return new PgStateReader(client, label, schema, version, consistency, options.label);
    } catch (error) {
      await client?.end().catch(() => {});
      throw classifyOpenError(error, { target: label, user: undefined, schema });
    }
  }

  /** The store as the live view's header names it: the URL without its password, and the schema unless it is `public`. */
  get label(): string {
    return `${this.shownAs}${this.schema === 'public' ? '' : ` schema ${this.schema}`}`;
  }

  private t(name: keyof typeof TABLES): string {
    return `${quoteIdent(this.schema)}.${TABLES[name]}`;
  }

  private async rows<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.client.query<R>(sql, values)).rows;
  }

  private async one(sql: string, field: string, values: unknown[] = []): Promise<number> {
    const row = (await this.rows<{ v: unknown }>(sql, values))[0];
    return row && row.v !== null && row.v !== undefined ? n(row.v, field) : 0;
  }

  async close(): Promise<void> {
    if (this.consistency === 'snapshot') await this.client.query('ROLLBACK').catch(() => {});
    await this.client.end().catch(() => {});
  }

  // --- inspect (InspectReads) ---

  async heads(): Promise<HeadView[]> {
    const counts = new Map<string, { n: number; min: number }>();
    for (const g of await this.rows<{ agent_id: string; session_key: string; n: string; min_sequence: string }>(
      `SELECT agent_id, session_key, count(*) AS n, min(sequence) AS min_sequence FROM ${this.t('events')} GROUP BY agent_id, session_key`,
    )) {
      counts.set(JSON.stringify([g.session_key, g.agent_id]), { n: n(g.n, 'count'), min: n(g.min_sequence, `${TABLES.events}.sequence`) });
    }
    const heads = await this.rows<{ session_key: string; agent_id: string; last_sequence: string; pruned_max_sequence: string; updated_at: string }>(
      `SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${this.t('heads')}`,
    );
    return heads
      .map((r): HeadView => {
        const stateVersion = n(r.last_sequence, `${TABLES.heads}.last_sequence`);
        const retained = counts.get(JSON.stringify([r.session_key, r.agent_id]));
        return {
          sessionKey: r.session_key,
          agentId: r.agent_id,
          stateVersion,
          prunedMaxSequence: n(r.pruned_max_sequence, `${TABLES.heads}.pruned_max_sequence`),
          updatedAt: n(r.updated_at, `${TABLES.heads}.updated_at`),
          retainedEvents: retained?.n ?? 0,
          earliestAvailableSequence: retained ? retained.min : stateVersion > 0 ? stateVersion + 1 : 0, // R32
        };
      })
      .sort((a, b) => byCodeUnits(a.sessionKey, b.sessionKey) || byCodeUnits(a.agentId, b.agentId));
  }

  async agentsOf(sessionKey: string): Promise<string[]> {
    const rows = await this.rows<{ agent_id: string }>(`SELECT agent_id FROM ${this.t('heads')} WHERE session_key = $1`, [sessionKey]);
    return rows.map((r) => r.agent_id).sort(byCodeUnits);
  }

  async hasHead(sessionKey: string, agentId: string): Promise<boolean> {
    return (await this.rows(this.sql.head, [sessionKey, agentId])).length > 0;
  }

  async knowsSession(sessionKey: string): Promise<boolean> {
    const C = this.t('cursors');
    const hit = await this.rows(
      `SELECT 1 FROM ${this.t('heads')} WHERE session_key = $1 UNION ALL SELECT 1 FROM ${C} WHERE watcher_session_key = $1 UNION ALL SELECT 1 FROM ${C} WHERE target_session_key = $1 LIMIT 1`,
      [sessionKey],
    );
    return hit.length > 0;
  }

  async changesSince(request: { sessionKey: string; agentId: string; since: number; limit?: number }): Promise<ChangesSinceResponse> {
    const r = normalizeChangesSince(request);
    const rows = await this.rows<ChangesSinceRow>(this.sql.changesSince, [r.agentId, r.sessionKey, r.since, r.limit + 1]);
    return changesSinceFromRows(r, rows, eventFromPgRow);
  }

  async cursors(filter: { watcher?: string; target?: string } = {}): Promise<CursorView[]> {
    const where: string[] = [];
    const values: string[] = [];
    if (filter.watcher !== undefined) {
      values.push(filter.watcher);
      where.push(`watcher_session_key = $${values.length}`);
    }
    if (filter.target !== undefined) {
      values.push(filter.target);
      where.push(`target_session_key = $${values.length}`);
    }
    const rows = await this.rows<PgCursorRow>(`SELECT ${CURSOR_COLUMNS} FROM ${this.t('cursors')}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`, values);
    return rows
      .map((row) => {
        // As stored, not through the store's checked decoder: a corrupt row is what an operator looks for.
        const c = cursorAsStoredFromPgRow(row);
        return { ...c, pending: isPending(c) };
      })
      .sort((a, b) => byCodeUnits(a.watcherSessionKey, b.watcherSessionKey) || byCodeUnits(a.targetSessionKey, b.targetSessionKey) || byCodeUnits(a.targetAgentId, b.targetAgentId));
  }

  async pendingNotices(watcherSessionKey: string): Promise<Notice[]> {
    const rows = await this.rows<PgCursorRow>(this.sql.pendingOfWatcher, [watcherSessionKey]);
    return pendingNoticesOf(rows.map(cursorFromPgRow));
  }

  async stats(options: { now: number; maxRows: number; retentionMs: number }): Promise<StatsView> {
    const E = this.t('events');
    const H = this.t('heads');
    const C = this.t('cursors');
    const cutoff = options.now - options.retentionMs;
    const oldest = (await this.rows<{ sequence: string; occurred_at: string }>(`SELECT sequence, occurred_at FROM ${E} ORDER BY occurred_at LIMIT 1`))[0];
    const newest = (await this.rows<{ t: string | null }>(`SELECT max(occurred_at) AS t FROM ${E}`))[0]?.t ?? null;
    const rows = await this.one(`SELECT count(*) AS v FROM ${E}`, 'count');
    const bytes = await this.one(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS v FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      'size',
      [this.schema],
    );
    const seq = await this.rows<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${this.t('sequence')}`);
    const highest = seq[0] && seq[0].is_called ? n(seq[0].last_value, `${TABLES.sequence}.last_value`) : 0;
    const oldestEvent = oldest ? { sequence: n(oldest.sequence, `${TABLES.events}.sequence`), occurredAt: n(oldest.occurred_at, `${TABLES.events}.occurred_at`), ageMs: 0 } : null;
    if (oldestEvent) oldestEvent.ageMs = options.now - oldestEvent.occurredAt;
    return {
      path: `${this.path} schema ${this.schema}`,
      schemaVersion: this.schemaVersion,
      supportedSchemaVersion: SCHEMA_VERSION,
      journalMode: 'postgresql',
      fileBytes: bytes,
      walBytes: 0,
      rows,
      highestSequence: highest,
      sessions: await this.one(`SELECT count(*) AS v FROM ${H}`, 'count'),
      sessionsWithPrunedHistory: await this.one(`SELECT count(*) AS v FROM ${H} WHERE pruned_max_sequence > 0`, 'count'),
      cursors: await this.one(`SELECT count(*) AS v FROM ${C}`, 'count'),
      watchers: await this.one(`SELECT count(DISTINCT watcher_session_key) AS v FROM ${C}`, 'count'),
      pendingPairs: await this.one(`SELECT count(*) AS v FROM ${C} WHERE notified > last_seen`, 'count'),
      now: options.now,
      oldestEvent,
      newestOccurredAt: newest === null ? null : n(newest, `${TABLES.events}.occurred_at`),
      maxRows: options.maxRows,
      rowsUntilCap: Math.max(0, options.maxRows - rows),
      retentionMs: options.retentionMs,
      eventsPastRetention: await this.one(`SELECT count(*) AS v FROM ${E} WHERE occurred_at < $1`, 'count', [cutoff]),
      cursorsPastRetention: await this.one(`SELECT count(*) AS v FROM ${C} WHERE updated_at < $1`, 'count', [cutoff]),
    };
  }

  // --- the live view (LiveViewReads) ---

  private async headRow(r: Record<string, unknown>): Promise<SessionRow> {
    const stateVersion = n(r['last_sequence'], 'last_sequence');
    const sessionKey = String(r['session_key']);
    const agentId = String(r['agent_id']);
    const lowest = (await this.rows(`SELECT min(sequence) AS m FROM ${this.t('events')} WHERE agent_id = $1 AND session_key = $2`, [agentId, sessionKey]))[0]?.['m'];
    const row: SessionRow = {
      sessionKey,
      agentId,
      stateVersion,
      prunedMaxSequence: n(r['pruned_max_sequence'], 'pruned_max_sequence'),
      // R32, as changesSince reports it.
      earliestAvailableSequence: lowest === null || lowest === undefined ? (stateVersion > 0 ? stateVersion + 1 : 0) : n(lowest, 'sequence'),
      updatedAt: n(r['updated_at'], 'updated_at'),
    };
    const last = stateVersion > 0 ? (await this.rows(`SELECT actor_type, actor_id, kind FROM ${this.t('events')} WHERE sequence = $1`, [stateVersion]))[0] : undefined;
    if (last) {
      row.lastActorType = String(last['actor_type']) as NonNullable<SessionRow['lastActorType']>;
      if (last['actor_id'] !== null) row.lastActorId = String(last['actor_id']);
      row.lastKind = String(last['kind']);
    }
    return row;
  }

  /** R81, R82: heads by primary key merged with the keys that only watch, in one statement. */
  async sessionsPage(q: SessionsPageQuery): Promise<{ rows: SessionRow[]; more: boolean }> {
    const heads = `SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at, 0 AS watcher_only FROM ${this.t('heads')}
       WHERE (session_key, agent_id) > ($3, $4)
         AND ($1::text IS NULL OR strpos(lower(session_key), lower($1)) > 0 OR strpos(lower(agent_id), lower($1)) > 0)
         AND ($2::text IS NULL OR agent_id = $2)
       ORDER BY session_key, agent_id LIMIT $5`;
    const watchers = `SELECT DISTINCT c.watcher_session_key AS session_key, ''::text COLLATE "C" AS agent_id, 0::bigint AS last_sequence, 0::bigint AS pruned_max_sequence, 0::bigint AS updated_at, 1 AS watcher_only
       FROM ${this.t('cursors')} AS c
       WHERE $2::text IS NULL AND c.watcher_session_key > $3
         AND ($1::text IS NULL OR strpos(lower(c.watcher_session_key), lower($1)) > 0)
         AND NOT EXISTS (SELECT 1 FROM ${this.t('heads')} AS h WHERE h.session_key = c.watcher_session_key)
       ORDER BY c.watcher_session_key LIMIT $5`;
    const rows = await this.rows(`SELECT * FROM ((${heads}) UNION ALL (${watchers})) AS u ORDER BY session_key, agent_id LIMIT $5`, [
      q.search || null,
      q.agent || null,
      q.after?.sessionKey ?? '',
      q.after?.agentId ?? '',
      q.limit + 1,
    ]);
    const page: SessionRow[] = [];
    for (const r of rows.slice(0, q.limit)) {
      page.push(
        Number(r['watcher_only']) === 1
          ? { sessionKey: String(r['session_key']), agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true }
          : await this.headRow(r),
      );
    }
    return { rows: page, more: rows.length > q.limit };
  }

  async head(sessionKey: string, agentId: string): Promise<SessionRow | undefined> {
    const h = (await this.rows(`SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${this.t('heads')} WHERE session_key = $1 AND agent_id = $2`, [sessionKey, agentId]))[0];
    return h ? this.headRow(h) : undefined;
  }

  async timelineRows(sessionKey: string, agentId: string, before: number, limit: number): Promise<EventRow[]> {
    return this.rows<PgEventRow>(
      `SELECT ${EVENT_VIEW_COLUMNS} FROM ${this.t('events')} WHERE agent_id = $1 AND session_key = $2 AND sequence < $3 ORDER BY sequence DESC LIMIT $4`,
      [agentId, sessionKey, before, limit],
    );
  }

  decodeEvent(row: EventRow): StateEvent {
    return eventFromPgRow(row);
  }

  async cursorsPage(q: CursorsPageQuery): Promise<WatchCursor[]> {
    const a = q.after;
    const values: unknown[] = [a?.targetAgentId ?? '', a?.targetSessionKey ?? '', a?.watcherSessionKey ?? '', q.limit];
    let where = '(target_agent_id, target_session_key, watcher_session_key) > ($1, $2, $3)';
    if (q.pending) where += ' AND notified > last_seen';
    if (q.session !== undefined) {
      values.push(q.session);
      where += ' AND (watcher_session_key = $5 OR target_session_key = $5)';
    }
    const rows = await this.rows<PgCursorRow>(
      `SELECT ${CURSOR_COLUMNS} FROM ${this.t('cursors')} WHERE ${where} ORDER BY target_agent_id, target_session_key, watcher_session_key LIMIT $4`,
      values,
    );
    return rows.map((r) => cursorAsStoredFromPgRow(r));
  }

  async newestOccurredAt(): Promise<number | undefined> {
    const newest = (await this.rows(`SELECT max(occurred_at) AS t FROM ${this.t('events')}`))[0]?.['t'];
    return newest === null || newest === undefined ? undefined : n(newest, 'occurred_at');
  }

  async activityRows(from: number, to: number): Promise<{ minute: number; actorType: string; count: number }[]> {
    const rows = await this.rows(
      `SELECT (occurred_at / ${MINUTE_MS}) * ${MINUTE_MS} AS minute, actor_type, count(*) AS n FROM ${this.t('events')}
       WHERE occurred_at >= $1 AND occurred_at < $2 GROUP BY 1, 2`,
      [from, to],
    );
    return rows.map((r) => ({ minute: n(r['minute'], 'minute'), actorType: String(r['actor_type']), count: n(r['n'], 'count') }));
  }

  /**
   * R86 on PostgreSQL: the newest sequence (a new event) and, where the schema marks cursor changes
   * (step 2, R71), the newest mark (a new notice, an ack), each one index probe: the cost does not
   * grow with the pending pairs. An older schema adds the pending pairs' count and L sum.
   */
  async changeToken(): Promise<string> {
    const marks = this.schemaVersion >= MARKS_SINCE_VERSION;
    const r = (
      await this.rows(
        marks
          ? `SELECT (SELECT coalesce(max(sequence), 0) FROM ${this.t('events')}) AS s,
                    (SELECT coalesce(max(changed_xid)::text, '0') FROM ${this.t('cursors')} WHERE changed_xid IS NOT NULL) AS x`
          : `SELECT (SELECT coalesce(max(sequence), 0) FROM ${this.t('events')}) AS s,
                    (SELECT count(*) FROM ${this.t('cursors')} WHERE notified > last_seen) AS n,
                    (SELECT coalesce(sum(last_seen), 0) FROM ${this.t('cursors')} WHERE notified > last_seen) AS l`,
      )
    )[0]!;
    return marks ? `${String(r['s'])}:${String(r['x'])}` : `${String(r['s'])}:${String(r['n'])}:${String(r['l'])}`;
  }

  /** Every pending pair (R20): the feed's full read, and the live view's where an older schema marks no changes. */
  async listPending(): Promise<PendingPair[]> {
    const rows = await this.rows<PgCursorRow>(`SELECT ${CURSOR_COLUMNS} FROM ${this.t('cursors')} WHERE notified > last_seen`);
    return rows.map((r) => pendingPairOf(cursorAsStoredFromPgRow(r)));
  }

  /** R68, R71: a read with a snapshot part in one REPEATABLE READ transaction, any other as its one statement. */
  private async readPending(request: PendingReadRequest) {
    const query = async (statement: keyof Statements, values: unknown[]) => (await this.client.query(this.sql[statement], values)).rows;
    if (this.consistency === 'snapshot' || !needsTransaction(request)) return readPendingWith(query, request, this.badRows);
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    try {
      const read = await readPendingWith(query, request, this.badRows);
      await this.client.query('COMMIT');
      return read;
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  feedSource(): PendingSource {
    return {
      ...(this.schemaVersion >= MARKS_SINCE_VERSION ? { readPending: (request: PendingReadRequest) => this.readPending(request) } : {}),
      listPending: () => this.listPending(),
      changeToken: () => this.changeToken(),
      onLocalChange: () => () => {}, // this session never writes (R80)
    };
  }
}
