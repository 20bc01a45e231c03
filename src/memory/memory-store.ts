import type {
  ChangesSinceResponse,
  CreateOptions,
  Notice,
  SessionHead,
  SessionStateStore,
  StateEvent,
  WatchCursor,
  WatchRequest,
  WatchResult,
} from '../../spec/index.js';
import {
  NoticeQueue,
  acknowledge,
  checkedNow,
  buildChangesSince,
  identityKey,
  isAgentScopedKey,
  isPruneDue,
  isWatched,
  makeNotice,
  normalizeChangesSince,
  planNotifications,
  prepareRecord,
  raiseWatermark,
  registerExplicit,
  resolvePruneConfig,
  retentionCutoff,
  sweep,
  validateIdentity,
  validateSessionKey,
  validateNoticeLinkTemplate,
  validateWatchRequest,
  withNoticeLink,
  type PruneConfig,
} from '../core/index.js';
import { resolveClock } from '../shared/clock.js';

/** Options of the reference store: the contract's, with `now` defaulting to Date.now (R6). */
export interface MemoryStoreOptions extends Omit<CreateOptions, 'now'> {
  /** The clock; Date.now when absent. A non-function is refused at construction. */
  now?: () => number;
}

/**
 * The in-memory reference store: the pure core plus Maps. It is the oracle the conformance suite
 * compares every other implementation with, so it favours plain obviousness over speed.
 * "Durable" state (events, heads, cursors, sequence counter) survives restart(); the notice
 * queue and the prune clock do not, as in a real process restart.
 */
export interface MemoryState {
  nextSequence: number;
  /** Ascending by sequence (Map keeps insertion order and sequences only grow). */
  events: Map<number, StateEvent>;
  /** Per session identity, ascending by sequence. */
  sessionEvents: Map<string, StateEvent[]>;
  heads: Map<string, SessionHead>;
  /** Keyed by identityKey(target) then watcher key. */
  cursors: Map<string, Map<string, WatchCursor>>;
  dedupe: Map<string, number>;
}

