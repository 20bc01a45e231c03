/**
 * BROKEN (R24): no coalescing. Every enqueue appends a new notice instead of replacing the pair's
 * slot, so twenty fast changes give twenty lines instead of one.
 */
import type { CreateOptions, Notice } from '../../spec/index.js';
import { NoticeQueue, compareNotices } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

class AppendingQueue extends NoticeQueue {
  private readonly lists = new Map<string, Notice[]>();
  override enqueue(notice: Notice): void {
    const list = this.lists.get(notice.watcherSessionKey) ?? [];
    list.push(notice);
    this.lists.set(notice.watcherSessionKey, list);
  }
  override pending(watcher: string): Notice[] {
    return [...(this.lists.get(watcher) ?? [])].sort(compareNotices);
  }
  override take(watcher: string): Notice[] {
    const out = this.pending(watcher);
    this.lists.delete(watcher);
    return out;
  }
  override dropWatcher(watcher: string): void {
    this.lists.delete(watcher);
  }
  override dropPair(watcher: string, targetSessionKey: string, targetAgentId: string): void {
    const list = this.lists.get(watcher);
    if (list) this.lists.set(watcher, list.filter((n) => n.targetSessionKey !== targetSessionKey || n.targetAgentId !== targetAgentId));
  }
  override dropTarget(targetSessionKey: string, targetAgentId: string): void {
    for (const w of [...this.lists.keys()]) this.dropPair(w, targetSessionKey, targetAgentId);
  }
  override clear(): void {
    this.lists.clear();
  }
}

export const breaks = { rule: 'R24', what: 'appends a notice per change instead of one per watcher/target pair' };

export function create(options: CreateOptions) {
  const store = new VariantStore(options);
  (store as unknown as { queue: NoticeQueue }).queue = new AppendingQueue();
  return store;
}
