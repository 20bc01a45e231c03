import type { Notice, NoticeAck } from '../../spec/index.js';
import { encodeContextKey, noticeText } from '../../src/core/index.js';
import type { DeliveryStore, PendingPair, PendingSource } from '../../src/feed/index.js';

interface Cursor {
  l: number;
  n: number;
  m: number;
  wake: 'immediate' | 'next-turn';
}

/**
 * A tiny durable-cursor model (R15, R27b, R28) for delivery tests: pending iff N > L, the notice
 * quotes L, an ack of the L still pending sets L := N and re-opens once if M > N. Every write
 * fires the local-change hook, as a store's own commits do.
 */
export class ModelStore implements DeliveryStore, PendingSource {
  private readonly cursors = new Map<string, Map<string, Cursor>>();
  private readonly local = new Set<() => void>();
  private seq = 0;
  readonly ackCalls: { watcher: string; notices: readonly NoticeAck[]; acked: Notice[] }[] = [];
  failPending = 0;
  /** Reads of pendingNotices that answer [] (a real store's answer to a storage failure, R9). */
  emptyReads = 0;
  /** Acks that answer [] and write nothing (a store's storage-failure answer). */
  dropAcks = 0;

  /** A material event on `target` for `watcher` (R15). */
  change(watcher: string, target: string, wake: Cursor['wake'] = 'immediate'): void {
    const s = ++this.seq;
    let byTarget = this.cursors.get(watcher);
    if (!byTarget) this.cursors.set(watcher, (byTarget = new Map()));
    const c = byTarget.get(target) ?? { l: 0, n: 0, m: 0, wake };
    if (c.n === c.l) c.n = s;
    c.m = s;
    byTarget.set(target, c);
    this.fire();
  }

  private notice(watcher: string, target: string, c: Cursor): Notice {
    return {
      watcherSessionKey: watcher,
      targetSessionKey: target,
      targetAgentId: 'main',
      lastSeenSequence: c.l,
      contextKey: encodeContextKey('main', target),
      wake: c.wake,
      text: noticeText(target, c.l),
    };
  }

  pendingNotices(watcher: string): Notice[] {
    if (this.failPending > 0) {
      this.failPending--;
      throw new Error('database is locked');
    }
    if (this.emptyReads > 0) {
      this.emptyReads--;
      return [];
    }
    const out: Notice[] = [];
    for (const [target, c] of this.cursors.get(watcher) ?? []) if (c.n > c.l) out.push(this.notice(watcher, target, c));
    return out.sort((a, b) => (a.targetSessionKey < b.targetSessionKey ? -1 : a.targetSessionKey > b.targetSessionKey ? 1 : 0));
  }

  ackNotices(watcher: string, notices: readonly NoticeAck[]): Notice[] {
    const acked: Notice[] = [];
    if (this.dropAcks > 0) {
      this.dropAcks--;
      this.ackCalls.push({ watcher, notices, acked });
      return acked;
    }
    for (const n of notices) {
      for (const [target, c] of this.cursors.get(watcher) ?? []) {
        if (encodeContextKey('main', target) !== n.contextKey || c.n <= c.l || c.l !== n.lastSeenSequence) continue;
        acked.push(this.notice(watcher, target, c));
        c.l = c.n;
        if (c.m > c.n) c.n = c.m; // R28: one follow-up quoting the old N
      }
    }
    this.ackCalls.push({ watcher, notices, acked });
    if (acked.length > 0) this.fire();
    return acked;
  }

  listPending(): PendingPair[] {
    const out: PendingPair[] = [];
    for (const [watcher, byTarget] of this.cursors) {
      for (const [target, c] of byTarget) {
        if (c.n > c.l) out.push({ watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: 'main', lastSeenSequence: c.l, wake: c.wake });
      }
    }
    return out;
  }

  onLocalChange(listener: () => void): () => void {
    this.local.add(listener);
    return () => this.local.delete(listener);
  }

  private fire(): void {
    for (const l of [...this.local]) l();
  }

  pendingCount(watcher: string): number {
    return [...(this.cursors.get(watcher)?.values() ?? [])].filter((c) => c.n > c.l).length;
  }
}
