import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/index.js';
import { LIMITS } from '../../spec/index.js';
import { MemoryStore, createMemoryStore } from '../../src/memory/index.js';
import { A, CHILD, COORD, DAY, HOUR, PARENT, PEER, T0, human, spawn } from '../contract/harness.js';

/**
 * Behaviour of the memory store that the mutation run (mutation/) found unpinned: exact stored rows,
 * paging, opening an existing state, the prune schedule and the change-listener signals.
 */

function clocked(options: { retentionMs?: number; maxRows?: number } = {}) {
  let t = T0;
  const store = createMemoryStore({ ...options, now: () => t });
  let signals = 0;
  store.onLocalChange(() => signals++);
  return { store, set: (v: number) => void (t = v), advance: (ms: number) => void (t += ms), signals: () => signals };
}

describe('memory store: stored rows (R7) and paging (R30)', () => {
  it('R7 an event recorded without optional fields has no such keys; with them, each is kept', () => {
    const { store } = clocked();
    const bare = store.record(human())!;
    expect(Object.keys(bare).sort()).toEqual(['actorType', 'agentId', 'kind', 'occurredAt', 'recordedAt', 'sequence', 'sessionKey', 'summary']);
    const full = store.record({ ...human(PEER), sessionId: 's-1', actorId: 'u-1', runId: 'run-9', payload: { turns: 2 }, dedupeKey: 'd-1' })!;
    expect(full).toMatchObject({ sessionId: 's-1', actorId: 'u-1', runId: 'run-9', payload: { turns: 2 }, dedupeKey: 'd-1' });
    const read = store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events[0]!;
    expect(Object.keys(read)).not.toContain('payload');
    expect(Object.isFrozen(full)).toBe(true);
  });

  it('R30 changesSince starts strictly after `since`, whatever the other sessions interleaved', () => {
    const { store } = clocked();
    const seqs: number[] = [];
    for (let i = 0; i < 7; i++) {
      seqs.push(store.record(human(CHILD))!.sequence);
      store.record(human(PEER));
    }
    for (const since of [0, seqs[0]!, seqs[0]! + 1, seqs[3]!, seqs[3]! + 1, seqs[6]!, seqs[6]! + 5]) {
      const got = store.changesSince({ sessionKey: CHILD, agentId: A, since }).stateChanges.events.map((e) => e.sequence);
      expect(got).toEqual(seqs.filter((s) => s > since));
    }
    const page = store.changesSince({ sessionKey: CHILD, agentId: A, since: seqs[1]!, limit: 2 });
    expect(page.stateChanges.events.map((e) => e.sequence)).toEqual([seqs[2], seqs[3]]);
    expect(page.stateChanges.truncated).toBe(true);
  });
});

