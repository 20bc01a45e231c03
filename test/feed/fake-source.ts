import { afterEach, beforeEach, vi } from 'vitest';
import type { PendingPair, PendingSource } from '../../src/feed/index.js';

/** A PendingSource whose durable state, token and failures the test controls. */
export class FakeSource implements PendingSource {
  pairs: PendingPair[] = [];
  token = 0;
  listCalls = 0;
  tokenCalls = 0;
  failList = 0;
  failToken = 0;
  /** When set, listPending waits for it (a slow read). */
  gate: Promise<void> | undefined;
  readonly local = new Set<() => void>();
  readonly remote = new Set<() => void>();
  withRemote = false;

  /** Another process committed: state and token change together. */
  commit(pairs: PendingPair[]): void {
    this.pairs = pairs;
    this.token++;
  }

  /** This handle committed: the token (data_version) does not move, the local hook fires. */
  commitLocal(pairs: PendingPair[]): void {
    this.pairs = pairs;
    for (const l of [...this.local]) l();
  }

  async listPending(): Promise<PendingPair[]> {
    this.listCalls++;
    const snapshot = this.pairs.map((p) => ({ ...p }));
    if (this.gate) await this.gate;
    if (this.failList > 0) {
      this.failList--;
      throw new Error('disk I/O error');
    }
    return snapshot;
  }

  changeToken(): number {
    this.tokenCalls++;
    if (this.failToken > 0) {
      this.failToken--;
      throw new Error('database is locked');
    }
    return this.token;
  }

  onLocalChange(listener: () => void): () => void {
    this.local.add(listener);
    return () => this.local.delete(listener);
  }
}

export function pendingPair(watcher: string, target: string, lastSeen: number, wake: PendingPair['wake'] = 'immediate'): PendingPair {
  return { watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: 'main', lastSeenSequence: lastSeen, wake };
}

/**
 * Fake timers around every test of the calling file (from `now`, when given); returns `settle`,
 * which runs what is due at the current fake time and lets the promises it starts finish.
 */
export function fakeTimersEachTest(now?: number): () => Promise<unknown> {
  beforeEach(() => {
    vi.useFakeTimers();
    if (now !== undefined) vi.setSystemTime(now);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return () => vi.advanceTimersByTimeAsync(0);
}
