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
  const call: RemoteHistoryCall = async ({ limit }) => {
    calls.push(limit);
    return items.slice(-limit).reverse();
  };
  return { items, calls, call };
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

  it('bursts larger than the window are partly missed (documented), with a note', async () => {
    const t = thread();
    t.items.push(assistant('a0'));
    const source = createRemoteHistorySource({ fetchHistory: t.call, window: 5 });
    const marker = await source.baseline(target);
    for (let i = 1; i <= 8; i++) t.items.push(user(`u${i}`, `m${i}`));
    const o = await source.check({ ...target, marker });
    expect(o.status === 'found' && o.turns.map((x) => x.text)).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
    expect(o.status === 'found' && o.note).toMatch(/older items may have been missed/);
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
