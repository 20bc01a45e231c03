import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WAKE_COALESCE_MS, WakeScheduler, defaultLaneOf, isWakeable, mainKeyLaneClassifier, resolveWakePolicy } from '../../src/core/index.js';

const now = { wake: 'immediate' as const };
const later = { wake: 'next-turn' as const };
const MAIN = 'agent:main:main';

describe('R64 who is woken', () => {
  it('R64: an immediate notice on a main lane wakes; next-turn notices (sub-agents, ambient) never do', () => {
    const s = new WakeScheduler();
    expect(s.request(MAIN, [now], 0)).toEqual({ wake: 'now' });
    expect(s.request('agent:main:peer', [later], 0)).toEqual({ wake: 'never' });
    expect(s.request('agent:main:subagent:c1', [now], 0)).toEqual({ wake: 'never' });
    // One immediate pair among queue-only ones is enough: the turn it starts carries them all.
    expect(isWakeable('agent:main:peer', [later, now])).toBe(true);
    expect(isWakeable('agent:main:peer', [])).toBe(false);
    expect(s.nextDueAt()).toBeUndefined();
  });
});

describe('R65 coalescing over 20 s', () => {
  it('R65: first wake at once; a burst is one wake at lastWake + 20,000 ms: nothing at 19,999 ms, the wake at 20,000 ms', () => {
    expect(WAKE_COALESCE_MS).toBe(20_000);
    const s = new WakeScheduler();
    const t0 = 1_767_225_600_000;
    expect(s.request(MAIN, [now], t0)).toEqual({ wake: 'now' });
    // A second request in the same millisecond is inside the window, not a clock stepped back.
    expect(s.request(MAIN, [now], t0)).toEqual({ wake: 'later', at: t0 + 20_000 });
    expect(s.request(MAIN, [now], t0 + 1)).toEqual({ wake: 'later', at: t0 + 20_000 });
    expect(s.request(MAIN, [now], t0 + 15_000)).toEqual({ wake: 'later', at: t0 + 20_000 });
    expect(s.nextDueAt()).toBe(t0 + 20_000);
    expect(s.takeDue(t0 + 19_999)).toEqual([]);
    expect(s.takeDue(t0 + 20_000)).toEqual([MAIN]);
    expect(s.takeDue(t0 + 20_001)).toEqual([]); // handed out once
    expect(s.lastWakeAt(MAIN)).toBe(t0 + 20_000);
    // The next window counts from that wake.
    expect(s.request(MAIN, [now], t0 + 39_999)).toEqual({ wake: 'later', at: t0 + 40_000 });
    expect(s.request('agent:main:other', [now], t0 + 39_999)).toEqual({ wake: 'now' }); // per watcher
    expect(s.request(MAIN, [now], t0 + 60_000)).toEqual({ wake: 'now' }); // a quiet window: at once
  });

  it('R65: a clock stepped back before the last wake wakes at once instead of waiting for it to catch up', () => {
    const s = new WakeScheduler();
    s.request(MAIN, [now], 100_000);
    expect(s.request(MAIN, [now], 105_000)).toEqual({ wake: 'later', at: 120_000 });
    expect(s.takeDue(50_000)).toEqual([MAIN]);
    expect(s.request(MAIN, [now], 40_000)).toEqual({ wake: 'now' });
  });

  it('R65: coalesceMs is settable and validated; forget starts a watcher unthrottled', () => {
    expect(() => resolveWakePolicy({ coalesceMs: -1 })).toThrow(RangeError);
    expect(() => resolveWakePolicy({ coalesceMs: 1.5 })).toThrow(RangeError);
    expect(() => resolveWakePolicy({ laneOf: 'main' as never })).toThrow(TypeError);
    const s = new WakeScheduler({ coalesceMs: 0 });
    expect(s.request(MAIN, [now], 5)).toEqual({ wake: 'now' });
    expect(s.request(MAIN, [now], 5)).toEqual({ wake: 'now' });
    const t = new WakeScheduler();
    t.request(MAIN, [now], 0);
    t.forget(MAIN);
    expect(t.request(MAIN, [now], 1)).toEqual({ wake: 'now' });
  });

  it('R65 model: wakes of one watcher are >= 20 s apart, every request is served within 20 s, and no wake comes unasked', () => {
    const watchers = [MAIN, 'agent:ops:main', 'agent:main:telegram:dm:7', 'agent:main:subagent:x'];
    // Steps near the window's edge, so an off-by-a-few-ms window is found.
    const dt = fc.oneof(fc.integer({ min: 0, max: 45_000 }), fc.integer({ min: 19_990, max: 20_010 }), fc.integer({ min: 0, max: 10 }));
    const op = fc.record({ dt, watcher: fc.constantFrom(...watchers), immediate: fc.boolean() });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const s = new WakeScheduler();
        let t = 0;
        const wakes = new Map<string, number[]>();
        const requests = new Map<string, number[]>();
        const woke = (w: string, at: number) => void (wakes.get(w) ?? wakes.set(w, []).get(w)!).push(at);
        // A perfect timer: every owed wake is taken exactly at its due time.
        const advanceTo = (target: number) => {
          for (let due = s.nextDueAt(); due !== undefined && due <= target; due = s.nextDueAt()) {
            expect(due).toBeGreaterThanOrEqual(t);
            t = due;
            for (const w of s.takeDue(t)) woke(w, t);
          }
          t = target;
        };
        for (const o of ops) {
          advanceTo(t + o.dt);
          const d = s.request(o.watcher, [o.immediate ? now : later], t);
          const wakeable = o.immediate && defaultLaneOf(o.watcher) === 'main';
          expect(d.wake === 'never').toBe(!wakeable);
          if (!wakeable) continue;
          (requests.get(o.watcher) ?? requests.set(o.watcher, []).get(o.watcher)!).push(t);
          if (d.wake === 'now') woke(o.watcher, t);
        }
        advanceTo(t + 10 * WAKE_COALESCE_MS);
        for (const [w, times] of wakes) {
          for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(WAKE_COALESCE_MS);
          // Each wake answers at least one request since the previous wake (none unasked).
          const asked = requests.get(w) ?? [];
          times.forEach((at, i) => expect(asked.some((r) => r <= at && (i === 0 || r >= times[i - 1]!))).toBe(true));
        }
        for (const [w, asked] of requests) {
          const times = wakes.get(w) ?? [];
          for (const r of asked) expect(times.some((at) => at >= r && at <= r + WAKE_COALESCE_MS)).toBe(true);
        }
        expect(wakes.has('agent:main:subagent:x')).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('R65 memory', () => {
  it('R65: watchers whose window is over are forgotten, which changes no decision', () => {
    const s = new WakeScheduler();
    for (let i = 0; i < 3000; i++) expect(s.request(`agent:w${i}:main`, [now], i * 30)).toEqual({ wake: 'now' });
    expect(s.size).toBeLessThan(3000); // swept as it grew: the early ones' windows were over
    expect(s.request('agent:w2999:main', [now], 2999 * 30 + 1)).toEqual({ wake: 'later', at: 2999 * 30 + WAKE_COALESCE_MS });
    s.sweep(200_000);
    expect(s.size).toBe(1); // only the one owed a wake
    expect(s.takeDue(200_000)).toEqual(['agent:w2999:main']);
    s.sweep(300_000);
    expect(s.size).toBe(0);
    expect(s.request('agent:w0:main', [now], 300_001)).toEqual({ wake: 'now' });
  });
});

describe('R66 wake by lane', () => {
  it.each([
    ['agent:main:main', 'main'],
    ['agent:main:telegram:dm:12345', 'main'],
    ['agent:main:discord:channel:42', 'main'],
    ['agent:main:discord:channel:42:thread:7', 'side'],
    ['agent:main:telegram:group:-100:topic:9', 'side'],
    ['agent:main:subagent:child', 'side'],
    ['agent:main:thread:x', 'main'], // `thread` as the first segment names a channel, not a lane
    ['agent:main:slack:channel:c1:thread:', 'main'], // no lane id after it
    ['main', 'side'],
    ['global', 'side'],
  ] as const)('R66: default lane of %s is %s', (key, lane) => {
    expect(defaultLaneOf(key)).toBe(lane);
  });

  it('R66: a thread lane of the same agent gets its notice queued without a wake; the main lane is woken', () => {
    const s = new WakeScheduler();
    expect(s.request('agent:main:discord:channel:42:thread:7', [now], 0)).toEqual({ wake: 'never' });
    expect(s.request('agent:main:discord:channel:42', [now], 0)).toEqual({ wake: 'now' });
  });

  it('R66: the classifier is configurable (main key only)', () => {
    const s = new WakeScheduler({ laneOf: mainKeyLaneClassifier(['main', 'home']) });
    expect(s.request('agent:main:main', [now], 0)).toEqual({ wake: 'now' });
    expect(s.request('agent:ops:home', [now], 0)).toEqual({ wake: 'now' });
    expect(s.request('agent:main:telegram:dm:1', [now], 0)).toEqual({ wake: 'never' });
    expect(s.request('main', [now], 0)).toEqual({ wake: 'never' });
  });
});
