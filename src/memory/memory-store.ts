import type {
  ChangesSinceResponse,
  CreateOptions,
  Notice,
  NoticeAck,
  SessionHead,
  SessionStateStore,
  StateEvent,
  UnwatchRequest,
  UnwatchResult,
  WatchCursor,
  WatchRequest,
  WatchResult,
} from '../../spec/index.js';
import {
  checkSessionsPageRequest,
  checkPendingWatchersPageRequest,
  ackMatches,
  ackTargets,
  acknowledge,
  checkedNow,
  buildChangesSince,
  compareNotices,
  identityKey,
  isAgentScopedKey,
  isPending,
  isPruneDue,
  isWatched,
  noticeOf,
  pendingPairOf,
  normalizeChangesSince,
  pendingNoticesOf,
  planNotifications,
  prepareRecord,
  prepareRecordBatch,
  raiseWatermark,
  registerWatch,
  resolvePruneConfig,
  retentionCutoff,
  validateIdentity,
  spawnParentOf,
  validateNoticeAcks,
  validateSessionKey,
  validateNoticeLinkTemplate,
  validateUnwatchRequest,
  validateWatchRequest,
  withNoticeLinks,
  type PreparedEvent,
  type PreparedRecord,
  type PruneConfig,
} from '../core/index.js';
import type { PairChange, PendingPair, PendingRead, PendingReadRequest, PendingWatchersPageRequest, StorePendingSource } from '../../spec/index.js';
import type { SessionsPageRequest, SessionsPageRow } from '../tools/handlers.js';
import { SessionOrder, compareCodePoints } from './session-order.js';
import { PairChangeLog } from './change-log.js';
import { resolveClock } from '../shared/clock.js';
import { ChangeListeners } from '../shared/listeners.js';
import { consoleLogger, guardedLogger, type Logger } from '../shared/logger.js';

/** Options of the reference store: the contract's, with `now` defaulting to Date.now (R6). */
export interface MemoryStoreOptions extends Omit<CreateOptions, 'now'> {
  /** The clock; Date.now when absent. A non-function is refused at construction. */
  now?: () => number;
  /** Where a failing change listener is reported; defaults to the console. */
  logger?: Logger;
}

/**
 * The in-memory reference store: the pure core plus Maps. It is the oracle the conformance suite
 * compares every other implementation with, so it favours plain obviousness over speed, except on
 * the record path, which also measures the core's own speed (bench append/memory): no copies there.
 * "Durable" state (events, heads, cursors, sequence counter) survives restart(); the prune clock
 * does not, as in a real process restart. Pending notices are not state of their own: they are
 * read from the cursors (N > L) whenever asked (R20, R26), so nothing is lost or rebuilt.
 * Several MemoryStore handles may share one MemoryState (`openHandle`), like connections to one file.
 */
export interface MemoryState {
  nextSequence: number;
  /**
   * The log, ascending by sequence (sequences only grow, so an append is a push). An array, not a
   * Map by sequence: a Map's insert lands in a random hash bucket of a table that outgrows the CPU
   * caches, which cost more than the rest of an append (bench append/memory); nothing looks an
   * event up by sequence, and removals (prune, deleteSession) rebuild it in one pass.
   */
  events: StateEvent[];
  /** Per session identity, ascending by sequence. */
  sessionEvents: Map<string, StateEvent[]>;
  heads: Map<string, SessionHead>;
  /** T12: per session identity, the parent its first child_spawned named (null: none), kept through pruning. */
  spawnParents: Map<string, string | null>;
  /** Keyed by identityKey(target) then watcher key. */
  cursors: Map<string, Map<string, WatchCursor>>;
  /** R8: the retained event holding each dedupe key. */
  dedupe: Map<string, StateEvent>;
  /** Bumped by every write that may change pending state, from any handle (the feed's change token). */
  changes: number;
  /** R68: which pairs' notices changed, in change order (the feed reads what changed after its position). */
  changeLog: PairChangeLog;
  /** T15: the sessions in key order, made at the first keyed page read and kept up from then on. @internal */
  sessionOrder?: SessionOrder;
}

