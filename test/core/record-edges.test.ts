/**
 * R6, R8, R9b, R11-R17: record preparation and notification edges through the core's public
 * functions and the reference store: occurredAt's clamp at exactly the skew, optional fields left
 * out rather than undefined, the stored payload independent of the caller's object, onlyIfWatched
 * only when true, and who gets a cursor write.
 */
import { describe, expect, it } from 'vitest';
import { clampOccurredAt, eligibleWatchers, isWatched, prepareRecord } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { LIMITS } from '../../spec/index.js';
import { A, CHILD, COORD, PARENT, PEER, T0, human, spawn } from '../contract/harness.js';

const SKEW = LIMITS.occurredAtSkewMs;

describe('R6 occurredAt clamp', () => {
  it('R6: exactly now - 24 h and exactly now are kept; one ms outside is clamped to the edge', () => {
    expect(clampOccurredAt(T0 - SKEW, T0)).toBe(T0 - SKEW);
    expect(clampOccurredAt(T0 - SKEW - 1, T0)).toBe(T0 - SKEW);
    expect(clampOccurredAt(T0, T0)).toBe(T0);
    expect(clampOccurredAt(T0 + 1, T0)).toBe(T0);
    expect(clampOccurredAt(T0 - 5, T0)).toBe(T0 - 5);
    expect(clampOccurredAt(0, T0)).toBe(T0 - SKEW);
  });

  it('R6: absent or not a finite number means now', () => {
    expect(clampOccurredAt(undefined, T0)).toBe(T0);
    expect(clampOccurredAt(Number.NaN, T0)).toBe(T0);
    expect(clampOccurredAt(Number.NEGATIVE_INFINITY, T0)).toBe(T0);
    expect(clampOccurredAt(Number.POSITIVE_INFINITY, T0)).toBe(T0);
  });
});

describe('R3-R9 prepared record', () => {
  it('R30b: every optional field given is kept as given; recordedAt is now', () => {
    const { event, watchers, onlyIfWatched } = prepareRecord(
      human(CHILD, { sessionId: 's1', actorId: PEER, runId: 'r1', dedupeKey: 'd1', occurredAt: T0 - 10, payload: { channel: 'telegram', turns: 2 }, watchers: [PARENT], onlyIfWatched: true }),
      T0,
    );
    expect(event).toEqual({
      sessionKey: CHILD,
      agentId: A,
      kind: 'human_direct_message',
      actorType: 'human',
      occurredAt: T0 - 10,
      recordedAt: T0,
      summary: 'human message via telegram',
      sessionId: 's1',
      actorId: PEER,
      runId: 'r1',
      payload: { channel: 'telegram', turns: 2 },
      dedupeKey: 'd1',
    });
    expect(watchers).toEqual([PARENT]);
    expect(onlyIfWatched).toBe(true);
  });

  it('R30b: optional fields not given are absent, not undefined; onlyIfWatched is true only when given true', () => {
    const { event, watchers, onlyIfWatched } = prepareRecord(human(CHILD), T0);
    expect(Object.keys(event).sort()).toEqual(['actorType', 'agentId', 'kind', 'occurredAt', 'recordedAt', 'sessionKey', 'summary']);
    expect(watchers).toEqual([]);
    expect(onlyIfWatched).toBe(false);
    expect(prepareRecord(human(CHILD, { onlyIfWatched: false }), T0).onlyIfWatched).toBe(false);
  });

  it('R30b: the stored payload does not change when the caller edits its object or the returned event', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const payload = { channel: 'telegram' };
    const event = await store.record(human(CHILD, { payload }));
    expect(event?.payload).toBeDefined(); // else the edit below would throw and be swallowed
    payload.channel = 'discord';
    try {
      event!.payload!.channel = 'slack';
    } catch {
      // a frozen payload refuses the edit: that is the point
    }
    const { events } = (await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges;
    expect(events[0]).toBeDefined();
    expect(events[0]!.payload).toEqual({ channel: 'telegram' });
    expect(Object.isFrozen(prepareRecord(human(CHILD, { payload: { channel: 'x' } }), T0).event.payload)).toBe(true);
  });
});

describe('R9b, R11, R13 eligible watchers', () => {
  it('R11, R13: producer watchers are kept once each, agent-scoped only, never the target itself, in first-seen order', () => {
    expect(eligibleWatchers([PEER, 'global', CHILD, PARENT, PEER, 'main', 'agent:main:'], CHILD)).toEqual([PEER, PARENT]);
    expect(eligibleWatchers([], CHILD)).toEqual([]);
  });

  it('R9b: watched iff a cursor exists or a producer watcher could hold one', () => {
    const cursor = { watcherSessionKey: PARENT, targetSessionKey: CHILD, targetAgentId: A, lastSeenSequence: 0, notifiedSequence: 0, materialSequence: 0, provenance: 'explicit' as const, updatedAt: T0 };
    expect(isWatched([], [], CHILD)).toBe(false);
    expect(isWatched([], ['global', CHILD], CHILD)).toBe(false);
    expect(isWatched([], [PARENT], CHILD)).toBe(true);
    expect(isWatched([cursor], [], CHILD)).toBe(true);
  });

  it('R9b: onlyIfWatched writes nothing for a target nobody can watch, and writes when a producer watcher qualifies', async () => {
    const store = createMemoryStore({ now: () => T0 });
    expect(await store.record(human(CHILD, { onlyIfWatched: true, watchers: ['global', CHILD] }))).toBeUndefined();
    expect(await store.stateVersion(CHILD, A)).toBe(0);
    const event = await store.record(human(CHILD, { onlyIfWatched: true, watchers: [PARENT] }));
    expect(event?.sequence).toBeGreaterThan(0);
    expect((await store.pendingNotices(PARENT)).map((n) => n.lastSeenSequence)).toEqual([0]);
  });
});

describe('R12, R14, R16, R17 cursor writes through the store', () => {
  it('R12: the actor is not told; another watcher of the same event is', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
    await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    await store.record({ ...human(CHILD), kind: 'agent_message', actorType: 'agent', actorId: PARENT });
    expect(await store.pendingNotices(PARENT)).toEqual([]);
    expect((await store.pendingNotices(COORD)).length).toBe(1);
  });

  it('R14: a spawn seeds the parent without a notice; a later change quotes the spawn sequence', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const s = await store.record(spawn());
    expect(await store.pendingNotices(PARENT)).toEqual([]);
    await store.record(human(CHILD));
    expect((await store.pendingNotices(PARENT)).map((n) => n.lastSeenSequence)).toEqual([s!.sequence]);
  });

  it('R16: a terminal run tells an explicit watcher and neither a spawn parent nor an ambient watcher', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.record(spawn());
    await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    await store.watch({ watcherSessionKey: PEER, targetSessionKey: CHILD, agentId: A, provenance: 'ambient' });
    await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed', watchers: [PARENT] });
    expect(await store.pendingNotices(PARENT)).toEqual([]);
    expect(await store.pendingNotices(PEER)).toEqual([]);
    expect((await store.pendingNotices(COORD)).length).toBe(1);
  });

  it('R17: a log-only event with watchers writes no cursor', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.record({ sessionKey: CHILD, agentId: A, kind: 'compacted', actorType: 'system', summary: 'context compacted', watchers: [PARENT] });
    expect(await store.pendingNotices(PARENT)).toEqual([]);
    // No cursor was created either: a later material event without watchers tells nobody.
    await store.record(human(CHILD));
    expect(await store.pendingNotices(PARENT)).toEqual([]);
  });
});
