/**
 * What a property knows about watch cursors from the commands it sent, written from
 * spec/PROTOCOL.md alone (never from src/core, see facts.ts):
 *
 * - `CursorSet`: which (watcher, target) cursors exist (R9b needs "the target has a cursor"), for
 *   scripts in which nothing expires.
 * - `WatcherModel`: every cursor of one watcher with L, N, M, provenance and `updatedAt`, through
 *   R14-R16, R21, R21b, R27-R29, R43, R44 (expiry) and R52, so a property can say exactly which
 *   notices must be pending at any moment (R20: the cursors with N > L).
 */
import { LIMITS } from '../spec/index.js';
import { expectedWake, isAgentScoped, notifyClass } from './facts.js';

const isSubagent = (watcher: string) => expectedWake(watcher) === 'next-turn';

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

  /** R52: the pair's cursor goes. */
  onUnwatch(watcher: string, key: string, agentId: string): void {
    this.pairs.delete(pairKey(watcher, key, agentId));
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

export type ModelProvenance = 'spawn' | 'explicit' | 'ambient';
const RANK: Record<ModelProvenance, number> = { ambient: 0, spawn: 1, explicit: 2 };
/** R20: never downgraded: explicit > spawn > ambient. */
const promote = (c: ModelCursor, to: ModelProvenance) => {
  if (RANK[to] > RANK[c.provenance]) c.provenance = to;
};

export interface ModelCursor {
  L: number;
  N: number;
  M: number;
  provenance: ModelProvenance;
  updatedAt: number;
}

export interface TargetState {
  key: string;
  agentId: string;
  head: number;
  cursor: ModelCursor | undefined;
}

/** R20: a notice is pending iff its cursor has N > L. */
export function isPendingModel(t: TargetState): boolean {
  return !!t.cursor && t.cursor.N > t.cursor.L;
}

/** A pending notice as the model knows it: [target key, target agent, L, wake]. */
export type ModelNotice = [string, string, number, 'immediate' | 'next-turn'];

/**
 * One watcher's cursors on a fixed set of targets, with the expiry clock. The script must not
 * contain deletes, resets or dedupe keys (the property's generator guarantees it). Pending notices
 * are the cursors with N > L (R20): there is no queue to model.
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
    this.targets = targets.map(([key, agentId]) => ({ key, agentId, head: 0, cursor: undefined }));
    this.lastPruneAt = createdAt;
  }

  target(key: string, agentId: string): TargetState | undefined {
    return this.targets.find((t) => t.key === key && t.agentId === agentId);
  }

  /** R44: cursors idle for longer than the retention go, with their pending notices. */
  private expire(now: number): void {
    this.lastPruneAt = now;
    for (const t of this.targets) {
      if (t.cursor && t.cursor.updatedAt < now - this.retentionMs) t.cursor = undefined;
    }
  }

  /** R15: the material step (refreshes updatedAt, keeps the provenance). */
  private material(t: TargetState, seq: number, now: number): void {
    const c = (t.cursor ??= { L: 0, N: 0, M: 0, provenance: 'spawn', updatedAt: now });
    if (c.N === c.L) c.N = seq;
    c.M = Math.max(c.M, seq);
    c.updatedAt = now;
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
        // R14: seed, or keep a pending cursor as it is; either way refreshed, and ambient becomes spawn.
        const c = t.cursor;
        if (!c) t.cursor = { L: seq, N: seq, M: seq, provenance: 'spawn', updatedAt: now };
        else {
          promote(c, 'spawn');
          if (c.N > c.L) c.updatedAt = now;
          else Object.assign(c, { L: seq, N: seq, M: seq, updatedAt: now });
        }
      } else if (input['actorId'] !== this.watcher) {
        if (cls === 'terminal' && t.cursor?.provenance === 'explicit') this.material(t, seq, now); // R16
        if (cls === 'notify' && (t.cursor || passed)) this.material(t, seq, now); // R11, R15
      }
    }
    // R43: the write path prunes hourly, or when the clock stepped back behind the last prune.
    if (inserted && (now - this.lastPruneAt >= LIMITS.pruneIntervalMs || now < this.lastPruneAt)) this.expire(now);
  }

  /**
   * R21: create at the head, or keep L/N/M, become explicit and refresh. R21b (ambient): create at
   * the head, or leave an existing cursor exactly as it is (updatedAt included).
   */
  onWatch(key: string, agentId: string, now: number, provenance: 'explicit' | 'ambient' = 'explicit'): void {
    const t = this.target(key, agentId);
    if (!t) return;
    if (!t.cursor) t.cursor = { L: t.head, N: t.head, M: t.head, provenance, updatedAt: now };
    else if (provenance === 'explicit') Object.assign(t.cursor, { provenance: 'explicit', updatedAt: now });
  }

  /** R52: returns whether a cursor existed (it is gone now, with its pending notice). */
  onUnwatch(key: string, agentId: string): boolean {
    const t = this.target(key, agentId);
    if (!t?.cursor) return false;
    t.cursor = undefined;
    return true;
  }

  /** R27/R28: the ack step on one pending cursor; returns the notice it acked. */
  private ack(t: TargetState, now: number): ModelNotice {
    const c = t.cursor!;
    const n = this.noticeOf(t);
    const frozen = c.N;
    c.L = frozen;
    c.N = Math.max(c.M, frozen);
    c.updatedAt = now;
    return n;
  }

  /** R27/R28: returns the notices the drain must return. */
  onDrain(now: number): ModelNotice[] {
    return this.sorted().filter(isPendingModel).map((t) => this.ack(t, now));
  }

  /** R27b: acks the named pairs still pending with a quoted L; returns what must be acked, in R26 order. */
  onAck(named: readonly (readonly [string, string, number])[], now: number): ModelNotice[] {
    const want = this.sorted().filter((t) => isPendingModel(t) && named.some(([k, a, l]) => k === t.key && a === t.agentId && l === t.cursor!.L));
    return want.map((t) => this.ack(t, now));
  }

  /** R29: a restart changes no cursor; it prunes (R44). */
  onRestart(now: number): void {
    this.expire(now);
  }

  onPrune(now: number): void {
    this.expire(now);
  }

  /** R25: ambient cursors and sub-agent watchers are never woken. */
  private noticeOf(t: TargetState): ModelNotice {
    return [t.key, t.agentId, t.cursor!.L, t.cursor!.provenance === 'ambient' || isSubagent(this.watcher) ? 'next-turn' : 'immediate'];
  }

  /** What pendingNotices(watcher) must return, in R26 order. */
  pending(): ModelNotice[] {
    return this.sorted()
      .filter(isPendingModel)
      .map((t) => this.noticeOf(t));
  }

  private sorted(): TargetState[] {
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...this.targets].sort((a, b) => cmp(a.key, b.key) || cmp(a.agentId, b.agentId));
  }
}
