import { parseAgentScopedKey } from './keys.js';

/**
 * R64-R66: the wake policy as a state machine with time passed in (no clock, no timers: the
 * delivery helper in src/feed owns those). Which watchers are woken, and when:
 *
 * - R64: a watcher is woken only for a pending notice whose `wake` is `immediate` (R25) and only
 *   when its key is on a main lane (R66). Sub-agent watchers and ambient cursors (`next-turn`)
 *   and side lanes are never woken: they read their notices on their next turn.
 * - R65: the first wake of a watcher happens at once; a wake asked for within `coalesceMs`
 *   (20,000 ms) of the watcher's last wake is deferred to lastWake + coalesceMs, so a burst costs
 *   one extra wake, never one per change. Nothing is lost by waiting: the notices are durable.
 */

export const WAKE_COALESCE_MS = 20_000;

/** R66: the lane of a watcher key: `main` (may be woken) or `side` (a sub-agent, thread or topic; not woken). */
export type Lane = 'main' | 'side';
/** R66: decides a watcher key's lane; `defaultLaneOf` unless the runtime passes its own. */
export type LaneClassifier = (watcherSessionKey: string) => Lane;

/** Segments that open a side lane of a conversation (a chat thread, a forum topic). */
const SIDE_LANE_SEGMENTS: ReadonlySet<string> = new Set(['thread', 'topic']);

/**
 * R66, the default lane classifier. A watcher key `agent:<agentId>:<rest>` is on a side lane when
 * `rest` is a sub-agent key (`subagent:...`), or when a segment of `rest` after the first is
 * `thread` or `topic` followed by a non-empty segment (`discord:channel:42:thread:7`,
 * `telegram:group:-100:topic:9`). Every other agent-scoped key is a main lane. Bare keys never get
 * notices (R13) and are side lanes here, so they are never woken either.
 */
export function defaultLaneOf(watcherSessionKey: string): Lane {
  const parsed = parseAgentScopedKey(watcherSessionKey);
  if (!parsed) return 'side';
  const segments = parsed.rest.split(':');
  if (segments[0] === 'subagent') return 'side';
  for (let i = 1; i < segments.length - 1; i++) {
    if (SIDE_LANE_SEGMENTS.has(segments[i]!) && segments[i + 1]!.length > 0) return 'side';
  }
  return 'main';
}

/**
 * R66, the strict alternative: only `agent:<agentId>:<mainKey>` for one of `mainKeys` is a main
 * lane (runtimes whose per-peer or per-group sessions should never be woken by the log).
 */
export function mainKeyLaneClassifier(mainKeys: readonly string[] = ['main']): LaneClassifier {
  const keys = new Set(mainKeys);
  return (watcherSessionKey) => {
    const parsed = parseAgentScopedKey(watcherSessionKey);
    return parsed !== undefined && keys.has(parsed.rest) ? 'main' : 'side';
  };
}

/** R65, R66: options of the wake policy: the coalescing window and the lane classifier. */
export interface WakePolicyOptions {
  /** R65 window; default 20,000 ms. A non-negative safe integer. */
  coalesceMs?: number;
  /** R66; default `defaultLaneOf`. */
  laneOf?: LaneClassifier;
}

/** R65, R66: the wake policy with its defaults filled in and checked. */
export interface ResolvedWakePolicy {
  coalesceMs: number;
  laneOf: LaneClassifier;
}

/** R65, R66: fills in the wake policy's defaults; throws RangeError or TypeError on a bad option. */
export function resolveWakePolicy(options: WakePolicyOptions = {}): ResolvedWakePolicy {
  const coalesceMs = options.coalesceMs ?? WAKE_COALESCE_MS;
  if (typeof coalesceMs !== 'number' || !Number.isSafeInteger(coalesceMs) || coalesceMs < 0) {
    throw new RangeError(`coalesceMs must be a non-negative safe integer, got ${String(coalesceMs)}`);
  }
  const laneOf = options.laneOf ?? defaultLaneOf;
  if (typeof laneOf !== 'function') throw new TypeError('laneOf must be a function (watcherSessionKey) => "main" | "side"');
  return { coalesceMs, laneOf };
}

