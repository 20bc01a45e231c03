/**
 * R20: a session is named by its identity (sessionKey, agentId). Internal map keys join the two
 * with a separator no key can hold (R1 forbids U+0000), so identities whose concatenations agree
 * ("a" + "bc" and "ab" + "c") stay apart: in heads, in cursors, and in the pairs an ack names.
 */
import { describe, expect, it } from 'vitest';
import { ackTargets, decodeContextKey, encodeContextKey, identityKey } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { T0 } from '../contract/harness.js';

const event = (sessionKey: string, agentId: string) => ({ sessionKey, agentId, kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram' });

describe('R20 identities whose concatenations agree', () => {
  it('R20: identityKey keeps ("bc", "a") and ("c", "ab") apart', () => {
    expect(identityKey('bc', 'a')).not.toBe(identityKey('c', 'ab'));
    expect(identityKey('bc', 'a')).toBe(identityKey('bc', 'a'));
  });

  it('R5, R20: two bare sessions whose key and agent concatenate alike keep their own heads and logs', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const first = await store.record(event('bc', 'a'));
    await store.record(event('c', 'ab'));
    const third = await store.record(event('c', 'ab'));
    expect(await store.stateVersion('bc', 'a')).toBe(first!.sequence);
    expect(await store.stateVersion('c', 'ab')).toBe(third!.sequence);
    expect((await store.changesSince({ sessionKey: 'bc', agentId: 'a', since: 0 })).stateChanges.events.map((e) => e.sequence)).toEqual([first!.sequence]);
  });

  it('R20, R27b: an ack naming both identities names two pairs', () => {
    expect(
      ackTargets([
        { contextKey: encodeContextKey('a', 'bc'), lastSeenSequence: 1 },
        { contextKey: encodeContextKey('ab', 'c'), lastSeenSequence: 2 },
      ]),
    ).toEqual([
      { targetSessionKey: 'bc', targetAgentId: 'a', lastSeen: [1] },
      { targetSessionKey: 'c', targetAgentId: 'ab', lastSeen: [2] },
    ]);
  });

  it('R20: two watched targets whose identities concatenate alike each get their own pending notice', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const W = 'agent:main:main';
    await store.watch({ watcherSessionKey: W, targetSessionKey: 'bc', agentId: 'a' });
    await store.watch({ watcherSessionKey: W, targetSessionKey: 'c', agentId: 'ab' });
    await store.record(event('bc', 'a'));
    await store.record(event('c', 'ab'));
    expect((await store.pendingNotices(W)).map((n) => [n.targetSessionKey, n.targetAgentId])).toEqual([
      ['bc', 'a'],
      ['c', 'ab'],
    ]);
  });
});

describe('R24 context keys of one target key under two agents', () => {
  it('R24: one target key under two agents gets two context keys, each decoding to its own identity', () => {
    const key = 'agent:main:shared';
    const forMain = encodeContextKey('main', key);
    const forOther = encodeContextKey('other', key);
    expect(forOther).not.toBe(forMain);
    expect(encodeContextKey('main', key)).toBe(forMain);
    expect(decodeContextKey(forMain)).toEqual({ targetAgentId: 'main', targetSessionKey: key });
    expect(decodeContextKey(forOther)).toEqual({ targetAgentId: 'other', targetSessionKey: key });
  });
});
