import { CURSOR_COLUMNS } from '../shared/rows.js';
import type pg from 'pg';
import { pendingPairOf } from '../core/index.js';
import type { PendingPair, PendingReadRequest, PendingSource } from '../../spec/index.js';
import { readPendingWith } from '../postgres/pending-reads.js';
import { statements } from '../postgres/sql.js';
import { BadRows } from '../shared/pending-rows.js';
import { silentLogger } from '../shared/logger.js';
import { loadPg } from '../postgres/driver.js';
import { NotAStateSchemaError, toSafeNumber } from '../postgres/errors.js';
import { cursorAsStoredFromPgRow, eventFromPgRow, type PgCursorRow, type PgEventRow } from '../postgres/rows.js';
import { TABLES, quoteIdent, readSchemaVersion } from '../postgres/schema.js';
import { cursorPage, timelineOf } from './sqlite-source.js';
import {
  EVENT_VIEW_COLUMNS,
  MINUTE_MS,
  bucketize,
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
 * The live view's reads of a PostgreSQL store (`ui --pg <url>`): the same pages as on SQLite
 * (sqlite-source.ts), on one connection whose transactions are all READ ONLY (R80), so the server
 * refuses any write. Integers arrive as decimal strings and are decoded exactly.
 */

const num = (v: unknown, field: string): number => toSafeNumber(v, field);
/** Schema step 2 marks cursor changes for the feed (R71). */
const MARKS_SINCE_VERSION = 2;

export class PgUiSource implements UiSource {
  private readonly badRows = new BadRows(silentLogger, 'ui');

  private constructor(
    private readonly client: pg.Client,
    readonly label: string,
    private readonly s: string,
    private readonly schema: string,
    /** The schema's version: from step 2 the store marks cursor changes (R71). */
    private readonly version: number,
  ) {}

  /**
   * Connects, makes every transaction of the session read-only, and checks the schema. Throws the
   * driver's and the adapter's errors (the CLI turns them into exit 3 with a hint). `label` names
   * the store on the page: pass the URL without its password.
   */
  static async open(url: string, schema: string, label: string): Promise<PgUiSource> {
    const pgm = await loadPg();
    const client = new pgm.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: 'session-state-kit-ui' });
    client.on('error', () => {}); // a dropped connection fails the next read instead of the process
    try {
      await client.connect();
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      const version = await readSchemaVersion(client, schema);
      if (version === 0) throw new NotAStateSchemaError(schema, 'it has no session-state tables (never opened by a store)');
      return new PgUiSource(client, `${label}${schema === 'public' ? '' : ` schema ${schema}`}`, quoteIdent(schema), schema, version);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  }

  private t(name: keyof typeof TABLES): string {
    return `${this.s}.${TABLES[name]}`;
  }

  private async rows<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.client.query<R>(sql, values)).rows;
  }

  private async headRow(r: Record<string, unknown>): Promise<SessionRow> {
    const stateVersion = num(r['last_sequence'], 'last_sequence');
    const sessionKey = String(r['session_key']);
    const agentId = String(r['agent_id']);
    const lowest = (await this.rows(`SELECT min(sequence) AS m FROM ${this.t('events')} WHERE agent_id = $1 AND session_key = $2`, [agentId, sessionKey]))[0]?.['m'];
    const row: SessionRow = {
      sessionKey,
      agentId,
      stateVersion,
      prunedMaxSequence: num(r['pruned_max_sequence'], 'pruned_max_sequence'),
      earliestAvailableSequence: lowest === null || lowest === undefined ? (stateVersion > 0 ? stateVersion + 1 : 0) : num(lowest, 'sequence'),
      updatedAt: num(r['updated_at'], 'updated_at'),
    };
    const last = stateVersion > 0 ? (await this.rows(`SELECT actor_type, actor_id, kind FROM ${this.t('events')} WHERE sequence = $1`, [stateVersion]))[0] : undefined;
    if (last) {
      row.lastActorType = String(last['actor_type']) as NonNullable<SessionRow['lastActorType']>;
      if (last['actor_id'] !== null) row.lastActorId = String(last['actor_id']);
      row.lastKind = String(last['kind']);
    }
    return row;
  }

  /** As on SQLite (sessionsSql): heads by primary key, merged with the keys that only watch (R81, R82). */
  async sessions(q: SessionsQuery): Promise<Page<SessionRow, { sessionKey: string; agentId: string }>> {
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
        sessionView(
          Number(r['watcher_only']) === 1
            ? { sessionKey: String(r['session_key']), agentId: '', stateVersion: 0, prunedMaxSequence: 0, earliestAvailableSequence: 0, updatedAt: 0, watcherOnly: true }
            : await this.headRow(r),
        ),
      );
    }
    return pageOf(page, rows.length > q.limit, (last) => ({ sessionKey: last.sessionKey, agentId: last.agentId }));
  }

  async timeline(q: TimelineQuery): Promise<Timeline> {
    const h = (await this.rows(`SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${this.t('heads')} WHERE session_key = $1 AND agent_id = $2`, [q.sessionKey, q.agentId]))[0];
    if (!h) return { events: [] };
    const head = await this.headRow(h);
    const rows = await this.rows<PgEventRow>(
      `SELECT ${EVENT_VIEW_COLUMNS} FROM ${this.t('events')} WHERE agent_id = $1 AND session_key = $2 AND sequence < $3 ORDER BY sequence DESC LIMIT $4`,
      [q.agentId, q.sessionKey, q.before ?? Number.MAX_SAFE_INTEGER, q.limit + 1],
    );
    return timelineOf(head, rows, q.limit, (r) => eventFromPgRow(r));
  }

  async watches(q: WatchesQuery): Promise<Page<CursorRowView, CursorKey>> {
    const a = q.after;
    const values: unknown[] = [a?.targetAgentId ?? '', a?.targetSessionKey ?? '', a?.watcherSessionKey ?? '', q.limit + 1];
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
    return cursorPage(rows, q.limit);
  }

  async activity(minutes: number): Promise<Activity> {
    const newest = (await this.rows(`SELECT max(occurred_at) AS t FROM ${this.t('events')}`))[0]?.['t'];
    const endAt = newest === null || newest === undefined ? Date.now() : num(newest, 'occurred_at');
    const end = Math.floor(endAt / MINUTE_MS) * MINUTE_MS;
    const rows = await this.rows(
      `SELECT (occurred_at / ${MINUTE_MS}) * ${MINUTE_MS} AS minute, actor_type, count(*) AS n FROM ${this.t('events')}
       WHERE occurred_at >= $1 AND occurred_at < $2 GROUP BY 1, 2`,
      [end - (minutes - 1) * MINUTE_MS, end + MINUTE_MS],
    );
    return { end, buckets: bucketize(end, minutes, rows.map((r) => ({ minute: num(r['minute'], 'minute'), actorType: String(r['actor_type']), count: num(r['n'], 'count') }))) };
  }

  /**
   * R86 on PostgreSQL: the newest sequence (a new event) and, where the schema marks cursor changes
   * (step 2, R71), the newest mark (a new notice, an ack), each one index probe: the cost does not
   * grow with the pending pairs. An older schema adds the pending pairs' count and L sum.
   */
  async changeToken(): Promise<string> {
    const marks = this.version >= MARKS_SINCE_VERSION;
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

  feedSource(): PendingSource {
    const marks = this.version >= MARKS_SINCE_VERSION;
    const sql = statements(this.schema);
    return {
      // R68, R71: one REPEATABLE READ transaction (this session's transactions are read-only).
      ...(marks
        ? {
            readPending: async (request: PendingReadRequest) => {
              await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
              try {
                const read = await readPendingWith(async (statement, values) => (await this.client.query(sql[statement], values)).rows, request, this.badRows);
                await this.client.query('COMMIT');
                return read;
              } catch (error) {
                await this.client.query('ROLLBACK').catch(() => {});
                throw error;
              }
            },
          }
        : {}),
      listPending: () => this.listPending(),
      changeToken: () => this.changeToken(),
      onLocalChange: () => () => {}, // this session never writes (R80)
    };
  }

  async listPending(): Promise<PendingPair[]> {
    const rows = await this.rows<PgCursorRow>(`SELECT ${CURSOR_COLUMNS} FROM ${this.t('cursors')} WHERE notified > last_seen`);
    return rows.map((r) => pendingPairOf(cursorAsStoredFromPgRow(r)));
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}