export function emptyMemoryState(): MemoryState {
  return { nextSequence: 1, events: new Map(), sessionEvents: new Map(), heads: new Map(), cursors: new Map(), dedupe: new Map() };
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

export class MemoryStore implements SessionStateStore {
  private readonly queue = new NoticeQueue();
  private readonly config: PruneConfig;
  private lastPruneAt: number;
  private closed = false;
  private readonly readClock: () => number;
  private readonly noticeLink: string | undefined;
  /** The options as resolved (the clock filled in); broken variants in conformance/broken read them. */
  private readonly options: CreateOptions;

  constructor(
    options: MemoryStoreOptions = {},
    readonly state: MemoryState = emptyMemoryState(),
  ) {
    this.readClock = resolveClock(options.now);
    this.options = { ...options, now: this.readClock };
    if (options.noticeLink !== undefined) validateNoticeLinkTemplate(options.noticeLink);
    this.noticeLink = options.noticeLink;
    this.config = resolvePruneConfig(options);
    this.lastPruneAt = this.now();
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
    const { event, watchers, onlyIfWatched } = prepareRecord(input, now);
    // R8: a repeated dedupe key returns the existing row and changes nothing.
    if (event.dedupeKey !== undefined) {
      const existing = this.state.dedupe.get(event.dedupeKey);
      if (existing !== undefined) return this.state.events.get(existing);
    }
    const id = identityKey(event.sessionKey, event.agentId);
    const cursorsOnTarget = [...(this.state.cursors.get(id)?.values() ?? [])];
    if (onlyIfWatched && !isWatched(cursorsOnTarget, watchers, event.sessionKey)) return undefined; // R9b

    // Frozen: callers get the stored object itself and must not be able to rewrite history.
    const stored: StateEvent = Object.freeze({ sequence: this.state.nextSequence++, ...event });
    this.state.events.set(stored.sequence, stored);
    let list = this.state.sessionEvents.get(id);
    if (!list) this.state.sessionEvents.set(id, (list = []));
    list.push(stored);
    if (stored.dedupeKey !== undefined) this.state.dedupe.set(stored.dedupeKey, stored.sequence);
    const head = this.state.heads.get(id);
    this.state.heads.set(id, {
      sessionKey: stored.sessionKey,
      agentId: stored.agentId,
      stateVersion: stored.sequence,
      prunedMaxSequence: head?.prunedMaxSequence ?? 0,
      updatedAt: now,
    });

    const plan = planNotifications(stored, cursorsOnTarget, watchers, now);
    for (const c of plan.cursorWrites) this.putCursor(c);
    for (const n of plan.notices) this.queue.enqueue(n); // R18: after the write
    if (isPruneDue(now, this.lastPruneAt)) this.prune(); // R43
    return stored;
  }

  watch(request: WatchRequest): WatchResult {
    this.assertOpen();
    const r = validateWatchRequest(request);
    // R21: refusals write nothing.
    if (!isAgentScopedKey(r.watcherSessionKey) || r.watcherSessionKey === r.targetSessionKey) return { watched: false };
    const id = identityKey(r.targetSessionKey, r.agentId);
    const existing = this.state.cursors.get(id)?.get(r.watcherSessionKey);
    const head = this.state.heads.get(id)?.stateVersion ?? 0;
    this.putCursor(
      registerExplicit(existing, { watcherSessionKey: r.watcherSessionKey, targetSessionKey: r.targetSessionKey, targetAgentId: r.agentId }, head, this.now()),
    );
    return { watched: true };
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

  pendingNotices(watcherSessionKey: string): Notice[] {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    return this.queue.pending(watcherSessionKey).map((n) => withNoticeLink(n, this.noticeLink));
  }

  drainNotices(watcherSessionKey: string): Notice[] {
    this.assertOpen();
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.now(); // R6: a refused clock must not cost the queued notices
    const drained = this.queue.take(watcherSessionKey);
    for (const n of drained) {
      const cursor = this.state.cursors.get(identityKey(n.targetSessionKey, n.targetAgentId))?.get(watcherSessionKey);
      if (!cursor) continue;
      const { cursor: next, followUpLastSeen } = acknowledge(cursor, now);
      this.putCursor(next);
      // R28: exactly one follow-up for work interleaved between enqueue and drain.
      if (followUpLastSeen !== undefined) this.queue.enqueue(makeNotice(watcherSessionKey, n.targetSessionKey, n.targetAgentId, followUpLastSeen));
    }
    return drained.map((n) => withNoticeLink(n, this.noticeLink));
  }

  prune(): void {
    this.assertOpen();
    const now = this.now();
    this.lastPruneAt = now;
    const cutoff = retentionCutoff(now, this.config);
    const doomed = new Set<number>();
    for (const e of this.state.events.values()) if (e.occurredAt < cutoff) doomed.add(e.sequence); // R40
    const survivors = this.state.events.size - doomed.size;
    if (survivors > this.config.maxRows) {
      // R41: drop the oldest survivors until maxRows remain.
      let excess = survivors - this.config.maxRows;
      for (const e of this.state.events.values()) {
        if (excess === 0) break;
        if (!doomed.has(e.sequence)) {
          doomed.add(e.sequence);
          excess--;
        }
      }
    }
    if (doomed.size > 0) {
      // R42: stamp each affected head's watermark, then delete. Heads are never removed here.
      for (const seq of doomed) {
        const e = this.state.events.get(seq)!;
        const id = identityKey(e.sessionKey, e.agentId);
        const head = this.state.heads.get(id);
        if (head) head.prunedMaxSequence = raiseWatermark(head.prunedMaxSequence, seq);
      }
      for (const seq of doomed) {
        const e = this.state.events.get(seq)!;
        this.state.events.delete(seq);
        if (e.dedupeKey !== undefined) this.state.dedupe.delete(e.dedupeKey);
      }
      for (const [id, list] of this.state.sessionEvents) {
        const kept = list.filter((e) => !doomed.has(e.sequence));
        if (kept.length === 0) this.state.sessionEvents.delete(id);
        else if (kept.length !== list.length) this.state.sessionEvents.set(id, kept);
      }
    }
    // R44: idle cursors expire, with any queued notice for the pair.
    for (const [id, byWatcher] of this.state.cursors) {
      for (const [watcher, c] of byWatcher) {
        if (c.updatedAt < cutoff) {
          byWatcher.delete(watcher);
          this.queue.dropPair(watcher, c.targetSessionKey, c.targetAgentId);
        }
      }
      if (byWatcher.size === 0) this.state.cursors.delete(id);
    }
  }

  resetSession(sessionKey: string): void {
    this.assertOpen();
    validateSessionKey(sessionKey);
    // R50: the watcher starts a new lifecycle; its log, head and watchers stay.
    for (const [id, byWatcher] of this.state.cursors) {
      byWatcher.delete(sessionKey);
      if (byWatcher.size === 0) this.state.cursors.delete(id);
    }
    this.queue.dropWatcher(sessionKey);
  }

  deleteSession(sessionKey: string, agentId: string): void {
    this.assertOpen();
    validateIdentity(sessionKey, agentId);
    const id = identityKey(sessionKey, agentId);
    // R51: events, head, and cursors in both directions.
    for (const e of this.state.sessionEvents.get(id) ?? []) {
      this.state.events.delete(e.sequence);
      if (e.dedupeKey !== undefined) this.state.dedupe.delete(e.dedupeKey);
    }
    this.state.sessionEvents.delete(id);
    this.state.heads.delete(id);
    this.state.cursors.delete(id);
    this.queue.dropTarget(sessionKey, agentId);
    this.resetSession(sessionKey);
  }

  restart(): void {
    this.assertOpen();
    // R29: the queue is process memory; rebuild it from durable cursors, then prune.
    const now = this.now(); // R6: before the queue is dropped
    this.queue.clear();
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) {
        const swept = sweep(c, now);
        if (!swept) continue;
        this.putCursor(swept);
        this.queue.enqueue(makeNotice(swept.watcherSessionKey, swept.targetSessionKey, swept.targetAgentId, swept.lastSeenSequence));
      }
    }
    this.prune();
  }

  close(): void {
    this.closed = true;
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

  eventCount(): number {
    return this.state.events.size;
  }

  private putCursor(c: WatchCursor): void {
    const id = identityKey(c.targetSessionKey, c.targetAgentId);
    let byWatcher = this.state.cursors.get(id);
    if (!byWatcher) this.state.cursors.set(id, (byWatcher = new Map()));
    byWatcher.set(c.watcherSessionKey, c);
  }
}

/** The contract factory (spec/schemas/contract.ts) for the in-memory reference store. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryStore(options);
}