/** A fresh, empty MemoryState: what `new MemoryStore` starts from unless handed a state to share. */
export function emptyMemoryState(): MemoryState {
  return { nextSequence: 1, events: [], sessionEvents: new Map(), heads: new Map(), spawnParents: new Map(), cursors: new Map(), dedupe: new Map(), changes: 0, changeLog: new PairChangeLog() };
}

const NO_CURSORS: readonly WatchCursor[] = Object.freeze([]);

/** What applyRecord did, for its caller to signal and prune (R43) after; see applyRecord. */
interface RecordOutcome {
  readonly event: StateEvent | undefined;
  readonly inserted: boolean;
  readonly cursorsWritten: boolean;
}
/** R9b: nobody could be told, nothing written. */
const NOTHING_WRITTEN: RecordOutcome = Object.freeze({ event: undefined, inserted: false, cursorsWritten: false });

/** The stored row: `sequence` first, then the prepared fields in their order (as `{ sequence, ...event }`, built directly). */
function withSequence(sequence: number, e: PreparedEvent): StateEvent {
  const stored: StateEvent = {
    sequence,
    sessionKey: e.sessionKey,
    agentId: e.agentId,
    kind: e.kind,
    actorType: e.actorType,
    occurredAt: e.occurredAt,
    recordedAt: e.recordedAt,
    summary: e.summary,
  };
  if (e.sessionId !== undefined) stored.sessionId = e.sessionId;
  if (e.actorId !== undefined) stored.actorId = e.actorId;
  if (e.runId !== undefined) stored.runId = e.runId;
  if (e.payload !== undefined) stored.payload = e.payload;
  if (e.dedupeKey !== undefined) stored.dedupeKey = e.dedupeKey;
  return stored;
}

function upperBound(events: readonly StateEvent[], since: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.sequence <= since) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The in-memory reference store of the contract (R1-R52) and a change-feed source (R60-R72); its state can be shared between handles in one process.
 */
export class MemoryStore implements SessionStateStore, StorePendingSource {
  private readonly config: PruneConfig;
  private lastPruneAt: number;
  private closed = false;
  private readonly listeners: ChangeListeners;
  private readonly readClock: () => number;
  private readonly noticeLink: string | undefined;
  /** T15: the watchers with a pending notice in key order, as of a change token. */
  private pendingWatchers: { token: number; watchers: string[] } | undefined;
  /** The options as resolved (the clock filled in); broken variants in conformance/broken read them. */
  private readonly options: MemoryStoreOptions & { now: () => number };

  constructor(
    options: MemoryStoreOptions = {},
    readonly state: MemoryState = emptyMemoryState(),
  ) {
    this.readClock = resolveClock(options.now);
    this.options = { ...options, now: this.readClock };
    this.listeners = new ChangeListeners(guardedLogger(options.logger ?? consoleLogger), 'memory store: a change listener');
    if (options.noticeLink !== undefined) validateNoticeLinkTemplate(options.noticeLink);
    this.noticeLink = options.noticeLink;
    this.config = resolvePruneConfig(options);
    this.lastPruneAt = this.now();
    // R29: opening prunes (an existing state may hold expired rows); a fresh state has nothing to do.
    if (state.events.length > 0 || state.cursors.size > 0) this.prune();
  }

  /** Another handle on the same state, as a second connection to one database file would be. */
  openHandle(options: MemoryStoreOptions = this.options): MemoryStore {
    return new MemoryStore(options, this.state);
  }

