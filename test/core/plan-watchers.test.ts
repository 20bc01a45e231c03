/**
 * R11-R13: the cursor writes one material event plans. A watcher that is both passed by the
 * producer and a cursor holder is written once (R11 de-duplicates by exact string); a cursor row
 * that names a bare watcher or the target itself (which no store writes, R13, but a corrupt or
 * foreign row could hold) gets no write; an event without actorId suppresses nobody (R12).
 */
import { describe, expect, it } from 'vitest';
import { planNotifications } from '../../src/core/index.js';
import { T, TARGET, cursor, event } from './plan-fixtures.js';

const W = 'agent:main:main';

describe('R11-R13 planned cursor writes', () => {
  it('R11: a producer watcher that also holds a cursor is written once, from its cursor', () => {
    const { cursorWrites } = planNotifications(event(), [cursor(W)], [W, W], T + 1);
    expect(cursorWrites).toEqual([{ ...cursor(W), notifiedSequence: 9, materialSequence: 9, updatedAt: T + 1 }]);
  });

  it('R13: cursor rows of a bare watcher or of the target itself get no write', () => {
    expect(planNotifications(event(), [cursor('global'), cursor(TARGET), cursor(W)], [], T).cursorWrites.map((c) => c.watcherSessionKey)).toEqual([W]);
  });

  it('R12: without an actorId nobody is suppressed; with one, exactly that watcher is', () => {
    expect(planNotifications(event(), [cursor(W)], [], T).cursorWrites).toHaveLength(1);
    expect(planNotifications(event({ actorType: 'agent', actorId: W }), [cursor(W)], [], T).cursorWrites).toEqual([]);
  });
});
