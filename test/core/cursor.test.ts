import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ackMatches, acknowledge, applyMaterial, isPending, mergeProvenance, registerAmbient, registerExplicit, registerWatch, seedOnSpawn } from '../../src/core/index.js';
import type { WatchCursor } from '../../spec/index.js';

const id = { watcherSessionKey: 'agent:main:main', targetSessionKey: 'agent:main:subagent:c', targetAgentId: 'main' };

describe('cursor state machine (R14-R28)', () => {
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
  it('R27b an ack matches only a pending cursor with the same L', () => {
    const pending: WatchCursor = { ...registerExplicit(undefined, id, 5, 0), notifiedSequence: 7, materialSequence: 9 };
    expect(ackMatches(pending, 5)).toBe(true);
    expect(ackMatches(pending, [3, 5])).toBe(true);
    expect(ackMatches(pending, 7)).toBe(false); // L moved on: the follow-up was not delivered yet
    expect(ackMatches(registerExplicit(undefined, id, 5, 0), 5)).toBe(false); // nothing pending
    expect(ackMatches(undefined, 5)).toBe(false);
  });
  it('R21b ambient: created at the head, a re-registration writes nothing, never downgrades, promoted by explicit and spawn', () => {
    const a = registerAmbient(undefined, id, 4, 100)!;
    expect(a).toMatchObject({ lastSeenSequence: 4, notifiedSequence: 4, materialSequence: 4, provenance: 'ambient', updatedAt: 100 });
    expect(registerAmbient(a, id, 9, 200)).toBeUndefined(); // updatedAt kept: no write at all
    expect(registerWatch(registerExplicit(undefined, id, 1, 0), id, 9, 200, 'ambient')).toBeUndefined();
    expect(registerWatch(a, id, 9, 200)).toMatchObject({ provenance: 'explicit', updatedAt: 200, lastSeenSequence: 4 });
    expect(seedOnSpawn(a, id, 10, 300)).toMatchObject({ provenance: 'spawn', lastSeenSequence: 10 });
    const pending = applyMaterial(a, id, 6, 150);
    expect(pending.provenance).toBe('ambient'); // a material step keeps the provenance
    expect(seedOnSpawn(pending, id, 10, 300)).toMatchObject({ provenance: 'spawn', lastSeenSequence: 4, notifiedSequence: 6 });
  });
  it('R20 provenance is never downgraded: explicit > spawn > ambient', () => {
    const order = ['ambient', 'spawn', 'explicit'] as const;
    for (const a of order) for (const b of order) expect(mergeProvenance(a, b)).toBe(order[Math.max(order.indexOf(a), order.indexOf(b))]);
  });
  it('R14 spawn seeding keeps a pending cursor and never downgrades explicit', () => {
    const pending = applyMaterial(registerExplicit(undefined, id, 1, 0), id, 3, 0);
    expect(seedOnSpawn(pending, id, 10, 1)).toMatchObject({ lastSeenSequence: 1, notifiedSequence: 3, materialSequence: 3, provenance: 'explicit' });
    const idle = registerExplicit(undefined, id, 1, 0);
    expect(seedOnSpawn(idle, id, 10, 1)).toMatchObject({ lastSeenSequence: 10, notifiedSequence: 10, provenance: 'explicit' });
  });
  it('R20 invariant L <= N <= M holds over any sequence of steps', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('m' as const), fc.constant('a' as const), fc.constant('s' as const), fc.constant('w' as const), fc.constant('b' as const)), { maxLength: 60 }), (steps) => {
        let c: WatchCursor = seedOnSpawn(undefined, id, 1, 0);
        let seq = 1;
        for (const step of steps) {
          if (step === 'm') c = applyMaterial(c, id, ++seq, 0);
          else if (step === 'a') c = acknowledge(c, 0).cursor;
          else if (step === 's') c = seedOnSpawn(c, id, ++seq, 0);
          else if (step === 'b') c = registerAmbient(c, id, seq, 0) ?? c;
          else c = registerExplicit(c, id, seq, 0);
          expect(c.lastSeenSequence).toBeLessThanOrEqual(c.notifiedSequence);
          expect(c.notifiedSequence).toBeLessThanOrEqual(c.materialSequence);
          expect(isPending(c)).toBe(c.materialSequence > c.lastSeenSequence);
        }
      }),
    );
  });
});
