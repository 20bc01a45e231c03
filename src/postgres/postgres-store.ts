import type pg from 'pg';
import type {
  ChangesSinceResponse,
  CreateOptions,
  Notice,
  NoticeAck,
  SessionStateStore,
  StateEvent,
  StoreFactory,
  UnwatchRequest,
  UnwatchResult,
  WatchCursor,
  WatchRequest,
  WatchResult,
} from '../../spec/index.js';
import { eventInsertValues } from '../shared/rows.js';
import {
  checkSessionsPageRequest,
  checkPendingWatchersPageRequest,
  ackMatches,
  ackTargets,
  acknowledge,
  checkedNow,
  compareNotices,
  emptyChangesSince,
  isAgentScopedKey,
  isPending,
  isPruneDue,
  isValidationError,
  isWatched,
  noticeOf,
  noticeChanged,
  validateNoticeLinkTemplate,
  withNoticeLinks,
  normalizeChangesSince,
  pendingNoticesOf,
  planNotifications,
  prepareRecord,
  prepareRecordBatch,
  type PreparedRecord,
  registerWatch,
  resolvePruneConfig,
  retentionCutoff,
  ROUTE_EVERYONE,
  routePayload,
  validateIdentity,
  validateNoticeAcks,
  validateSessionKey,
  validateUnwatchRequest,
  validateWatchRequest,
  type PruneConfig,
  spawnParentOf,
} from '../core/index.js';
import type { FeedPosition, PendingPair, PendingRead, PendingReadRequest, PendingWatchersPageRequest, StorePendingSource, WakeInterest, WakeNews } from '../../spec/index.js';
import type { SessionsPageRequest, SessionsPageRow } from '../tools/handlers.js';
import { BadRows } from '../shared/pending-rows.js';
import { checkPosition, listPendingWith, needsTransaction, readPendingWith } from './pending-reads.js';
import type { PgPoolSettings, PgQueryable } from './pg-types.js';
import { resolveClock } from '../shared/clock.js';
import { ChangeListeners } from '../shared/listeners.js';
import { consoleLogger, guardedLogger, type Logger } from '../shared/logger.js';
import { loadPg, type PgModule } from './driver.js';
import { RemoteListener } from './remote-listener.js';
import { changesSinceFromRows, type ChangesSinceRow } from './changes-read.js';
import { classifyOpenError, CorruptStateError, describeError, isRetryable, PostgresEncodingError, toSafeNumber, UnsafeIntegerError } from './errors.js';
import { cursorRowName } from '../shared/state-errors.js';
import { checkedEventFromPgRow, cursorArrays, cursorFromPgRow, type PgCursorRow, type PgEventRow } from './rows.js';
import { MIGRATIONS, TABLES, migrate, quoteIdent, validateSchemaName } from './schema.js';
import { statements, type Statements } from './sql.js';
import { wakeChannels } from './wake-channels.js';
import { newsPayloadParts, parseWakeNews, positionCovers } from './wake-news.js';

/**
 * The PostgreSQL storage adapter: the pure core's planners over node-postgres, for runtimes whose
 * sessions live on several machines. A sibling of the SQLite adapter: the same plan from
 * src/core, none of its SQL. Every contract method is async.
 *
 * Durable: events, heads, cursors, the sequence. Pending notices are cursors with N > L (R20): any
 * machine reads them, a drain acks them in one transaction. In process memory: only the prune
 * clock. Concurrency (several pools = several machines):
 * - R7: sequences come from one SEQUENCE. Each write on an identity first takes a transaction-level
 *   advisory lock on that identity and only then draws its sequence, so per identity the commit
 *   order is the sequence order: a reader that saw sequence s never later finds a new s' < s
 *   (changesSince would miss it). R5: the head only rises (GREATEST).
 * - Cursor rows read for a decision are read FOR UPDATE, so a record, a drain and an ack on one
 *   cursor serialize, and each pending notice is drained by exactly one caller.
 * - R40-R44: pruning runs under pg_try_advisory_xact_lock: one pruner at a time across machines;
 *   the others skip (the running one prunes for them).
 * - Deadlocks and serialization failures (and a dedupe-key race, R8) retry the transaction.
 */
export interface PostgresStoreOptions extends Omit<CreateOptions, 'now'> {
  /** The clock (R6); Date.now when absent. A non-function is refused before any connection. */
  now?: () => number;
  /** postgres://user:password@host:port/database (or set `pool`). */
  connectionString?: string;
  /** Extra node-postgres pool settings (host, user, ssl, ...); merged under connectionString. */
  pool?: PgPoolSettings;
  /** The PostgreSQL schema holding the tables; created on first open. Default 'public'. */
  schema?: string;
  /** Where storage failures are reported (R9, R35); defaults to the console. */
  logger?: Logger;
  /** Pool size (default 10). */
  maxConnections?: number;
  /** How long opening a connection may take before it counts as unreachable (default 5000 ms). */
  connectionTimeoutMs?: number;
  /**
   * R76: after a wake, how long the listening connection waits before reading the next ones, so
   * a busy process handles a burst of commits' wakes at once (default 10 ms; 0: every wake at once).
   * The first wake after a quiet spell is never held.
   */
  wakeHoldMs?: number;
}

