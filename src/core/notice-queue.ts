import type { Notice } from '../../spec/index.js';
import { identityKey } from './keys.js';

/**
 * R24, R26: the in-memory notice queue. One slot per (watcher, target identity): enqueueing a
 * notice for an occupied slot replaces it, and since the text depends only on (target, L) the
 * replacement is byte-identical while pending. Not durable on purpose: the restart sweep (R29)
 * rebuilds it from cursors. A plain data structure: no I/O, no clock.
 */
export class NoticeQueue {
  private readonly byWatcher = new Map<string, Map<string, Notice>>();

  enqueue(notice: Notice): void {
    let slots = this.byWatcher.get(notice.watcherSessionKey);
    if (!slots) {
      slots = new Map();
      this.byWatcher.set(notice.watcherSessionKey, slots);
    }
    slots.set(identityKey(notice.targetSessionKey, notice.targetAgentId), notice);
  }

  /** R26: (targetSessionKey, targetAgentId) order by UTF-16 code units. */
  pending(watcherSessionKey: string): Notice[] {
    const slots = this.byWatcher.get(watcherSessionKey);
    if (!slots) return [];
    // Copies: a caller editing what it was handed must not change what a later drain returns.
    return [...slots.values()].map((n) => ({ ...n })).sort(compareNotices);
  }

  take(watcherSessionKey: string): Notice[] {
    const out = this.pending(watcherSessionKey);
    this.byWatcher.delete(watcherSessionKey);
    return out;
  }

  dropWatcher(watcherSessionKey: string): void {
    this.byWatcher.delete(watcherSessionKey);
  }

  dropPair(watcherSessionKey: string, targetSessionKey: string, targetAgentId: string): void {
    const slots = this.byWatcher.get(watcherSessionKey);
    if (!slots) return;
    slots.delete(identityKey(targetSessionKey, targetAgentId));
    if (slots.size === 0) this.byWatcher.delete(watcherSessionKey);
  }

  dropTarget(targetSessionKey: string, targetAgentId: string): void {
    const key = identityKey(targetSessionKey, targetAgentId);
    for (const [watcher, slots] of this.byWatcher) {
      slots.delete(key);
      if (slots.size === 0) this.byWatcher.delete(watcher);
    }
  }

  clear(): void {
    this.byWatcher.clear();
  }

  get size(): number {
    let n = 0;
    for (const slots of this.byWatcher.values()) n += slots.size;
    return n;
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareNotices(a: Notice, b: Notice): number {
  return compareCodeUnits(a.targetSessionKey, b.targetSessionKey) || compareCodeUnits(a.targetAgentId, b.targetAgentId);
}