  private now(): number {
    return checkedNow(this.readClock()); // R6
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  record(input: Parameters<SessionStateStore['record']>[0]): StateEvent | undefined {
    this.assertOpen();
    const now = this.now();
    const outcome = this.applyRecord(prepareRecord(input, now), now);
    if (outcome.inserted) this.afterWrite(now, outcome.cursorsWritten);
    return outcome.event;
  }

  /**
   * R9e: the inputs in order, each as record() would take it after the earlier ones (dedupe and
   * onlyIfWatched see what earlier items wrote). Validated as a whole first: one bad input rejects
   * the batch before anything is written. One clock reading, one change signal, at most one prune.
   */
  recordMany(inputs: Parameters<NonNullable<SessionStateStore['recordMany']>>[0]): (StateEvent | undefined)[] {
    this.assertOpen();
    const now = this.now();
    const prepared = prepareRecordBatch(inputs, now);
    const results: (StateEvent | undefined)[] = [];
    let inserted = false;
    let cursorsWritten = false;
    for (const p of prepared) {
      const outcome = this.applyRecord(p, now);
      results.push(outcome.event);
      inserted ||= outcome.inserted;
      cursorsWritten ||= outcome.cursorsWritten;
    }
    if (inserted) this.afterWrite(now, cursorsWritten);
    return results;
  }

  /**
   * One validated input applied to the state, as the SQLite store's recordOne: the event to return
   * (the stored one, the existing one on a dedupe hit, undefined when onlyIfWatched found nobody),
   * whether it was inserted, and whether cursors were written (the listeners must hear of those).
   */
  private applyRecord({ event, watchers, onlyIfWatched }: PreparedRecord, now: number): RecordOutcome {
    const state = this.state;
    // R8: a repeated dedupe key returns the existing row and changes nothing.
    if (event.dedupeKey !== undefined) {
      const existing = state.dedupe.get(event.dedupeKey);
      if (existing !== undefined) return { event: existing, inserted: false, cursorsWritten: false };
    }
    const id = identityKey(event.sessionKey, event.agentId);
    const byWatcher = state.cursors.get(id);
    // No copy when nothing watches: the common append reads no cursor at all.
    const cursorsOnTarget: readonly WatchCursor[] = byWatcher === undefined || byWatcher.size === 0 ? NO_CURSORS : [...byWatcher.values()];
    if (onlyIfWatched && !isWatched(cursorsOnTarget, watchers, event.sessionKey)) return NOTHING_WRITTEN; // R9b

    // Frozen: callers get the stored object itself and must not be able to rewrite history.
    const stored = Object.freeze(withSequence(state.nextSequence++, event));
    state.events.push(stored);
    let list = state.sessionEvents.get(id);
    if (!list) state.sessionEvents.set(id, (list = []));
    list.push(stored);
    if (stored.dedupeKey !== undefined) state.dedupe.set(stored.dedupeKey, stored);
    // T12: the first spawn names the parent for good; later ones (and pruning) change nothing.
    if (stored.kind === 'child_spawned' && !state.spawnParents.has(id)) state.spawnParents.set(id, spawnParentOf(stored) ?? null);
    const head = state.heads.get(id);
    if (head) {
      // Heads are state of this store alone (never handed out), so they are updated in place.
      head.stateVersion = stored.sequence;
      head.updatedAt = now;
    } else {
      const created: SessionHead = { sessionKey: stored.sessionKey, agentId: stored.agentId, stateVersion: stored.sequence, prunedMaxSequence: 0, updatedAt: now };
      state.heads.set(id, created);
      // The head, not the event: the order must not keep a pruned event alive.
      state.sessionOrder?.add(created);
    }

    // No cursor on the target and no producer-passed watcher: nothing to seed or move (R10-R17 plan
    // no write), so the common append of an unwatched session skips the planner.
    if (cursorsOnTarget.length === 0 && watchers.length === 0) return { event: stored, inserted: true, cursorsWritten: false };
    const plan = planNotifications(stored, cursorsOnTarget, watchers, now);
    if (plan.cursorWrites.length === 0) return { event: stored, inserted: true, cursorsWritten: false };
    // Every planned cursor is on this event's target, so they all go into one per-target map.
    let onTarget = byWatcher;
    if (!onTarget) state.cursors.set(id, (onTarget = new Map()));
    for (const c of plan.cursorWrites) {
      state.changeLog.write(onTarget.get(c.watcherSessionKey), c); // R68
      onTarget.set(c.watcherSessionKey, c); // R18: the notices are these cursors
    }
    return { event: stored, inserted: true, cursorsWritten: true };
  }

  /** After record/recordMany stored an event: one change signal if cursors were written; R43. */
  private afterWrite(now: number, cursorsWritten: boolean): void {
    if (cursorsWritten) this.changed();
    if (isPruneDue(now, this.lastPruneAt)) this.pruneAt(now); // R43
  }

  watch(request: WatchRequest): WatchResult {
    this.assertOpen();
    const r = validateWatchRequest(request);
    // R21: refusals write nothing.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { watched: false };
    const now = this.now();
    const id = identityKey(r.targetSessionKey, r.agentId);
    const existing = this.state.cursors.get(id)?.get(r.watcherSessionKey);
    const head = this.state.heads.get(id)?.stateVersion ?? 0;
    const ids = { watcherSessionKey: r.watcherSessionKey, targetSessionKey: r.targetSessionKey, targetAgentId: r.agentId };
    // R21b: an ambient re-registration writes nothing.
    const next = registerWatch(existing, ids, head, now, r.provenance);
    if (next) {
      this.putCursor(next);
      // A promotion changes a pending notice's wake (R25).
      if (existing && isPending(existing) && existing.provenance !== next.provenance) this.changed();
    }
    return { watched: true };
  }

  unwatch(request: UnwatchRequest): UnwatchResult {
    this.assertOpen();
    const r = validateUnwatchRequest(request);
    // R52: a bare or self watcher can hold no cursor; nothing to delete.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { unwatched: false };
    const id = identityKey(r.targetSessionKey, r.agentId);
    const byWatcher = this.state.cursors.get(id);
    const existing = byWatcher?.get(r.watcherSessionKey);
    if (!byWatcher || !existing) return { unwatched: false };
    byWatcher.delete(r.watcherSessionKey);
    this.state.changeLog.forget(existing);
    if (byWatcher.size === 0) this.state.cursors.delete(id);
    if (isPending(existing)) this.changed();
    return { unwatched: true };
  }

  stateVersion(sessionKey: string, agentId: string): number {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    return this.state.heads.get(identityKey(sessionKey, agentId))?.stateVersion ?? 0;
  }

  changesSince(request: Parameters<SessionStateStore['changesSince']>[0]): ChangesSinceResponse {
    this.assertOpen();
    const r = normalizeChangesSince(request);
    const id = identityKey(r.sessionKey, r.agentId);
    const head = this.state.heads.get(id);
    const list = this.state.sessionEvents.get(id) ?? [];
    const start = upperBound(list, r.since);
    return buildChangesSince(r, {
      stateVersion: head?.stateVersion ?? 0,
      prunedMaxSequence: head?.prunedMaxSequence ?? 0,
      page: list.slice(start, start + r.limit + 1),
      lowestRetained: list[0]?.sequence,
    });
  }

  /** Every cursor of one watcher. A scan: the reference favours obviousness over an index. */
  private cursorsOf(watcherSessionKey: string): WatchCursor[] {
    const out: WatchCursor[] = [];
    for (const byWatcher of this.state.cursors.values()) {
      const c = byWatcher.get(watcherSessionKey);
      if (c) out.push(c);
    }
    return out;
  }

  pendingNotices(watcherSessionKey: string): Notice[] {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    return withNoticeLinks(pendingNoticesOf(this.cursorsOf(watcherSessionKey)), this.noticeLink); // R20, R26, R23b
  }

  drainNotices(watcherSessionKey: string): Notice[] {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.now(); // R6: a refused clock must not cost the pending notices
    // R27: the notices quote the old L; acking makes a follow-up pending iff M > old N (R28).
    const drained = pendingNoticesOf(this.cursorsOf(watcherSessionKey));
    for (const n of drained) {
      const cursor = this.state.cursors.get(identityKey(n.targetSessionKey, n.targetAgentId))!.get(watcherSessionKey)!;
      this.putCursor(acknowledge(cursor, now).cursor);
    }
    if (drained.length > 0) this.changed();
    return withNoticeLinks(drained, this.noticeLink);
  }

  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): Notice[] {
    this.assertOpen();
    const v = validateNoticeAcks(watcherSessionKey, notices);
    const now = this.now(); // R6, before anything is written
    const acked: Notice[] = [];
    // R27b: exactly the named pairs still pending with a quoted L; the rest ack nothing.
    for (const t of ackTargets(v.notices)) {
      const cursor = this.state.cursors.get(identityKey(t.targetSessionKey, t.targetAgentId))?.get(v.watcherSessionKey);
      if (!ackMatches(cursor, t.lastSeen)) continue;
      acked.push(noticeOf(cursor));
      this.putCursor(acknowledge(cursor, now).cursor);
    }
    if (acked.length > 0) this.changed();
    return withNoticeLinks(acked.sort(compareNotices), this.noticeLink);
  }

