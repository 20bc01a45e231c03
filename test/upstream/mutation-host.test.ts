/**
 * The monitor's host-side helpers by their effects: the in-memory log of a session's own messages
 * (U4's echo window) and the paired-node history source's options, requests and answers (U7).
 */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { OwnTextLog, createRemoteHistorySource } from '../../src/upstream/index.js';

const A = 'agent:main:main';

describe('U4: the own-message log', () => {
  it('keeps the last `window` messages per identity, oldest first; exactly `window` keeps them all', () => {
    const log = new OwnTextLog(3);
    for (const t of ['a', 'b', 'c']) log.note(A, 'main', t);
    expect(log.recent(A, 'main')).toEqual(['a', 'b', 'c']);
    log.note(A, 'main', { text: 'd', images: 1 });
    log.note(A, 'main', 'e');
    expect(log.recent(A, 'main')).toEqual(['c', { text: 'd', images: 1 }, 'e']);
    // Another agent under the same key, and another key, are apart.
    log.note(A, 'ops', 'x');
    expect(log.recent(A, 'ops')).toEqual(['x']);
    expect(log.recent('agent:main:other', 'main')).toEqual([]);
  });

  it('hands out a copy, forgets one identity only, and defaults to LIMITS.selfEchoWindow', () => {
    const log = new OwnTextLog();
    for (let i = 0; i < LIMITS.selfEchoWindow + 2; i++) log.note(A, 'main', `m${i}`);
    const recent = log.recent(A, 'main');
    expect(recent).toHaveLength(LIMITS.selfEchoWindow);
    expect(recent[0]).toBe('m2');
    recent.push('not mine');
    expect(log.recent(A, 'main')).toHaveLength(LIMITS.selfEchoWindow);
    log.note(A, 'ops', 'x');
    log.forget(A, 'main');
    expect(log.recent(A, 'main')).toEqual([]);
    expect(log.recent(A, 'ops')).toEqual(['x']);
  });
});

describe('U7: the paired-node history source', () => {
  const target = { hostId: 'node-1', threadId: 'thread-9', ref: { thread: 9 } };

  it('refuses a window or page count that is no positive integer, by name', () => {
    const fetchHistory = async () => [];
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createRemoteHistorySource({ fetchHistory, window: bad }), String(bad)).toThrow(new RangeError('window must be a positive integer'));
      expect(() => createRemoteHistorySource({ fetchHistory, maxPages: bad }), String(bad)).toThrow(new RangeError('maxPages must be a positive integer'));
    }
    expect(createRemoteHistorySource({ fetchHistory, window: 1, maxPages: 1 }).kind).toBe('claude-remote');
    expect(createRemoteHistorySource({ fetchHistory, kind: 'my-node' }).kind).toBe('my-node');
  });

  it('asks for the newest `window` items of the target (no `before`), and anchors on the newest item', async () => {
    const asked: Record<string, unknown>[] = [];
    const source = createRemoteHistorySource({ fetchHistory: async (r) => (asked.push({ ...r }), [{ id: 'm3' }, { id: 'm2' }]), window: 7 });
    const marker = await source.baseline(target);
    expect(marker).toMatchObject({ id: 'm3' });
    expect(asked).toEqual([{ hostId: 'node-1', threadId: 'thread-9', ref: { thread: 9 }, limit: 7 }]);
    expect('before' in asked[0]!).toBe(false);
    const empty = createRemoteHistorySource({ fetchHistory: async () => [] });
    expect(await empty.baseline(target)).toMatchObject({ id: null });
    const defaults: Record<string, unknown>[] = [];
    await createRemoteHistorySource({ fetchHistory: async (r) => (defaults.push({ ...r }), []) }).baseline(target);
    expect(defaults[0]!['limit']).toBe(LIMITS.remoteHistoryWindow);
  });

  it('a baseline without a list, or whose newest item has no id, cannot anchor a marker', async () => {
    for (const answer of ['items', null, [{ text: 'no id' }]]) {
      const source = createRemoteHistorySource({ fetchHistory: async () => answer as never });
      await expect(source.baseline(target)).rejects.toThrow('remote history cannot anchor a marker (no items array, or the newest item has no id)');
    }
  });

  it('a check: a marker not of this kind and an answer that is no list are inconclusive, each saying which', async () => {
    const list = createRemoteHistorySource({ fetchHistory: async () => [{ id: 'm1' }] });
    expect(await list.check({ ...target, marker: 'nope' })).toEqual({ status: 'inconclusive', detail: 'stored marker is not a remote history marker' });
    expect(await list.check({ ...target, marker: { id: 7 } })).toEqual({ status: 'inconclusive', detail: 'stored marker is not a remote history marker' });
    const notList = createRemoteHistorySource({ fetchHistory: async () => ({ items: [] }) as never });
    expect(await notList.check({ ...target, marker: { id: 'm1' } })).toEqual({ status: 'inconclusive', detail: 'remote history answer is not a list' });
    // Unchanged history from the marker on: found, nothing new; the request asked for the newest page.
    const asked: Record<string, unknown>[] = [];
    const same = createRemoteHistorySource({ fetchHistory: async (r) => (asked.push({ ...r }), [{ id: 'm1' }]), window: 5 });
    expect(await same.check({ ...target, marker: { id: 'm1' } })).toMatchObject({ status: 'found' });
    expect(asked[0]).toEqual({ hostId: 'node-1', threadId: 'thread-9', ref: { thread: 9 }, limit: 5 });
  });

  it('an aborted check stops before asking', async () => {
    let asked = 0;
    const source = createRemoteHistorySource({ fetchHistory: async () => (asked++, []) });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(source.check({ ...target, marker: { id: 'm1' } }, controller.signal)).rejects.toThrow('stop');
    expect(asked).toBe(0);
  });
});
