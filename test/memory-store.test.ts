import { createMemoryStore } from '../src/memory/index.js';
import { describeContractRules } from './contract/rules.js';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../src/shared/logger.js';
import { A, CHILD, COORD, PARENT, PEER, T0, human, spawn } from './contract/harness.js';

describeContractRules('memory', createMemoryStore);


describe('memory store: handles and change hooks for the feed (PendingSource)', () => {
  it('R26 two handles on one state see one set of pending notices; R27 a drain on either acks it for both', () => {
    const a = createMemoryStore({ now: () => T0 });
    const b = a.openHandle();
    b.record(spawn());
    a.record(human());
    expect(b.pendingNotices(PARENT)).toEqual(a.pendingNotices(PARENT));
    expect(b.drainNotices(PARENT)).toHaveLength(1);
    expect(a.drainNotices(PARENT)).toEqual([]);
  });

  it('listPending, a change token shared by the handles, and onLocalChange after this handle\'s writes only', () => {
    const logger = memoryLogger();
    const a = createMemoryStore({ now: () => T0, logger });
    const b = a.openHandle();
    let onA = 0;
    let onB = 0;
    a.onLocalChange(() => onA++);
    b.onLocalChange(() => onB++);
    a.onLocalChange(() => {
      throw new Error('listener bug');
    });
    const token = b.changeToken();
    a.record(spawn());
    a.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' });
    a.record(human());
    a.record(human(PEER));
    expect([onA, onB]).toEqual([3, 0]);
    expect(b.changeToken()).not.toBe(token);
    expect(b.listPending().sort((x, y) => (x.watcherSessionKey < y.watcherSessionKey ? -1 : 1))).toEqual([
      { watcherSessionKey: COORD, targetSessionKey: PEER, targetAgentId: A, lastSeenSequence: 0, wake: 'next-turn' },
      { watcherSessionKey: PARENT, targetSessionKey: CHILD, targetAgentId: A, lastSeenSequence: 1, wake: 'immediate' },
    ]);
    b.drainNotices(PARENT);
    expect([onA, onB]).toEqual([3, 1]);
    expect(logger.entries.filter((e) => e.message.includes('change listener'))).toHaveLength(3);
    const quiet = b.changeToken();
    b.pendingNotices(COORD);
    b.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
    expect(b.changeToken()).toBe(quiet); // reads change nothing
  });
});