describe('memory store: opening and restart prune (R29) with the schedule of R43', () => {
  it('R29 a handle opened later on an existing state prunes expired events and stamps the watermark (R42)', () => {
    let t = T0;
    const a = createMemoryStore({ now: () => t, retentionMs: DAY });
    const e = a.record(human())!;
    a.record(human(PEER));
    t = T0 + 2 * DAY;
    const b = a.openHandle({ now: () => t, retentionMs: DAY });
    expect(b.eventCount()).toBe(0);
    // R42: the watermark is the removed sequence: a reader at it has no gap, one below it has.
    expect(b.changesSince({ sessionKey: CHILD, agentId: A, since: e.sequence }).stateChanges.historyGap).toBe(false);
    expect(b.changesSince({ sessionKey: CHILD, agentId: A, since: e.sequence - 1 }).stateChanges.historyGap).toBe(true);
  });

  it('R29 R44 a handle opened on a state holding only cursors expires the idle ones', () => {
    let t = T0;
    const a = createMemoryStore({ now: () => t, retentionMs: DAY });
    a.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    a.deleteSession(PEER, A); // no events left, the cursor... is deleted too (R51)
    a.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(a.eventCount()).toBe(0);
    t = T0 + 2 * DAY;
    const b = a.openHandle({ now: () => t, retentionMs: DAY });
    expect(b.cursor(COORD, PEER, A)).toBeUndefined();
    expect(b.isWatched(PEER, A)).toBe(false);
  });

  it('R43 the write path prunes once the interval has passed since the last prune, not before', () => {
    const { store, set } = clocked({ maxRows: 2 });
    store.record(human());
    store.record(human());
    store.record(human());
    expect(store.eventCount()).toBe(3); // the store opened at T0: not due yet
    set(T0 + LIMITS.pruneIntervalMs - 1);
    store.record(human());
    expect(store.eventCount()).toBe(4);
    set(T0 + LIMITS.pruneIntervalMs);
    store.record(human());
    expect(store.eventCount()).toBe(2); // R41: the two newest stay
    set(T0 + LIMITS.pruneIntervalMs + 10);
    store.record(human());
    expect(store.eventCount()).toBe(3); // the prune clock restarted at the last prune
  });

  it('R43 a dedupe hit does not prune; a clock stepped back makes the next insert prune', () => {
    const { store, set } = clocked({ maxRows: 1 });
    store.record(human(CHILD, { dedupeKey: 'k' }));
    store.record(human());
    set(T0 + LIMITS.pruneIntervalMs);
    store.record(human(CHILD, { dedupeKey: 'k' }));
    expect(store.eventCount()).toBe(2);
    set(T0 - 1);
    store.record(human());
    expect(store.eventCount()).toBe(1);
  });

  it('R9b R43 an onlyIfWatched record nobody watches writes nothing: no prune, alone or in a batch', () => {
    const { store, set } = clocked({ maxRows: 1 });
    store.record(human(CHILD));
    store.record(human(PEER)); // over the cap, but no prune is due yet
    set(T0 + LIMITS.pruneIntervalMs);
    expect(store.record(human(COORD, { onlyIfWatched: true }))).toBeUndefined();
    expect(store.recordMany([human(COORD, { onlyIfWatched: true })])).toEqual([undefined]);
    expect(store.eventCount()).toBe(2);
    store.record(human(COORD)); // an insert prunes
    expect(store.eventCount()).toBe(1);
  });

  it('R9e D2 a batch signals only for cursors it wrote: a dedupe hit or an R9b skip beside an unwatched insert signals nothing', () => {
    const { store, signals } = clocked();
    store.record(human(CHILD, { dedupeKey: 'k' }));
    expect(signals()).toBe(0);
    const out = store.recordMany([human(CHILD, { dedupeKey: 'k' }), human(COORD, { onlyIfWatched: true }), human(PEER)]);
    expect(out.map((e) => e?.sequence)).toEqual([1, undefined, 2]);
    expect(signals()).toBe(0);
    // A batch that does write a cursor signals once.
    store.recordMany([spawn(), human(CHILD)]);
    expect(signals()).toBe(1);
  });

  it('R29 restart restarts the prune clock at now and prunes', () => {
    const { store, set } = clocked({ maxRows: 1 });
    store.record(human());
    store.record(human());
    set(T0 + 10);
    store.restart();
    expect(store.eventCount()).toBe(1);
    store.record(human());
    set(T0 + 10 + LIMITS.pruneIntervalMs - 1);
    store.record(human());
    expect(store.eventCount()).toBe(3);
  });
});

