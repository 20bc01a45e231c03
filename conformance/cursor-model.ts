/**
 * What a property knows about watch cursors from the commands it sent, written from
 * spec/PROTOCOL.md alone (never from src/core, see facts.ts):
 *
 * - `CursorSet`: which (watcher, target) cursors exist (R9b needs "the target has a cursor"), for
 *   scripts in which nothing expires.
 * - `WatcherModel`: every cursor of one watcher with L, N, M, provenance and `updatedAt`, and its
 *   queue slots, through R14-R16, R21, R27-R29, R43 and R44 (expiry), so a property can say exactly
 *   which notices must be pending at any moment.
 */
import { LIMITS } from '../spec/index.js';
import { isAgentScoped, notifyClass } from './facts.js';

type Input = Record<string, unknown>;

/** R11/R13: the producer-passed watchers that can hold a cursor on `target`. */
export function eligiblePassed(input: Input): string[] {
  const ws = Array.isArray(input['watchers']) ? (input['watchers'] as unknown[]) : [];
  const target = input['sessionKey'] as string;
  return [...new Set(ws.filter((w): w is string => typeof w === 'string' && isAgentScoped(w) && w !== target))];
}

const pairKey = (watcher: string, key: string, agentId: string) => `${watcher}\u0000${agentId}\u0000${key}`;

/** Cursor existence only (no expiry: use it with the real 30-day retention and short scripts). */
export class CursorSet {
  private readonly pairs = new Set<string>();

  hasTarget(key: string, agentId: string): boolean {
    const suffix = `\u0000${agentId}\u0000${key}`;
    for (const p of this.pairs) if (p.endsWith(suffix) && p.split('\u0000').length === 3) return true;
    return false;
  }

  /** R9b: an onlyIfWatched record is written iff the target has a cursor or an eligible producer watcher. */
  watched(input: Input): boolean {
    return this.hasTarget(input['sessionKey'] as string, input['agentId'] as string) || eligiblePassed(input).length > 0;
  }

  /** A valid watch request (R21: refused for bare watchers and for the target itself). */
  onWatch(watcher: string, key: string, agentId: string): void {
    if (isAgentScoped(watcher) && watcher !== key) this.pairs.add(pairKey(watcher, key, agentId));
  }

  /** A record that was written. R14 seeds every eligible passed watcher; R15 creates a cursor for each one that is not the actor (R12); terminal and log-only kinds create none. */
  onWritten(input: Input): void {
    const cls = notifyClass(input['kind'] as string);
    const key = input['sessionKey'] as string;
    const agent = input['agentId'] as string;
    if (cls === 'seed') for (const w of eligiblePassed(input)) this.pairs.add(pairKey(w, key, agent));
    if (cls === 'notify') for (const w of eligiblePassed(input)) if (w !== input['actorId']) this.pairs.add(pairKey(w, key, agent));
  }

  /** R50. */
  onReset(key: string): void {
    for (const p of [...this.pairs]) if (p.split('\u0000')[0] === key) this.pairs.delete(p);
  }

  /** R51: cursors on the identity and cursors whose watcher is the key. */
  onDelete(key: string, agentId: string): void {
    for (const p of [...this.pairs]) {
      const [w, a, k] = p.split('\u0000');
      if (w === key || (a === agentId && k === key)) this.pairs.delete(p);
    }
  }
}

export interface ModelCursor {
  L: number;
  N: number;
  M: number;
  explicit: boolean;
  updatedAt: number;
}

export interface TargetState {
  key: string;
  agentId: string;
  head: number;
  cursor: ModelCursor | undefined;
  /** A notice for the pair sits in the queue. */
  queued: boolean;
}

/**
 * One watcher's cursors on a fixed set of targets, with the expiry clock. The script must not
 * contain deletes, resets or dedupe keys (the property's generator guarantees it).
 */
export class WatcherModel {
  readonly targets: TargetState[];
  private lastPruneAt: number;
  private maxSequence = 0;

  constructor(
    readonly watcher: string,
    targets: readonly (readonly [string, string])[],
    private readonly retentionMs: number,
    createdAt: number,
  ) {
    this.targets = targets.map(([key, agentId]) => ({ key, agentId, head: 0, cursor: undefined, queued: false }));
    this.lastPruneAt = createdAt;
  }

