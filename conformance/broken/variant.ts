/**
 * VariantStore: the reference store with hook points, so each deliberately broken implementation
 * in this folder changes exactly one thing. Unmodified, it must pass the whole suite (the broken
 * test checks that first), which keeps these copies of record/drain/restart honest.
 */
import type { CreateOptions, Notice, StateEvent, WatchCursor } from '../../spec/index.js';
import {
  acknowledge,
  checkedNow,
  identityKey,
  isPruneDue,
  isWatched,
  makeNotice,
  planNotifications,
  prepareRecord,
  sweep,
  validateSessionKey,
  type NoticeQueue,
  type NotificationPlan,
  withNoticeLink,
} from '../../src/core/index.js';
import { MemoryStore } from '../../src/memory/index.js';

/** The reference store's private parts, reached at run time (TypeScript privacy is compile-time only). */
interface Internals {
  queue: NoticeQueue;
  lastPruneAt: number;
  options: CreateOptions;
}

export class VariantStore extends MemoryStore {
  protected get internals(): Internals {
    return this as unknown as Internals;
  }

  protected get notices(): NoticeQueue {
    return this.internals.queue;
  }

  protected set notices(queue: NoticeQueue) {
    this.internals.queue = queue;
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

  // ---- hooks (defaults: the reference behaviour) ----

  protected plan(event: StateEvent, cursorsOnTarget: WatchCursor[], watchers: string[], now: number): NotificationPlan {
    return planNotifications(event, cursorsOnTarget, watchers, now);
  }

  protected ack(cursor: WatchCursor, now: number): { cursor: WatchCursor; followUpLastSeen?: number } {
    return acknowledge(cursor, now);
  }

  protected enqueue(notice: Notice): void {
    this.notices.enqueue(notice);
  }

  /** R9b: whether an onlyIfWatched record may be written. */
  protected gate(cursorsOnTarget: WatchCursor[], watchers: string[], targetSessionKey: string): boolean {
    return isWatched(cursorsOnTarget, watchers, targetSessionKey);
  }

  /** R43: whether the write path prunes after an insert. */
  protected pruneDue(now: number, lastPruneAt: number): boolean {
    return isPruneDue(now, lastPruneAt);
  }

  /** R29: the restart sweep of one cursor (undefined: nothing pending). */
  protected sweepCursor(cursor: WatchCursor, now: number): WatchCursor | undefined {
    return sweep(cursor, now);
  }

  /** Called on a dedupe hit (R8: the reference does nothing). */
  protected onDedupeHit(_existing: StateEvent, _watchers: string[], _now: number): void {}

  /** The event as stored (R3/R4: the reference stores exactly the validated metadata). */
  protected toStored(event: StateEvent, _input: unknown): StateEvent {
    return event;
  }

  // ---- the reference's record / drain / restart, routed through the hooks ----

  override record(input: Parameters<MemoryStore['record']>[0]): StateEvent | undefined {
    const now = this.clock();
    const { event, watchers, onlyIfWatched } = prepareRecord(input, now);
    if (event.dedupeKey !== undefined) {
      const existing = this.state.dedupe.get(event.dedupeKey);
      if (existing !== undefined) {
        const hit = this.state.events.get(existing)!;
        this.onDedupeHit(hit, watchers, now);
        return hit;
      }
    }
    const id = identityKey(event.sessionKey, event.agentId);
    const cursorsOnTarget = this.cursorsOn(event.sessionKey, event.agentId);
    if (onlyIfWatched && !this.gate(cursorsOnTarget, watchers, event.sessionKey)) return undefined;
    const stored: StateEvent = Object.freeze(this.toStored({ sequence: this.state.nextSequence++, ...event }, input));
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
    const plan = this.plan(stored, cursorsOnTarget, watchers, now);
    for (const c of plan.cursorWrites) this.put(c);
    for (const n of plan.notices) this.enqueue(n);
    if (this.pruneDue(now, this.internals.lastPruneAt)) this.prune();
    return stored;
  }

  override drainNotices(watcherSessionKey: string): Notice[] {
    validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.clock(); // R6: a refused clock must not cost the queued notices
    const drained = this.notices.take(watcherSessionKey);
    for (const n of drained) {
      const cursor = this.state.cursors.get(identityKey(n.targetSessionKey, n.targetAgentId))?.get(watcherSessionKey);
      if (!cursor) continue;
      const { cursor: next, followUpLastSeen } = this.ack(cursor, now);
      this.put(next);
      if (followUpLastSeen !== undefined) this.enqueue(makeNotice(watcherSessionKey, n.targetSessionKey, n.targetAgentId, followUpLastSeen));
    }
    return drained.map((n) => withNoticeLink(n, this.internals.options.noticeLink)); // R23b
  }

  override restart(): void {
    const now = this.clock(); // R6: before the queue is dropped
    this.notices.clear();
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) {
        const swept = this.sweepCursor(c, now);
        if (!swept) continue;
        this.put(swept);
        this.enqueue(makeNotice(swept.watcherSessionKey, swept.targetSessionKey, swept.targetAgentId, swept.lastSeenSequence));
      }
    }
    this.prune();
  }
}

export function createVariantStore(options: CreateOptions): VariantStore {
  return new VariantStore(options);
}
