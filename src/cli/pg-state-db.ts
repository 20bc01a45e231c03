import type pg from 'pg';
import type { ChangesSinceResponse, Notice } from '../../spec/index.js';
import { isPending, normalizeChangesSince, pendingNoticesOf } from '../core/index.js';
import { loadPg } from '../postgres/driver.js';
import { NotAStateSchemaError, PostgresStoreError, classifyOpenError, toSafeNumber } from '../postgres/errors.js';
import { cursorAsStoredFromPgRow, cursorFromPgRow, eventFromPgRow, type PgCursorRow, type PgEventRow } from '../postgres/rows.js';
import { SCHEMA_VERSION, TABLES, quoteIdent, readSchemaVersion } from '../postgres/schema.js';
import { CURSOR_COLUMNS, statements } from '../postgres/sql.js';
import { changesSinceFromRows, type ChangesSinceRow } from '../postgres/changes-read.js';
import { DatabaseProblem } from './io.js';
import type { CursorView, HeadView, StatsView } from './state-db.js';
import { messageOf } from '../shared/logger.js';

/**
 * Read-only views of a PostgreSQL store for `inspect --pg <url>`: the same views as the SQLite
 * reader (state-db.ts), from one REPEATABLE READ, READ ONLY transaction, so every query of one
 * command sees one snapshot while live stores write. Protocol meaning comes from src/core and the
 * changesSince read is the store's own statement.
 */

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

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

export class PgStateReader {
  private constructor(
    private readonly client: pg.Client,
    readonly path: string,
    readonly schema: string,
    private readonly schemaVersion: number,
  ) {}