  private target(key: string, agentId: string): TargetState | undefined {
    return this.targets.find((t) => t.key === key && t.agentId === agentId);
  }

  /** R44: cursors idle for longer than the retention go, with their queued notices. */
  private expire(now: number): void {
    this.lastPruneAt = now;
    for (const t of this.targets) {
      if (t.cursor && t.cursor.updatedAt < now - this.retentionMs) {
        t.cursor = undefined;
        t.queued = false;
      }
    }
  }

  /** R15: the material step (refreshes updatedAt). */
  private material(t: TargetState, seq: number, now: number): void {
    const c = (t.cursor ??= { L: 0, N: 0, M: 0, explicit: false, updatedAt: now });
    if (c.N === c.L) c.N = seq;
    c.M = Math.max(c.M, seq);
    c.updatedAt = now;
    t.queued = true;
  }

  /** A record that was written with sequence `seq` at `now`. */
  onRecord(input: Input, seq: number, now: number): void {
    const inserted = seq > this.maxSequence;
    this.maxSequence = Math.max(this.maxSequence, seq);
    const t = this.target(input['sessionKey'] as string, input['agentId'] as string);
    if (t && inserted) {
      t.head = seq;
      const cls = notifyClass(input['kind'] as string);
      const passed = eligiblePassed(input).includes(this.watcher);
      if (cls === 'seed' && passed) {
        // R14: seed, or keep a pending cursor as it is; either way the cursor is refreshed.
        const c = t.cursor;
        if (!c) t.cursor = { L: seq, N: seq, M: seq, explicit: false, updatedAt: now };
        else if (c.N > c.L) c.updatedAt = now;
        else Object.assign(c, { L: seq, N: seq, M: seq, updatedAt: now });
      } else if (input['actorId'] !== this.watcher) {
        if (cls === 'terminal' && t.cursor?.explicit) this.material(t, seq, now); // R16
        if (cls === 'notify' && (t.cursor || passed)) this.material(t, seq, now); // R11, R15
      }
    }
    // R43: the write path prunes hourly, or when the clock stepped back behind the last prune.
    if (inserted && (now - this.lastPruneAt >= LIMITS.pruneIntervalMs || now < this.lastPruneAt)) this.expire(now);
  }

  /** R21: create at the head, or keep L/N/M, become explicit and refresh. */
  onWatch(key: string, agentId: string, now: number): void {
    const t = this.target(key, agentId);
    if (!t) return;
    if (!t.cursor) t.cursor = { L: t.head, N: t.head, M: t.head, explicit: true, updatedAt: now };
    else Object.assign(t.cursor, { explicit: true, updatedAt: now });
  }

  /** R27/R28: returns the notices the drain must return, as [key, agentId, lastSeen]. */
  onDrain(now: number): [string, string, number][] {
    const out: [string, string, number][] = [];
    for (const t of this.sorted()) {
      if (!t.queued || !t.cursor) continue;
      const c = t.cursor;
      out.push([t.key, t.agentId, c.L]);
      const frozen = c.N;
      c.L = frozen;
      c.N = Math.max(c.M, frozen);
      c.updatedAt = now;
      t.queued = c.M > frozen;
    }
    return out;
  }

  /** R29: the queue is rebuilt from the cursors (no refresh), then R44 prunes. */
  onRestart(now: number): void {
    for (const t of this.targets) {
      const c = t.cursor;
      t.queued = !!c && c.M > c.L;
      if (c && t.queued) c.N = c.M;
    }
    this.expire(now);
  }

  onPrune(now: number): void {
    this.expire(now);
  }

  /** What pendingNotices(watcher) must return, as [key, agentId, lastSeen] in R26 order. */
  pending(): [string, string, number][] {
    return this.sorted()
      .filter((t) => t.queued && t.cursor)
      .map((t) => [t.key, t.agentId, t.cursor!.L]);
  }

  private sorted(): TargetState[] {
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...this.targets].sort((a, b) => cmp(a.key, b.key) || cmp(a.agentId, b.agentId));
  }
}
