/**
 * R64-R66 edges the mutation run of src/core/wake.ts found unchecked (mutation/): the memory bound
 * (when forgotten watchers are swept, and that sweeping stays amortised), takeDue before a
 * watcher's last wake, the earliest owed wake when it is not the first one remembered, and a
 * zero window. Each asks the scheduler only through its public methods.
 */
import { describe, expect, it } from 'vitest';
import { WAKE_COALESCE_MS, WakeScheduler } from '../../src/core/index.js';

const now = { wake: 'immediate' as const };
const key = (i: number) => `agent:w${i}:main`;

describe('R65 memory bound', () => {
  it('R65: nothing is forgotten before 1,024 watchers are remembered; at 1,024 those whose window is over go', () => {
    const s = new WakeScheduler();
    for (let i = 0; i < 1023; i++) expect(s.request(key(i), [now], 0)).toEqual({ wake: 'now' });
    expect(s.size).toBe(1023);
    // 1,023 remembered: the request adds one more without sweeping, though every window is over.
    expect(s.request('agent:x:main', [now], WAKE_COALESCE_MS)).toEqual({ wake: 'now' });
    expect(s.size).toBe(1024);
    expect(s.lastWakeAt(key(0))).toBe(0);
    // 1,024 remembered: the 1,023 whose window is over are dropped, x (woken just now) stays.
    expect(s.request('agent:y:main', [now], WAKE_COALESCE_MS)).toEqual({ wake: 'now' });
    expect(s.size).toBe(2);
    expect(s.lastWakeAt(key(0))).toBeUndefined();
    expect(s.lastWakeAt('agent:x:main')).toBe(WAKE_COALESCE_MS);
  });

  it('R65: a sweep that keeps n watchers is not repeated before 2n are remembered (sweeping stays amortised)', () => {
    const s = new WakeScheduler();
    for (let i = 0; i < 1024; i++) s.request(key(i), [now], 0);
    // 1,024 remembered, all inside their window at 10 s: the sweep keeps them all.
    s.request('agent:x:main', [now], 10_000);
    expect(s.size).toBe(1025);
    // At 20 s the first 1,024 windows are over, but 1,025 < 2 × 1,024: no sweep yet.
    for (let i = 0; i < 1023; i++) s.request(`agent:y${i}:main`, [now], WAKE_COALESCE_MS);
    expect(s.size).toBe(2048);
    expect(s.lastWakeAt(key(5))).toBe(0);
    // 2,048 remembered: the next request sweeps the 1,024 woken at 0.
    s.request('agent:z:main', [now], WAKE_COALESCE_MS);
    expect(s.size).toBe(1025);
    expect(s.lastWakeAt(key(5))).toBeUndefined();
    expect(s.lastWakeAt('agent:x:main')).toBe(10_000);
  });

  it('R65: with a zero window a watcher is forgotten by a sweep at the very time of its wake', () => {
    const s = new WakeScheduler({ coalesceMs: 0 });
    expect(s.request(key(1), [now], 5)).toEqual({ wake: 'now' });
    expect(s.request(key(1), [now], 5)).toEqual({ wake: 'now' });
    s.sweep(5);
    expect(s.size).toBe(0);
    expect(s.lastWakeAt(key(1))).toBeUndefined();
  });
});

describe('R65 owed wakes', () => {
  it('R65: takeDue never hands out a watcher that is owed nothing, even at a time before its last wake', () => {
    const s = new WakeScheduler();
    s.request(key(1), [now], 100);
    expect(s.takeDue(50)).toEqual([]);
    expect(s.lastWakeAt(key(1))).toBe(100);
  });

  it('R65: an owed wake is not due at the very time of the last wake; only a clock read before it hands it out early', () => {
    const s = new WakeScheduler();
    s.request(key(1), [now], 100);
    expect(s.request(key(1), [now], 105)).toEqual({ wake: 'later', at: 100 + WAKE_COALESCE_MS });
    expect(s.takeDue(100)).toEqual([]);
    expect(s.nextDueAt()).toBe(100 + WAKE_COALESCE_MS);
    expect(s.takeDue(99)).toEqual([key(1)]);
    expect(s.lastWakeAt(key(1))).toBe(99);
    expect(s.nextDueAt()).toBeUndefined();
  });

  it('R65: nextDueAt is the earliest owed wake even when a watcher remembered earlier is owed a later one', () => {
    const s = new WakeScheduler();
    s.request(key(1), [now], 5_000); // remembered first, owed 25 s
    s.request(key(2), [now], 0); // remembered second, owed 20 s
    s.request(key(3), [now], 0); // woken, owed nothing
    expect(s.request(key(1), [now], 6_000)).toEqual({ wake: 'later', at: 25_000 });
    expect(s.request(key(2), [now], 6_000)).toEqual({ wake: 'later', at: 20_000 });
    expect(s.nextDueAt()).toBe(20_000);
    expect(s.takeDue(20_000)).toEqual([key(2)]);
    expect(s.nextDueAt()).toBe(25_000);
  });
});

describe('R65 owed wakes handed out in key order, the earliest owed first', () => {
  it('R65 takeDue sorts the due watchers by key whatever order they were owed in', () => {
    const s = new WakeScheduler({ coalesceMs: 100 });
    const order = ['agent:c:main', 'agent:a:main', 'agent:d:main', 'agent:b:main'];
    for (const w of order) expect(s.request(w, [now], 0)).toEqual({ wake: 'now' });
    for (const w of order) expect(s.request(w, [now], 10)).toEqual({ wake: 'later', at: 100 });
    expect(s.takeDue(99)).toEqual([]);
    expect(s.takeDue(100)).toEqual(['agent:a:main', 'agent:b:main', 'agent:c:main', 'agent:d:main']);
    expect(s.takeDue(100)).toEqual([]);
  });

  it('R65 nextDueAt is the earliest owed wake when a later one was remembered after it', () => {
    const s = new WakeScheduler({ coalesceMs: 100 });
    s.request('agent:x:main', [now], 0);
    s.request('agent:y:main', [now], 50);
    s.request('agent:x:main', [now], 60); // owed at 100
    s.request('agent:y:main', [now], 70); // owed at 150
    expect(s.nextDueAt()).toBe(100);
  });
});
