import { describe, expect, it } from 'vitest';
import type { StateEvent, WatchCursor } from '../../spec/index.js';
import { ackTargets, encodeContextKey, makeNotice, noticeMaker, noticeOf, pendingNoticesOf, planNotifications, watcherNoticeMaker } from '../../src/core/index.js';

const T = Date.UTC(2026, 0, 1);
const TARGET = 'agent:main:target "quoted" ✓';

function cursor(watcherSessionKey: string, lastSeen: number, notified: number, material: number, provenance: WatchCursor['provenance'] = 'explicit'): WatchCursor {
  return {
    watcherSessionKey,
    targetSessionKey: TARGET,
    targetAgentId: 'main',
    lastSeenSequence: lastSeen,
    notifiedSequence: notified,
    materialSequence: material,
    provenance,
    updatedAt: T,
  };
}

describe('R23/R24 notices read from cursors', () => {
  it('planNotifications writes cursors whose notices are exactly makeNotice\'s, whatever their L', () => {
    // Watchers at different L in one event: pending ones keep their older L, fresh ones get the event's.
    const cursors = [
      cursor('agent:main:a', 0, 3, 3),
      cursor('agent:main:b', 9, 9, 9),
      cursor('agent:main:subagent:c', 4, 7, 7),
      cursor('agent:main:d', 9, 9, 9),
      cursor('agent:main:e', 0, 3, 3),
    ];
    const event: StateEvent = { sequence: 10, sessionKey: TARGET, agentId: 'main', kind: 'human_direct_message', actorType: 'human', occurredAt: T, recordedAt: T, summary: 's' };
    const notices = planNotifications(event, cursors, ['agent:main:f'], T).cursorWrites.map(noticeOf);
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

  it('R23-R25 watcherNoticeMaker equals makeNotice call for call (sub-agent or not, every provenance)', () => {
    for (const w of ['agent:ops:x', 'agent:ops:subagent:y']) {
      const make = watcherNoticeMaker(w);
      for (const [target, agent, l, p] of [
        [TARGET, 'ops', 1, 'explicit'],
        [TARGET, 'ops', 2, 'spawn'],
        ['agent:ops:other', 'ops', 1, 'ambient'],
        ['agent:ops:other', 'ops', 3, undefined],
      ] as const) {
        expect(make(target, agent, l, p)).toEqual(makeNotice(w, target, agent, l, undefined, p));
      }
    }
  });

  it('R25 an ambient cursor\'s notice is next-turn whatever the watcher; R26 pending notices are sorted by code units', () => {
    expect(noticeOf(cursor('agent:main:a', 1, 2, 2, 'ambient')).wake).toBe('next-turn');
    expect(noticeOf(cursor('agent:main:a', 1, 2, 2, 'spawn')).wake).toBe('immediate');
    expect(noticeOf(cursor('agent:main:subagent:a', 1, 2, 2, 'explicit')).wake).toBe('next-turn');
    const astral = { ...cursor('agent:main:w', 1, 2, 2), targetSessionKey: 'agent:main:\u{1F600}' };
    const bmp = { ...cursor('agent:main:w', 1, 2, 2), targetSessionKey: 'agent:main:\uFF21' };
    // UTF-16: U+D83D (the astral's lead surrogate) sorts before U+FF21; UTF-8 bytes would say the opposite.
    expect(pendingNoticesOf([bmp, astral, cursor('agent:main:w', 2, 2, 2)]).map((n) => n.targetSessionKey)).toEqual([astral.targetSessionKey, bmp.targetSessionKey]);
  });

  it('R27b ackTargets decodes strictly and names each pair once with every quoted L', () => {
    const key = encodeContextKey('main', TARGET);
    expect(ackTargets([
      { contextKey: key, lastSeenSequence: 3 },
      { contextKey: 'session-state:zz:00', lastSeenSequence: 1 },
      { contextKey: key, lastSeenSequence: 5 },
      { contextKey: 'other:6d61696e:61', lastSeenSequence: 1 },
    ])).toEqual([{ targetSessionKey: TARGET, targetAgentId: 'main', lastSeen: [3, 5] }]);
  });
});
