import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { acknowledge, applyMaterial, isPending, registerExplicit, seedOnSpawn, sweep } from '../../src/core/index.js';
import type { WatchCursor } from '../../spec/index.js';

const id = { watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:subagent:c', targetAgentId: 'main' };

describe('cursor state machine (R14-R29)', () => {
  it('R15 freezes N at the first material event and moves only M afterwards', () => {
    let c = registerExplicit(undefined, id, 5, 0);
    c = applyMaterial(c, id, 7, 1);
    c = applyMaterial(c, id, 9, 2);
    expect([c.lastSeenSequence, c.notifiedSequence, c.materialSequence]).toEqual([5, 7, 9]);
  });
  it('R27/R28 ack to the frozen watermark with one follow-up', () => {
    const c: WatchCursor = { ...registerExplicit(undefined, id, 5, 0), notifiedSequence: 7, materialSequence: 9 };
    const a = acknowledge(c, 3);
    expect([a.cursor.lastSeenSequence, a.cursor.notifiedSequence, a.followUpLastSeen]).toEqual([7, 9, 7]);
    const b = acknowledge(a.cursor, 4);
    expect([b.cursor.lastSeenSequence, b.cursor.notifiedSequence, b.followUpLastSeen]).toEqual([9, 9, undefined]);
  });
  it('R29 sweep freezes N at M only for pending cursors', () => {
    const idle = registerExplicit(undefined, id, 5, 0);
    expect(sweep(idle, 1)).toBeUndefined();
    const s = sweep({ ...idle, notifiedSequence: 6, materialSequence: 8 }, 1)!;
    expect([s.lastSeenSequence, s.notifiedSequence, s.materialSequence]).toEqual([5, 8, 8]);
  });
  it('R14 spawn seeding keeps a pending cursor and never downgrades explicit', () => {
    const pending = applyMaterial(registerExplicit(undefined, id, 1, 0), id, 3, 0);
    expect(seedOnSpawn(pending, id, 10, 1)).toMatchObject({ lastSeenSequence: 1, notifiedSequence: 3, materialSequence: 3, provenance: 'explicit' });
    const idle = registerExplicit(undefined, id, 1, 0);
    expect(seedOnSpawn(idle, id, 10, 1)).toMatchObject({ lastSeenSequence: 10, notifiedSequence: 10, provenance: 'explicit' });
  });
  it('R20 invariant L <= N <= M holds over any sequence of steps', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('m' as const), fc.constant('a' as const), fc.constant('s' as const), fc.constant('w' as const)), { maxLength: 60 }), (steps) => {
        let c: WatchCursor = seedOnSpawn(undefined, id, 1, 0);
        let seq = 1;
        for (const step of steps) {
          if (step === 'm') c = applyMaterial(c, id, ++seq, 0);
          else if (step === 'a') c = acknowledge(c, 0).cursor;
          else if (step === 's') c = sweep(c, 0) ?? c;
          else c = registerExplicit(c, id, seq, 0);
          expect(c.lastSeenSequence).toBeLessThanOrEqual(c.notifiedSequence);
          expect(c.notifiedSequence).toBeLessThanOrEqual(c.materialSequence);
          expect(isPending(c)).toBe(c.materialSequence > c.lastSeenSequence);
        }
      }),
    );
  });
});
