/**
 * VariantStore: the reference store with hook points, so each deliberately broken implementation
 * in this folder changes exactly one thing. Unmodified, it must pass the whole suite (the broken
 * test checks that first), which keeps these copies of record/drain/ack/restart honest.
 */
import type { CreateOptions, Notice, NoticeAck, StateEvent, WatchCursor } from '../../spec/index.js';
import {
  ackMatches,
  ackTargets,
  acknowledge,
  checkedNow,
  compareNotices,
  identityKey,
  isPending,
  isPruneDue,
  isWatched,
  noticeOf,
  planNotifications,
  prepareRecord,
  validateNoticeAcks,
  validateSessionKey,
  type NotificationPlan,
  withNoticeLink,
} from '../../src/core/index.js';
import { MemoryStore } from '../../src/memory/index.js';

/** The reference store's private parts, reached at run time (TypeScript privacy is compile-time only). */
interface Internals {
  lastPruneAt: number;
  options: CreateOptions;
}

export class VariantStore extends MemoryStore {
  protected get internals(): Internals {
    return this as unknown as Internals;
  }

  /** R6: the store's clock, floored; a reading that is not a finite number >= 0 throws ClockError. */
  protected clock(): number {
    return checkedNow(this.internals.options.now());
  }

  protected put(c: WatchCursor): void {
    const id = identityKey(c.targetSessionKey, c.targetAgentId);
    let byWatcher = this.state.cursors.get(id);
    if (!byWatcher) this.state.cursors.set(id, (byWatcher = new Map()));
    byWatcher.set(c.watcherSessionKey, c);
  }

  protected cursorsOn(sessionKey: string, agentId: string): WatchCursor[] {
    return [...(this.state.cursors.get(identityKey(sessionKey, agentId))?.values() ?? [])];
  }

  /** Every cursor of one watcher. */
  protected cursorsOfWatcher(watcherSessionKey: string): WatchCursor[] {
    const out: WatchCursor[] = [];
    for (const byWatcher of this.state.cursors.values()) {
      const c = byWatcher.get(watcherSessionKey);
      if (c) out.push(c);
    }
    return out;
  }

  // ---- hooks (defaults: the reference behaviour) ----

  protected plan(event: StateEvent, cursorsOnTarget: WatchCursor[], watchers: readonly string[], now: number): NotificationPlan {
    return planNotifications(event, cursorsOnTarget, watchers, now);
  }

  protected ack(cursor: WatchCursor, now: number): WatchCursor {
    return acknowledge(cursor, now).cursor;
  }

  /** R20, R23-R25: the notices a pending cursor stands for (the reference: exactly one). */
  protected noticesOf(cursor: WatchCursor): Notice[] {
    return [withNoticeLink(noticeOf(cursor), this.internals.options.noticeLink)]; // R23b
  }

  /** R27b: whether a pair named with these L values may be acked now. */
  protected ackable(cursor: WatchCursor | undefined, lastSeen: readonly number[]): cursor is WatchCursor {
    return ackMatches(cursor, lastSeen);
  }

  /** R9b: whether an onlyIfWatched record may be written. */
  protected gate(cursorsOnTarget: WatchCursor[], watchers: readonly string[], targetSessionKey: string): boolean {
    return isWatched(cursorsOnTarget, watchers, targetSessionKey);
  }

  /** R43: whether the write path prunes after an insert. */
  protected pruneDue(now: number, lastPruneAt: number): boolean {
    return isPruneDue(now, lastPruneAt);
  }

  /** Called on a dedupe hit (R8: the reference does nothing). */
  protected onDedupeHit(_existing: StateEvent, _watchers: readonly string[], _now: number): void {}

  /** The event as stored (R3/R4: the reference stores exactly the validated metadata). */
  protected toStored(event: StateEvent, _input: unknown): StateEvent {
    return event;
  }

  // ---- the reference's record / pending / drain / ack / restart, routed through the hooks ----

  override record(input: Parameters<MemoryStore['record']>[0]): StateEvent | undefined {
    const now = this.clock();
    const { event, watchers, onlyIfWatched } = prepareRecord(input, now);
    if (event.dedupeKey !== undefined) {
      const hit = this.state.dedupe.get(event.dedupeKey);
      if (hit !== undefined) {
        this.onDedupeHit(hit, watchers, now);
        return hit;
      }
    }
    const id = identityKey(event.sessionKey, event.agentId);
    const cursorsOnTarget = this.cursorsOn(event.sessionKey, event.agentId);
    if (onlyIfWatched && !this.gate(cursorsOnTarget, watchers, event.sessionKey)) return undefined;
    const stored: StateEvent = Object.freeze(this.toStored({ sequence: this.state.nextSequence++, ...event }, input));
    this.state.events.push(stored);
    let list = this.state.sessionEvents.get(id);
    if (!list) this.state.sessionEvents.set(id, (list = []));
    list.push(stored);
    if (stored.dedupeKey !== undefined) this.state.dedupe.set(stored.dedupeKey, stored);
    const head = this.state.heads.get(id);
    this.state.heads.set(id, {
      sessionKey: stored.sessionKey,
      agentId: stored.agentId,
      stateVersion: stored.sequence,
      prunedMaxSequence: head?.prunedMaxSequence ?? 0,
      updatedAt: now,
    });
    const plan = this.plan(stored, cursorsOnTarget, watchers, now);
    for (const c of plan.cursorWrites) this.put(c);
    if (this.pruneDue(now, this.internals.lastPruneAt)) this.prune();
    return stored;
  }

  /** R26: the watcher's pending cursors with their notices, in R26 order. */
  protected pendingWithCursors(watcherSessionKey: string): { cursor: WatchCursor; notices: Notice[] }[] {
    return this.cursorsOfWatcher(watcherSessionKey)
      .filter(isPending)
      .map((cursor) => ({ cursor, notices: this.noticesOf(cursor) }))
      .sort((a, b) => compareNotices(a.cursor, b.cursor));
  }

  override pendingNotices(watcherSessionKey: string): Notice[] {
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    return this.pendingWithCursors(watcherSessionKey).flatMap((p) => p.notices);
  }

  override drainNotices(watcherSessionKey: string): Notice[] {
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.clock(); // R6: a refused clock must not cost the pending notices
    const pending = this.pendingWithCursors(watcherSessionKey);
    for (const p of pending) this.put(this.ack(p.cursor, now));
    return pending.flatMap((p) => p.notices);
  }

  override ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): Notice[] {
    const v = validateNoticeAcks(watcherSessionKey, notices);
    const now = this.clock();
    const acked: Notice[] = [];
    for (const t of ackTargets(v.notices)) {
      const cursor = this.state.cursors.get(identityKey(t.targetSessionKey, t.targetAgentId))?.get(v.watcherSessionKey);
      if (!this.ackable(cursor, t.lastSeen)) continue;
      acked.push(...this.noticesOf(cursor));
      this.put(this.ack(cursor, now));
    }
    return acked.sort(compareNotices);
  }

  override restart(): void {
    this.clock(); // R6
    this.prune();
  }
}

export function createVariantStore(options: CreateOptions): VariantStore {
  return new VariantStore(options);
}
