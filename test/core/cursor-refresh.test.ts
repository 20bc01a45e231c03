/**
 * R14, R27b, R28, R44: the writes that refresh a cursor's `updatedAt`, seen through expiry in the
 * reference store (retention 10 days): a spawn seed refreshes even when a pending notice keeps
 * L, N and M; an ackNotices that acks the pair refreshes; one that acks nothing does not.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/memory/index.js';
import { A, CHILD, DAY, PARENT, T0, human, spawn } from '../contract/harness.js';

function store10d() {
  let t = T0;
  const store = createMemoryStore({ now: () => t, retentionMs: 10 * DAY });
  return { store, advance: (ms: number) => void (t += ms) };
}

describe('R44 what refreshes updatedAt', () => {
  it('R14, R44: a re-spawn onto a pending cursor keeps its notice and keeps the cursor alive', async () => {
    const { store, advance } = store10d();
    await store.record(spawn(CHILD, PARENT, 'r1'));
    await store.record(human(CHILD)); // pending for the parent
    const [before] = await store.pendingNotices(PARENT);
    advance(6 * DAY);
    await store.record(spawn(CHILD, PARENT, 'r2')); // R14: pending, so L, N, M stay; updatedAt := now
    expect(await store.pendingNotices(PARENT)).toEqual([before]);
    advance(6 * DAY); // 12 days after the first writes, 6 after the re-spawn
    await store.prune();
    expect(await store.pendingNotices(PARENT)).toEqual([before]);
    advance(5 * DAY); // 11 days after the re-spawn
    await store.prune();
    expect(await store.pendingNotices(PARENT)).toEqual([]);
  });

  it('R27b, R28, R44: an ack that acks the pair refreshes it, one that names a stale L does not', async () => {
    const { store, advance } = store10d();
    const T1 = 'agent:main:t1';
    const T2 = 'agent:main:t2';
    for (const t of [T1, T2]) await store.watch({ watcherSessionKey: PARENT, targetSessionKey: t, agentId: A });
    for (const t of [T1, T2]) await store.record(human(t));
    const [n1, n2] = await store.pendingNotices(PARENT);
    expect(n1).toBeDefined();
    expect(n2).toBeDefined();
    advance(6 * DAY);
    expect(await store.ackNotices(PARENT, [n1!, { ...n2!, lastSeenSequence: n2!.lastSeenSequence + 1 }])).toEqual([n1]);
    advance(6 * DAY);
    await store.prune(); // T2's cursor was last written 12 days ago; T1's 6
    for (const t of [T1, T2]) await store.record(human(t));
    expect((await store.pendingNotices(PARENT)).map((n) => n.targetSessionKey)).toEqual([T1]);
  });

  it('R28, R44: a drain that owes a follow-up refreshes the cursor, and the follow-up survives', async () => {
    const { store, advance } = store10d();
    await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
    const first = await store.record(human(CHILD));
    await store.record(human(CHILD)); // interleaved: M > N
    advance(6 * DAY);
    const drained = await store.drainNotices(PARENT);
    expect(drained.map((n) => n.lastSeenSequence)).toEqual([0]);
    advance(6 * DAY);
    await store.prune();
    expect((await store.pendingNotices(PARENT)).map((n) => n.lastSeenSequence)).toEqual([first!.sequence]);
  });
});
