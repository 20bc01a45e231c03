import { realpathSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import type {
  ChangesSinceResponse,
  CreateOptions,
  CursorProvenance,
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
import {
  checkSessionsPageRequest,
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
  noticeOf,
  noticeChanged,
  isValidAgentId,
  isValidSessionKey,
  normalizeChangesSince,
  watcherNoticeMaker,
  eligibleWatchers,
  identityKey,
  planSetNotifications,
  prepareRecord,
  prepareRecordBatch,
  seedOnSpawn,
  spawnParentOf,
  type PreparedRecord,
  registerWatch,
  resolvePruneConfig,
  retentionCutoff,
  validateIdentity,
  validateNoticeAcks,
  validateSessionKey,
  validateNoticeLinkTemplate,
  validateUnwatchRequest,
  validateWatchRequest,
  withNoticeLinks,
  type PruneConfig,
} from '../core/index.js';
import type { PendingPair, PendingRead, PendingReadRequest, PendingWatchersPageRequest, StorePendingSource } from '../../spec/index.js';
import type { SessionsPageRequest, SessionsPageRow } from '../tools/handlers.js';
import { BadRows } from '../shared/pending-rows.js';
import { SqlitePendingReads } from './pending-reads.js';
import { resolveClock } from '../shared/clock.js';
import { eventInsertValues } from '../shared/rows.js';
import { ChangeListeners } from '../shared/listeners.js';
import { consoleLogger, guardedLogger, type Logger } from '../shared/logger.js';
import { sqliteErrorCode } from './driver/error-codes.js';
import { resolveSqliteDriver } from './driver/resolve.js';
import { immediateTransaction, readTransaction } from './driver/transaction.js';
import type { SqliteConnection, SqliteDriverChoice, SqliteStatement, SqliteValuesStatement } from './driver/types.js';
import { CorruptStateError, toSafeNumber } from './errors.js';
import { cursorRowName } from '../shared/state-errors.js';
import { openError } from './open-errors.js';
import { checkedEventFromRow, cursorFromRow as toCursor, type CursorRow, type EventRow } from './rows.js';
import { MIGRATIONS, migrate, type MigrationStep } from './schema.js';
import { SQL } from './sql.js';
import { readChangesSince } from './changes-read.js';

/**
 * The SQLite storage adapter: the pure core's planners over one SQLite driver (better-sqlite3,
 * node:sqlite or bun:sqlite, behind the small seam in ./driver). All SQL and every transaction
 * live here and in schema.ts, the same for every driver. SQL only reads and writes rows; every
 * protocol decision (who is notified, cursor arithmetic, notice text, what a changesSince page
 * means, watermark raising) comes from src/core, exactly as in the in-memory reference store, so
 * the two are indistinguishable through the contract.
 *
 * Durable: events, heads, cursors, the sequence counter; pending notices are the cursors with
 * N > L, read from the file whenever asked, so every connection and process sharing the file sees
 * the same notices (R20, R26) and one IMMEDIATE transaction decides who drains each (R27). In
 * process memory: only the prune clock (R29, R43).
 */

export type SynchronousMode = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
const SYNCHRONOUS_MODES: readonly SynchronousMode[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** Options of the SQLite store: the contract's options (R6, R40, R41, R23b) plus the file, driver, durability, busy timeout and logger. */
export interface SqliteStoreOptions extends Omit<CreateOptions, 'now'> {
  /** The clock (R6); Date.now when absent. A non-function is refused at construction. */
  now?: () => number;
  /** Database file; ':memory:' (the default) is a private, non-durable database. */
  path?: string;
  /** Where storage failures are reported (R9, R35); defaults to the console. */
  logger?: Logger;
  /**
   * PRAGMA synchronous. NORMAL (default) in WAL mode survives a process crash with no loss and
   * never corrupts; a power loss may drop the last commits. FULL also makes each commit durable
   * against power loss, at the cost of an fsync per record.
   */
  synchronous?: SynchronousMode;
  /** PRAGMA busy_timeout: how long a write waits for another connection's lock; default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * Which SQLite driver to use: 'auto' (default: bun:sqlite on Bun; on Node better-sqlite3 when it
   * is installed, else node:sqlite), 'better-sqlite3', 'node:sqlite', 'bun:sqlite', or a driver object.
   */
  driver?: SqliteDriverChoice;
}

/** Internal: tests simulate older and newer releases with other migration lists. @internal */
export interface SqliteStoreInternals {
  migrations?: readonly MigrationStep[];
}


type Statements = { [K in keyof typeof SQL]: SqliteStatement };

/**
 * The reads that return a row per pending notice, read as arrays (SqliteConnection.prepareValues):
 * a 1k-notice drain spent about a seventh of its time building row objects (bench
 * phases-drain-prune: 0.80× with arrays, 0.69× with objects, 2026-12-04). Their columns, in order, are PendingTuple's.
 */
const VALUE_READS = ['pendingOfWatcher', 'pendingOfWatcherToDrain', 'sessionsPage'] as const;
type ValueReads = { [K in (typeof VALUE_READS)[number]]: SqliteValuesStatement };

/** A driver without prepareValues: the same rows, turned into arrays here. */
function valuesOf(db: SqliteConnection, sql: string): SqliteValuesStatement {
  if (db.prepareValues) return db.prepareValues(sql);
  const statement = db.prepare(sql);
  return { all: (...params) => statement.all(...params).map((row) => Object.values(row)) };
}

/**
 * How a drain acks its notices (R27-R28), all under the write lock it read them with:
 * - at most ACK_BY_KEY_MAX: each by its primary key;
 * - more, and the watcher's cursors at most ACK_ONE_PASS_SPREAD times as many: one UPDATE through
 *   the watcher index, which the UPDATE does not change, so SQLite runs it in one pass (visiting
 *   the watcher's idle cursors too, hence the bound);
 * - otherwise one UPDATE through the pending index, which SQLite must run in two passes because it
 *   changes the index it walks (it first collects every key in a temporary table).
 * Measured 2026-12-03, 1 watcher: by key wins at 1-2 notices and ties at 8; at 1k notices one pass
 * took 4.1 ms where two took 5.1 ms (bench/phases-drain-prune.ts), and the drain went from 0.65x to
 * 0.85x of its baseline (bench drain, reference run).
 */
export const ACK_BY_KEY_MAX = 4;
export const ACK_ONE_PASS_SPREAD = 2;

/** The cap probe's row count and the file's data_version when it was taken (pruneProbe). */
interface CapCount {
  rows: number;
  dataVersion: number;
}

const PROVENANCES: ReadonlySet<string> = new Set<CursorProvenance>(['spawn', 'explicit', 'ambient']);

function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    // One spelling of SQLite codes whichever driver threw (node:sqlite's own code is ERR_SQLITE_ERROR).
    const code = sqliteErrorCode(error) ?? (error as { code?: unknown }).code;
    return code === undefined ? { error: error.message, name: error.name } : { error: error.message, name: error.name, code };
  }
  return { error: String(error) };
}

export class SqliteStore implements SessionStateStore, StorePendingSource {
  private readonly db: SqliteConnection;
  private readonly stmt: Statements;
  private readonly values: ValueReads;
  private readonly listeners: ChangeListeners;
  private readonly config: PruneConfig;
  private readonly logger: Logger;
  private lastPruneAt: number;
  private closed = false;
  private readonly readClock: () => number;
  private readonly noticeLink: string | undefined;
  /** R9d: corrupt cursor rows, each logged once and skipped. */
  private readonly badRows: BadRows;
  /** R61, R68: the feed's reads. */
  private readonly pendingReads: SqlitePendingReads;
  /** R9: logger calls that threw (swallowed, so a broken logger never fails the caller's action). */
  loggerFailures = 0;
  readonly path: string;
  /** R70: the WAL another connection's commit writes, beside the real file (none for ':memory:'). */
  private readonly walFile: string | undefined;
  /** The driver in use: 'better-sqlite3', 'node:sqlite', 'bun:sqlite' or a custom driver's name. */
  readonly driver: string;

  constructor(
    private readonly options: SqliteStoreOptions,
    internals: SqliteStoreInternals = {},
  ) {
    this.readClock = resolveClock(options.now);
    if (options.noticeLink !== undefined) validateNoticeLinkTemplate(options.noticeLink);
    this.noticeLink = options.noticeLink;
    this.config = resolvePruneConfig(options);
    this.logger = guardedLogger(options.logger ?? consoleLogger, () => this.loggerFailures++);
    this.path = options.path ?? ':memory:';
    this.listeners = new ChangeListeners(this.logger, 'sqlite store: a change listener', { path: this.path });
    this.badRows = new BadRows(this.logger, 'sqlite store', { path: this.path });
    const synchronous = options.synchronous ?? 'NORMAL';
    if (!SYNCHRONOUS_MODES.includes(synchronous)) throw new RangeError(`synchronous must be one of ${SYNCHRONOUS_MODES.join(', ')}`);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) throw new RangeError('busyTimeoutMs must be a non-negative safe integer');

    const driver = resolveSqliteDriver(options.driver ?? 'auto');
    this.driver = driver.name;
    // Every driver reads integers as bigint; they are range-checked on decode: no silent rounding past 2^53.
    try {
      this.db = driver.open(this.path);
    } catch (error) {
      throw openError(this.path, error); // R9c: typed, with the path and a hint
    }
    try {
      // busy_timeout first: every later statement, including the WAL switch, may meet another process's lock.
      this.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      migrate(this.db, this.path, internals.migrations ?? MIGRATIONS);
      // WAL lets readers in other processes work while one writes; NORMAL is crash-safe in WAL.
      if (String(this.db.pragma('journal_mode')).toLowerCase() !== 'wal') this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${synchronous}`);
      const stmt = {} as Record<string, SqliteStatement>;
      for (const [name, sql] of Object.entries(SQL)) stmt[name] = this.db.prepare(sql);
      this.stmt = stmt as Statements;
      const values = {} as Record<string, SqliteValuesStatement>;
      for (const name of VALUE_READS) values[name] = valuesOf(this.db, SQL[name]);
      this.values = values as ValueReads;
      this.pendingReads = new SqlitePendingReads(this.db, this.badRows);
    } catch (error) {
      try {
        this.db.close();
      } catch {
        // The open error below is the one to report.
      }
      throw openError(this.path, error); // R9c
    }
    this.walFile = walFileOf(this.path);
    this.lastPruneAt = this.now();
    // R29: opening prunes. It changes no cursor: the pending notices are already in the file.
    this.prune();
  }

  private now(): number {
    return checkedNow(this.readClock()); // R6: integer epoch ms, or a ClockError before anything is written
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** R9, R35: storage failures are logged and answered with `fallback`; bad input was rejected before. */
  private guard<T>(operation: string, fallback: T, fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (isValidationError(error)) throw error;
      this.logger.error(`sqlite store: ${operation} failed`, { path: this.path, ...describeError(error) });
      return fallback;
    }
  }

  /**
   * A cursor computed from its effective state (the `cursor` read); `folded`: a target sequence at
   * or above every slot event it took in (schema step 7); `changesNotice`: the write changes the
   * pair's notice (core noticeChanged), so it takes the next change sequence (R68).
   */
  private putCursor(c: WatchCursor, folded: number, changesNotice: boolean): void {
    this.stmt.upsertCursor.run(
      c.watcherSessionKey,
      c.targetSessionKey,
      c.targetAgentId,
      c.lastSeenSequence,
      c.notifiedSequence,
      c.materialSequence,
      c.provenance,
      c.updatedAt,
      folded,
      changesNotice ? 1 : 0,
    );
    if (changesNotice) this.stmt.bumpChangeSequence.run(); // R68
  }

  record(input: Parameters<SessionStateStore['record']>[0]): StateEvent | undefined {
    this.assertOpen();
    const now = this.now();
    // R9: validation throws before anything touches the database.
    const prepared = prepareRecord(input, now);
    // IMMEDIATE: take the write lock up front, so the dedupe probe, the cursor read and the writes
    // see one state even when another process shares the file.
    const outcome = this.guard('record', undefined, () => immediateTransaction(this.db, () => this.recordOne(prepared, now)));
    if (outcome === undefined || !outcome.inserted) return outcome?.event; // a dedupe hit or R9b skip writes nothing, so no prune either
    if (outcome.cursorsWritten) this.changed();
    if (isPruneDue(now, this.lastPruneAt)) this.pruneAt(now); // R43
    return outcome.event;
  }

  /**
   * R9e: the inputs in order, in one IMMEDIATE transaction: one commit (one WAL sync) for the batch
   * instead of one per event. Each input sees what the earlier ones wrote (dedupe, onlyIfWatched),
   * so result i is what record(inputs[i]) would have returned. A storage failure rolls the whole
   * batch back: every result is undefined and nothing was made pending.
   */
  recordMany(inputs: readonly Parameters<SessionStateStore['record']>[0][]): (StateEvent | undefined)[] {
    this.assertOpen();
    const now = this.now();
    const batch = prepareRecordBatch(inputs, now); // R9e: every input is valid, or nothing is written
    if (batch.length === 0) return [];
    const outcomes = this.guard('recordMany', undefined, () =>
      immediateTransaction(this.db, () => {
        const within: BatchState = { heads: new Map(), cursorless: new Set() };
        const out = batch.map((p) => this.recordOne(p, now, within));
        // R5: one head write per identity, with its highest sequence of the batch (sequences only grow).
        for (const h of within.heads.values()) this.stmt.upsertHead.run(h.sessionKey, h.agentId, h.sequence, now);
        return out;
      }),
    );
    if (outcomes === undefined) return batch.map(() => undefined);
    if (outcomes.some((o) => o.cursorsWritten)) this.changed();
    if (outcomes.some((o) => o.inserted) && isPruneDue(now, this.lastPruneAt)) this.pruneAt(now); // R43, once per batch
    return outcomes.map((o) => o.event);
  }

  /** One prepared input inside the caller's write transaction (R7-R18). */
  private recordOne({ event, watchers, onlyIfWatched }: PreparedRecord, now: number, within?: BatchState): { event: StateEvent | undefined; inserted: boolean; cursorsWritten: boolean } {
    // R8: a retained dedupe key returns the existing event and changes nothing.
    if (event.dedupeKey !== undefined) {
      const row = this.stmt.eventByDedupeKey.get(event.dedupeKey) as EventRow | undefined;
      if (row) return { event: this.toEvent(row), inserted: false, cursorsWritten: false };
    }
    // R9b: someone could be told: a cursor on the target, or an eligible producer-passed watcher.
    if (onlyIfWatched && eligibleWatchers(watchers, event.sessionKey).length === 0 && this.stmt.anyCursorOnTarget.get(event.agentId, event.sessionKey) === undefined) {
      return { event: undefined, inserted: false, cursorsWritten: false };
    }
    const info = this.stmt.insertEvent.run(...eventInsertValues(event));
    // Throws past 2^53 - 1, which rolls the insert back (R7 sequences must stay exact).
    const sequence = toSafeNumber(info.lastInsertRowid, 'session_state_events.sequence');
    const stored: StateEvent = Object.freeze({ sequence, ...event });
    // T12: the first spawn names the parent for good; later ones (and pruning) change nothing.
    if (stored.kind === 'child_spawned') this.stmt.insertSpawnParent.run(stored.sessionKey, stored.agentId, spawnParentOf(stored) ?? null);
    // R5: sequences are global and we hold the write lock, so this one is the identity's highest.
    // In a batch the head is written once per identity at the end (nothing in a batch reads it).
    if (within) within.heads.set(identityKey(stored.sessionKey, stored.agentId), stored);
    else this.stmt.upsertHead.run(stored.sessionKey, stored.agentId, sequence, now);
    // R18: the cursor rows written here are the notices; they become visible to every reader at the commit.
    return { event: stored, inserted: true, cursorsWritten: this.notify(stored, watchers, now, within) };
  }

  /**
   * R10-R17, set-based (core planSetNotifications): one statement moves the target's idle cursors;
   * the pending ones take the event from the target's slots (schema step 7). Returns whether a
   * cursor was written (a notice may have become pending).
   */
  private notify(event: StateEvent, producerWatchers: readonly string[], now: number, within?: BatchState): boolean {
    const plan = planSetNotifications(event, producerWatchers);
    if (plan.kind === 'none') return false;
    if (within) {
      // A batch asks once per identity whether anyone watches it, and skips the cursor UPDATEs of
      // an unwatched target from then on; only the batch itself can add cursors (it holds the lock).
      const id = identityKey(event.sessionKey, event.agentId);
      const adds = plan.kind === 'seed' ? plan.watchers.length : plan.addWatchers.length;
      if (adds > 0) within.cursorless.delete(id);
      else if (within.cursorless.has(id)) return false;
      else if (this.stmt.anyCursorOnTarget.get(event.agentId, event.sessionKey) === undefined) {
        within.cursorless.add(id);
        return false;
      }
    }
    if (plan.kind === 'seed') {
      // R14: the spawner's cursor, read and written back (a pending one keeps its notice).
      for (const w of plan.watchers) {
        const row = this.stmt.cursor.get(w, event.sessionKey, event.agentId) as CursorRow | undefined;
        const id = { watcherSessionKey: w, targetSessionKey: event.sessionKey, targetAgentId: event.agentId };
        // The spawn is the identity's newest event, so its sequence is the head to fold to.
        const existing = row ? toCursor(row) : undefined;
        const next = seedOnSpawn(existing, id, event.sequence, now);
        this.putCursor(next, event.sequence, noticeChanged(existing, next));
      }
      return plan.watchers.length > 0;
    }
    // Schema step 7: the pending cursors take the event from the slots (a watched target's only).
    const s = event.sequence;
    const actor = event.actorId ?? null;
    if (plan.onlyExplicit) this.stmt.upsertSlotsTerminal.run(event.sessionKey, event.agentId, s, actor, now, event.agentId, event.sessionKey);
    else this.stmt.upsertSlots.run(event.sessionKey, event.agentId, s, actor, now, s, actor, now, event.agentId, event.sessionKey);
    for (const w of plan.addWatchers) this.stmt.insertBlankCursor.run(w, event.sessionKey, event.agentId, now);
    const idle = plan.onlyExplicit ? this.stmt.notifyIdleExplicitCursors : this.stmt.notifyIdleCursors;
    if (idle.run(s, s, now, s, event.agentId, event.sessionKey, actor).changes === 0) return false;
    this.stmt.bumpChangeSequence.run(); // R68: the cursors made pending took the next change sequence
    return true;
  }

  watch(request: WatchRequest): WatchResult {
    this.assertOpen();
    const r = validateWatchRequest(request);
    // R21: refusals write nothing.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { watched: false };
    const now = this.now();
    let promoted = false;
    const result = this.guard<WatchResult>('watch', { watched: false }, () =>
      immediateTransaction(this.db, () => {
        const row = this.stmt.cursor.get(r.watcherSessionKey, r.targetSessionKey, r.agentId) as CursorRow | undefined;
        const existing = row ? toCursor(row) : undefined;
        const head = this.stmt.head.get(r.targetSessionKey, r.agentId) as { last_sequence: unknown } | undefined;
        const headVersion = head ? toSafeNumber(head.last_sequence, 'session_state_heads.last_sequence') : 0;
        const id = { watcherSessionKey: r.watcherSessionKey, targetSessionKey: r.targetSessionKey, targetAgentId: r.agentId };
        // R21b: an ambient re-registration writes nothing.
        const next = registerWatch(existing, id, headVersion, now, r.provenance);
        if (next) this.putCursor(next, headVersion, noticeChanged(existing, next));
        // A promotion changes a pending notice's wake (R25).
        promoted = next !== undefined && existing !== undefined && isPending(existing) && existing.provenance !== next.provenance;
        return { watched: true };
      }),
    );
    if (promoted && result.watched) this.changed();
    return result;
  }

  unwatch(request: UnwatchRequest): UnwatchResult {
    this.assertOpen();
    const r = validateUnwatchRequest(request);
    // R52: a bare or self watcher can hold no cursor; nothing to delete.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { unwatched: false };
    const removed = this.guard('unwatch', 0, () => this.stmt.deleteCursor.run(r.watcherSessionKey, r.targetSessionKey, r.agentId).changes);
    if (removed === 0) return { unwatched: false };
    this.changed();
    return { unwatched: true };
  }

  stateVersion(sessionKey: string, agentId: string): number {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    return this.guard('stateVersion', 0, () => {
      const head = this.stmt.head.get(sessionKey, agentId) as { last_sequence: unknown } | undefined;
      return head ? toSafeNumber(head.last_sequence, 'session_state_heads.last_sequence') : 0;
    });
  }

  changesSince(request: Parameters<SessionStateStore['changesSince']>[0]): ChangesSinceResponse {
    this.assertOpen();
    const r = normalizeChangesSince(request);
    return this.guard('changesSince', emptyChangesSince(), () =>
      // A read transaction: head, page and lowest sequence come from one snapshot (R30-R33).
      readTransaction(this.db, () => readChangesSince(this.stmt, r, (row) => this.toEvent(row))),
    );
  }

  pendingNotices(watcherSessionKey: string): Notice[] {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    // R20, R26: read from the file, so a notice raised by any connection or process is here. On a
    // storage failure the notices stay pending for a later read (R9).
    return withNoticeLinks(this.guard('pendingNotices', [] as Notice[], () => this.pendingNoticesOfWatcher(watcherSessionKey)), this.noticeLink); // R23b
  }

  /** R26: a watcher's pending notices, sorted (R23); values read back are checked (R9d). */
  private pendingNoticesOfWatcher(watcherSessionKey: string): Notice[] {
    return this.noticesOfRows(watcherSessionKey, this.values.pendingOfWatcher.all(watcherSessionKey) as PendingTuple[]);
  }

  private noticesOfRows(watcherSessionKey: string, rows: readonly PendingTuple[]): Notice[] {
    if (rows.length === 0) return [];
    const noticeFor = watcherNoticeMaker(watcherSessionKey);
    const notices: Notice[] = [];
    for (let i = 0; i < rows.length; i++) {
      const [targetSessionKey, targetAgentId, lastSeenValue, provenance] = rows[i]!;
      // R9d: a row another program wrote is checked like input (R1) before its key reaches a notice
      // text a model reads (R23); a bad one is logged once and skipped, the others are served.
      let lastSeen: number;
      try {
        if (!isValidSessionKey(targetSessionKey) || !isValidAgentId(targetAgentId)) {
          throw new CorruptStateError('session_watch_cursors', cursorRowName(watcherSessionKey, targetSessionKey, targetAgentId), 'a key or agent id that R1 does not allow');
        }
        lastSeen = toSafeNumber(lastSeenValue, 'session_watch_cursors.last_seen');
        if (lastSeen < 0 || !PROVENANCES.has(provenance)) {
          throw new CorruptStateError('session_watch_cursors', cursorRowName(watcherSessionKey, targetSessionKey, targetAgentId), `needs last_seen >= 0 and a known provenance; has ${lastSeen}, ${JSON.stringify(provenance)}`);
        }
      } catch (error) {
        this.badRows.report(error instanceof CorruptStateError ? error : new CorruptStateError('session_watch_cursors', cursorRowName(watcherSessionKey, targetSessionKey, targetAgentId), String(error)));
        continue;
      }
      notices.push(noticeFor(targetSessionKey, targetAgentId, lastSeen, provenance as CursorProvenance));
    }
    return notices.sort(compareNotices);
  }

  drainNotices(watcherSessionKey: string): Notice[] {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.now(); // R6: a refused clock throws whether or not anything is pending, as in the reference
    // R27-R28: one IMMEDIATE transaction reads the pending cursors and acks them. Another process
    // draining the same watcher waits for the lock and then finds them acked: each notice goes to
    // exactly one drainer. A failure rolls back: the notices stay pending (nothing lost, nothing twice).
    const drained = this.guard('drainNotices', [] as Notice[], () =>
      immediateTransaction(this.db, () => {
        const rows = this.values.pendingOfWatcherToDrain.all(watcherSessionKey) as PendingTuple[];
        const pending = this.noticesOfRows(watcherSessionKey, rows);
        if (pending.length === 0) return [];
        // Schema step 7: a cursor the slots carried newer events to takes them into its row first,
        // so the ack below reads its effective M (R28: the follow-up).
        if (rows.some((r) => Number(r[4]) !== 0)) this.stmt.foldPendingOfWatcher.run(watcherSessionKey);
        // R28 (core acknowledge): a follow-up stays pending iff M > old N. Three ways to the same
        // rows, by how many are pending (see ACK_BY_KEY_MAX).
        let acked = 0;
        // A skipped corrupt row (R9d) is no notice, so nothing acks it: only the good rows, by key.
        if (pending.length <= ACK_BY_KEY_MAX || pending.length < rows.length) {
          for (const n of pending) acked += this.stmt.ackPendingCursor.run(now, n.targetAgentId, n.targetSessionKey, watcherSessionKey).changes;
        } else if (toSafeNumber((this.stmt.cursorCountOfWatcher.get(watcherSessionKey) as { n: unknown }).n, 'count(*)') <= ACK_ONE_PASS_SPREAD * pending.length) {
          acked = this.stmt.ackPendingOfWatcherOnePass.run(now, watcherSessionKey).changes;
        } else {
          acked = this.stmt.ackPendingOfWatcher.run(now, watcherSessionKey).changes;
        }
        // The write lock is held since the read, so the same rows matched; anything else rolls back.
        if (acked !== pending.length) throw new Error(`drain acked ${acked} cursors, read ${pending.length}`);
        this.stmt.bumpChangeSequence.run(); // R68: every acked cursor took the next change sequence
        return pending;
      }),
    );
    if (drained.length > 0) this.changed();
    return withNoticeLinks(drained, this.noticeLink); // R23b
  }

  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): Notice[] {
    this.assertOpen();
    const v = validateNoticeAcks(watcherSessionKey, notices);
    const now = this.now(); // R6, before anything is written
    const targets = ackTargets(v.notices);
    if (targets.length === 0) return [];
    // R27b: exactly the named pairs still pending with a quoted L, in one transaction.
    const acked = this.guard('ackNotices', [] as Notice[], () =>
      immediateTransaction(this.db, () => {
        const out: Notice[] = [];
        for (const t of targets) {
          const row = this.stmt.cursor.get(v.watcherSessionKey, t.targetSessionKey, t.targetAgentId) as CursorRow | undefined;
          const cursor = row ? toCursor(row) : undefined;
          if (!ackMatches(cursor, t.lastSeen)) continue;
          out.push(noticeOf(cursor));
          this.putCursor(acknowledge(cursor, now).cursor, foldToOf(row!), true); // a matched cursor was read; an ack moves L (R68)
        }
        return out.sort(compareNotices);
      }),
    );
    if (acked.length > 0) this.changed();
    return withNoticeLinks(acked, this.noticeLink); // R23b
  }

  prune(): void {
    this.assertOpen();
    this.pruneAt(this.now());
  }

  /** R43 after a record: the record already read the clock, so a clock failing now cannot fail a
   * write that has committed (R6, R9); `prune()` reads it itself. */
  private pruneAt(now: number): void {
    // Set first, as the reference does: a failing prune is retried an interval later, not on every write.
    this.lastPruneAt = now;
    const cutoff = retentionCutoff(now, this.config);
    const expiredPending = this.guard('prune', false, () => {
      const probe = this.pruneProbe(cutoff);
      return probe === undefined ? false : this.pruneRows(cutoff, probe.counted);
    });
    if (expiredPending) this.changed();
  }

  /**
   * Read-only probes (all indexed), so an idle prune takes no write lock: undefined when there is
   * nothing to remove. The cap is counted only when the log's sequence span exceeds it, and that
   * count goes to the write transaction with the file's data_version, to be used there unless
   * another connection committed in between (counting again walked the log's narrowest index a
   * second time: about a tenth of a 1k-row cap prune, bench prune-cap).
   */
  private pruneProbe(cutoff: number): { counted?: CapCount } | undefined {
    if (this.stmt.anyAgedEvent.get(cutoff) !== undefined) return {};
    if (this.stmt.anyIdleCursor.get(cutoff) !== undefined) return {};
    // The version first: a commit after it, even one the count sees, makes the count unusable.
    const dataVersion = this.dataVersion();
    const rows = this.rowsIfSpanExceeded();
    return rows !== undefined && rows > this.config.maxRows ? { counted: { rows, dataVersion } } : undefined;
  }

  /** PRAGMA data_version: changes whenever another connection (or process) commits to the file. */
  private dataVersion(): number {
    return toSafeNumber(this.db.pragma('data_version'), 'data_version');
  }

  /** The log's row count, or undefined when its sequence span alone proves it within the cap (rows <= max - min + 1). */
  private rowsIfSpanExceeded(): number | undefined {
    const lowest = (this.stmt.lowestSequence.get() as { v: unknown } | undefined)?.v;
    const highest = (this.stmt.highestSequence.get() as { v: unknown } | undefined)?.v;
    if (lowest === null || lowest === undefined || highest === null || highest === undefined) return undefined;
    const lo = toSafeNumber(lowest, 'session_state_events.sequence');
    const hi = toSafeNumber(highest, 'session_state_events.sequence');
    if (hi - lo + 1 <= this.config.maxRows) return undefined;
    return toSafeNumber((this.stmt.countEvents.get() as { n: unknown }).n, 'count(*)');
  }

  /** R41: the highest sequence to remove so the newest maxRows of `rows` remain, or undefined within the cap. */
  private capCut(rows: number | undefined): number | undefined {
    if (rows === undefined || rows <= this.config.maxRows) return undefined;
    const row = this.stmt.capCut.get(rows - this.config.maxRows - 1) as { sequence: unknown } | undefined;
    return row ? toSafeNumber(row.sequence, 'session_state_events.sequence') : undefined;
  }

  /** Returns whether an expired cursor had a pending notice (R44). */
  private pruneRows(cutoff: number, counted?: CapCount): boolean {
    return immediateTransaction(this.db, (): boolean => {
      // R40: by age (occurredAt). R42: stamp the watermarks first, then delete.
      this.stmt.stampAgedWatermarks.run(cutoff);
      const aged = this.stmt.deleteAged.run(cutoff).changes;
      // R41: then the global cap, keeping the newest maxRows by sequence. The probe's count holds
      // if no other connection has committed since (this one wrote only the rows just deleted).
      const rows = counted !== undefined && counted.dataVersion === this.dataVersion() ? counted.rows - aged : this.rowsIfSpanExceeded();
      const cut = this.capCut(rows);
      if (cut !== undefined) {
        this.stmt.stampCappedWatermarks.run(cut);
        this.stmt.deleteUpTo.run(cut);
      }
      // R44: idle cursors expire, and with them their pending notices.
      const expired = (this.stmt.idleCursors.all(cutoff) as CursorRow[]).map(toCursor);
      if (expired.length > 0) this.stmt.deleteIdleCursors.run(cutoff);
      return expired.some(isPending);
    });
  }

  resetSession(sessionKey: string): void {
    this.assertOpen();
    validateSessionKey(sessionKey);
    // R50: the watcher's cursors go; its own log, head and the cursors watching it stay.
    const removed = this.guard('resetSession', 0, () => this.stmt.deleteCursorsOfWatcher.run(sessionKey).changes);
    if (removed > 0) this.changed();
  }

  deleteSession(sessionKey: string, agentId: string): void {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    // R51: events (freeing their dedupe keys), head, and cursors in both directions, in one transaction.
    const removed = this.guard('deleteSession', 0, () =>
      immediateTransaction(this.db, () => {
        this.stmt.deleteEventsOfIdentity.run(agentId, sessionKey);
        this.stmt.deleteHead.run(sessionKey, agentId);
        this.stmt.deleteSpawnParent.run(sessionKey, agentId);
        this.stmt.deleteSlots.run(sessionKey, agentId);
        return this.stmt.deleteCursorsOnTarget.run(agentId, sessionKey).changes + this.stmt.deleteCursorsOfWatcher.run(sessionKey).changes;
      }),
    );
    if (removed > 0) this.changed();
  }

  /** T12: the session that spawned this one, from its first child_spawned event (kept through pruning); undefined when none. */
  spawnParent(sessionKey: string, agentId: string): string | undefined {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    const row = this.guard('spawnParent', undefined, () => this.stmt.spawnParent.get(sessionKey, agentId) as { parent: string | null } | undefined);
    return row?.parent ?? undefined;
  }

  /** T12: every recorded spawn parent at once (a listing checks a whole page's tree with one read). */
  spawnParents(): [sessionKey: string, agentId: string, parent: string][] {
    this.assertOpen();
    const rows = this.guard('spawnParents', [], () => this.stmt.allSpawnParents.all() as { session_key: string; agent_id: string; parent: string }[]);
    return rows.map((r) => [r.session_key, r.agent_id, r.parent]);
  }

  /**
   * T4, T12, T15: the sessions (heads) strictly after `after` in key order (code point order: BINARY
   * compares UTF-8 bytes), at most `limit`, each with its head and spawn parent (null: none). Read by
   * the heads' primary key: a page costs its own rows, whatever the file holds.
   */
  sessionsPage(request: SessionsPageRequest): SessionsPageRow[] {
    this.assertOpen();
    checkSessionsPageRequest(request);
    const { after, limit } = request;
    // Every key is non-empty (R1), so ('', '') comes before all of them: the first page.
    const rows = this.guard('sessionsPage', [] as unknown[][], () => this.values.sessionsPage.all(after?.sessionKey ?? '', after?.agentId ?? '', limit));
    return rows.map(([sessionKey, agentId, version, parent]) => ({
      sessionKey: sessionKey as string,
      agentId: agentId as string,
      stateVersion: toSafeNumber(version, 'session_state_heads.last_sequence'),
      spawnParent: typeof parent === 'string' ? parent : null,
    }));
  }

  restart(): void {
    this.assertOpen();
    // R29: nothing pending lives in process memory, so nothing is rebuilt and no cursor changes:
    // the prune clock (the one cache) starts again at now, and the restart prunes.
    this.now(); // R6: a refused clock is refused before anything happens
    this.prune();
  }

  // ---- PendingSource (the feed's hooks, R60-R72; not part of the contract) ----

  /** Every pending pair of every watcher (N > L), read from the file through the pending index; a corrupt row is skipped (R9d). */
  listPending(): PendingPair[] {
    this.assertOpen();
    return this.pendingReads.listPending();
  }

  /** T15: the watchers with a pending notice strictly after `after` in key order, at most `limit`, one index seek each (the pending index). */
  pendingWatchersPage(request: PendingWatchersPageRequest): string[] {
    this.assertOpen();
    return this.pendingReads.pendingWatchersPage(request);
  }

  /**
   * R68: in one read transaction, the pairs whose notice changed after `since` (the step-8 index:
   * the cost of the change) and the pending pairs of the watchers a new subscriber asks for (R61),
   * at one position, the change sequence. A corrupt row is logged once and skipped (R9d).
   */
  readPending(request: PendingReadRequest): PendingRead {
    this.assertOpen();
    return this.pendingReads.read(request);
  }

  /** R70: the file another connection's commit writes first; the feed watches it. None for ':memory:'. */
  changeFiles(): readonly string[] {
    return this.walFile === undefined ? [] : [this.walFile];
  }

  /**
   * PRAGMA data_version: changes when another connection (this process or another) committed to
   * the file since this connection last looked, and not for this connection's own commits, which
   * onLocalChange reports instead. One cheap pragma: a feed polls it.
   */
  changeToken(): number {
    this.assertOpen();
    return toSafeNumber(this.db.pragma('data_version'), 'data_version');
  }

  onLocalChange(listener: () => void): () => void {
    return this.listeners.add(listener);
  }

  /** After this handle committed a write that may change pending state. */
  private changed(): void {
    this.listeners.fire();
  }

  /**
   * Whether a cursor targets this session (not part of the contract; the upstream monitor asks it,
   * U5). It never answers false on a failure: that would make a producer drop activity for good.
   */
  isWatched(sessionKey: string, agentId: string): boolean {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    try {
      return this.stmt.anyCursorOnTarget.get(agentId, sessionKey) !== undefined;
    } catch (error) {
      this.logger.error('sqlite store: isWatched failed', { path: this.path, ...describeError(error) });
      throw error;
    }
  }

  private toEvent(row: EventRow): StateEvent {
    // checkedEventFromRow: an event that fails the spec's own schema is a CorruptStateError, never returned.
    return checkedEventFromRow(row, (sequence, reason) =>
      this.logger.warn('sqlite store: dropped an unreadable payload', { path: this.path, sequence, reason }),
    );
  }

  /** Closes the store and its database connection; later calls do nothing. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    try {
      this.db.close();
    } catch (error) {
      this.logger.error('sqlite store: close failed', { path: this.path, ...describeError(error) });
    }
  }

  /** Read-only views for diagnostics and tests (as on the reference store). */
  cursor(watcherSessionKey: string, targetSessionKey: string, targetAgentId: string): WatchCursor | undefined {
    this.assertOpen();
    const row = this.stmt.cursor.get(watcherSessionKey, targetSessionKey, targetAgentId) as CursorRow | undefined;
    return row ? toCursor(row) : undefined;
  }

  /** Retained events: COUNT(*), a walk of the smallest index (diagnostics and tests, not the write path). */
  eventCount(): number {
    this.assertOpen();
    return toSafeNumber((this.stmt.countEvents.get() as { n: unknown }).n, 'count(*)');
  }
}

/**
 * What a notice needs of a pending cursor (R23, R25), as VALUE_READS return it: target key,
 * target agent, L, provenance, and (the drain's read only) whether it is unfolded.
 */
type PendingTuple = [targetSessionKey: string, targetAgentId: string, lastSeen: unknown, provenance: string, unfolded?: unknown];

/** The target's newest slot event a cursor read through the effective view saw: what a cursor written from it is folded to. */
function foldToOf(row: CursorRow): number {
  return toSafeNumber((row as CursorRow & { fold_to: unknown }).fold_to, 'session_state_slots.material_sequence');
}

/** What one recordMany transaction remembers between its inputs. */
interface BatchState {
  /** The newest stored event per identity: its head is written once, at the end. */
  heads: Map<string, StateEvent>;
  /** Identities known to hold no cursor in this transaction. */
  cursorless: Set<string>;
}

/**
 * R70: SQLite follows a symlinked path and keeps the WAL beside the real file, so a `-wal` named
 * after the link never exists and its events never come: the WAL is named from the resolved path.
 */
export function walFileOf(path: string): string | undefined {
  if (path === ':memory:' || path === '') return undefined;
  try {
    return `${realpathSync(path)}-wal`;
  } catch {
    return `${path}-wal`; // not a plain file path (e.g. a URI): as given
  }
}

/** Opens (creating or migrating) a store. Throws NotAStateDatabaseError / SchemaTooNewError for a wrong file. */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/**
 * A contract factory (spec/schemas/contract.ts StoreFactory) with fixed adapter settings; `path`
 * may be a function so each created store gets its own file (as the conformance suite needs).
 */
export function sqliteStoreFactory(
  settings: Omit<SqliteStoreOptions, keyof CreateOptions | 'path'> & { path?: string | (() => string) } = {},
): StoreFactory {
  return (options: CreateOptions) => {
    const { path, ...rest } = settings;
    const resolved = typeof path === 'function' ? path() : path;
    return createSqliteStore({ ...rest, ...options, ...(resolved === undefined ? {} : { path: resolved }) });
  };
}

/** Test and diagnostics hook: the store's driver connection (writing through it bypasses the protocol). */
export function sqliteConnection(store: SqliteStore): SqliteConnection {
  return (store as unknown as { db: SqliteConnection }).db;
}

/** The same, as better-sqlite3's own handle; throws when the store runs on another driver. */
export function sqliteHandle(store: SqliteStore): BetterSqlite3.Database {
  const connection = sqliteConnection(store);
  if (connection.driver !== 'better-sqlite3') throw new TypeError(`sqliteHandle: the store runs on ${connection.driver}, not better-sqlite3; use sqliteConnection`);
  return connection.native as BetterSqlite3.Database;
}