  prune(): void {
    this.assertOpen();
    this.pruneAt(this.now());
  }

  /** R43 after a record: the record already read the clock, so a clock failing now cannot fail a
   * write that has committed (R6, R9); `prune()` reads it itself. */
  private pruneAt(now: number): void {
    this.lastPruneAt = now;
    const cutoff = retentionCutoff(now, this.config);
    const events = this.state.events;
    const doomed = new Set<number>();
    for (const e of events) if (e.occurredAt < cutoff) doomed.add(e.sequence); // R40
    const survivors = events.length - doomed.size;
    if (survivors > this.config.maxRows) {
      // R41: drop the oldest survivors until maxRows remain.
      let excess = survivors - this.config.maxRows;
      for (const e of events) {
        if (excess === 0) break;
        if (!doomed.has(e.sequence)) {
          doomed.add(e.sequence);
          excess--;
        }
      }
    }
    if (doomed.size > 0) {
      // R42: stamp each affected head's watermark, then delete. Heads are never removed here.
      for (const e of events) {
        if (!doomed.has(e.sequence)) continue;
        const head = this.state.heads.get(identityKey(e.sessionKey, e.agentId));
        if (head) head.prunedMaxSequence = raiseWatermark(head.prunedMaxSequence, e.sequence);
        if (e.dedupeKey !== undefined) this.state.dedupe.delete(e.dedupeKey);
      }
      this.state.events = events.filter((e) => !doomed.has(e.sequence));
      for (const [id, list] of this.state.sessionEvents) {
        const kept = list.filter((e) => !doomed.has(e.sequence));
        if (kept.length === 0) this.state.sessionEvents.delete(id);
        else if (kept.length !== list.length) this.state.sessionEvents.set(id, kept);
      }
    }
    // R44: idle cursors expire, and with them any pending notice of the pair.
    let expiredPending = false;
    for (const [id, byWatcher] of this.state.cursors) {
      for (const [watcher, c] of byWatcher) {
        if (c.updatedAt < cutoff) {
          byWatcher.delete(watcher);
          this.state.changeLog.forget(c);
          expiredPending ||= isPending(c);
        }
      }
      if (byWatcher.size === 0) this.state.cursors.delete(id);
    }
    if (expiredPending) this.changed();
  }

