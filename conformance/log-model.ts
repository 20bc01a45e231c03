/**
 * What a property knows about the signal log from what it recorded itself: the events record()
 * returned, the clock, and the store options. Pruning is predictable from the spec alone (R40 age
 * by occurredAt, then R41 newest maxRows by sequence, R43 hourly on the write path or when the
 * clock stepped back, and always on prune()/restart()), so the model knows exactly which events it saw pruned, per session. It never
 * infers anything from gaps between sequences (R7, R33).
 */
import { LIMITS, type StateEvent } from '../spec/index.js';
import { canonical, type ScenarioOptions } from './script.js';

const id = (sessionKey: string, agentId: string): string => `${agentId}\u0000${sessionKey}`;

export interface ExpectedPage {
  stateVersion: number;
  events: StateEvent[];
  truncated: boolean;
  earliestAvailableSequence: number;
  historyGap: boolean;
}

export class LogModel {
  /** Retained events, ascending by sequence. */
  private readonly events = new Map<number, StateEvent>();
  private readonly heads = new Map<string, number>();
  /** Per session: the sequences this model saw removed by pruning (since the session's last delete). */
  private readonly pruned = new Map<string, number[]>();
  private readonly dedupe = new Map<string, number>();
  private readonly retentionMs: number;
  private readonly maxRows: number;
  maxSequence = 0;
  private lastPruneAt: number;

  constructor(options: ScenarioOptions, createdAt: number) {
    this.retentionMs = options.retentionMs ?? LIMITS.retentionMs;
    this.maxRows = options.maxRows ?? LIMITS.maxRows;
    this.lastPruneAt = createdAt;
  }

  /** When the model last pruned (R43's lastPruneAt). */
  get lastPrune(): number {
    return this.lastPruneAt;
  }

  head(sessionKey: string, agentId: string): number {
    return this.heads.get(id(sessionKey, agentId)) ?? 0;
  }

  /** The retained event a dedupe key points at, if any (R8). */
  dedupeHit(dedupeKey: unknown): StateEvent | undefined {
    if (typeof dedupeKey !== 'string') return undefined;
    const seq = this.dedupe.get(dedupeKey);
    return seq === undefined ? undefined : this.events.get(seq);
  }

  /**
   * Feeds the outcome of a valid record() call. Returns a problem (a broken R7/R8 promise that
   * leaves the model unable to follow) or undefined.
   */
  onRecord(input: Record<string, unknown>, result: unknown, now: number): string | undefined {
    const hit = this.dedupeHit(input['dedupeKey']);
    if (hit) {
      if (canonical(result) !== canonical(hit)) {
        return `R8: dedupeKey ${JSON.stringify(input['dedupeKey'])} is retained (sequence ${hit.sequence}); record must return that event unchanged, got ${canonical(result)}`;
      }
      return undefined;
    }
    if (result === null || typeof result !== 'object') return `record of a valid input returned ${canonical(result)} instead of the stored event`;
    const e = result as StateEvent;
    if (!Number.isSafeInteger(e.sequence) || e.sequence <= this.maxSequence) {
      return `R7: a new event must get a sequence above every earlier one (${this.maxSequence}), got ${String(e.sequence)}`;
    }
    this.maxSequence = e.sequence;
    this.events.set(e.sequence, e);
    this.heads.set(id(e.sessionKey, e.agentId), e.sequence);
    // R8 keys the event by the dedupe key it was recorded with: the input's, whether or not the
    // returned event repeats it (that is R3's to judge), so a later hit is still recognised.
    const dedupeKey = typeof input['dedupeKey'] === 'string' ? input['dedupeKey'] : e.dedupeKey;
    if (dedupeKey !== undefined) this.dedupe.set(dedupeKey, e.sequence);
    // R43: hourly, or at once when the clock stepped back behind the last prune.
    if (now - this.lastPruneAt >= LIMITS.pruneIntervalMs || now < this.lastPruneAt) this.prune(now);
    return undefined;
  }

  /** R40-R42 as the spec states them. */
  prune(now: number): void {
    this.lastPruneAt = now;
    const cutoff = now - this.retentionMs;
    const doomed = new Set<number>();
    for (const e of this.events.values()) if (e.occurredAt < cutoff) doomed.add(e.sequence);
    let excess = this.events.size - doomed.size - this.maxRows;
    for (const e of this.events.values()) {
      if (excess <= 0) break;
      if (!doomed.has(e.sequence)) {
        doomed.add(e.sequence);
        excess--;
      }
    }
    for (const seq of doomed) {
      const e = this.events.get(seq)!;
      const key = id(e.sessionKey, e.agentId);
      const list = this.pruned.get(key) ?? [];
      list.push(seq);
      this.pruned.set(key, list);
      this.events.delete(seq);
      if (e.dedupeKey !== undefined && this.dedupe.get(e.dedupeKey) === seq) this.dedupe.delete(e.dedupeKey);
    }
  }

  /** R51. */
  delete(sessionKey: string, agentId: string): void {
    const key = id(sessionKey, agentId);
    for (const e of [...this.events.values()]) {
      if (id(e.sessionKey, e.agentId) !== key) continue;
      this.events.delete(e.sequence);
      if (e.dedupeKey !== undefined && this.dedupe.get(e.dedupeKey) === e.sequence) this.dedupe.delete(e.dedupeKey);
    }
    this.heads.delete(key);
    this.pruned.delete(key);
  }

  retained(sessionKey: string, agentId: string): StateEvent[] {
    const key = id(sessionKey, agentId);
    return [...this.events.values()].filter((e) => id(e.sessionKey, e.agentId) === key);
  }

  /** Whether this model saw an event of the session with sequence > since removed by pruning (R33). */
  prunedAfter(sessionKey: string, agentId: string, since: number): boolean {
    return (this.pruned.get(id(sessionKey, agentId)) ?? []).some((seq) => seq > since);
  }

  expectedPage(sessionKey: string, agentId: string, since: number, limit: number | undefined): ExpectedPage {
    const list = this.retained(sessionKey, agentId);
    const after = list.filter((e) => e.sequence > since);
    const max = Math.min(limit ?? LIMITS.maxChangesPerRead, LIMITS.maxChangesPerRead);
    const head = this.head(sessionKey, agentId);
    return {
      stateVersion: head,
      events: after.slice(0, max),
      truncated: after.length > max,
      earliestAvailableSequence: list[0]?.sequence ?? (head > 0 ? head + 1 : 0),
      historyGap: this.prunedAfter(sessionKey, agentId, since),
    };
  }
}
