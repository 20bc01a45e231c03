import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { createRemoteHistorySource, type RemoteHistoryCall } from '../../src/upstream/index.js';

const target = { hostId: 'node:n1', threadId: 'th', ref: { nodeId: 'n1', threadId: 'th' } };
const user = (id: string, text: string) => ({ uuid: id, type: 'user', message: { role: 'user', content: text }, timestamp: '2026-01-01T00:00:00.000Z' });
const assistant = (id: string) => ({ uuid: id, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } });

/** A remote thread: items oldest first; the call answers newest first, at most `limit`. */
function thread() {
  const items: unknown[] = [];
  const calls: number[] = [];
  const befores: (string | undefined)[] = [];
  const call: RemoteHistoryCall = async ({ limit, before }) => {
    calls.push(limit);
    befores.push(before);
    const end = before === undefined ? items.length : items.findIndex((i) => (i as { uuid: string }).uuid === before);
    return items.slice(Math.max(0, end - limit), end).reverse();
  };
  return { items, calls, befores, call };
}

describe('U7 paired-node history source', () => {
  it('asks for the window (default 50), classifies items newer than the marker, marker = newest id', async () => {
    const t = thread();
    t.items.push(user('1', 'old'), assistant('2'));
    const source = createRemoteHistorySource({ fetchHistory: t.call });
    const marker = await source.baseline(target);
    expect(marker).toEqual({ id: '2' });
    t.items.push(user('3', 'new one'), assistant('4'), { uuid: '5', type: 'user', isSidechain: true, message: { role: 'user', content: 'x' } }, user('6', 'new two'));
    const o = await source.check({ ...target, marker });
    expect(o).toMatchObject({ status: 'found', nextMarker: { id: '6' }, position: '6' });
    expect(o.status === 'found' && o.turns.map((x) => x.text)).toEqual(['new one', 'new two']);
    expect(t.calls).toEqual([LIMITS.remoteHistoryWindow, LIMITS.remoteHistoryWindow]);
  });

  it('U7 a burst larger than a page is paged back until the marker is found: nothing missed', async () => {
    const t = thread();
    t.items.push(assistant('a0'));
    const source = createRemoteHistorySource({ fetchHistory: t.call, window: 5 });
    const marker = await source.baseline(target);
    for (let i = 1; i <= 8; i++) t.items.push(user(`u${i}`, `m${i}`));
    const o = await source.check({ ...target, marker });
    expect(o.status === 'found' && o.turns.map((x) => x.text)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']);
    expect(o).toMatchObject({ nextMarker: { id: 'u8' }, position: 'u8' });
    expect(o.status === 'found' && o.note).toBeUndefined();
    expect(t.befores.slice(1)).toEqual([undefined, 'u4']);
  });

  it('U7 a history call that ignores `before` (one-page protocol) is not double-counted: one page, a note', async () => {
    const items: unknown[] = [assistant('a0')];
    for (let i = 1; i <= 8; i++) items.push(user(`u${i}`, `m${i}`));
    const source = createRemoteHistorySource({ fetchHistory: async ({ limit }) => items.slice(-limit).reverse(), window: 5 });
    const o = await source.check({ ...target, marker: { id: 'a0' } });
    expect(o.status === 'found' && o.turns.map((x) => x.text)).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
    expect(o).toMatchObject({ nextMarker: { id: 'u8' }, note: expect.stringMatching(/ignores `before`/) });
  });

  it('U7 a 500-item burst: bounded pages per check, resumed on the next checks, every turn reported once', async () => {
    const t = thread();
    t.items.push(assistant('a0'));
    const source = createRemoteHistorySource({ fetchHistory: t.call }); // 50 per page, 4 pages per check
    let marker = await source.baseline(target);
    for (let i = 1; i <= 500; i++) t.items.push(i % 5 === 0 ? assistant(`x${i}`) : user(`u${i}`, `m${i}`));
    const seen: string[] = [];
    const positions = new Set<string>();
    let checks = 0;
    while (checks < 10) {
      const before = t.calls.length;
      const o = await source.check({ ...target, marker });
      checks++;
      expect(t.calls.length - before).toBeLessThanOrEqual(4);
      if (o.status !== 'found') throw new Error(o.status);
      seen.push(...o.turns.map((x) => x.text));
      expect(positions.has(o.position)).toBe(false);
      positions.add(o.position);
      marker = o.nextMarker;
      if (!(marker as { paging?: unknown }).paging) break;
      // new items keep arriving on top while the burst is paged back
      if (checks === 1) t.items.push(user('late', 'typed during paging'));
    }
    expect(checks).toBe(4); // 4 pages, then 1 top + 3 back per check: the marker sits on the 11th back page
    const expected = Array.from({ length: 500 }, (_, i) => i + 1).filter((i) => i % 5 !== 0).map((i) => `m${i}`);
    expect([...seen].sort()).toEqual([...expected, 'typed during paging'].sort());
    expect(seen).toHaveLength(401);
    expect(marker).toEqual({ id: 'late' });
  });

  it('never reports missing: empty answers, id-less items and errors are inconclusive or thrown', async () => {
    const empty = createRemoteHistorySource({ fetchHistory: async () => [] });
    expect(await empty.check({ ...target, marker: { id: 'x' } })).toMatchObject({ status: 'inconclusive' });
    expect(await empty.baseline(target)).toEqual({ id: null });
    const noId = createRemoteHistorySource({ fetchHistory: async () => [{ type: 'user', message: { content: 'hi' } }] });
    expect(await noId.check({ ...target, marker: { id: 'x' } })).toMatchObject({ status: 'inconclusive' });
    await expect(noId.baseline(target)).rejects.toThrow(/anchor/);
    const failing = createRemoteHistorySource({ fetchHistory: async () => Promise.reject(new Error('node offline')) });
    await expect(failing.check({ ...target, marker: { id: 'x' } })).rejects.toThrow('node offline');
    const weird = createRemoteHistorySource({ fetchHistory: async () => ({ notFound: true }) as never });
    expect(await weird.check({ ...target, marker: { id: 'x' } })).toMatchObject({ status: 'inconclusive' });
  });

  it('a null marker (empty at adoption) takes every item as new', async () => {
    const t = thread();
    const source = createRemoteHistorySource({ fetchHistory: t.call });
    const marker = await source.baseline(target);
    t.items.push(user('1', 'first ever'));
    const o = await source.check({ ...target, marker });
    expect(o.status === 'found' && o.turns.map((x) => x.text)).toEqual(['first ever']);
  });
});
