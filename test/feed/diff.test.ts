import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffPending, snapshotPending, type FeedPair } from '../../src/core/index.js';

const pair = (watcher: string, target: string, l: number, wake: FeedPair['wake'] = 'immediate', agent = 'main'): FeedPair => ({
  watcherSessionKey: watcher,
  targetSessionKey: target,
  targetAgentId: agent,
  lastSeenSequence: l,
  wake,
});
const A = 'agent:main:a';
const B = 'agent:main:b';

describe('feed diff (pure core)', () => {
  it('R61: with no previous read every watcher with a pending pair is signalled', () => {
    expect(diffPending(undefined, snapshotPending([pair(B, 'agent:main:t', 3), pair(A, 'agent:main:t', 1)]))).toEqual([A, B]);
    expect(diffPending(undefined, snapshotPending([]))).toEqual([]);
  });

  it('R60: a new pair, a new L, or a wake promoted to immediate signals; unchanged or lost pairs do not', () => {
    const before = snapshotPending([pair(A, 'agent:main:t', 1), pair(B, 'agent:main:t', 1, 'next-turn')]);
    expect(diffPending(before, snapshotPending([pair(A, 'agent:main:t', 1), pair(B, 'agent:main:t', 1, 'next-turn')]))).toEqual([]);
    expect(diffPending(before, snapshotPending([pair(A, 'agent:main:t', 4), pair(B, 'agent:main:t', 1, 'next-turn')]))).toEqual([A]);
    expect(diffPending(before, snapshotPending([pair(A, 'agent:main:t', 1), pair(A, 'agent:main:u', 0), pair(B, 'agent:main:t', 1, 'next-turn')]))).toEqual([A]);
    expect(diffPending(before, snapshotPending([pair(A, 'agent:main:t', 1), pair(B, 'agent:main:t', 1)]))).toEqual([B]);
    // Same target key under another agent is another pair (R20).
    expect(diffPending(before, snapshotPending([pair(A, 'agent:main:t', 1), pair(A, 'agent:main:t', 1, 'immediate', 'ops'), pair(B, 'agent:main:t', 1, 'next-turn')]))).toEqual([A]);
  });

  it('snapshots keep R26 order and answer a duplicate listing with its last row', () => {
    const snap = snapshotPending([pair(A, 'b', 1), pair(A, 'a', 2, 'immediate', 'z'), pair(A, 'a', 2, 'immediate', 'y'), pair(A, 'b', 5)]);
    expect(snap.get(A)!.map((p) => [p.targetSessionKey, p.targetAgentId, p.lastSeenSequence])).toEqual([
      ['a', 'y', 2],
      ['a', 'z', 2],
      ['b', 'main', 5],
    ]);
  });

  it('R60 property: signalled iff some pair of that watcher is new or quotes a new L', () => {
    const watcher = fc.constantFrom(A, B, 'agent:ops:c');
    const p = fc.record({ w: watcher, t: fc.constantFrom('x', 'y', 'z'), l: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(fc.uniqueArray(p, { selector: (q) => q.w + q.t }), fc.uniqueArray(p, { selector: (q) => q.w + q.t }), (before, after) => {
        const prev = snapshotPending(before.map((q) => pair(q.w, q.t, q.l)));
        const next = snapshotPending(after.map((q) => pair(q.w, q.t, q.l)));
        const expected = [...new Set(after.filter((q) => !before.some((o) => o.w === q.w && o.t === q.t && o.l === q.l)).map((q) => q.w))].sort();
        expect(diffPending(prev, next)).toEqual(expected);
      }),
    );
  });
});
