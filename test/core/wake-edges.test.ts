/**
 * R64-R66: wake scheduling edges with several watchers at once: the earliest owed wake across
 * watchers, watchers due together handed out in key order, a deferred wake that stays put while
 * more asks arrive, and the lane classifiers' defaults.
 */
import { describe, expect, it } from 'vitest';
import type { LaneClassifier } from '../../src/core/index.js';
import { WAKE_COALESCE_MS, WakeScheduler, defaultLaneOf, isWakeable, mainKeyLaneClassifier, resolveWakePolicy } from '../../src/core/index.js';

const now = { wake: 'immediate' as const };
const later = { wake: 'next-turn' as const };
const W1 = 'agent:main:main';
const W2 = 'agent:ops:main';
const W3 = 'agent:aaa:main';

describe('R65 several watchers', () => {
  it('R65: nextDueAt is the earliest owed wake of any watcher, and moves on once it is taken', () => {
    const s = new WakeScheduler();
    s.request(W1, [now], 0);
    s.request(W2, [now], 5_000);
    expect(s.nextDueAt()).toBeUndefined(); // both woken at once, nothing owed
    expect(s.request(W2, [now], 6_000)).toEqual({ wake: 'later', at: 25_000 });
    expect(s.request(W1, [now], 7_000)).toEqual({ wake: 'later', at: 20_000 });
    expect(s.nextDueAt()).toBe(20_000);
    expect(s.takeDue(20_000)).toEqual([W1]);
    expect(s.nextDueAt()).toBe(25_000);
    expect(s.takeDue(25_000)).toEqual([W2]);
    expect(s.nextDueAt()).toBeUndefined();
  });

  it('R65: watchers due at the same time are handed out in key order, each once, and count as woken then', () => {
    const s = new WakeScheduler();
    for (const w of [W1, W2, W3]) s.request(w, [now], 0);
    for (const w of [W2, W1, W3]) s.request(w, [now], 1);
    expect(s.takeDue(WAKE_COALESCE_MS + 5)).toEqual([W3, W1, W2]);
    for (const w of [W1, W2, W3]) expect(s.lastWakeAt(w)).toBe(WAKE_COALESCE_MS + 5);
    expect(s.takeDue(WAKE_COALESCE_MS + 6)).toEqual([]);
    // The next window counts from the deferred wake.
    expect(s.request(W1, [now], WAKE_COALESCE_MS + 6)).toEqual({ wake: 'later', at: 2 * WAKE_COALESCE_MS + 5 });
  });

  it('R65: a watcher that was woken at once and is owed nothing is not handed out by takeDue', () => {
    const s = new WakeScheduler();
    s.request(W1, [now], 0);
    expect(s.takeDue(10 * WAKE_COALESCE_MS)).toEqual([]);
    expect(s.lastWakeAt(W1)).toBe(0);
    expect(s.lastWakeAt(W2)).toBeUndefined();
  });

  it('R65: a custom window is used for the deferral', () => {
    const s = new WakeScheduler({ coalesceMs: 1_000 });
    expect(s.policy.coalesceMs).toBe(1_000);
    s.request(W1, [now], 10);
    expect(s.request(W1, [now], 1_009)).toEqual({ wake: 'later', at: 1_010 });
    expect(s.request(W1, [now], 1_010 + 1_000)).toEqual({ wake: 'now' });
  });

  it('R64: a request with only next-turn notices changes nothing it remembers', () => {
    const s = new WakeScheduler();
    expect(s.request(W1, [later], 0)).toEqual({ wake: 'never' });
    expect(s.size).toBe(0);
    expect(s.lastWakeAt(W1)).toBeUndefined();
  });

  it('R65: sweep keeps a watcher still inside its window and one owed a wake, and drops one whose window is over', () => {
    const s = new WakeScheduler();
    s.request(W1, [now], 0); // window over at 20,000
    s.request(W2, [now], 10_000); // window over at 30,000
    s.request(W3, [now], 0);
    s.request(W3, [now], 1); // owed a wake at 20,000
    s.sweep(WAKE_COALESCE_MS);
    expect(s.size).toBe(2);
    expect(s.lastWakeAt(W1)).toBeUndefined();
    expect(s.lastWakeAt(W2)).toBe(10_000);
    expect(s.takeDue(WAKE_COALESCE_MS)).toEqual([W3]);
    // A clock read before a watcher's last wake never drops it.
    s.sweep(5_000);
    expect(s.lastWakeAt(W2)).toBe(10_000);
  });
});

describe('R64, R66 policy defaults', () => {
  it('R65, R66: the default policy is a 20 s window and the default lane classifier', () => {
    const p = resolveWakePolicy();
    expect(p.coalesceMs).toBe(20_000);
    expect(p.laneOf).toBe(defaultLaneOf);
    const laneOf = () => 'side' as const;
    expect(resolveWakePolicy({ laneOf }).laneOf).toBe(laneOf);
    expect(resolveWakePolicy({ coalesceMs: 0 }).coalesceMs).toBe(0);
    expect(resolveWakePolicy({ coalesceMs: Number.MAX_SAFE_INTEGER }).coalesceMs).toBe(Number.MAX_SAFE_INTEGER);
    // '5' and laneOf 5 are the wrong type on purpose: the casts only let them reach the check.
    for (const bad of [Number.MAX_SAFE_INTEGER + 1, Number.NaN, '5']) expect(() => resolveWakePolicy({ coalesceMs: bad as number })).toThrow(/coalesceMs/);
    expect(() => resolveWakePolicy({ laneOf: 5 as unknown as LaneClassifier })).toThrow(/laneOf/);
  });

  it('R66: mainKeyLaneClassifier defaults to the key "main" and matches the whole rest only', () => {
    const laneOf = mainKeyLaneClassifier();
    expect(laneOf('agent:main:main')).toBe('main');
    expect(laneOf('agent:ops:main')).toBe('main');
    expect(laneOf('agent:main:main:thread:1')).toBe('side');
    expect(laneOf('agent:main:home')).toBe('side');
    expect(laneOf('main')).toBe('side');
  });

  it('R64: isWakeable uses the default classifier when none is given, and a given one otherwise', () => {
    expect(isWakeable('agent:main:subagent:x', [now])).toBe(false);
    expect(isWakeable('agent:main:subagent:x', [now], () => 'main')).toBe(true);
    expect(isWakeable(W1, [now], () => 'side')).toBe(false);
    expect(isWakeable(W1, [later, later])).toBe(false);
  });

  it('R66: side-lane segments count after the first segment only and need a non-empty id', () => {
    expect(defaultLaneOf('agent:main:x:topic:1')).toBe('side');
    expect(defaultLaneOf('agent:main:x:thread:1:more')).toBe('side');
    expect(defaultLaneOf('agent:main:x:threads:1')).toBe('main');
    expect(defaultLaneOf('agent:main:x:y:thread')).toBe('main');
    expect(defaultLaneOf('agent:main:subagent')).toBe('side');
    expect(defaultLaneOf('agent:main:subagents:x')).toBe('main');
  });
});
