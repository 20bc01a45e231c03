/**
 * One test (at least) per numbered rule of spec/PROTOCOL.md, written against the implementation
 * contract only, so every store (in-memory, SQLite, ...) runs the same file:
 * `describeContractRules('sqlite', factory)`.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS, NOTIFY_CLASS, StateEvent, type EventKind, type StoreFactory } from '../../spec/index.js';
import { assertSchema, encodeContextKey, isValidationError, noticeText } from '../../src/core/index.js';
import { A, CHILD, COORD, DAY, HOUR, PARENT, PEER, T0, harness, human, spawn } from './harness.js';

async function rejects(p: unknown, field: string): Promise<void> {
  try {
    await (typeof p === 'function' ? (p as () => unknown)() : p);
  } catch (error) {
    expect(isValidationError(error), String(error)).toBe(true);
    expect((error as { field: string }).field).toBe(field);
    return;
  }
  throw new Error(`expected a ValidationError on ${field}`);
}

export function describeContractRules(name: string, factory: StoreFactory): void {
  describe(`${name}: keys, input and events (R1-R9)`, () => {
    it('R1 rejects malformed keys, lone surrogates, quotes and agent mismatch, writing nothing', async () => {
      const { store } = await harness(factory);
      await rejects(() => store.record(human('')), 'sessionKey');
      await rejects(() => store.record(human('agent:main:x\uD800')), 'sessionKey');
      await rejects(() => store.record(human('agent:main:"q"')), 'sessionKey');
      await rejects(() => store.record(human('agent:main:a\nb')), 'sessionKey');
      await rejects(() => store.record(human('x'.repeat(513))), 'sessionKey');
      await rejects(() => store.record({ ...human(), agentId: 'other' }), 'agentId');
      await rejects(() => store.record({ ...human(), agentId: '' }), 'agentId');
      await rejects(() => store.record(human(CHILD, { actorId: 'a\uDC00' })), 'actorId');
      expect(await store.stateVersion(CHILD, A)).toBe(0);
      expect(await store.stateVersion('agent:main:x\uFFFD', A)).toBe(0);
      // a bare key is valid and gets a log
      expect((await store.record({ ...human('global'), agentId: 'ops' }))?.sequence).toBe(1);
    });

    it('R1 the agent of an agent-scoped key must match on reads and deletes too', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      await rejects(() => store.stateVersion(CHILD, 'ops'), 'agentId');
      await rejects(() => store.changesSince({ sessionKey: CHILD, agentId: 'ops', since: 0 }), 'agentId');
      await rejects(() => store.deleteSession(PARENT, 'ops'), 'agentId');
      expect((await store.pendingNotices(PARENT)).length).toBe(1); // the wrong-agent delete removed nothing
      await rejects(() => store.record(human('agent:main:x\u2028y')), 'sessionKey');
      await rejects(() => store.record(human(CHILD, { summary: 'a\u2029b' })), 'summary');
      await rejects(() => store.record(human('agent:main:\u202eevil')), 'sessionKey');
    });

    it('R2 rejects an unknown actor type', async () => {
      const { store } = await harness(factory);
      await rejects(() => store.record({ ...human(), actorType: 'robot' } as never), 'actorType');
    });

    it('R3 summary is one non-blank line of at most 200 code units', async () => {
      const { store } = await harness(factory);
      await rejects(() => store.record(human(CHILD, { summary: 'line one\nline two' })), 'summary');
      await rejects(() => store.record(human(CHILD, { summary: '   ' })), 'summary');
      await rejects(() => store.record(human(CHILD, { summary: 'x'.repeat(LIMITS.summaryMaxLength + 1) })), 'summary');
      await rejects(() => store.record(human(CHILD, { summary: 'tab\there' })), 'summary');
      const ok = await store.record(human(CHILD, { summary: 'x'.repeat(LIMITS.summaryMaxLength) }));
      expect(ok?.summary.length).toBe(LIMITS.summaryMaxLength);
    });

    it('R4 payloads are closed per kind; run_failed needs an outcome; no free text anywhere', async () => {
      const { store } = await harness(factory);
      await rejects(() => store.record({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run failed' }), 'payload');
      await rejects(
        () => store.record({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run failed', payload: { outcome: 'boom' as never } }),
        'payload.outcome',
      );
      await rejects(() => store.record(human(CHILD, { payload: { text: 'hello, this is my message' } })), 'payload.text');
      await rejects(() => store.record({ sessionKey: CHILD, agentId: A, kind: 'compacted', actorType: 'system', summary: 'session compacted', payload: {} }), 'payload');
      await rejects(() => store.record(human(CHILD, { message: 'hi' })), 'message');
      for (const outcome of ['cancelled', 'timeout', 'error'] as const) {
        const e = await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: `child run ${outcome}`, payload: { outcome } });
        expect(e?.payload).toEqual({ outcome });
        assertSchema(StateEvent, e);
      }
      expect(await store.stateVersion(CHILD, A)).toBe(3);
    });

    it('R5 stateVersion is the head; 0 for an unknown session', async () => {
      const { store } = await harness(factory);
      expect(await store.stateVersion(CHILD, A)).toBe(0);
      const a = await store.record(human());
      await store.record(human(PEER));
      const b = await store.record(human());
      expect(await store.stateVersion(CHILD, A)).toBe(b!.sequence);
      expect(b!.sequence).toBeGreaterThan(a!.sequence);
    });

    it('R6 occurredAt is clamped into [now-24h, now]; bookkeeping uses now', async () => {
      const { store, clock } = await harness(factory);
      const future = await store.record(human(CHILD, { occurredAt: T0 + 5 * HOUR }));
      expect(future?.occurredAt).toBe(T0);
      const ancient = await store.record(human(CHILD, { occurredAt: T0 - 10 * DAY }));
      expect(ancient?.occurredAt).toBe(T0 - DAY);
      expect(ancient?.recordedAt).toBe(T0);
      const absent = await store.record(human());
      expect(absent?.occurredAt).toBe(clock.now());
      await rejects(() => store.record(human(CHILD, { occurredAt: Number.NaN })), 'occurredAt');
      await rejects(() => store.record(human(CHILD, { occurredAt: Number.POSITIVE_INFINITY })), 'occurredAt');
      await rejects(() => store.record(human(CHILD, { occurredAt: 1.5 })), 'occurredAt');
      await rejects(() => store.record(human(CHILD, { occurredAt: '2026-01-01' })), 'occurredAt');
    });

    it('R6 a fractional clock is floored; a clock that is not a number is a ClockError, nothing written', async () => {
      let t = T0 + 0.75;
      const store = await factory({ now: () => t });
      const e = await store.record(human());
      expect([e?.occurredAt, e?.recordedAt]).toEqual([T0, T0]);
      t = Number.NaN;
      await expect((async () => store.record(human()))()).rejects.toThrow(/now\(\)/); // a promise, not a function: bun test accepts only that
      t = T0 + 1;
      expect(await store.stateVersion(CHILD, A)).toBe(e!.sequence);
    });

    it('R43 a clock that steps back does not stop write-path pruning', async () => {
      const { store, clock } = await harness(factory, { maxRows: 2 });
      for (let i = 0; i < 4; i++) await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events.length).toBe(4);
      clock.advance(-DAY); // the next write must not wait a day and an hour for its prune
      await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events.length).toBe(2);
    });

    it('R7 sequences are global, increasing and never reused after pruning or deletion', async () => {
      const { store, clock } = await harness(factory, { retentionMs: DAY });
      const seqs: number[] = [];
      for (const k of [CHILD, PEER, CHILD, PARENT]) seqs.push((await store.record(human(k)))!.sequence);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(4);
      await store.deleteSession(PARENT, A);
      clock.advance(2 * DAY);
      await store.prune();
      const next = await store.record(human(PARENT));
      expect(next!.sequence).toBeGreaterThan(Math.max(...seqs));
    });

    it('R8 a repeated dedupe key returns the existing event and changes nothing', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      const first = await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed', dedupeKey: 'run-terminal:r1' });
      const pendingBefore = await store.pendingNotices(PARENT);
      const again = await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run failed', payload: { outcome: 'error' }, dedupeKey: 'run-terminal:r1' });
      expect(again).toEqual(first);
      expect(await store.stateVersion(CHILD, A)).toBe(first!.sequence);
      expect(await store.pendingNotices(PARENT)).toEqual(pendingBefore);
      // a dedupe hit on a human turn does not notify either
      const h = await store.record(human(CHILD, { dedupeKey: 'turn-1' }));
      await store.drainNotices(PARENT);
      await store.drainNotices(PARENT);
      expect(await store.record(human(CHILD, { dedupeKey: 'turn-1' }))).toEqual(h);
      expect(await store.pendingNotices(PARENT)).toEqual([]);
    });

    it('R8 a pruned event frees its dedupe key', async () => {
      const { store, clock } = await harness(factory, { retentionMs: DAY });
      const a = await store.record(human(CHILD, { dedupeKey: 'k' }));
      clock.advance(2 * DAY);
      await store.prune();
      const b = await store.record(human(CHILD, { dedupeKey: 'k' }));
      expect(b!.sequence).toBeGreaterThan(a!.sequence);
    });

    it('R9 bad input throws a ValidationError naming the field and writes nothing', async () => {
      const { store } = await harness(factory);
      await rejects(() => store.record({ ...human(), kind: 'nope' } as never), 'kind');
      await rejects(() => store.record({ sessionKey: CHILD, agentId: A, kind: 'goal_changed', actorType: 'system' } as never), 'summary');
      await rejects(() => store.record(human(CHILD, { watchers: [PARENT, 42] })), 'watchers.1');
      await rejects(() => store.record(null as never), '(input)');
      await rejects(() => store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD } as never), 'agentId');
      await rejects(() => store.changesSince({ sessionKey: CHILD, agentId: A, since: -1 }), 'since');
      await rejects(() => store.changesSince({ sessionKey: CHILD, agentId: A, since: 1.5 }), 'since');
      await rejects(() => store.changesSince({ sessionKey: CHILD, agentId: A, since: 0, limit: 0 }), 'limit');
      expect(await store.stateVersion(CHILD, A)).toBe(0);
      expect(await store.pendingNotices(PARENT)).toEqual([]);
    });

    it('R9b onlyIfWatched writes nothing when no one watches, and records when someone does', async () => {
      const { store } = await harness(factory);
      expect(await store.record(human(PEER, { onlyIfWatched: true }))).toBeUndefined();
      expect(await store.stateVersion(PEER, A)).toBe(0);
      expect(await store.record(human(PEER, { onlyIfWatched: true, watchers: ['global'] }))).toBeUndefined();
      expect(await store.record(human(PEER, { onlyIfWatched: true, watchers: [PEER] }))).toBeUndefined();
      expect(await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ watched: true });
      const e = await store.record(human(PEER, { onlyIfWatched: true }));
      expect(e?.sequence).toBeGreaterThan(0);
      const withParent = await store.record(human(CHILD, { onlyIfWatched: true, watchers: [PARENT] }));
      expect(withParent?.sequence).toBeGreaterThan(0);
    });
  });

  describe(`${name}: who is notified (R10-R18)`, () => {
    it('R10 every kind in the table behaves as its class says', async () => {
      for (const kind of Object.keys(NOTIFY_CLASS) as EventKind[]) {
        const { store } = await harness(factory);
        await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
        const payload =
          kind === 'run_failed' ? { outcome: 'error' } : kind === 'upstream_missing' ? { channel: 'claude' } : kind === 'adopted' ? { catalogId: 'claude', hostId: 'gateway:local' } : undefined;
        await store.record({ sessionKey: CHILD, agentId: A, kind, actorType: 'system', summary: `${kind} happened`, ...(payload ? { payload } : {}) } as never);
        const expected = NOTIFY_CLASS[kind] === 'notify' || NOTIFY_CLASS[kind] === 'terminal' ? 1 : 0;
        expect((await store.pendingNotices(COORD)).length, kind).toBe(expected);
      }
    });

    it('R11 producer watchers and cursor holders are both notified, once each', async () => {
      const { store } = await harness(factory);
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
      await store.record(human(CHILD, { watchers: [PARENT, PARENT, COORD, CHILD] }));
      expect((await store.pendingNotices(PARENT)).length).toBe(1);
      expect((await store.pendingNotices(COORD)).length).toBe(1);
      expect(await store.pendingNotices(CHILD)).toEqual([]);
    });

    it('R12 a watcher is never told about its own action', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record({ sessionKey: CHILD, agentId: A, kind: 'agent_message', actorType: 'agent', actorId: PARENT, summary: 'message from parent' });
      await store.record({ sessionKey: CHILD, agentId: A, kind: 'goal_changed', actorType: 'agent', actorId: PARENT, summary: 'goal updated' });
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      await store.restart(); // no silent cursor write either: the sweep finds nothing pending
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      const peer = await store.record({ sessionKey: CHILD, agentId: A, kind: 'agent_message', actorType: 'agent', actorId: PEER, summary: 'message from peer' });
      expect((await store.drainNotices(PARENT)).map((n) => n.lastSeenSequence)).toEqual([1]);
      expect(await store.drainNotices(PARENT)).toEqual([]); // nothing interleaved: the self events never moved M
      expect(peer!.sequence).toBe(4);
    });

    it('R13 bare watcher keys get no cursor and no notice, but keep log and changesSince', async () => {
      const { store } = await harness(factory);
      expect(await store.watch({ watcherSessionKey: 'global', targetSessionKey: CHILD, agentId: A })).toEqual({ watched: false });
      await store.record(spawn(CHILD, 'global'));
      await store.record(human(CHILD, { watchers: ['global', 'main'] }));
      expect(await store.pendingNotices('global')).toEqual([]);
      expect(await store.pendingNotices('main')).toEqual([]);
      const g = await store.record({ ...human('global'), agentId: 'ops' });
      const r = await store.changesSince({ sessionKey: 'global', agentId: 'ops', since: 0 });
      expect(r.stateChanges.events.map((e) => e.sequence)).toEqual([g!.sequence]);
    });

    it('R14 spawn seeds the parent cursor at the spawn sequence without a notice', async () => {
      const { store } = await harness(factory);
      await store.record(human()); // history before the spawn
      const s = await store.record(spawn());
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      await store.record(human());
      const [n] = await store.pendingNotices(PARENT);
      expect(n?.lastSeenSequence).toBe(s!.sequence);
    });

    it('R14 a re-spawn onto a pending cursor does not clobber the pending notice', async () => {
      const { store } = await harness(factory);
      const s = await store.record(spawn());
      await store.record(human());
      await store.record(spawn(CHILD, PARENT, 'r2'));
      const pending = await store.pendingNotices(PARENT);
      expect(pending.map((n) => n.lastSeenSequence)).toEqual([s!.sequence]);
      await store.drainNotices(PARENT);
      // r2's spawn sequence is above the frozen watermark, but child_spawned is not material: no follow-up
      expect(await store.pendingNotices(PARENT)).toEqual([]);
    });

    it('R15 a producer-passed parent without a cursor is told from 0', async () => {
      const { store } = await harness(factory);
      await store.record(human(CHILD, { watchers: [PARENT] }));
      const [n] = await store.pendingNotices(PARENT);
      expect(n?.lastSeenSequence).toBe(0);
      expect(n?.text).toBe(noticeText(CHILD, 0));
    });

    it('R16 terminal runs notify explicit watchers only, never the spawning parent', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
      await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed', watchers: [PARENT] });
      await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_failed', actorType: 'system', summary: 'child run timed out', payload: { outcome: 'timeout' }, watchers: [PARENT, PEER] });
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      expect(await store.pendingNotices(PEER)).toEqual([]);
      expect((await store.pendingNotices(COORD)).length).toBe(1);
      // a parent that also watches explicitly is an explicit watcher
      await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
      await store.record({ sessionKey: CHILD, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed' });
      expect((await store.pendingNotices(PARENT)).length).toBe(1);
    });

    it('R18 a rejected record enqueues nothing; notices follow only committed events', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await rejects(() => store.record(human(CHILD, { summary: 'a\nb' })), 'summary');
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      const e = await store.record(human());
      const [n] = await store.pendingNotices(PARENT);
      expect(n?.lastSeenSequence).toBeLessThan(e!.sequence);
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: n!.lastSeenSequence })).stateChanges.events.map((x) => x.sequence)).toEqual([e!.sequence]);
    });

    it('R17 log-only kinds change no cursor and never reopen an acked pair', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      await store.record({ sessionKey: CHILD, agentId: A, kind: 'compacted', actorType: 'system', summary: 'session compacted' });
      await store.drainNotices(PARENT);
      expect(await store.pendingNotices(PARENT)).toEqual([]);
    });
  });

  describe(`${name}: notices and acknowledgement (R20-R29)`, () => {
    it('R20 cursors are per target identity: two agents\' global sessions are independent', async () => {
      const { store } = await harness(factory);
      const W = 'agent:ops:main';
      await store.watch({ watcherSessionKey: W, targetSessionKey: 'global', agentId: 'ops' });
      await store.record({ ...human('global'), agentId: 'other' });
      expect(await store.pendingNotices(W)).toEqual([]);
      await store.record({ ...human('global'), agentId: 'ops' });
      const [n] = await store.pendingNotices(W);
      expect(n?.targetAgentId).toBe('ops');
    });

    it('R21 explicit watch is refused for bare or self watchers and starts at the current head', async () => {
      const { store } = await harness(factory);
      await store.record(human(PEER));
      const head = await store.record(human(PEER));
      expect(await store.watch({ watcherSessionKey: PEER, targetSessionKey: PEER, agentId: A })).toEqual({ watched: false });
      expect(await store.watch({ watcherSessionKey: 'main', targetSessionKey: PEER, agentId: A })).toEqual({ watched: false });
      expect(await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ watched: true });
      await store.record(human(PEER));
      const [n] = await store.pendingNotices(COORD);
      expect(n?.lastSeenSequence).toBe(head!.sequence);
    });

    it('R21 re-watching keeps a pending notice and its frozen watermark', async () => {
      const { store } = await harness(factory);
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      await store.record(human(PEER));
      const before = await store.pendingNotices(COORD);
      await store.record(human(PEER));
      expect(await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ watched: true });
      expect(await store.pendingNotices(COORD)).toEqual(before);
      expect(before[0]?.lastSeenSequence).toBe(0);
    });

    it('R22 history before the watch never notifies', async () => {
      const { store } = await harness(factory);
      for (let i = 0; i < 5; i++) await store.record(human(PEER));
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      expect(await store.pendingNotices(COORD)).toEqual([]);
      await store.restart();
      expect(await store.pendingNotices(COORD)).toEqual([]);
    });

    it('R23 the notice text is exact', async () => {
      const { store } = await harness(factory);
      for (let i = 0; i < 11; i++) await store.record(human(PEER)); // head 11
      await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
      const s = await store.record(spawn());
      await store.record(human());
      const [n] = await store.pendingNotices(PARENT);
      expect(n?.text).toBe(
        `Session "agent:main:subagent:child" changed (other actor). Reconcile before acting: session_status sessionKey "agent:main:subagent:child" changesSince ${s!.sequence}.`,
      );
    });

    it('R24 twenty fast changes give one byte-identical pending notice', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      const first = await store.pendingNotices(PARENT);
      for (let i = 0; i < 19; i++) await store.record(human());
      const after = await store.pendingNotices(PARENT);
      expect(after).toEqual(first);
      expect(after.length).toBe(1);
      expect(after[0]!.contextKey).toMatch(/^session-state:[0-9a-f]+:[0-9a-f]+$/);
    });

    it('R25 sub-agent watchers wake next turn, main watchers immediately', async () => {
      const { store } = await harness(factory);
      const SUB = 'agent:main:subagent:lead';
      await store.watch({ watcherSessionKey: SUB, targetSessionKey: PEER, agentId: A });
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      await store.record(human(PEER));
      expect((await store.pendingNotices(SUB))[0]?.wake).toBe('next-turn');
      expect((await store.pendingNotices(COORD))[0]?.wake).toBe('immediate');
    });

    it('R26 pending notices are ordered by target and are not acked by reading', async () => {
      const { store } = await harness(factory);
      const targets = ['agent:main:z', 'agent:main:b', 'agent:main:m'];
      for (const t of targets) await store.watch({ watcherSessionKey: COORD, targetSessionKey: t, agentId: A });
      for (const t of targets) await store.record(human(t));
      const once = await store.pendingNotices(COORD);
      expect(once.map((n) => n.targetSessionKey)).toEqual(['agent:main:b', 'agent:main:m', 'agent:main:z']);
      expect(await store.pendingNotices(COORD)).toEqual(once);
    });

    it('R27 drain returns the pending notices, leaves none pending and acks to the frozen watermark', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      const f = await store.record(human());
      const pending = await store.pendingNotices(PARENT);
      expect(await store.drainNotices(PARENT)).toEqual(pending);
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      const g = await store.record(human());
      const [n] = await store.pendingNotices(PARENT);
      expect(n?.lastSeenSequence).toBe(f!.sequence);
      expect(g!.sequence).toBeGreaterThan(f!.sequence);
    });

    it('R28 work interleaved before the drain reopens exactly one follow-up quoting the old watermark', async () => {
      const { store } = await harness(factory);
      const s = await store.record(spawn());
      const f = await store.record(human());
      await store.record(human());
      await store.record(human());
      const [first] = await store.drainNotices(PARENT);
      expect(first?.lastSeenSequence).toBe(s!.sequence);
      // pending right at the ack (the cursor has N > L again)
      expect((await store.pendingNotices(PARENT)).map((n) => n.lastSeenSequence)).toEqual([f!.sequence]);
      // and durable: a restart between the drains must not lose the interleaved events
      await store.restart();
      const followUps = await store.drainNotices(PARENT);
      expect(followUps.map((n) => n.lastSeenSequence)).toEqual([f!.sequence]);
      expect(await store.drainNotices(PARENT)).toEqual([]);
    });

    it('R28 no follow-up when nothing interleaved', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      expect((await store.drainNotices(PARENT)).length).toBe(1);
      expect(await store.drainNotices(PARENT)).toEqual([]);
    });

    it('R29 restart changes no cursor: the same pending notices before and after, and the same follow-ups as without it', async () => {
      const script = async (withRestarts: boolean) => {
        const { store } = await harness(factory);
        const out: unknown[] = [];
        const maybeRestart = async () => {
          if (withRestarts) await store.restart();
        };
        await store.record(spawn());
        await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
        await store.record(human());
        await store.record(human());
        await store.record(human(PEER));
        await store.drainNotices(COORD); // settled
        await maybeRestart();
        out.push(await store.pendingNotices(PARENT), await store.pendingNotices(COORD));
        await maybeRestart();
        out.push(await store.drainNotices(PARENT)); // quotes the spawn; owes a follow-up (M > N)
        await maybeRestart();
        out.push(await store.drainNotices(PARENT), await store.drainNotices(PARENT));
        await store.close();
        return out;
      };
      const withRestarts = await script(true);
      expect(withRestarts).toEqual(await script(false));
      expect((withRestarts as { lastSeenSequence: number }[][]).map((ns) => ns.map((n) => n.lastSeenSequence))).toEqual([[1], [], [1], [2], []]);
    });

    it('R27b ackNotices acks exactly the delivered notices still pending with the same L, in R26 order', async () => {
      const { store } = await harness(factory);
      const T1 = 'agent:main:t1';
      const T2 = 'agent:main:t2';
      for (const t of [T2, T1]) await store.watch({ watcherSessionKey: COORD, targetSessionKey: t, agentId: A });
      await store.record(human(T2));
      await store.record(human(T1));
      const delivered = await store.pendingNotices(COORD);
      await store.record(human(T2)); // interleaved after delivery: T2 owes a follow-up
      const acked = await store.ackNotices(COORD, [...delivered].reverse());
      expect(acked).toEqual(delivered); // what was acked, as it was delivered, in R26 order
      const left = await store.pendingNotices(COORD);
      expect(left.map((n) => [n.targetSessionKey, n.lastSeenSequence])).toEqual([[T2, 1]]); // R28 follow-up
      // Acking the same notices again acks nothing: T1 is settled, T2's L moved on.
      expect(await store.ackNotices(COORD, delivered)).toEqual([]);
      expect(await store.pendingNotices(COORD)).toEqual(left);
      // Plain {contextKey, lastSeenSequence} pairs work as well as Notice objects.
      expect(await store.ackNotices(COORD, left.map((n) => ({ contextKey: n.contextKey, lastSeenSequence: n.lastSeenSequence })))).toEqual(left);
      expect(await store.pendingNotices(COORD)).toEqual([]);
    });

    it('R27b a foreign context key, a stale L, another watcher\'s pair or a bare watcher acks nothing', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      const [n] = await store.pendingNotices(PARENT);
      const foreign = [
        { contextKey: n!.contextKey.toUpperCase().replace('SESSION-STATE', 'other'), lastSeenSequence: n!.lastSeenSequence },
        { contextKey: `${n!.contextKey}0`, lastSeenSequence: n!.lastSeenSequence }, // odd hex
        { contextKey: 'session-state:6d61696e:ff', lastSeenSequence: n!.lastSeenSequence }, // not UTF-8
        { contextKey: n!.contextKey, lastSeenSequence: n!.lastSeenSequence + 1 }, // stale or future L
        { contextKey: encodeContextKey('ops', CHILD), lastSeenSequence: n!.lastSeenSequence }, // another agent's identity
      ];
      expect(await store.ackNotices(PARENT, foreign)).toEqual([]);
      expect(await store.ackNotices(COORD, [n!])).toEqual([]); // COORD has no cursor there
      expect(await store.ackNotices('global', [n!])).toEqual([]);
      expect(await store.ackNotices(PARENT, [])).toEqual([]);
      expect(await store.pendingNotices(PARENT)).toEqual([n]);
      // The key is decoded case-insensitively (R24), as drain would name it.
      expect(await store.ackNotices(PARENT, [{ contextKey: n!.contextKey.toUpperCase(), lastSeenSequence: n!.lastSeenSequence }])).toEqual([n]);
    });

    it('R27b bad ackNotices input is a ValidationError naming the field, and nothing is acked', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      const [n] = await store.pendingNotices(PARENT);
      await rejects(() => store.ackNotices('', [n!]), 'watcherSessionKey');
      await rejects(() => store.ackNotices(PARENT, 'all' as never), 'notices');
      await rejects(() => store.ackNotices(PARENT, [n!, { contextKey: n!.contextKey }] as never), 'notices.1.lastSeenSequence');
      await rejects(() => store.ackNotices(PARENT, [n!, { contextKey: n!.contextKey, lastSeenSequence: -1 }]), 'notices.1.lastSeenSequence');
      await rejects(() => store.ackNotices(PARENT, [{ contextKey: 7, lastSeenSequence: 1 }] as never), 'notices.0.contextKey');
      await rejects(() => store.ackNotices(PARENT, [n!, null] as never), 'notices.1');
      expect(await store.pendingNotices(PARENT)).toEqual([n]);
    });

    it('R21b an ambient watch starts at the head, is notified like a spawn cursor with next-turn notices, and never by terminal runs', async () => {
      const { store } = await harness(factory);
      await store.record(human(PEER));
      const head = await store.stateVersion(PEER, A);
      expect(await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' })).toEqual({ watched: true });
      expect(await store.pendingNotices(COORD)).toEqual([]); // R22: history never notifies
      await store.record({ sessionKey: PEER, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed' });
      expect(await store.pendingNotices(COORD)).toEqual([]); // R16
      await store.record(human(PEER));
      const [n] = await store.pendingNotices(COORD);
      expect(n).toMatchObject({ lastSeenSequence: head, wake: 'next-turn' }); // queue-only: a main watcher, yet not woken (R25)
      expect(n!.text).toBe(noticeText(PEER, head));
      // An explicit watch promotes it (R20): the same pending notice now wakes, and terminal runs notify.
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      expect(await store.pendingNotices(COORD)).toEqual([{ ...n, wake: 'immediate' }]);
      await store.drainNotices(COORD);
      await store.record({ sessionKey: PEER, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed' });
      expect((await store.pendingNotices(COORD)).length).toBe(1);
      // Never downgraded: an ambient registration of an explicit cursor changes nothing.
      await store.drainNotices(COORD);
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' });
      await store.record({ sessionKey: PEER, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed' });
      expect((await store.pendingNotices(COORD))[0]?.wake).toBe('immediate');
    });

    it('R21b a spawn seed makes an ambient cursor spawn; ambient watch is refused for bare and self watchers', async () => {
      const { store } = await harness(factory);
      await store.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A, provenance: 'ambient' });
      await store.record(spawn());
      await store.record(human());
      expect((await store.pendingNotices(PARENT))[0]).toMatchObject({ lastSeenSequence: 1, wake: 'immediate' }); // spawn now: seeded at 1, woken
      expect(await store.watch({ watcherSessionKey: 'global', targetSessionKey: PEER, agentId: A, provenance: 'ambient' })).toEqual({ watched: false });
      expect(await store.watch({ watcherSessionKey: PEER, targetSessionKey: PEER, agentId: A, provenance: 'ambient' })).toEqual({ watched: false });
      await rejects(() => store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'spawn' } as never), 'provenance');
    });

    it('R52 unwatch deletes the cursor and its pending notice; unwatched says whether a cursor existed', async () => {
      const { store } = await harness(factory);
      const req = { watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A };
      expect(await store.unwatch(req)).toEqual({ unwatched: false });
      await store.watch(req);
      await store.record(human(PEER));
      expect((await store.pendingNotices(COORD)).length).toBe(1);
      expect(await store.unwatch(req)).toEqual({ unwatched: true });
      expect(await store.pendingNotices(COORD)).toEqual([]);
      expect(await store.unwatch(req)).toEqual({ unwatched: false });
      await store.record(human(PEER));
      expect(await store.pendingNotices(COORD)).toEqual([]); // no cursor: not notified any more
      // Whatever its provenance: a spawn cursor goes too; a producer passing the watcher again re-creates it (R15).
      await store.record(spawn());
      expect(await store.unwatch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A })).toEqual({ unwatched: true });
      await store.record(human());
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      await store.record(human(CHILD, { watchers: [PARENT] }));
      expect((await store.pendingNotices(PARENT)).map((n) => n.lastSeenSequence)).toEqual([0]);
      // Another agent's session of the same key is another identity: untouched.
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: 'global', agentId: 'ops' });
      expect(await store.unwatch({ watcherSessionKey: COORD, targetSessionKey: 'global', agentId: 'main' })).toEqual({ unwatched: false });
      expect(await store.unwatch({ watcherSessionKey: COORD, targetSessionKey: 'global', agentId: 'ops' })).toEqual({ unwatched: true });
    });

    it('R52 unwatch of a bare or self watcher answers false; bad input is a ValidationError naming the field, nothing written', async () => {
      const { store } = await harness(factory);
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      await store.record(human(PEER));
      expect(await store.unwatch({ watcherSessionKey: 'global', targetSessionKey: PEER, agentId: A })).toEqual({ unwatched: false });
      expect(await store.unwatch({ watcherSessionKey: PEER, targetSessionKey: PEER, agentId: A })).toEqual({ unwatched: false });
      await rejects(() => store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER } as never), 'agentId');
      await rejects(() => store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: 'ops' }), 'agentId'); // R1 mismatch
      await rejects(() => store.unwatch({ watcherSessionKey: 'agent:main:a\uD800', targetSessionKey: PEER, agentId: A }), 'watcherSessionKey');
      await rejects(() => store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'explicit' } as never), 'provenance');
      await rejects(() => store.unwatch(null as never), '(input)');
      expect((await store.pendingNotices(COORD)).length).toBe(1);
    });
  });

  describe(`${name}: reconciliation (R30-R35)`, () => {
    it('R30 returns ascending events after since, at most limit, clamped to 200', async () => {
      const { store } = await harness(factory);
      const seqs: number[] = [];
      for (let i = 0; i < 205; i++) {
        seqs.push((await store.record(human()))!.sequence);
        if (i % 50 === 0) await store.record(human(PEER));
      }
      const all = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0, limit: 1000 });
      expect(all.stateChanges.events.length).toBe(200);
      expect(all.stateChanges.events.map((e) => e.sequence)).toEqual(seqs.slice(0, 200));
      const tail = await store.changesSince({ sessionKey: CHILD, agentId: A, since: seqs[199]! });
      expect(tail.stateChanges.events.map((e) => e.sequence)).toEqual(seqs.slice(200));
      const one = await store.changesSince({ sessionKey: CHILD, agentId: A, since: seqs[2]!, limit: 1 });
      expect(one.stateChanges.events.map((e) => e.sequence)).toEqual([seqs[3]]);
      for (const e of all.stateChanges.events) assertSchema(StateEvent, e);
    });

    it('R30b changesSince returns the whole stored records, as record returned them', async () => {
      const { store } = await harness(factory);
      const a = await store.record(spawn());
      const b = await store.record({ sessionKey: CHILD, agentId: A, sessionId: 's-1', kind: 'run_failed', actorType: 'system', runId: 'r1', summary: 'child run cancelled', payload: { outcome: 'cancelled' }, dedupeKey: 'run-terminal:r1', occurredAt: T0 - HOUR });
      const r = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
      expect(r.stateChanges.events).toEqual([a, b]);
    });

    it('R31 truncated is true exactly when more events exist', async () => {
      const { store } = await harness(factory);
      for (let i = 0; i < 3; i++) await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0, limit: 2 })).stateChanges.truncated).toBe(true);
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0, limit: 3 })).stateChanges.truncated).toBe(false);
    });

    it('R32 earliestAvailableSequence: lowest retained, else head+1, else 0', async () => {
      const { store, clock } = await harness(factory, { retentionMs: DAY });
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.earliestAvailableSequence).toBe(0);
      await store.record(human(PEER));
      const a = await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.earliestAvailableSequence).toBe(a!.sequence);
      clock.advance(2 * DAY);
      await store.prune();
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.earliestAvailableSequence).toBe(a!.sequence + 1);
    });

    it('R33 historyGap comes from the pruned watermark, never from sparse sequences', async () => {
      const { store, clock } = await harness(factory, { retentionMs: DAY });
      const a = await store.record(human());
      for (let i = 0; i < 3; i++) await store.record(human(PEER)); // sparse: CHILD has a, then b
      const b = await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: a!.sequence })).stateChanges.historyGap).toBe(false);
      clock.advance(DAY / 2);
      const c = await store.record(human());
      clock.advance(DAY / 2 + 1);
      await store.prune(); // a and b are older than a day, c is not
      const r0 = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
      expect(r0.stateChanges.historyGap).toBe(true);
      expect(r0.stateChanges.events.map((e) => e.sequence)).toEqual([c!.sequence]);
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: a!.sequence })).stateChanges.historyGap).toBe(true);
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: b!.sequence })).stateChanges.historyGap).toBe(false);
      // PEER lost its events too, but CHILD's answer is only about CHILD
      expect((await store.changesSince({ sessionKey: PEER, agentId: A, since: b!.sequence })).stateChanges.historyGap).toBe(false);
    });

    it('R34 reading never moves a cursor or touches the queue', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.record(human());
      const pending = await store.pendingNotices(PARENT);
      await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
      await store.stateVersion(CHILD, A);
      expect(await store.pendingNotices(PARENT)).toEqual(pending);
      await store.record(human());
      expect(await store.pendingNotices(PARENT)).toEqual(pending);
    });

    it('R30 an unknown session answers version 0 and an empty page in the seed\'s shape', async () => {
      const { store } = await harness(factory);
      const r = await store.changesSince({ sessionKey: 'agent:main:nobody', agentId: A, since: 5 });
      expect(r).toEqual({ stateVersion: 0, stateChanges: { events: [], historyGap: false, truncated: false, earliestAvailableSequence: 0 } });
    });
  });

  describe(`${name}: pruning (R40-R44)`, () => {
    it('R40 removes events older than retention by occurredAt', async () => {
      const { store, clock } = await harness(factory, { retentionMs: 10 * DAY });
      await store.record(human(CHILD, { occurredAt: T0 - DAY })); // clamped to T0 - 1 day
      await store.record(human());
      clock.advance(9 * DAY + HOUR);
      await store.prune();
      const r = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
      expect(r.stateChanges.events.length).toBe(1);
      expect(r.stateChanges.historyGap).toBe(true);
    });

    it('R41 keeps at most maxRows events, the newest', async () => {
      const { store } = await harness(factory, { maxRows: 5 });
      const seqs: number[] = [];
      for (let i = 0; i < 8; i++) seqs.push((await store.record(human(i % 2 ? CHILD : PEER)))!.sequence);
      await store.prune();
      const c = await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
      const p = await store.changesSince({ sessionKey: PEER, agentId: A, since: 0 });
      const kept = [...c.stateChanges.events, ...p.stateChanges.events].map((e) => e.sequence).sort((x, y) => x - y);
      expect(kept).toEqual(seqs.slice(3));
    });

    it('R42 heads stay monotonic and watermarks only rise through pruning', async () => {
      const { store, clock } = await harness(factory, { maxRows: 2, retentionMs: DAY });
      for (let i = 0; i < 4; i++) await store.record(human());
      const head = await store.stateVersion(CHILD, A);
      await store.prune();
      expect(await store.stateVersion(CHILD, A)).toBe(head);
      clock.advance(2 * DAY);
      await store.prune();
      expect(await store.stateVersion(CHILD, A)).toBe(head);
      const r = await store.changesSince({ sessionKey: CHILD, agentId: A, since: head - 1 });
      expect(r.stateChanges.historyGap).toBe(true);
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: head })).stateChanges.historyGap).toBe(false);
      const next = await store.record(human());
      expect(next!.sequence).toBeGreaterThan(head);
    });

    it('R43 the write path prunes at most hourly', async () => {
      const { store, clock } = await harness(factory, { maxRows: 2 });
      for (let i = 0; i < 5; i++) await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events.length).toBe(5);
      clock.advance(HOUR);
      await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events.length).toBe(2);
      for (let i = 0; i < 3; i++) await store.record(human());
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events.length).toBe(5);
    });

    it('R43 a record reads the clock once: a clock that fails right after cannot fail the write-path prune of a record that committed (R6, R9)', async () => {
      let t = T0;
      let reads = 0;
      let failAfter = Infinity;
      const store = await factory({ now: () => (++reads > failAfter ? -1 : t), maxRows: 2 });
      for (let i = 0; i < 3; i++) await store.record(human());
      t += HOUR; // the next record makes a prune due
      failAfter = reads + 1; // that record's own reading is good; any later one is refused
      const event = await store.record(human());
      expect(event?.sequence).toBeGreaterThan(0);
      failAfter = Infinity;
      expect((await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).stateChanges.events.length).toBe(2); // and it pruned (R41)
      await store.close();
    });

    it('R44 re-watching and acking refresh a cursor; a restart does not', async () => {
      const { store, clock } = await harness(factory, { retentionMs: 10 * DAY });
      const T1 = 'agent:main:t1';
      const T2 = 'agent:main:t2';
      const T3 = 'agent:main:t3';
      for (const t of [T1, T2, T3]) await store.watch({ watcherSessionKey: COORD, targetSessionKey: t, agentId: A });
      await store.record(human(T2));
      await store.record(human(T3));
      clock.advance(6 * DAY);
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: T1, agentId: A }); // R21 refresh
      await store.drainNotices(COORD); // acks T2 and T3 (R27 refresh)
      await store.record(human(T3)); // T3 pending again
      clock.advance(DAY);
      await store.restart(); // changes no cursor (R29): no refresh
      clock.advance(5 * DAY); // T1, T2 last touched 6 days ago; T3 by its material event 6 days ago
      await store.prune();
      for (const t of [T1, T2, T3]) await store.record(human(t));
      expect((await store.pendingNotices(COORD)).map((n) => n.targetSessionKey)).toEqual([T1, T2, T3]);
      clock.advance(11 * DAY);
      await store.restart(); // pending but idle for 11 days: a restart keeps nothing alive
      await store.prune();
      await store.record(human(T1));
      expect(await store.pendingNotices(COORD)).toEqual([]);
    });

    it('R44 an ambient cursor expires like the others, and re-registering it keeps nothing alive (R21b)', async () => {
      const { store, clock } = await harness(factory, { retentionMs: 10 * DAY });
      const ambient = { watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' as const };
      await store.watch(ambient);
      await store.watch({ ...ambient, targetSessionKey: CHILD });
      clock.advance(6 * DAY);
      await store.watch(ambient); // re-registration: updatedAt kept
      await store.watch({ ...ambient, targetSessionKey: CHILD, provenance: 'explicit' }); // promotion refreshes (R21)
      clock.advance(5 * DAY);
      await store.prune();
      await store.record(human(PEER));
      await store.record(human(CHILD));
      expect((await store.pendingNotices(COORD)).map((n) => n.targetSessionKey)).toEqual([CHILD]);
    });

    it('R44 idle cursors expire; material events keep them alive', async () => {
      const { store, clock } = await harness(factory, { retentionMs: 10 * DAY });
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
      clock.advance(6 * DAY);
      await store.record(human(CHILD));
      await store.drainNotices(COORD);
      await store.record({ sessionKey: PEER, agentId: A, kind: 'compacted', actorType: 'system', summary: 'session compacted' }); // log-only: no refresh
      clock.advance(6 * DAY);
      await store.prune();
      await store.record(human(PEER));
      await store.record(human(CHILD));
      const pending = await store.pendingNotices(COORD);
      expect(pending.map((n) => n.targetSessionKey)).toEqual([CHILD]);
    });
  });

  describe(`${name}: lifecycle (R50-R51)`, () => {
    it('R50 reset removes the watcher\'s cursors and notices, keeps its log and its watchers', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.watch({ watcherSessionKey: COORD, targetSessionKey: PARENT, agentId: A });
      await store.record(human());
      const own = await store.record(human(PARENT));
      await store.resetSession(PARENT);
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      await store.record(human());
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      expect(await store.stateVersion(PARENT, A)).toBe(own!.sequence);
      expect((await store.pendingNotices(COORD)).length).toBe(1);
      await store.restart();
      expect(await store.pendingNotices(PARENT)).toEqual([]);
    });

    it('R51 delete removes events, head and cursors both ways, and only for that agent', async () => {
      const { store } = await harness(factory);
      await store.record(spawn());
      await store.watch({ watcherSessionKey: CHILD, targetSessionKey: PEER, agentId: A });
      await store.record(human());
      await store.record(human(PEER));
      await store.record({ ...human('global'), agentId: 'ops' });
      await store.record({ ...human('global'), agentId: 'main' });
      await store.deleteSession(CHILD, A);
      expect(await store.stateVersion(CHILD, A)).toBe(0);
      expect(await store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).toEqual({
        stateVersion: 0, stateChanges: { events: [], historyGap: false, truncated: false, earliestAvailableSequence: 0 },
      });
      const respawn = await store.record(spawn()); // its dedupe key was freed with the event
      expect(respawn!.sequence).toBeGreaterThan(5);
      await store.deleteSession(CHILD, A);
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      expect(await store.pendingNotices(CHILD)).toEqual([]);
      await store.record(human());
      await store.record(human(PEER));
      await store.restart();
      expect(await store.pendingNotices(PARENT)).toEqual([]);
      expect(await store.pendingNotices(CHILD)).toEqual([]);
      await store.deleteSession('global', 'ops');
      expect(await store.stateVersion('global', 'ops')).toBe(0);
      expect(await store.stateVersion('global', 'main')).toBeGreaterThan(0);
    });
  });
}
