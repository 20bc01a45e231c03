/**
 * R60, R65: orders and empty sets. A watcher listed with no pending pair is never signalled, even
 * on the first read (R61 signals only watchers that have a pending notice); watchers are signalled
 * and handed out by takeDue in code-unit order whatever order they arrived in.
 */
import { describe, expect, it } from 'vitest';
import { WAKE_COALESCE_MS, WakeScheduler, diffPending, snapshotPending } from '../../src/core/index.js';

const pair = (watcher: string, target: string) => ({ watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: 'main', lastSeenSequence: 1, wake: 'immediate' as const });
const keys = ['agent:main:e', 'agent:main:d', 'agent:main:c', 'agent:main:b', 'agent:main:a'];

describe('R60, R61, R65 order and empty sets', () => {
  it('R61: a watcher whose list of pending pairs is empty is not signalled', () => {
    expect(diffPending(undefined, new Map([['agent:main:w', []]]))).toEqual([]);
    expect(diffPending(new Map(), new Map([['agent:main:w', []]]))).toEqual([]);
  });

  it('R60: signalled watchers come in code-unit order, whatever order the read listed them in', () => {
    expect(diffPending(undefined, snapshotPending(keys.map((w) => pair(w, 'agent:main:t'))))).toEqual([...keys].reverse());
  });

  it('R65: watchers due together are handed out in code-unit order, whatever order they asked in', () => {
    const s = new WakeScheduler();
    for (const w of keys) s.request(w, [{ wake: 'immediate' }], 0);
    for (const w of keys) s.request(w, [{ wake: 'immediate' }], 1);
    expect(s.takeDue(WAKE_COALESCE_MS)).toEqual([...keys].reverse());
  });
});