/** R76: the default hold after a wake, in ms. */
export const DEFAULT_WAKE_HOLD_MS = 10;
/** R76: the longest hold a store accepts, in ms (a wake held longer would be a slow notice). */
export const MAX_WAKE_HOLD_MS = 1_000;

function validateWakeHold(value: unknown): number {
  if (value === undefined) return DEFAULT_WAKE_HOLD_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_WAKE_HOLD_MS) {
    throw new RangeError(`wakeHoldMs must be an integer from 0 to ${MAX_WAKE_HOLD_MS}, got ${String(value)}`);
  }
  return value;
}

/** 64-bit FNV-1a over UTF-16 code units (keys have no NUL, R1), as a signed decimal for pg. */
function lockKey(...parts: string[]): string {
  let h = 0xcbf29ce484222325n;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      h ^= BigInt(part.charCodeAt(i));
      h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    // A separator no key contains (R1 excludes C0 controls), so ("ab", "c") and ("a", "bc") differ.
    h ^= 0x1fn;
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, h).toString();
}

function int32(key: string): number {
  return Number(BigInt.asIntN(32, BigInt(key)));
}

const MAX_ATTEMPTS = 6;

type Tx = pg.PoolClient;

/**
 * A target for connection errors and hints: host:port/database, never the password. pg's own
 * reading of the config, because it is not the obvious one: a connection string's fields override
 * the pool's, and a string without a port or a database means 5432 and the user's name.
 */
function describeTarget(pgm: PgModule, config: pg.PoolConfig): { target: string; user: string | undefined } {
  const client = new pgm.Client(config); // reads the config; connects nothing
  return { target: `${client.host}:${client.port}/${client.database ?? client.user ?? 'postgres'}`, user: client.user };
}

export class PostgresStore implements SessionStateStore, StorePendingSource {
  private readonly sql: Statements;
  private readonly config: PruneConfig;
  private readonly logger: Logger;
  private readonly readClock: () => number;
  private readonly noticeLink: string | undefined;
  /** R9d: corrupt cursor rows, each logged once and skipped. */
  private readonly badRows: BadRows;
  /** R9: logger calls that threw (swallowed, so a broken logger never fails the caller's action). */
  loggerFailures = 0;
  private readonly channel: string;
  private readonly schemaKey: string;
  private readonly pruneLock: [number, number];
  private lastPruneAt = 0;
  private closed = false;
  private readonly localListeners: ChangeListeners;
  private readonly remote: RemoteListener;
  readonly schema: string;
  /** host:port/database (no password), for logs. */
  readonly target: string;

  private constructor(
    private readonly pgm: PgModule,
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    private readonly options: PostgresStoreOptions,
    target: string,
  ) {
    this.config = resolvePruneConfig(options);
    // R9: a throwing logger is swallowed (and counted): the log must never fail the caller.
    this.logger = guardedLogger(options.logger ?? consoleLogger, () => this.loggerFailures++);
    this.readClock = resolveClock(options.now);
    this.localListeners = new ChangeListeners(this.logger, 'postgres store: a change listener');
    this.badRows = new BadRows(this.logger, 'postgres store', { target });
    this.noticeLink = options.noticeLink;
    this.schema = options.schema ?? 'public';
    this.target = target;
    this.sql = statements(this.schema);
    this.schemaKey = lockKey('session-state-kit', this.schema);
    // One channel per schema: stores in other schemas of the database are not woken.
    this.channel = `ssk_${BigInt.asUintN(64, BigInt(this.schemaKey)).toString(36)}`;
    this.pruneLock = [0x53534b31, int32(this.schemaKey)];
    this.remote = new RemoteListener(this.pgm, this.clientConfig, this.channel, this.logger, this.target, validateWakeHold(options.wakeHoldMs));
  }