  resetSession(sessionKey: string): void {
    this.assertOpen();
    validateSessionKey(sessionKey);
    // R50: the watcher starts a new lifecycle; its log, head and watchers stay.
    let removed = false;
    for (const [id, byWatcher] of this.state.cursors) {
      const c = byWatcher.get(sessionKey);
      if (c) this.state.changeLog.forget(c);
      removed = byWatcher.delete(sessionKey) || removed;
      if (byWatcher.size === 0) this.state.cursors.delete(id);
    }
    if (removed) this.changed();
  }

  /** T12: the session that spawned this one, from its first child_spawned event (kept through pruning); undefined when none. */
  spawnParent(sessionKey: string, agentId: string): string | undefined {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    return this.state.spawnParents.get(identityKey(sessionKey, agentId)) ?? undefined;
  }

  /** T12: every recorded spawn parent at once (a listing checks a whole page's tree with one read). */
  spawnParents(): [sessionKey: string, agentId: string, parent: string][] {
    this.assertOpen();
    const out: [string, string, string][] = [];
    for (const [session, head] of this.state.heads) {
      const parent = this.state.spawnParents.get(session);
      if (parent !== undefined && parent !== null) out.push([head.sessionKey, head.agentId, parent]);
    }
    return out;
  }

  /**
   * T4, T12, T15: the sessions (heads) strictly after `after` in key order (code point order, as the
   * SQL stores), at most `limit`, each with its head and spawn parent (null: none). A binary search
   * in the kept order (SessionOrder): a page costs its rows, plus one merge when sessions were
   * created since the previous page.
   */
  sessionsPage(request: SessionsPageRequest): SessionsPageRow[] {
    this.assertOpen();
    checkSessionsPageRequest(request);
    const { after, limit } = request;
    const state = this.state;
    const order = (state.sessionOrder ??= new SessionOrder(state.heads.values()));
    const rows: SessionsPageRow[] = [];
    for (const s of order.page(after, limit, (x) => state.heads.has(identityKey(x.sessionKey, x.agentId)))) {
      const id = identityKey(s.sessionKey, s.agentId);
      rows.push({ sessionKey: s.sessionKey, agentId: s.agentId, stateVersion: state.heads.get(id)!.stateVersion, spawnParent: state.spawnParents.get(id) ?? null });
    }
    return rows;
  }