describe('memory store: pruning (R40-R42, R44)', () => {
  it('R41 R42 the cap drops the oldest survivors and stamps each identity with its highest removed sequence', () => {
    const { store, set } = clocked({ maxRows: 3 });
    const c1 = store.record(human(CHILD))!;
    const p1 = store.record(human(PEER))!;
    const c2 = store.record(human(CHILD))!;
    const p2 = store.record(human(PEER))!;
    const c3 = store.record(human(CHILD))!;
    set(T0 + 1);
    store.prune();
    expect(store.eventCount()).toBe(3);
    const child = store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
    const peer = store.changesSince({ sessionKey: PEER, agentId: A, since: 0 });
    expect(child.stateChanges.events.map((e) => e.sequence)).toEqual([c2.sequence, c3.sequence]);
    expect(peer.stateChanges.events.map((e) => e.sequence)).toEqual([p2.sequence]);
    // R42: each identity's watermark is its own highest removed sequence.
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: c1.sequence }).stateChanges.historyGap).toBe(false);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: c1.sequence - 1 }).stateChanges.historyGap).toBe(true);
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: p1.sequence }).stateChanges.historyGap).toBe(false);
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: p1.sequence - 1 }).stateChanges.historyGap).toBe(true);
  });

  it('R40 R8 an event exactly at the cutoff stays; a pruned dedupe key can be used again', () => {
    const { store, set } = clocked({ retentionMs: DAY });
    const old = store.record(human(CHILD, { dedupeKey: 'old', occurredAt: T0 - DAY }))!;
    const edge = store.record(human(CHILD, { occurredAt: T0 - DAY + 1 }))!;
    set(T0 + 1);
    store.prune();
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events.map((e) => e.sequence)).toEqual([edge.sequence]);
    const again = store.record(human(CHILD, { dedupeKey: 'old' }))!;
    expect(again.sequence).toBeGreaterThan(old.sequence);
  });

  it('R44 a cursor idle exactly to the cutoff stays; older ones expire, and a pending one signals', () => {
    const { store, set, signals } = clocked({ retentionMs: DAY });
    store.record(spawn());
    store.record(human(CHILD));
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    set(T0 + DAY);
    const before = signals();
    store.prune();
    expect(store.cursor(PARENT, CHILD, A)).toBeDefined();
    expect(signals()).toBe(before);
    set(T0 + DAY + 1);
    store.prune();
    expect(store.cursor(PARENT, CHILD, A)).toBeUndefined();
    expect(store.cursor(COORD, PEER, A)).toBeUndefined();
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.isWatched(CHILD, A)).toBe(false);
    expect(signals()).toBe(before + 1);
  });

  it('R40 R41 the cap counts only the events that outlive the age rule', () => {
    const { store, set } = clocked({ retentionMs: DAY, maxRows: 2 });
    store.record(human(CHILD, { occurredAt: T0 - 2 * DAY }));
    store.record(human(CHILD, { occurredAt: T0 - 2 * DAY }));
    store.record(human(PEER));
    const kept = [store.record(human(PEER))!, store.record(human(PEER))!];
    set(T0 + 1);
    store.prune();
    expect(store.eventCount()).toBe(2);
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: 0 }).stateChanges.events).toEqual(kept);
  });

  it('R43 R9e a batch of dedupe hits stores nothing and does not prune', () => {
    const { store, set } = clocked({ maxRows: 1 });
    store.record(human(CHILD, { dedupeKey: 'a' }));
    store.record(human(CHILD, { dedupeKey: 'b' }));
    set(T0 + LIMITS.pruneIntervalMs);
    store.recordMany([human(CHILD, { dedupeKey: 'a' }), human(CHILD, { dedupeKey: 'b' })]);
    expect(store.eventCount()).toBe(2);
    store.recordMany([human(PEER)]);
    expect(store.eventCount()).toBe(1);
  });

  it('R44 expiring only non-pending cursors changes no pending state and signals nothing', () => {
    const { store, set, signals } = clocked({ retentionMs: DAY });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    const token = store.changeToken();
    set(T0 + DAY + 1);
    store.prune();
    expect(store.cursor(COORD, PEER, A)).toBeUndefined();
    expect(signals()).toBe(0);
    expect(store.changeToken()).toBe(token);
  });
});

describe('memory store: change-listener signals follow pending state only (feed hooks)', () => {
  it('R52 unwatching a pending cursor signals; a caught-up one or none does not', () => {
    const { store, signals } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    expect(signals()).toBe(0);
    store.record(human(PEER));
    expect(signals()).toBe(1);
    expect(store.unwatch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A })).toEqual({ unwatched: true });
    expect(signals()).toBe(1);
    expect(store.isWatched(CHILD, A)).toBe(false);
    expect(store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ unwatched: true });
    expect(signals()).toBe(2);
    expect(store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ unwatched: false });
    expect(store.isWatched(PEER, A)).toBe(false);
    expect(signals()).toBe(2);
    store.record(human(PEER)); // nobody watches any more: no cursor written, no signal
    expect(signals()).toBe(2);
  });

  it('R52 unwatching a watcher that holds no cursor on a watched target unwatches nothing', () => {
    const { store } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(store.unwatch({ watcherSessionKey: PARENT, targetSessionKey: PEER, agentId: A })).toEqual({ unwatched: false });
    expect(store.cursor(COORD, PEER, A)).toBeDefined();
  });

  it('R52 unwatching one of two watchers keeps the other', () => {
    const { store } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    store.watch({ watcherSessionKey: PARENT, targetSessionKey: PEER, agentId: A });
    store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(store.isWatched(PEER, A)).toBe(true);
    store.record(human(PEER));
    expect(store.pendingNotices(PARENT)).toHaveLength(1);
  });

  it('R21b R25 promoting a pending ambient cursor signals (its wake changes); re-registering does not', () => {
    const { store, signals } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' });
    store.record(human(PEER));
    expect(signals()).toBe(1);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' });
    expect(signals()).toBe(1);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(signals()).toBe(2);
    expect(store.pendingNotices(COORD)[0]!.wake).toBe('immediate');
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(signals()).toBe(2);
  });

  it('R21b promoting a caught-up ambient cursor changes no notice and signals nothing', () => {
    const { store, signals } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(store.cursor(COORD, PEER, A)!.provenance).toBe('explicit');
    expect(signals()).toBe(0);
  });

  it('R27 draining or acking nothing signals nothing; draining and acking something does', () => {
    const { store, signals } = clocked();
    store.drainNotices(PARENT);
    expect(store.ackNotices(PARENT, [])).toEqual([]);
    expect(signals()).toBe(0);
    store.record(spawn()); // seeds the parent's cursor: a cursor write
    store.record(human());
    expect(signals()).toBe(2);
    const [n] = store.pendingNotices(PARENT);
    expect(store.ackNotices(PARENT, [{ contextKey: n!.contextKey, lastSeenSequence: n!.lastSeenSequence + 1 }])).toEqual([]);
    expect(signals()).toBe(2);
    expect(store.ackNotices(PARENT, [n!])).toHaveLength(1);
    expect(signals()).toBe(3);
    store.record(human());
    expect(store.drainNotices(PARENT)).toHaveLength(1);
    expect(signals()).toBe(5);
  });

  it('R26 R27b ackNotices returns the acked notices in target order, whatever order they were named in', () => {
    const { store } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    store.record(human(PEER));
    store.record(human(CHILD));
    const pending = store.pendingNotices(COORD);
    expect(pending.map((n) => n.targetSessionKey)).toEqual([PEER, CHILD]);
    const acked = store.ackNotices(COORD, [...pending].reverse());
    expect(acked.map((n) => n.targetSessionKey)).toEqual([PEER, CHILD]);
    expect(store.pendingNotices(COORD)).toEqual([]);
  });

  it('R50 resetting a watcher that holds cursors signals and deletes only its cursors; one holding none does not', () => {
    const { store, signals } = clocked();
    store.resetSession(COORD);
    expect(signals()).toBe(0);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
    store.resetSession(COORD);
    expect(signals()).toBe(1);
    expect(store.isWatched(PEER, A)).toBe(false);
    expect(store.isWatched(CHILD, A)).toBe(true);
    expect(store.cursor(COORD, CHILD, A)).toBeUndefined();
    expect(store.cursor(PARENT, CHILD, A)).toBeDefined();
  });

  it('R51 deleting a watched identity signals, frees its dedupe keys and resets its head; an unwatched one does not signal', () => {
    const { store, signals } = clocked();
    store.record(human(PEER, { dedupeKey: 'p' }));
    store.deleteSession(PEER, A);
    expect(signals()).toBe(0);
    expect(store.stateVersion(PEER, A)).toBe(0);
    const again = store.record(human(PEER, { dedupeKey: 'p' }))!;
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: 0 }).stateChanges.events).toEqual([again]);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    store.deleteSession(PEER, A);
    expect(signals()).toBe(1);
    expect(store.eventCount()).toBe(0);
  });
});

