import { describe, expect, it } from 'vitest';
import type { PairChange, PendingPair, WatchCursor } from '../../spec/index.js';
import { changesBetween, newsByWatcher, snapshotPending } from '../../src/core/feed-diff.js';
import { noticeChanged } from '../../src/core/notice.js';
import { spawnParentOf } from '../../src/core/spawn.js';

/**
 * R60, R68: the pure decisions of the change feed over read changes (newsByWatcher) and over two
 * full reads (changesBetween), and which cursor writes are news at all (noticeChanged); T12: the parent a spawn event names. Exact results, case by case.
 */
const pair = (watcher: string, target: string, L: number, wake: PendingPair['wake'] = 'immediate', agent = 'main'): PendingPair => ({ watcherSessionKey: watcher, targetSessionKey: target, targetAgentId: agent, lastSeenSequence: L, wake });
const change = (p: PendingPair, pending: boolean): PairChange => ({ ...p, pending });

describe('R60 R68 newsByWatcher: the pending pairs a read found, by watcher, in R26 order', () => {
  it('R60 a pending change is news; a pair no longer pending is not, nor a watcher that only lost pairs', () => {
    const news = newsByWatcher([change(pair('w2', 't1', 1), true), change(pair('w1', 'tb', 2), true), change(pair('w1', 'ta', 3), true), change(pair('w3', 't', 4), false), change(pair('w1', 'tc', 5), false)]);
    expect([...news.keys()]).toEqual(['w1', 'w2']);
    expect(news.get('w1')!.map((c) => c.targetSessionKey)).toEqual(['ta', 'tb']);
    expect(news.get('w2')).toEqual([change(pair('w2', 't1', 1), true)]);
    expect(newsByWatcher([])).toEqual(new Map());
  });

  it('R68 a pair listed twice counts once, as its last listing says, in the place of its last listing', () => {
    const news = newsByWatcher([change(pair('w', 't', 1), true), change(pair('w', 't', 2), false)]);
    expect(news.has('w')).toBe(false);
    const again = newsByWatcher([change(pair('w', 't', 1), false), change(pair('w', 'u', 1), true), change(pair('w', 't', 3), true)]);
    expect(again.get('w')).toEqual([change(pair('w', 't', 3), true), change(pair('w', 'u', 1), true)]);
    // The same target under two agents is two pairs, ordered by the agent after the key.
    const agents = newsByWatcher([change(pair('w', 't', 1, 'immediate', 'zed'), true), change(pair('w', 't', 1, 'immediate', 'abe'), true)]);
    expect(agents.get('w')!.map((c) => c.targetAgentId)).toEqual(['abe', 'zed']);
  });

  it('R26 watchers and targets in UTF-16 code-unit order, not locale order', () => {
    const news = newsByWatcher([change(pair('b', 'x', 1), true), change(pair('B', 'x', 1), true), change(pair('a', 'é', 1), true), change(pair('a', 'z', 1), true)]);
    expect([...news.keys()]).toEqual(['B', 'a', 'b']);
    expect(news.get('a')!.map((c) => c.targetSessionKey)).toEqual(['z', 'é']);
  });
});

describe('R60 R68 changesBetween: two full reads as changes', () => {
  it('R61 with no earlier read every pending pair is a change to pending', () => {
    const next = snapshotPending([pair('w', 't', 1), pair('v', 't', 2)]);
    expect(changesBetween(undefined, next)).toEqual([change(pair('w', 't', 1), true), change(pair('v', 't', 2), true)]);
  });

  it('R60 new, quoting another L, or woken is a change to pending; gone is a change to not pending; unchanged is none', () => {
    const previous = snapshotPending([pair('w', 'same', 1), pair('w', 'acked', 1), pair('w', 'requoted', 1), pair('w', 'woken', 1, 'next-turn'), pair('w', 'calmed', 1, 'immediate'), pair('gone', 't', 7)]);
    const next = snapshotPending([pair('w', 'same', 1), pair('w', 'requoted', 2), pair('w', 'woken', 1, 'immediate'), pair('w', 'calmed', 1, 'next-turn'), pair('w', 'new', 3), pair('fresh', 't', 1)]);
    expect(changesBetween(previous, next)).toEqual([
      change(pair('w', 'new', 3), true),
      change(pair('w', 'requoted', 2), true),
      change(pair('w', 'woken', 1, 'immediate'), true),
      change(pair('fresh', 't', 1), true),
      change(pair('w', 'acked', 1), false),
      change(pair('gone', 't', 7), false),
    ]);
    expect(changesBetween(next, next)).toEqual([]);
  });
});

