import { describe, expect, it } from 'vitest';
import type { StateEvent, WatchCursor } from '../../spec/index.js';
import { makeNotice, noticeMaker, planNotifications } from '../../src/core/index.js';

const T = Date.UTC(2026, 0, 1);
const TARGET = 'agent:main:target "quoted" ✓';

function cursor(watcherSessionKey: string, lastSeen: number, notified: number, material: number): WatchCursor {
  return {
    watcherSessionKey,
    targetSessionKey: TARGET,
    targetAgentId: 'main',
    lastSeenSequence: lastSeen,
    notifiedSequence: notified,
    materialSequence: material,
    provenance: 'explicit',
    updatedAt: T,
  };
}

describe('R23/R24 notices built once per event', () => {
  it('planNotifications gives every watcher exactly makeNotice\'s notice, whatever its L', () => {
    // Watchers at different L in one event: pending ones keep their older L, fresh ones get the event's.
    const cursors = [
      cursor('agent:main:a', 0, 3, 3),
      cursor('agent:main:b', 9, 9, 9),
      cursor('agent:main:subagent:c', 4, 7, 7),
      cursor('agent:main:d', 9, 9, 9),
      cursor('agent:main:e', 0, 3, 3),
    ];
    const event: StateEvent = { sequence: 10, sessionKey: TARGET, agentId: 'main', kind: 'human_direct_message', actorType: 'human', occurredAt: T, recordedAt: T, summary: 's' };
    const { notices } = planNotifications(event, cursors, ['agent:main:f'], T);
    expect(notices.map((n) => [n.watcherSessionKey, n.lastSeenSequence])).toEqual([
      ['agent:main:f', 0],
      ['agent:main:a', 0],
      ['agent:main:b', 9],
      ['agent:main:subagent:c', 4],
      ['agent:main:d', 9],
      ['agent:main:e', 0],
    ]);
    for (const n of notices) expect(n).toEqual(makeNotice(n.watcherSessionKey, TARGET, 'main', n.lastSeenSequence));
  });

  it('noticeMaker equals makeNotice call for call', () => {
    const make = noticeMaker(TARGET, 'ops');
    for (const [w, l] of [['agent:ops:x', 1], ['agent:ops:subagent:y', 1], ['agent:ops:x', 2], ['agent:ops:z', 1]] as const) {
      expect(make(w, l)).toEqual(makeNotice(w, TARGET, 'ops', l));
    }
  });
});
