/**
 * The mutation run (mutation/): behaviour the Stryker run over src/core left unchecked (mutation/survivors/core.md
 * lists the mutants these tests kill and why the others are equivalent).
 */
import { describe, expect, it } from 'vitest';
import { compareFeedPairs, isValidationError, planNotifications, prepareRecord, prepareRecordBatch, snapshotPending, validateRecordInput, type FeedPair } from '../../src/core/index.js';
import { T, TARGET, cursor, event } from './plan-fixtures.js';


describe('feed-diff.ts', () => {
  const pair = (targetSessionKey: string, targetAgentId: string): FeedPair => ({
    watcherSessionKey: 'agent:main:main',
    targetSessionKey,
    targetAgentId,
    lastSeenSequence: 1,
    wake: 'next-turn',
  });

  it('R26: compareFeedPairs is negative, zero or positive as the (target key, agent id) order says', () => {
    expect(compareFeedPairs(pair('agent:a:x', 'a'), pair('agent:b:x', 'a'))).toBeLessThan(0);
    expect(compareFeedPairs(pair('agent:b:x', 'a'), pair('agent:a:x', 'a'))).toBeGreaterThan(0);
    // The target key decides before the agent id, in both directions.
    expect(compareFeedPairs(pair('agent:b:x', 'a'), pair('agent:a:x', 'z'))).toBeGreaterThan(0);
    expect(compareFeedPairs(pair('agent:a:x', 'z'), pair('agent:b:x', 'a'))).toBeLessThan(0);
    // Same target key: the agent id decides.
    expect(compareFeedPairs(pair('agent:a:x', 'b'), pair('agent:a:x', 'a'))).toBeGreaterThan(0);
    expect(compareFeedPairs(pair('agent:a:x', 'a'), pair('agent:a:x', 'b'))).toBeLessThan(0);
    expect(compareFeedPairs(pair('agent:a:x', 'a'), pair('agent:a:x', 'a'))).toBe(0);
  });

  it('R26: a watcher\'s pairs on one target key are ordered by agent id', () => {
    const snap = snapshotPending([pair('agent:a:x', 'c'), pair('agent:a:x', 'b'), pair('agent:a:x', 'a')]);
    expect(snap.get('agent:main:main')!.map((p) => p.targetAgentId)).toEqual(['a', 'b', 'c']);
  });
});

describe('validate.ts', () => {
  const base = { sessionKey: 'agent:main:main', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via web' };

  // validate.ts:423: the fast check's payload guard must refuse null before it asks for a prototype,
  // or a null payload escapes as a TypeError instead of a typed error naming the field.
  it.each([null, 'web', 7, true])('R9: a payload of %j is a ValidationError naming payload at every entry point', (payload) => {
    const input = { ...base, payload };
    for (const call of [() => validateRecordInput(input), () => prepareRecord(input, T), () => prepareRecordBatch([input], T)]) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(isValidationError(thrown)).toBe(true);
      expect(thrown).toMatchObject({ field: expect.stringMatching(/payload/) });
    }
  });
});

describe('record.ts', () => {

  it('R9e: an error that is not a ValidationError passes through a batch unchanged', () => {
    const boom = new TypeError('getter failed');
    const input = {
      get sessionKey(): string {
        throw boom;
      },
    };
    let thrown: unknown;
    try {
      prepareRecordBatch([input], T);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(boom);
    expect(isValidationError(thrown)).toBe(false);
  });

  it('R11: a target with more cursors than a scan covers still gets one write per told watcher', () => {
    const watchers = Array.from({ length: 12 }, (_, i) => `agent:main:w${String(i).padStart(2, '0')}`);
    const cursors = watchers.map((w) => cursor(w));
    // Producer passes some cursor holders (written from their cursor, once) and one new watcher.
    const passed = [watchers[11]!, watchers[3]!, 'agent:main:fresh'];
    const { cursorWrites } = planNotifications(event(), cursors, passed, T + 1);
    expect(cursorWrites.map((c) => c.watcherSessionKey)).toEqual([
      watchers[11],
      watchers[3],
      'agent:main:fresh',
      ...watchers.filter((w) => w !== watchers[11] && w !== watchers[3]),
    ]);
    const w11 = cursorWrites[0]!;
    expect(w11).toEqual({ ...cursor(watchers[11]!), notifiedSequence: 9, materialSequence: 9, updatedAt: T + 1 });
    expect(cursorWrites[2]).toMatchObject({ provenance: 'spawn', lastSeenSequence: 0, notifiedSequence: 9, materialSequence: 9 });
  });

  it('R16: a terminal run reaches an explicit cursor holder the producer also passed, once', () => {
    const W = 'agent:main:main';
    const { cursorWrites } = planNotifications(event({ kind: 'run_completed' }), [cursor(W), cursor('agent:main:amb', 'ambient')], [W], T + 1);
    expect(cursorWrites).toEqual([{ ...cursor(W), notifiedSequence: 9, materialSequence: 9, updatedAt: T + 1 }]);
  });
});