  deleteSession(sessionKey: string, agentId: string): void {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    const id = identityKey(sessionKey, agentId);
    // R51: events, head, and cursors in both directions.
    const gone = this.state.sessionEvents.get(id);
    if (gone) {
      for (const e of gone) if (e.dedupeKey !== undefined) this.state.dedupe.delete(e.dedupeKey);
      // One pass over the log: a rare call pays for the append's cheap push.
      const goneSequences = new Set(gone.map((e) => e.sequence));
      this.state.events = this.state.events.filter((e) => !goneSequences.has(e.sequence));
    }
    this.state.sessionEvents.delete(id);
    this.state.heads.delete(id);
    this.state.spawnParents.delete(id);
    const onTarget = this.state.cursors.get(id);
    for (const c of onTarget?.values() ?? []) this.state.changeLog.forget(c);
    if (this.state.cursors.delete(id)) this.changed();
    this.resetSession(sessionKey);
  }

  restart(): void {
    this.assertOpen();
    // R29: nothing pending lives in process memory, so there is nothing to rebuild: the prune clock
    // (the only cache) starts again at now, and the restart prunes. No cursor changes.
    this.now(); // R6: a refused clock is refused before anything happens
    this.prune();
  }

  /** Closes this handle: its change listeners are dropped; the shared state stays. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  // ---- PendingSource (the feed's hooks, R60-R72; not part of the contract) ----

  /** Every pending pair of every watcher (N > L), from the cursors. */
  listPending(): PendingPair[] {
    this.assertOpen();
    const out: PendingPair[] = [];
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) {
        if (isPending(c)) out.push(pendingPairOf(c));
      }
    }
    return out;
  }

  /**
   * T15: the watchers with a pending notice strictly after `after` in key order (code point order),
   * at most `limit`. The sorted list is kept until pending state changes (the change token), so a
   * walk of every page with no write between them reads the cursors once.
   */
  pendingWatchersPage(request: PendingWatchersPageRequest): string[] {
    this.assertOpen();
    checkPendingWatchersPageRequest(request);
    const { after, limit } = request;
    if (this.pendingWatchers?.token !== this.state.changes) {
      const watchers = new Set<string>();
      for (const byWatcher of this.state.cursors.values()) for (const c of byWatcher.values()) if (isPending(c)) watchers.add(c.watcherSessionKey);
      this.pendingWatchers = { token: this.state.changes, watchers: [...watchers].sort(compareCodePoints) };
    }
    const watchers = this.pendingWatchers.watchers;
    let lo = 0;
    if (after !== undefined) {
      let hi = watchers.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareCodePoints(watchers[mid]!, after) <= 0) lo = mid + 1;
        else hi = mid;
      }
    }
    return watchers.slice(lo, lo + limit);
  }

  /**
   * R68: the pairs whose notices changed after `since` and the pending pairs of the watchers
   * asked for, at one position (the change log's sequence). Costs the changes, not the cursors
   * (but for a snapshot of every watcher, which a new subscriber of every watcher asks for).
   */
  readPending(request: PendingReadRequest): PendingRead {
    this.assertOpen();
    const log = this.state.changeLog;
    const position = String(log.sequence);
    const changes: PairChange[] = [];
    if (request.since !== undefined) {
      const since = Number(request.since);
      if (!Number.isSafeInteger(since) || since < 0) throw new RangeError(`readPending: not a position of this store: ${JSON.stringify(request.since)}`);
      const only = request.watchers === undefined ? undefined : new Set(request.watchers);
      for (const p of log.since(since)) {
        if (only !== undefined && !only.has(p.watcherSessionKey)) continue; // R68: not wanted
        const c = this.state.cursors.get(identityKey(p.targetSessionKey, p.targetAgentId))?.get(p.watcherSessionKey);
        if (c) changes.push({ ...pendingPairOf(c), pending: isPending(c) });
      }
    }
    let snapshot: PendingPair[] = [];
    if (request.snapshot === 'all') snapshot = this.listPending();
    else if (request.snapshot) {
      const wanted = new Set(request.snapshot);
      for (const byWatcher of this.state.cursors.values()) {
        for (const w of wanted) {
          const c = byWatcher.get(w);
          if (c && isPending(c)) snapshot.push(pendingPairOf(c));
        }
      }
    }
    return { position, changes, snapshot };
  }

  /** Changes with every write of any handle sharing this state that may change pending state. */
  changeToken(): number {
    return this.state.changes;
  }

  onLocalChange(listener: () => void): () => void {
    return this.listeners.add(listener);
  }

  /** After a write that may change pending state: bump the shared token, tell this handle's listeners. */
  private changed(): void {
    this.state.changes++;
    if (this.listeners.size > 0) this.listeners.fire();
  }

  /**
   * Whether anyone could be told about a change of this session (a cursor targets it). Not part of
   * the contract: the upstream monitor asks it after reading a source, so activity nobody watched
   * is passed over instead of reaching a later watcher (U5). Never answers false on a failure.
   */
  isWatched(sessionKey: string, agentId: string): boolean {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    return (this.state.cursors.get(identityKey(sessionKey, agentId))?.size ?? 0) > 0;
  }

  /** Read-only views for diagnostics and tests. */
  cursor(watcherSessionKey: string, targetSessionKey: string, targetAgentId: string): WatchCursor | undefined {
    const c = this.state.cursors.get(identityKey(targetSessionKey, targetAgentId))?.get(watcherSessionKey);
    return c ? { ...c } : undefined;
  }

  /** Retained events (diagnostics and tests). */
  eventCount(): number {
    return this.state.events.length;
  }

  private putCursor(c: WatchCursor): void {
    const id = identityKey(c.targetSessionKey, c.targetAgentId);
    let byWatcher = this.state.cursors.get(id);
    if (!byWatcher) this.state.cursors.set(id, (byWatcher = new Map()));
    this.state.changeLog.write(byWatcher.get(c.watcherSessionKey), c); // R68
    byWatcher.set(c.watcherSessionKey, c);
  }
}

/** The contract factory (spec/schemas/contract.ts) for the in-memory reference store. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryStore(options);
}