describe('memory store: read-only views', () => {
  it('cursor() hands out a copy: changing it changes nothing stored', () => {
    const { store } = clocked();
    store.record(spawn());
    const c = store.cursor(PARENT, CHILD, A)!;
    expect(c).toMatchObject({ watcherSessionKey: PARENT, targetSessionKey: CHILD, targetAgentId: A, provenance: 'spawn' });
    const seen = c.lastSeenSequence;
    c.lastSeenSequence = 99;
    expect(store.cursor(PARENT, CHILD, A)!.lastSeenSequence).toBe(seen);
  });

  it('R20 listPending lists pending pairs only: a caught-up cursor is not one', () => {
    const { store } = clocked();
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    expect(store.listPending()).toEqual([]);
    store.record(human(PEER));
    expect(store.listPending().map((p) => p.watcherSessionKey)).toEqual([COORD]);
  });

  it('W6 a bad watcher key to pendingNotices or drainNotices is refused naming watcherSessionKey', () => {
    const { store } = clocked();
    for (const call of [() => store.pendingNotices(''), () => store.drainNotices('')]) {
      let err: unknown;
      try {
        call();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('watcherSessionKey');
    }
  });

  it('R6 a handle opened without options keeps the first handle\'s clock and limits', () => {
    const { store, set } = clocked({ maxRows: 1 });
    const b = store.openHandle();
    set(T0 + 5);
    expect(b.record(human())!.recordedAt).toBe(T0 + 5);
    b.record(human());
    b.prune();
    expect(b.eventCount()).toBe(1);
  });

  it('every operation of a closed store throws', () => {
    const store = new MemoryStore({ now: () => T0 });
    store.close();
    expect(() => store.listPending()).toThrow();
    expect(() => store.isWatched(PEER, A)).toThrow();
    expect(() => store.restart()).toThrow();
    expect(() => store.prune()).toThrow();
    expect(() => store.recordMany([])).toThrow();
  });

  it('R29 restart reads the clock before pruning: a refused clock is refused and nothing is pruned', () => {
    let t: number = T0;
    const store = createMemoryStore({ now: () => t, maxRows: 1 });
    store.record(human());
    store.record(human());
    t = Number.NaN;
    expect(() => store.restart()).toThrow();
    expect(store.eventCount()).toBe(2);
    t = T0 + HOUR;
  });
});