/** R64: whether these pending notices of this watcher may wake it at all. */
export function isWakeable(watcherSessionKey: string, pending: readonly { wake: 'immediate' | 'next-turn' }[], laneOf: LaneClassifier = defaultLaneOf): boolean {
  return pending.some((p) => p.wake === 'immediate') && laneOf(watcherSessionKey) === 'main';
}

/** R64, R65: what WakeScheduler.request decided: wake now, wake later at `at`, or never. */
export type WakeDecision = { wake: 'now' } | { wake: 'later'; at: number } | { wake: 'never' };

interface WatcherWake {
  lastWakeAt?: number;
  dueAt?: number;
}

/**
 * R64, R65. One instance per delivering process. `request` is asked whenever a watcher has (new)
 * pending notices; 'now' means the caller wakes it now (and it counts as woken now); 'later'
 * means a wake is owed at `at`, which `takeDue` hands out once the caller's time reaches it.
 * No rule assumes a monotonic clock (R6): a time before the last wake wakes at once, since
 * waiting for the clock to catch up could hold a notice back indefinitely.
 */
export class WakeScheduler {
  readonly policy: ResolvedWakePolicy;
  private readonly watchers = new Map<string, WatcherWake>();
  private sweepAt = 1024;

  constructor(options: WakePolicyOptions = {}) {
    this.policy = resolveWakePolicy(options);
  }

  /** R64, R65: asked when a watcher has (new) pending notices at `now`: whether and when to wake it. */
  request(watcherSessionKey: string, pending: readonly { wake: 'immediate' | 'next-turn' }[], now: number): WakeDecision {
    if (!isWakeable(watcherSessionKey, pending, this.policy.laneOf)) return { wake: 'never' };
    if (this.watchers.size >= this.sweepAt) this.sweep(now);
    const state = this.watchers.get(watcherSessionKey) ?? {};
    const last = state.lastWakeAt;
    if (last === undefined || now < last || now - last >= this.policy.coalesceMs) {
      this.watchers.set(watcherSessionKey, { lastWakeAt: now });
      return { wake: 'now' };
    }
    const at = state.dueAt ?? last + this.policy.coalesceMs;
    this.watchers.set(watcherSessionKey, { lastWakeAt: last, dueAt: at });
    return { wake: 'later', at };
  }

  /** R65: the watchers whose deferred wake is due at `now`, in key order; each counts as woken now. */
  takeDue(now: number): string[] {
    const due: string[] = [];
    for (const [watcher, state] of this.watchers) {
      if (state.dueAt === undefined) continue;
      if (state.dueAt <= now || (state.lastWakeAt !== undefined && now < state.lastWakeAt)) due.push(watcher);
    }
    due.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const watcher of due) this.watchers.set(watcher, { lastWakeAt: now });
    return due;
  }

  /** The earliest owed wake, for the caller's timer; undefined when none is owed. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const state of this.watchers.values()) {
      if (state.dueAt !== undefined && (next === undefined || state.dueAt < next)) next = state.dueAt;
    }
    return next;
  }

  /**
   * Forgets watchers whose window is over and who are owed nothing: such an entry answers exactly
   * as an absent one (a wake at once), so memory stays bounded by the watchers of one window.
   */
  sweep(now: number): void {
    for (const [watcher, state] of this.watchers) {
      if (state.dueAt === undefined && state.lastWakeAt !== undefined && now >= state.lastWakeAt && now - state.lastWakeAt >= this.policy.coalesceMs) {
        this.watchers.delete(watcher);
      }
    }
    this.sweepAt = Math.max(1024, 2 * this.watchers.size);
  }

  /** How many watchers the scheduler remembers (diagnostics and tests). */
  get size(): number {
    return this.watchers.size;
  }

  /** Drops what is known of a watcher (it was deleted, or reset: a new lifecycle starts unthrottled). */
  forget(watcherSessionKey: string): void {
    this.watchers.delete(watcherSessionKey);
  }

  /** The last wake of a watcher, for diagnostics and tests. */
  lastWakeAt(watcherSessionKey: string): number | undefined {
    return this.watchers.get(watcherSessionKey)?.lastWakeAt;
  }
}