describe('T12 spawnParentOf: the parent a child_spawned event names', () => {
  const parent = 'agent:main:lead';
  it('T12 the agent actor of a child_spawned event, when it is an agent-scoped session key; nothing else', () => {
    expect(spawnParentOf({ kind: 'child_spawned', actorType: 'agent', actorId: parent })).toBe(parent);
    expect(spawnParentOf({ kind: 'run_completed', actorType: 'agent', actorId: parent })).toBeUndefined();
    expect(spawnParentOf({ kind: 'child_spawned', actorType: 'human', actorId: parent })).toBeUndefined();
    expect(spawnParentOf({ kind: 'child_spawned', actorType: 'system', actorId: parent })).toBeUndefined();
    expect(spawnParentOf({ kind: 'child_spawned', actorType: 'agent' })).toBeUndefined();
    expect(spawnParentOf({ kind: 'child_spawned', actorType: 'agent', actorId: 'lead' })).toBeUndefined();
    expect(spawnParentOf({ kind: 'child_spawned', actorType: 'agent', actorId: 'agent:main' })).toBeUndefined();
  });
});

describe('R68 noticeChanged: which cursor writes change the notice a feed sees', () => {
  const cursor = (o: Partial<WatchCursor> = {}): WatchCursor => ({ watcherSessionKey: 'agent:main:w', targetSessionKey: 'agent:main:t', targetAgentId: 'main', lastSeenSequence: 3, notifiedSequence: 5, materialSequence: 5, provenance: 'explicit', updatedAt: 1, ...o });
  const acked = { lastSeenSequence: 5 };

  it('R68 becoming pending or not pending is a change; staying not pending is none', () => {
    expect(noticeChanged(undefined, cursor())).toBe(true);
    expect(noticeChanged(cursor(), undefined)).toBe(true);
    expect(noticeChanged(cursor(), cursor(acked))).toBe(true);
    expect(noticeChanged(cursor(acked), cursor())).toBe(true);
    expect(noticeChanged(undefined, undefined)).toBe(false);
    expect(noticeChanged(undefined, cursor(acked))).toBe(false);
    expect(noticeChanged(cursor(acked), cursor({ ...acked, notifiedSequence: 5, updatedAt: 9 }))).toBe(false);
    expect(noticeChanged(cursor(acked), undefined)).toBe(false);
  });

  it('R68 pending before and after: another L or another wake is a change; M rising, updatedAt or a provenance that keeps the wake is none', () => {
    expect(noticeChanged(cursor(), cursor({ lastSeenSequence: 4 }))).toBe(true);
    expect(noticeChanged(cursor({ provenance: 'ambient' }), cursor({ provenance: 'explicit' }))).toBe(true);
    expect(noticeChanged(cursor({ provenance: 'explicit' }), cursor({ provenance: 'ambient' }))).toBe(true);
    expect(noticeChanged(cursor(), cursor({ notifiedSequence: 9, materialSequence: 9, updatedAt: 7 }))).toBe(false);
    expect(noticeChanged(cursor({ provenance: 'spawn' }), cursor({ provenance: 'explicit' }))).toBe(false);
    // R25: a sub-agent watcher is woken next turn whatever the provenance.
    const sub = 'agent:main:subagent:1';
    expect(noticeChanged(cursor({ watcherSessionKey: sub, provenance: 'ambient' }), cursor({ watcherSessionKey: sub, provenance: 'explicit' }))).toBe(false);
  });
});