  /** Connects read-only and checks the schema; every failure is a DatabaseProblem (exit 3) with a hint. */
  static async open(url: string, schema = 'public'): Promise<PgStateReader> {
    const label = redactUrl(url);
    let client: pg.Client | undefined;
    try {
      const pgm = await loadPg();
      client = new pgm.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: 'session-state-kit-inspect' });
      client.on('error', () => {}); // a dropped connection fails the next query instead of the process
      await client.connect();
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const version = await readSchemaVersion(client, schema);
      if (version === 0) throw new NotAStateSchemaError(schema, 'it has no session-state tables (never opened by a store)');
      return new PgStateReader(client, label, schema, version);
    } catch (error) {
      await client?.end().catch(() => {});
      const typed = classifyOpenError(error, { target: label, user: undefined, schema });
      if (typed instanceof PostgresStoreError) throw new DatabaseProblem(typed.message.replace(`; ${typed.hint}`, ''), [typed.hint]);
      throw new DatabaseProblem(`${label}: ${messageOf(error)}`);
    }
  }

  private get s(): string {
    return quoteIdent(this.schema);
  }

  private async rows<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.client.query<R>(sql, values)).rows;
  }

  private async one(sql: string, field: string, values: unknown[] = []): Promise<number> {
    const row = (await this.rows<{ v: unknown }>(sql, values))[0];
    return row && row.v !== null && row.v !== undefined ? toSafeNumber(row.v, field) : 0;
  }

  async close(): Promise<void> {
    await this.client.query('ROLLBACK').catch(() => {});
    await this.client.end().catch(() => {});
  }

  async heads(): Promise<HeadView[]> {
    const E = `${this.s}.${TABLES.events}`;
    const H = `${this.s}.${TABLES.heads}`;
    const counts = new Map<string, { n: number; min: number }>();
    for (const g of await this.rows<{ agent_id: string; session_key: string; n: string; min_sequence: string }>(
      `SELECT agent_id, session_key, count(*) AS n, min(sequence) AS min_sequence FROM ${E} GROUP BY agent_id, session_key`,
    )) {
      counts.set(JSON.stringify([g.session_key, g.agent_id]), { n: toSafeNumber(g.n, 'count'), min: toSafeNumber(g.min_sequence, `${TABLES.events}.sequence`) });
    }
    const heads = await this.rows<{ session_key: string; agent_id: string; last_sequence: string; pruned_max_sequence: string; updated_at: string }>(
      `SELECT session_key, agent_id, last_sequence, pruned_max_sequence, updated_at FROM ${H}`,
    );
    return heads
      .map((r): HeadView => {
        const stateVersion = toSafeNumber(r.last_sequence, `${TABLES.heads}.last_sequence`);
        const retained = counts.get(JSON.stringify([r.session_key, r.agent_id]));
        return {
          sessionKey: r.session_key,
          agentId: r.agent_id,
          stateVersion,
          prunedMaxSequence: toSafeNumber(r.pruned_max_sequence, `${TABLES.heads}.pruned_max_sequence`),
          updatedAt: toSafeNumber(r.updated_at, `${TABLES.heads}.updated_at`),
          retainedEvents: retained?.n ?? 0,
          earliestAvailableSequence: retained ? retained.min : stateVersion > 0 ? stateVersion + 1 : 0, // R32
        };
      })
      .sort((a, b) => byCodeUnits(a.sessionKey, b.sessionKey) || byCodeUnits(a.agentId, b.agentId));
  }

  async agentsOf(sessionKey: string): Promise<string[]> {
    const rows = await this.rows<{ agent_id: string }>(`SELECT agent_id FROM ${this.s}.${TABLES.heads} WHERE session_key = $1`, [sessionKey]);
    return rows.map((r) => r.agent_id).sort(byCodeUnits);
  }

  async hasHead(sessionKey: string, agentId: string): Promise<boolean> {
    return (await this.rows(statements(this.schema).head, [sessionKey, agentId])).length > 0;
  }

  async knowsSession(sessionKey: string): Promise<boolean> {
    const C = `${this.s}.${TABLES.cursors}`;
    const hit = await this.rows(
      `SELECT 1 FROM ${this.s}.${TABLES.heads} WHERE session_key = $1 UNION ALL SELECT 1 FROM ${C} WHERE watcher_session_key = $1 UNION ALL SELECT 1 FROM ${C} WHERE target_session_key = $1 LIMIT 1`,
      [sessionKey],
    );
    return hit.length > 0;
  }

  /** R30-R33: what the store's changesSince answers: the same statement and decoding (postgres/changes-read.ts). */
  async changesSince(request: { sessionKey: string; agentId: string; since: number; limit?: number }): Promise<ChangesSinceResponse> {
    const r = normalizeChangesSince(request);
    const rows = await this.rows<ChangesSinceRow>(statements(this.schema).changesSince, [r.agentId, r.sessionKey, r.since, r.limit + 1]);
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
    const rows = await this.rows<PgCursorRow>(`SELECT ${CURSOR_COLUMNS} FROM ${this.s}.${TABLES.cursors}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`, values);
    return rows
      .map((row) => {
        // As stored, not through the store's checked decoder: a corrupt row is what an operator looks for.
        const c = cursorAsStoredFromPgRow(row);
        return { ...c, pending: isPending(c) };
      })
      .sort((a, b) => byCodeUnits(a.watcherSessionKey, b.watcherSessionKey) || byCodeUnits(a.targetSessionKey, b.targetSessionKey) || byCodeUnits(a.targetAgentId, b.targetAgentId));
  }

  /** R20, R26: exactly what the store's pendingNotices returns. */
  async pendingNotices(watcherSessionKey: string): Promise<Notice[]> {
    const rows = await this.rows<PgCursorRow>(statements(this.schema).pendingOfWatcher, [watcherSessionKey]);
    return pendingNoticesOf(rows.map(cursorFromPgRow));
  }

  async stats(options: { now: number; maxRows: number; retentionMs: number }): Promise<StatsView> {
    const E = `${this.s}.${TABLES.events}`;
    const H = `${this.s}.${TABLES.heads}`;
    const C = `${this.s}.${TABLES.cursors}`;
    const cutoff = options.now - options.retentionMs;
    const oldest = (await this.rows<{ sequence: string; occurred_at: string }>(`SELECT sequence, occurred_at FROM ${E} ORDER BY occurred_at LIMIT 1`))[0];
    const newest = (await this.rows<{ t: string | null }>(`SELECT max(occurred_at) AS t FROM ${E}`))[0]?.t ?? null;
    const rows = await this.one(`SELECT count(*) AS v FROM ${E}`, 'count');
    const bytes = await this.one(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS v FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      'size',
      [this.schema],
    );
    const seq = await this.rows<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${this.s}.${TABLES.sequence}`);
    const highest = seq[0] && seq[0].is_called ? toSafeNumber(seq[0].last_value, `${TABLES.sequence}.last_value`) : 0;
    const oldestEvent = oldest
      ? { sequence: toSafeNumber(oldest.sequence, `${TABLES.events}.sequence`), occurredAt: toSafeNumber(oldest.occurred_at, `${TABLES.events}.occurred_at`), ageMs: 0 }
      : null;
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
      newestOccurredAt: newest === null ? null : toSafeNumber(newest, `${TABLES.events}.occurred_at`),
      maxRows: options.maxRows,
      rowsUntilCap: Math.max(0, options.maxRows - rows),
      retentionMs: options.retentionMs,
      eventsPastRetention: await this.one(`SELECT count(*) AS v FROM ${E} WHERE occurred_at < $1`, 'count', [cutoff]),
      cursorsPastRetention: await this.one(`SELECT count(*) AS v FROM ${C} WHERE updated_at < $1`, 'count', [cutoff]),
    } as StatsView;
  }
}