  /** Opens a store: connects, checks the server, migrates the schema, prunes (opening a store prunes, R29). */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    resolvePruneConfig(options); // RangeError before any connection
    if (options.schema !== undefined) validateSchemaName(options.schema); // over 63 bytes the server truncates it
    resolveClock(options.now); // R6: a non-function clock is refused before any connection
    validateWakeHold(options.wakeHoldMs);
    if (options.noticeLink !== undefined) validateNoticeLinkTemplate(options.noticeLink); // R23b
    const pgm = await loadPg();
    const poolConfig: pg.PoolConfig = {
      ...options.pool,
      ...(options.connectionString === undefined ? {} : { connectionString: options.connectionString }),
      max: options.maxConnections ?? options.pool?.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? options.pool?.connectionTimeoutMillis ?? 5000,
      application_name: options.pool?.application_name ?? 'session-state-kit',
    };
    const { target, user } = describeTarget(pgm, poolConfig);
    const schema = options.schema ?? 'public';
    const pool = new pgm.Pool(poolConfig);
    const logger = guardedLogger(options.logger ?? consoleLogger);
    // An idle client's connection dropping (a server restart) must not crash the process.
    pool.on('error', (error) => logger.warn('postgres store: an idle connection failed', { target, ...describeError(error) }));
    const { max: _max, ...clientConfig } = poolConfig;
    const store = new PostgresStore(pgm, pool, { ...clientConfig, application_name: 'session-state-kit-listen' }, options, target);
    try {
      const client = await pool.connect();
      try {
        const enc = await client.query<{ enc: string }>("SELECT current_setting('server_encoding') AS enc");
        if (enc.rows[0]?.enc !== 'UTF8') throw new PostgresEncodingError(enc.rows[0]?.enc ?? 'unknown');
        await migrate(client, schema, MIGRATIONS);
        // A role that may read but not write would otherwise only show up as logged failures later.
        await client.query(`SELECT has_table_privilege($1, 'INSERT') AS ok`, [`${quoteIdent(schema)}.${TABLES.events}`]).then((r) => {
          if (r.rows[0]?.ok !== true) throw Object.assign(new Error(`permission denied: INSERT on ${schema}.${TABLES.events}`), { code: '42501' });
        });
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => {});
      throw classifyOpenError(error, { target, user, schema });
    }
    try {
      store.lastPruneAt = store.now();
    } catch (error) {
      await pool.end().catch(() => {}); // a refused clock (R6) must not leave the pool's connections open
      throw error;
    }
    await store.pruneAt(store.lastPruneAt);
    return store;
  }

  private now(): number {
    return checkedNow(this.readClock()); // R6: integer epoch ms, or a ClockError before anything is written
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** R9, R35: storage failures are logged and answered with `fallback`; bad input was rejected before. */
  private async guard<T>(operation: string, fallback: T, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isValidationError(error)) throw error;
      try {
        this.logger.error(`postgres store: ${operation} failed`, { target: this.target, schema: this.schema, ...describeError(error) });
      } catch {
        // a failing logger must not fail the caller either
      }
      return fallback;
    }
  }

  /**
   * One transaction on one pooled connection. `locks` (identities' keys, in the order given) are
   * taken first, in the same round trip as BEGIN. Lost races (deadlock, serialization, dedupe key) are retried.
   * `begin` opens it (the feed's reads: one REPEATABLE READ snapshot, R71).
   */
  private async tx<T>(fn: (c: Tx) => Promise<T>, locks: readonly string[] = [], begin = 'BEGIN'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      // A connection dropped between two statements (a server restart) emits 'error' on the
      // checked-out client; unhandled, that would kill the process. The next query rejects anyway.
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      try {
        // The key is a decimal we computed (never input), so it can be inlined in a simple query.
        await client.query([begin, ...locks.map((lock) => `SELECT pg_advisory_xact_lock(${lock})`)].join('; '));
        const out = await fn(client);
        await client.query('COMMIT');
        return out;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)); // the connection is gone: drop it
        }
        if (attempt < MAX_ATTEMPTS && isRetryable(error)) continue;
        throw error;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    }
  }

  /**
   * Runs a statement with a name, so each pooled connection parses and plans it once
   * (node-postgres prepares named statements per connection). Names carry the schema's key: two
   * stores sharing a connection never use one name for different text.
   */
  private run<R extends pg.QueryResultRow = pg.QueryResultRow>(on: Tx | pg.Pool, key: keyof Statements, values: unknown[]): Promise<pg.QueryResult<R>> {
    return on.query<R>({ name: `ssk_${this.channel.slice(4)}_${key}`, text: this.sql[key], values });
  }

  private identityLock(sessionKey: string, agentId: string): string {
    return lockKey(this.schema, agentId, sessionKey);
  }

  /** `changed[i]`: write i changes its pair's notice (core noticeChanged), so it stamps the transaction (R68). */
  private async putCursors(c: Tx, cursors: readonly WatchCursor[], notify: boolean, changed: readonly boolean[]): Promise<void> {
    if (cursors.length === 0) return;
    // R73: the wake names the watchers whose pair this write changes (only those rows are stamped, R68).
    if (notify) {
      const news = cursors.filter((_, i) => changed[i]);
      // R74: the changed pairs' states ride along when they fit; otherwise R73's names alone.
      const parts = news.length > 0 ? newsPayloadParts(news) : undefined;
      const named = news.map((x) => x.watcherSessionKey);
      // R75: the store's channel and the watchers' wake groups' (one payload per commit: R74's carries its transaction).
      if (parts) await this.run(c, 'upsertCursorsNews', [...cursorArrays(cursors, changed), wakeChannels(this.channel, named, true), parts.head, parts.tail]);
      else {
        const payload = routePayload(named);
        await this.run(c, 'upsertCursorsNotify', [...cursorArrays(cursors, changed), wakeChannels(this.channel, payload === ROUTE_EVERYONE ? ROUTE_EVERYONE : named, false), payload]);
      }
    } else await this.run(c, 'upsertCursors', cursorArrays(cursors, changed));
  }

  private toEvent(row: PgEventRow): StateEvent {
    // checkedEventFromPgRow: an event that fails the spec's own schema is a CorruptStateError, never returned (R9d).
    return checkedEventFromPgRow(row, (sequence, reason) =>
      this.logger.warn('postgres store: dropped an unreadable payload', { target: this.target, schema: this.schema, sequence, reason }),
    );
  }

  async record(input: Parameters<SessionStateStore['record']>[0]): Promise<StateEvent | undefined> {
    this.assertOpen();
    const now = this.now();
    // R9: validation throws before anything touches the database.
    const prepared = prepareRecord(input, now);
    const outcome = await this.guard('record', undefined, () =>
      this.tx((c) => this.recordOne(c, prepared, now), [this.identityLock(prepared.event.sessionKey, prepared.event.agentId)]),
    );
    if (outcome === undefined || !outcome.inserted) return outcome?.event; // a dedupe hit or R9b skip writes nothing, so no prune either
    if (outcome.notified) this.changed();
    if (isPruneDue(now, this.lastPruneAt)) await this.pruneAt(now); // R43
    return outcome.event;
  }

  /**
   * R9e: the inputs in order in one transaction, holding every identity's lock of the batch (taken
   * in one sorted order, so two batches cannot deadlock on each other). A failure rolls the whole
   * batch back: every result is undefined and nothing was made pending.
   */
  async recordMany(inputs: readonly Parameters<SessionStateStore['record']>[0][]): Promise<(StateEvent | undefined)[]> {
    this.assertOpen();
    const now = this.now();
    const batch = prepareRecordBatch(inputs, now); // R9e: every input is valid, or nothing is written
    if (batch.length === 0) return [];
    const locks = [...new Set(batch.map((p) => this.identityLock(p.event.sessionKey, p.event.agentId)))].sort();
    const outcomes = await this.guard('recordMany', undefined, () =>
      this.tx(async (c) => {
        const out: Awaited<ReturnType<PostgresStore['recordOne']>>[] = [];
        for (const p of batch) out.push(await this.recordOne(c, p, now));
        return out;
      }, locks),
    );
    if (outcomes === undefined) return batch.map(() => undefined);
    if (outcomes.some((o) => o.notified)) this.changed();
    if (outcomes.some((o) => o.inserted) && isPruneDue(now, this.lastPruneAt)) await this.pruneAt(now); // R43, once per batch
    return outcomes.map((o) => o.event);
  }

  /** One prepared input inside the caller's transaction, which holds its identity's lock (R7-R18). */
  private async recordOne(c: Tx, { event, watchers, onlyIfWatched }: PreparedRecord, now: number): Promise<{ event: StateEvent | undefined; inserted: boolean; notified: boolean }> {
    // R8: a retained dedupe key returns the existing event and changes nothing.
    if (event.dedupeKey !== undefined) {
      const hit = await this.run<PgEventRow>(c, 'eventByDedupeKey', [event.dedupeKey]);
      if (hit.rows[0]) return { event: this.toEvent(hit.rows[0]), inserted: false, notified: false };
    }
    const cursorsOnTarget = (await this.run<PgCursorRow>(c, 'cursorsOnTarget', [event.agentId, event.sessionKey])).rows.map(cursorFromPgRow);
    if (onlyIfWatched && !isWatched(cursorsOnTarget, watchers, event.sessionKey)) return { event: undefined, inserted: false, notified: false }; // R9b
    const inserted = await this.run<{ sequence: string }>(c, 'insertEventAndHead', eventInsertValues(event));
    // Throws past 2^53 - 1, which rolls the insert back (R7 sequences must stay exact).
    const sequence = toSafeNumber(inserted.rows[0]?.sequence, `${TABLES.events}.sequence`);
    const stored: StateEvent = Object.freeze({ sequence, ...event });
    // T12: the first spawn names the parent for good; later ones (and pruning) change nothing.
    if (stored.kind === 'child_spawned') await this.run(c, 'insertSpawnParent', [stored.sessionKey, stored.agentId, spawnParentOf(stored) ?? null]);
    const plan = planNotifications(stored, cursorsOnTarget, watchers, now);
    const before = new Map(cursorsOnTarget.map((x) => [x.watcherSessionKey, x]));
    // R18: the notices are these cursor rows; committing them is what makes them pending.
    await this.putCursors(c, plan.cursorWrites, true, plan.cursorWrites.map((w) => noticeChanged(before.get(w.watcherSessionKey), w)));
    return { event: stored, inserted: true, notified: plan.cursorWrites.length > 0 };
  }

  async watch(request: WatchRequest): Promise<WatchResult> {
    this.assertOpen();
    const r = validateWatchRequest(request);
    // R21: refusals write nothing.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { watched: false };
    const now = this.now();
    let changed = false;
    const result = await this.guard<WatchResult>('watch', { watched: false }, () =>
      // The target's identity lock: a record on the target either commits before (the watch
      // starts at its head, R22) or sees this cursor (and notifies it).
      this.tx(async (c) => {
        const row = (await this.run<PgCursorRow>(c, 'cursorForUpdate', [r.watcherSessionKey, r.targetSessionKey, r.agentId])).rows[0];
        const existing = row ? cursorFromPgRow(row) : undefined;
        const head = (await this.run<{ last_sequence: string }>(c, 'head', [r.targetSessionKey, r.agentId])).rows[0];
        const headVersion = head ? toSafeNumber(head.last_sequence, `${TABLES.heads}.last_sequence`) : 0;
        const id = { watcherSessionKey: r.watcherSessionKey, targetSessionKey: r.targetSessionKey, targetAgentId: r.agentId };
        // R21b: an ambient re-registration writes nothing.
        const next = registerWatch(existing, id, headVersion, now, r.provenance);
        if (next) {
          // A promotion changes a pending notice's wake (R25): the feed must re-read.
          changed = existing !== undefined && isPending(existing) && existing.provenance !== next.provenance;
          await this.putCursors(c, [next], changed, [noticeChanged(existing, next)]);
        }
        return { watched: true };
      }, [this.identityLock(r.targetSessionKey, r.agentId)]),
    );
    if (changed && result.watched) this.changed();
    return result;
  }

  async unwatch(request: UnwatchRequest): Promise<UnwatchResult> {
    this.assertOpen();
    const r = validateUnwatchRequest(request);
    // R52: a bare or self watcher can hold no cursor; nothing to delete.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { unwatched: false };
    let pending = false;
    const result = await this.guard<UnwatchResult>('unwatch', { unwatched: false }, () =>
      this.tx(async (c) => {
        const gone = await this.run<{ pending: boolean }>(c, 'deleteCursor', [r.watcherSessionKey, r.targetSessionKey, r.agentId]);
        pending = gone.rows.some((x) => x.pending);
        if (pending) await this.run(c, 'notify', [wakeChannels(this.channel, [r.watcherSessionKey], false), routePayload([r.watcherSessionKey])]);
        return { unwatched: (gone.rowCount ?? 0) > 0 };
      }),
    );
    if (pending && result.unwatched) this.changed();
    return result;
  }

  /** T12: the session that spawned this one, from its first child_spawned event (kept through pruning); undefined when none. */
  async spawnParent(sessionKey: string, agentId: string): Promise<string | undefined> {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    return this.guard('spawnParent', undefined, async () => (await this.run<{ parent: string | null }>(this.pool, 'spawnParent', [sessionKey, agentId])).rows[0]?.parent ?? undefined);
  }

  /** T12: every recorded spawn parent at once (a listing checks a whole page's tree with one read). */
  async spawnParents(): Promise<[sessionKey: string, agentId: string, parent: string][]> {
    this.assertOpen();
    return this.guard('spawnParents', [], async () =>
      (await this.run<{ session_key: string; agent_id: string; parent: string }>(this.pool, 'allSpawnParents', [])).rows.map((r): [string, string, string] => [r.session_key, r.agent_id, r.parent]),
    );
  }

  /**
   * T4, T12, T15: the sessions (heads) strictly after `after` in key order (COLLATE "C": code point
   * order), at most `limit`, each with its head and spawn parent (null: none). Read by the heads'
   * primary key: a page costs its own rows, whatever the schema holds.
   */
  async sessionsPage(request: SessionsPageRequest): Promise<SessionsPageRow[]> {
    this.assertOpen();
    checkSessionsPageRequest(request);
    const { after, limit } = request;
    return this.guard('sessionsPage', [] as SessionsPageRow[], async () => {
      // Every key is non-empty (R1), so ('', '') comes before all of them: the first page.
      const rows = (await this.run<{ session_key: string; agent_id: string; last_sequence: string; parent: string | null }>(this.pool, 'sessionsPage', [after?.sessionKey ?? '', after?.agentId ?? '', limit])).rows;
      return rows.map((r) => ({ sessionKey: r.session_key, agentId: r.agent_id, stateVersion: toSafeNumber(r.last_sequence, `${TABLES.heads}.last_sequence`), spawnParent: r.parent ?? null }));
    });
  }

  async stateVersion(sessionKey: string, agentId: string): Promise<number> {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    return this.guard('stateVersion', 0, async () => {
      const head = (await this.run<{ last_sequence: string }>(this.pool, 'head', [sessionKey, agentId])).rows[0];
      return head ? toSafeNumber(head.last_sequence, `${TABLES.heads}.last_sequence`) : 0;
    });
  }

  async changesSince(request: Parameters<SessionStateStore['changesSince']>[0]): Promise<ChangesSinceResponse> {
    this.assertOpen();
    const r = normalizeChangesSince(request);
    return this.guard('changesSince', emptyChangesSince(), async () => {
      // One statement: head, page and lowest sequence from one snapshot (R30-R33).
      const rows = (await this.run<ChangesSinceRow>(this.pool, 'changesSince', [r.agentId, r.sessionKey, r.since, r.limit + 1])).rows;
      return changesSinceFromRows(r, rows, (row) => this.toEvent(row));
    });
  }

  async pendingNotices(watcherSessionKey: string): Promise<Notice[]> {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    return this.guard('pendingNotices', [] as Notice[], async () => {
      const rows = (await this.run<PgCursorRow>(this.pool, 'pendingOfWatcher', [watcherSessionKey])).rows;
      return withNoticeLinks(pendingNoticesOf(this.readableCursors(rows)), this.noticeLink); // R20, R26 (sorted in JS: UTF-16 order), R23b
    });
  }

  async drainNotices(watcherSessionKey: string): Promise<Notice[]> {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.now(); // R6: a refused clock must not cost the pending notices
    const drained = await this.guard('drainNotices', [] as Notice[], () =>
      // R27: one transaction reads the pending cursors FOR UPDATE and acks them: a second drainer
      // waits, then sees them acked (or a follow-up, R28), so each notice goes to exactly one.
      this.tx(async (c) => {
        // A corrupt row (R9d) is no notice and is not acked: it stays for an operator to see.
        const cursors = this.readableCursors((await this.run<PgCursorRow>(c, 'pendingOfWatcherForUpdate', [watcherSessionKey])).rows);
        const out = pendingNoticesOf(cursors);
        await this.putCursors(c, cursors.map((x) => acknowledge(x, now).cursor), true, cursors.map(() => true)); // an ack moves L (R68)
        return out;
      }),
    );
    if (drained.length > 0) this.changed();
    return withNoticeLinks(drained, this.noticeLink); // R23b
  }

  async ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): Promise<Notice[]> {
    this.assertOpen();
    const v = validateNoticeAcks(watcherSessionKey, notices);
    const now = this.now(); // R6, before anything is written
    const targets = ackTargets(v.notices);
    if (targets.length === 0) return [];
    const acked = await this.guard('ackNotices', [] as Notice[], () =>
      this.tx(async (c) => {
        const rows = (
          await this.run<PgCursorRow>(c, 'cursorsOfWatcherOn', [v.watcherSessionKey, targets.map((t) => t.targetSessionKey), targets.map((t) => t.targetAgentId)])
        ).rows.map(cursorFromPgRow);
        const byPair = new Map(rows.map((x) => [`${x.targetAgentId}\u0000${x.targetSessionKey}`, x] as const));
        const out: Notice[] = [];
        const writes: WatchCursor[] = [];
        // R27b: exactly the named pairs still pending with a quoted L; the rest ack nothing.
        for (const t of targets) {
          const cursor = byPair.get(`${t.targetAgentId}\u0000${t.targetSessionKey}`);
          if (!ackMatches(cursor, t.lastSeen)) continue;
          out.push(noticeOf(cursor));
          writes.push(acknowledge(cursor, now).cursor);
        }
        await this.putCursors(c, writes, true, writes.map(() => true)); // an ack moves L (R68)
        return out.sort(compareNotices);
      }),
    );
    if (acked.length > 0) this.changed();
    return withNoticeLinks(acked, this.noticeLink); // R23b
  }

  async prune(): Promise<void> {
    this.assertOpen();
    await this.pruneAt(this.now());
  }

  /** R43 after a record: the record already read the clock, so a clock failing now cannot fail a
   * write that has committed (R6, R9); `prune()` reads it itself. */
  private async pruneAt(now: number): Promise<void> {
    // Set first, as the reference does: a failing prune is retried an interval later, not on every write.
    this.lastPruneAt = now;
    const cutoff = retentionCutoff(now, this.config);
    const changed = await this.guard('prune', false, async () => {
      if (!(await this.pruneNeeded(cutoff))) return false;
      return this.tx(async (c) => {
        // One pruner at a time across machines; the others skip (the running one prunes for them).
        const got = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', this.pruneLock);
        if (got.rows[0]?.ok !== true) return false;
        // R40: by age (occurredAt). R42: stamp the watermarks first, then delete.
        await this.stampWatermarks(c, (await this.run<MaxRow>(c, 'agedMaxByIdentity', [cutoff])).rows);
        await this.run(c, 'deleteAged', [cutoff]);
        // R41: then the global cap, keeping the newest maxRows by sequence.
        const cut = await this.capCut(c);
        if (cut !== undefined) {
          await this.stampWatermarks(c, (await this.run<MaxRow>(c, 'cappedMaxByIdentity', [cut])).rows);
          await this.run(c, 'deleteUpTo', [cut]);
        }
        // R44: idle cursors expire, and with them their pending notices.
        const expired = await this.run<{ pending: boolean }>(c, 'deleteIdleCursors', [cutoff]);
        const pendingGone = expired.rows.some((x) => x.pending);
        // R73: which watchers' cursors expired is not read back: everyone.
        if (pendingGone) await this.run(c, 'notify', [wakeChannels(this.channel, ROUTE_EVERYONE, false), ROUTE_EVERYONE]);
        return pendingGone;
      });
    });
    if (changed) this.changed();
  }

  /** Read-only probes (all indexed), so an idle prune takes no lock. */
  private async pruneNeeded(cutoff: number): Promise<boolean> {
    if ((await this.run(this.pool, 'anyAgedEvent', [cutoff])).rowCount) return true;
    if ((await this.run(this.pool, 'anyIdleCursor', [cutoff])).rowCount) return true;
    return (await this.capCut(this.pool)) !== undefined;
  }

  /** R41: the highest sequence to remove so the newest maxRows remain, or undefined within the cap. */
  private async capCut(c: Tx | pg.Pool): Promise<number | undefined> {
    // Exact shortcut: rows <= max - min + 1, so a span within the cap needs no walk.
    const span = (await this.run<{ lo: string | null; hi: string | null }>(c, 'sequenceSpan', [])).rows[0];
    if (!span || span.lo === null || span.hi === null) return undefined;
    const lo = toSafeNumber(span.lo, `${TABLES.events}.sequence`);
    const hi = toSafeNumber(span.hi, `${TABLES.events}.sequence`);
    if (hi - lo + 1 <= this.config.maxRows) return undefined;
    const row = (await this.run<{ sequence: string }>(c, 'capCut', [this.config.maxRows])).rows[0];
    return row ? toSafeNumber(row.sequence, `${TABLES.events}.sequence`) : undefined;
  }

  /** R42, R5: each identity's highest removed row raises its head's watermark, or creates a missing head (stampWatermarks). */
  private async stampWatermarks(c: Tx, groups: MaxRow[]): Promise<void> {
    if (groups.length === 0) return;
    const sequences = groups.map((g) => toSafeNumber(g.max_sequence, `${TABLES.events}.sequence`));
    const times = groups.map((g) => toSafeNumber(g.recorded_at, `${TABLES.events}.recorded_at`));
    await this.run(c, 'stampWatermarks', [groups.map((g) => g.session_key), groups.map((g) => g.agent_id), sequences, times]);
  }

  async resetSession(sessionKey: string): Promise<void> {
    this.assertOpen();
    validateSessionKey(sessionKey);
    // R50: the watcher's cursors go; its own log, head and the cursors watching it stay.
    const changed = await this.guard('resetSession', false, () =>
      this.tx(async (c) => {
        const gone = await this.run<{ pending: boolean }>(c, 'deleteCursorsOfWatcher', [sessionKey]);
        const pending = gone.rows.some((x) => x.pending);
        if (pending) await this.run(c, 'notify', [wakeChannels(this.channel, [sessionKey], false), routePayload([sessionKey])]);
        return pending;
      }),
    );
    if (changed) this.changed();
  }

  async deleteSession(sessionKey: string, agentId: string): Promise<void> {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    // R51: events (freeing their dedupe keys), head, and cursors in both directions, in one
    // transaction under the identity's lock (a record in flight lands before or not at all).
    const changed = await this.guard('deleteSession', false, () =>
      this.tx(async (c) => {
        await this.run(c, 'deleteEventsOfIdentity', [agentId, sessionKey]);
        await this.run(c, 'deleteHead', [sessionKey, agentId]);
        await this.run(c, 'deleteSpawnParent', [sessionKey, agentId]);
        const onTarget = await this.run<{ pending: boolean }>(c, 'deleteCursorsOnTarget', [agentId, sessionKey]);
        const ofWatcher = await this.run<{ pending: boolean }>(c, 'deleteCursorsOfWatcher', [sessionKey]);
        const pending = onTarget.rows.some((x) => x.pending) || ofWatcher.rows.some((x) => x.pending);
        // R73: the watchers of the deleted target are not read back: everyone.
        if (pending) await this.run(c, 'notify', [wakeChannels(this.channel, ROUTE_EVERYONE, false), ROUTE_EVERYONE]);
        return pending;
      }, [this.identityLock(sessionKey, agentId)]),
    );
    if (changed) this.changed();
  }

  async restart(): Promise<void> {
    this.assertOpen();
    // R29: nothing pending lives in process memory (pending = durable cursors), so nothing is
    // rebuilt: the prune clock starts again at now and the restart prunes. No cursor changes.
    this.now(); // R6: a refused clock is refused before anything happens
    await this.prune();
  }

  /**
   * Whether a cursor targets this session (not part of the contract; the upstream monitor asks it,
   * U5). It never answers false on a failure: that would make a producer drop activity for good.
   */
  async isWatched(sessionKey: string, agentId: string): Promise<boolean> {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    try {
      return ((await this.run(this.pool, 'anyCursorOnTarget', [agentId, sessionKey])).rowCount ?? 0) > 0;
    } catch (error) {
      this.logger.error('postgres store: isWatched failed', { target: this.target, schema: this.schema, ...describeError(error) });
      throw error;
    }
  }

  /** Closes the store: stops listening for NOTIFY and ends its pool; a failure to end it is logged. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.localListeners.clear();
    await this.remote.stop();
    try {
      await this.pool.end();
    } catch (error) {
      this.logger.error('postgres store: close failed', { target: this.target, ...describeError(error) });
    }
  }

  // ---- PendingSource (the feed's hooks, R60-R72; not part of the contract) ----

  /** Every pending pair of every watcher (N > L), from the cursors; a corrupt row is skipped (R9d). */
  async listPending(): Promise<PendingPair[]> {
    this.assertOpen();
    return listPendingWith((statement, values) => this.run(this.pool, statement, values).then((r) => r.rows), this.badRows);
  }

  /** T15: the watchers with a pending notice strictly after `after` in key order (code point order), at most `limit`, one index seek each. */
  async pendingWatchersPage(request: PendingWatchersPageRequest): Promise<string[]> {
    this.assertOpen();
    checkPendingWatchersPageRequest(request);
    const { after, limit } = request;
    // Every key is non-empty (R1): '' comes before all of them.
    return (await this.run<{ k: string }>(this.pool, 'pendingWatchersPage', [after ?? '', limit])).rows.map((r) => r.k);
  }

  /**
   * R68, R71: in one REPEATABLE READ transaction (one snapshot for every statement), the pairs changed
   * by transactions the position's snapshot did not see (index from its xmin: the cost of the
   * change, plus whatever a transaction still open at the last read wrote), and the pending pairs of
   * the watchers a new subscriber asks for (R61). The new position is this transaction's snapshot:
   * a transaction still running now is invisible in it, so its rows come with a later read. A read
   * that asks for no snapshot part (every wake's) is one statement instead, whose own snapshot is
   * its position.
   */
  async readPending(request: PendingReadRequest): Promise<PendingRead> {
    this.assertOpen();
    // readPendingWith checks it too; here a bad position is refused before a connection is taken.
    if (request.since !== undefined) checkPosition(request.since);
    if (!needsTransaction(request)) return readPendingWith((statement, values) => this.run(this.pool, statement, values).then((r) => r.rows), request, this.badRows);
    return this.tx(
      (c) => readPendingWith((statement, values) => this.run(c, statement, values).then((r) => r.rows), request, this.badRows),
      [],
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  /**
   * Cursor rows decoded and checked (R9d); a corrupt one is logged once and skipped, never a
   * notice, and the rows beside it are served: one value past 2^53 - 1 must not cost a watcher
   * every other notice (as on SQLite).
   */
  private readableCursors(rows: readonly PgCursorRow[]): WatchCursor[] {
    const out: WatchCursor[] = [];
    for (const row of rows) {
      try {
        out.push(cursorFromPgRow(row));
      } catch (error) {
        if (error instanceof CorruptStateError) this.badRows.report(error);
        else if (error instanceof UnsafeIntegerError) {
          this.badRows.report(new CorruptStateError(TABLES.cursors, cursorRowName(row.watcher_session_key, row.target_session_key, row.target_agent_id), error.message));
        } else throw error;
      }
    }
    return out;
  }

  onLocalChange(listener: () => void): () => void {
    return this.localListeners.add(listener);
  }

  /**
   * Server push: LISTEN on a dedicated connection; every committed write of any machine that may
   * change pending state NOTIFYs (inside its transaction, so it fires on commit). A dropped
   * listening connection reconnects with backoff, LISTENs again and then calls the listener once,
   * so the feed re-reads durable state: a notification lost while disconnected loses no notice.
   */
  async subscribeRemote(listener: (payload?: string) => void, interest?: WakeInterest): Promise<() => void> {
    this.assertOpen();
    return this.remote.add(listener, interest);
  }

  /**
   * R75: what a subscription wants to hear of now: the connection listens on those watchers' wake
   * groups (or on the store's channel, for everything), and hands the listener only wakes that may
   * concern it. Resolves once the server listens for them.
   */
  async remoteInterest(listener: (payload?: string) => void, interest: WakeInterest): Promise<void> {
    this.assertOpen();
    await this.remote.interest(listener, interest);
  }

  /** R75: the channels this handle's listening connection listens on now (for tests and tools). */
  get remoteChannels(): string[] {
    return this.remote.channels;
  }

  /** R74: the pairs a NOTIFY of this store's writers carries, checked; undefined for any other payload. */
  wakeNews(payload: string): WakeNews | undefined {
    return parseWakeNews(payload, TABLES.cursors);
  }

  /** R74: whether a read at `position` (a snapshot this store made) saw the transaction `mark`. */
  positionCovers(position: FeedPosition, mark: string): boolean {
    return positionCovers(position, mark);
  }

  /** After a committed write that may change pending state: tell this handle's listeners. */
  private changed(): void {
    this.localListeners.fire();
  }

  /** Read-only views for diagnostics and tests. */
  async cursor(watcherSessionKey: string, targetSessionKey: string, targetAgentId: string): Promise<WatchCursor | undefined> {
    this.assertOpen();
    const row = (await this.run<PgCursorRow>(this.pool, 'cursor', [watcherSessionKey, targetSessionKey, targetAgentId])).rows[0];
    return row ? cursorFromPgRow(row) : undefined;
  }

  /** Retained events: COUNT(*) (diagnostics and tests, not the write path). */
  async eventCount(): Promise<number> {
    this.assertOpen();
    return toSafeNumber((await this.run<{ n: string }>(this.pool, 'countEvents', [])).rows[0]?.n, 'count(*)');
  }

  /** The NOTIFY channel of this store's schema (for tools that LISTEN themselves). */
  get notifyChannel(): string {
    return this.channel;
  }

  /** Test and diagnostics hook: the pool (writing through it bypasses the protocol). */
  get pgPool(): PgQueryable {
    return this.pool as unknown as PgQueryable;
  }

  /** The advisory lock (two int4 keys) one pruner of this schema holds while it prunes. */
  get pruneLockKeys(): readonly [number, number] {
    return this.pruneLock;
  }

  /** Test hook: the backend pid of the listening connection, when connected. */
  get listenerPid(): number | undefined {
    return this.remote.pid;
  }
}

type MaxRow = { agent_id: string; session_key: string; max_sequence: string; recorded_at: string };

/** Opens (creating or migrating) a store. Throws a typed PostgresStoreError for bad configuration. */
export function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  return PostgresStore.open(options);
}

/**
 * A contract factory (spec/schemas/contract.ts StoreFactory) with fixed adapter settings;
 * `schema` may be a function so each created store gets its own schema (as the conformance
 * suite needs: every `create` is a fresh, empty store).
 */
export function postgresStoreFactory(
  settings: Omit<PostgresStoreOptions, keyof CreateOptions | 'schema'> & { schema?: string | (() => string) },
): StoreFactory {
  return (options: CreateOptions) => {
    const { schema, ...rest } = settings;
    const resolved = typeof schema === 'function' ? schema() : schema;
    return createPostgresStore({ ...rest, ...options, ...(resolved === undefined ? {} : { schema: resolved }) });
  };
}
