/**
 * SQLite-specific behaviour that the shared rule suite cannot see: what lands in the tables, the
 * driver hazards (bind limits, bigint, lone surrogates), crash-free reopen and lifecycle deletes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { ACK_BY_KEY_MAX, ACK_ONE_PASS_SPREAD } from '../../src/sqlite/sqlite-store.js';
import { A, CHILD, COORD, DAY, HOUR, PARENT, PEER, T0, human, spawn } from '../contract/harness.js';
import { TEST_DRIVER, openStore, rows, scalar, tempDir } from './helpers.js';

const dir = tempDir('store');
let fileNo = 0;
const freshPath = () => join(dir, `s${fileNo++}.db`);

function expectValidation(fn: () => unknown, field: string): void {
  try {
    fn();
  } catch (error) {
    expect(isValidationError(error), String(error)).toBe(true);
    expect((error as { field: string }).field).toBe(field);
    return;
  }
  throw new Error(`expected a ValidationError on ${field}`);
}

describe('sqlite store: dedupe (R8)', () => {
  it('a repeated dedupe key returns the stored event and writes nothing, even from another session', () => {
    const { store, db, clock } = openStore();
    store.record(spawn());
    const first = store.record(human(CHILD, { dedupeKey: 'turn-1', payload: { channel: 'telegram', turns: 2 }, runId: 'r1', sessionId: 's1' }))!;
    const before = {
      events: rows(db, 'SELECT * FROM session_state_events ORDER BY sequence'),
      heads: rows(db, 'SELECT * FROM session_state_heads ORDER BY session_key'),
      cursors: rows(db, 'SELECT * FROM session_watch_cursors'),
      count: store.eventCount(),
      pending: store.pendingNotices(PARENT),
    };
    clock.advance(HOUR / 2);
    const again = store.record(human(CHILD, { dedupeKey: 'turn-1', summary: 'a different summary', watchers: [COORD] }));
    const elsewhere = store.record(human(PEER, { dedupeKey: 'turn-1' }));
    expect(again).toEqual(first);
    expect(elsewhere).toEqual(first); // the key is global (R8)
    expect(again!.payload).toEqual({ channel: 'telegram', turns: 2 });
    expect(rows(db, 'SELECT * FROM session_state_events ORDER BY sequence')).toEqual(before.events);
    expect(rows(db, 'SELECT * FROM session_state_heads ORDER BY session_key')).toEqual(before.heads);
    expect(rows(db, 'SELECT * FROM session_watch_cursors')).toEqual(before.cursors);
    expect(store.eventCount()).toBe(before.count);
    expect(store.pendingNotices(PARENT)).toEqual(before.pending);
    expect(store.pendingNotices(COORD)).toEqual([]);
  });
});

describe('sqlite store: clocks (R6)', () => {
  it('stores the clamped occurredAt while recordedAt, head and cursor bookkeeping use the store clock', () => {
    const { store, db } = openStore({ retentionMs: 2 * DAY });
    store.record(spawn());
    const old = store.record(human(CHILD, { occurredAt: T0 - 10 * DAY }))!;
    const future = store.record(human(PEER, { occurredAt: T0 + 5 * HOUR, watchers: [COORD] }))!;
    const ev = rows(db, 'SELECT sequence, occurred_at, recorded_at FROM session_state_events WHERE sequence IN (?, ?) ORDER BY sequence', old.sequence, future.sequence);
    expect(ev).toEqual([
      { sequence: old.sequence, occurred_at: T0 - DAY, recorded_at: T0 },
      { sequence: future.sequence, occurred_at: T0, recorded_at: T0 },
    ]);
    expect(rows(db, 'SELECT DISTINCT updated_at FROM session_state_heads')).toEqual([{ updated_at: T0 }]);
    expect(rows(db, 'SELECT DISTINCT updated_at FROM session_watch_cursors')).toEqual([{ updated_at: T0 }]);
  });

  it('age pruning follows occurredAt, while the prune schedule (R43) follows the store clock', () => {
    const { store, clock, db } = openStore({ retentionMs: 2 * DAY });
    const old = store.record(human(CHILD, { occurredAt: T0 - 10 * DAY }))!; // clamped to T0 - 1 day
    const now = store.record(human(CHILD))!;
    // An old occurredAt does not make the write path prune early: the schedule is local time.
    clock.advance(HOUR - 1);
    store.record(human(PEER));
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(3);
    clock.set(T0 + DAY + 1); // old is now 2 days + 1 ms old by occurredAt; now is 1 day old
    store.record(human(PEER)); // due: an hour has passed since opening
    const kept = store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges;
    expect(kept.events.map((e) => e.sequence)).toEqual([now.sequence]);
    expect(kept.historyGap).toBe(true);
    expect(scalar(db, 'SELECT pruned_max_sequence FROM session_state_heads WHERE session_key = ?', CHILD)).toBe(old.sequence);
  });
});

describe('sqlite store: bind limits', () => {
  it('records with 40,000 producer-passed watchers (beyond SQLite\'s 32,766 bind limit), once each, durably', () => {
    const { store, db } = openStore({ path: freshPath() });
    const watchers = Array.from({ length: 40_000 }, (_, i) => `agent:main:w${i}`);
    const first = store.record(human(CHILD, { watchers }))!;
    expect(first).toBeDefined();
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE target_session_key = ?', CHILD)).toBe(40_000);
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE material = ? AND last_seen = 0', first.sequence)).toBe(40_000);
    // The second event reads all 40,000 cursors back and keeps one frozen notice per pair (R24).
    const pendingBefore = store.pendingNotices('agent:main:w39999');
    const second = store.record(human(CHILD, { watchers: [...watchers, ...watchers.slice(0, 100)] }))!;
    // Schema step 7: the pending cursors take the second event from the target's slots, not by a rewrite.
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE material = ?', second.sequence)).toBe(0);
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors_effective WHERE material = ?', second.sequence)).toBe(40_000);
    expect(store.pendingNotices('agent:main:w39999')).toEqual(pendingBefore);
    expect(pendingBefore.map((n) => n.lastSeenSequence)).toEqual([0]);
    store.restart();
    let total = 0;
    for (const w of [watchers[0]!, watchers[20_000]!, watchers[39_999]!]) {
      const drained = store.drainNotices(w);
      expect(drained.map((n) => n.lastSeenSequence)).toEqual([0]);
      total += drained.length;
    }
    expect(total).toBe(3);
    // R29: the restart changed no cursor. The 3 drained pairs were acked to the frozen watermark and
    // each owes one follow-up for the second event (R28); the other 39,997 still quote 0.
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE notified > last_seen')).toBe(40_000);
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE last_seen = ?', first.sequence)).toBe(3);
  });
});

describe('sqlite store: a drain acks by key, in one pass or in two (R27, R28)', () => {
  // Every way must leave exactly the reference store's cursors: L := old N, N := max(M, old N),
  // and a follow-up pending iff an event came after the frozen watermark. `idle` cursors of the
  // same watcher never change; enough of them sends a drain of many notices the two-pass way.
  // Each way is one statement of the store's; the test counts which ran.
  const WAYS = { 'by key': 'ackPendingCursor', 'one pass': 'ackPendingOfWatcherOnePass', 'two passes': 'ackPendingOfWatcher' } as const;
  const cases: [keyof typeof WAYS, number, number][] = [
    ['by key', 1, 0],
    ['by key', ACK_BY_KEY_MAX, 3],
    ['one pass', ACK_BY_KEY_MAX + 1, 0],
    ['one pass', 3 * ACK_BY_KEY_MAX, (ACK_ONE_PASS_SPREAD - 1) * 3 * ACK_BY_KEY_MAX],
    ['two passes', ACK_BY_KEY_MAX + 1, ACK_ONE_PASS_SPREAD * (ACK_BY_KEY_MAX + 1)],
    ['two passes', 3 * ACK_BY_KEY_MAX, 100],
  ];
  it.each(cases)('R27, R28 (%s): %i pending and %i idle cursors, drained, follow-ups reopened, as in the reference store', (way, n, idle) => {
    const { store, clock } = openStore();
    const statements = (store as unknown as { stmt: Record<string, { run: (...a: unknown[]) => unknown }> }).stmt;
    const ran: Record<string, number> = {};
    for (const name of Object.values(WAYS)) {
      const statement = statements[name]!;
      const run = statement.run.bind(statement);
      statement.run = (...a: unknown[]) => {
        ran[name] = (ran[name] ?? 0) + 1;
        return run(...a);
      };
    }
    const reference = createMemoryStore({ now: clock.now });
    const targets = Array.from({ length: n }, (_, i) => `agent:main:child-${i}`);
    const idleTargets = Array.from({ length: idle }, (_, i) => `agent:main:quiet-${i}`);
    const both = <T>(fn: (s: typeof store | typeof reference) => T): [T, T] => [fn(store), fn(reference)];
    for (const t of [...targets, ...idleTargets]) both((s) => s.watch({ watcherSessionKey: COORD, targetSessionKey: t, agentId: A }));
    for (const t of targets) both((s) => s.record(human(t)));
    clock.advance(1000);
    // Every other target changes again after its notice was frozen: those owe a follow-up (R28).
    targets.forEach((t, i) => i % 2 === 0 && both((s) => s.record(human(t))));
    const [drained, expected] = both((s) => s.drainNotices(COORD));
    expect(ran).toEqual({ [WAYS[way]]: way === 'by key' ? n : 1 });
    expect(drained).toHaveLength(n);
    expect(drained).toEqual(expected);
    for (const t of [...targets, ...idleTargets]) expect(store.cursor(COORD, t, A), t).toEqual(reference.cursor(COORD, t, A));
    const [again, expectedAgain] = both((s) => s.drainNotices(COORD));
    expect(again).toHaveLength(Math.ceil(n / 2));
    expect(again).toEqual(expectedAgain);
    expect(store.pendingNotices(COORD)).toEqual([]);
  });
});

describe('sqlite store: pending cursors take later events from their target slots (schema step 7)', () => {
  // An event rewrites only the idle cursors on its target; a pending one is carried by its target's
  // slots and read through session_watch_cursors_effective. Every step is held to the reference
  // store: the effective M and updatedAt must be what it would have written (R12, R15, R16, R44),
  // also across a provenance promotion of a pending cursor and the drains that fold it (R27, R28).
  it('reads, watches and drains as the reference store does, while the pending rows stay as written', () => {
    const { store, db, clock } = openStore();
    const reference = createMemoryStore({ now: clock.now });
    const both = <T>(fn: (s: typeof store | typeof reference) => T): [T, T] => [fn(store), fn(reference)];
    const pairs = [PARENT, COORD, PEER];
    const OTHER = 'agent:main:subagent:other';
    const agree = (step: string) => {
      for (const w of pairs) expect(store.cursor(w, CHILD, A), `${step}: ${w}`).toEqual(reference.cursor(w, CHILD, A));
      expect(store.cursor(PARENT, OTHER, A), `${step}: ${PARENT} on ${OTHER}`).toEqual(reference.cursor(PARENT, OTHER, A));
      for (const w of pairs) expect(store.pendingNotices(w), `${step}: ${w}`).toEqual(reference.pendingNotices(w));
    };
    const message = (actorId: string) => ({ sessionKey: CHILD, agentId: A, kind: 'agent_message' as const, actorType: 'agent' as const, actorId, summary: 'message' });
    const run = (kind: 'run_completed' | 'run_failed') => ({ sessionKey: CHILD, agentId: A, kind, actorType: 'system' as const, summary: 'run ended', ...(kind === 'run_failed' ? { payload: { outcome: 'error' as const } } : {}) });
    const step = (name: string, fn: (s: typeof store | typeof reference) => unknown) => {
      clock.advance(1000);
      const [got, want] = both(fn);
      expect(got, name).toEqual(want);
      agree(name);
    };
    step('spawn', (s) => s.record(spawn()));
    step('explicit watch', (s) => s.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A }));
    step('ambient watch', (s) => s.watch({ watcherSessionKey: PEER, targetSessionKey: CHILD, agentId: A, provenance: 'ambient' }));
    step('human: all three become pending', (s) => s.record(human()));
    const written = rows(db, 'SELECT watcher_session_key, material, updated_at, folded FROM session_watch_cursors ORDER BY watcher_session_key');
    step('by the coordinator (R12)', (s) => s.record(message(COORD)));
    step('terminal run (R16)', (s) => s.record(run('run_completed')));
    step('by the parent (R12)', (s) => s.record(message(PARENT)));
    // Three events later no pending row was rewritten, yet every cursor reads as the reference's.
    expect(rows(db, 'SELECT watcher_session_key, material, updated_at, folded FROM session_watch_cursors ORDER BY watcher_session_key')).toEqual(written);
    expect(store.cursor(COORD, CHILD, A)!.materialSequence).toBeGreaterThan(Number(written.find((r) => r['watcher_session_key'] === COORD)!['material']));
    step('the spawn cursor promoted while pending (folds under its old class)', (s) => s.watch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A }));
    // The terminal run before the promotion was not the spawn cursor's (R16): the drain must not owe
    // it, even while another of the parent's cursors has to be folded in the same drain.
    step('the parent watches another target', (s) => s.watch({ watcherSessionKey: PARENT, targetSessionKey: OTHER, agentId: A }));
    step('the other target changes', (s) => s.record(human(OTHER)));
    step('and again, by the coordinator', (s) => s.record({ ...message(COORD), sessionKey: OTHER }));
    step('drain the promoted cursor', (s) => s.drainNotices(PARENT));
    step('a terminal run reaches the promoted cursor', (s) => s.record(run('run_failed')));
    step('an ambient re-registration writes nothing', (s) => s.watch({ watcherSessionKey: PEER, targetSessionKey: CHILD, agentId: A, provenance: 'ambient' }));
    for (const w of pairs) step(`drain ${w} (R27, R28: follow-up from the folded M)`, (s) => s.drainNotices(w));
    step('by the peer', (s) => s.record(message(PEER)));
    // R9e: in a batch each event reaches the cursors it made pending earlier in the same batch.
    step('a batch', (s) => s.recordMany([human(), message(COORD), run('run_completed'), message(PARENT)]));
    // R27b: an ack of a named notice folds the cursor as a drain does (the peer's, after the batch).
    for (const w of pairs) step(`drain or ack ${w} again`, (s) => (w === PEER ? s.ackNotices(w, s.pendingNotices(w)) : s.drainNotices(w)));
    for (const w of pairs) step(`ack nothing left for ${w}`, (s) => s.ackNotices(w, s.pendingNotices(w)));
    // R51: a session deleted and watched again under its key starts from nothing (its slots went too).
    step('one more change, so the slots hold something new', (s) => s.record(message(PARENT)));
    step('delete the child session', (s) => s.deleteSession(CHILD, A));
    step('watch it again', (s) => s.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A }));
    // R44: the cursors' effective updatedAt decides expiry, not the stored one.
    clock.advance(30 * DAY - 3500);
    step('prune before the newest event expires', (s) => s.prune());
    clock.advance(10_000);
    step('prune after everything expired', (s) => s.prune());
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors')).toBe(0);
  });
});

describe('sqlite store: integers', () => {
  it('returns plain numbers everywhere (no bigint leaks out of the driver)', () => {
    const { store } = openStore();
    store.record(spawn());
    const e = store.record(human(CHILD, { payload: { turns: 3 } }))!;
    const r = store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
    const [n] = store.drainNotices(PARENT);
    const numbers = [
      e.sequence, e.occurredAt, e.recordedAt, e.payload!.turns,
      r.stateVersion, r.stateChanges.earliestAvailableSequence,
      ...r.stateChanges.events.flatMap((x) => [x.sequence, x.occurredAt, x.recordedAt]),
      store.stateVersion(CHILD, A), n!.lastSeenSequence,
      ...Object.values(store.cursor(PARENT, CHILD, A)!).filter((v) => typeof v !== 'string'),
    ];
    for (const v of numbers) expect(typeof v).toBe('number');
  });

  it('hands out sequence 2^53 - 1 exactly, then refuses 2^53 with a logged unsafe-integer error and writes nothing', () => {
    const { store, db, logger } = openStore();
    store.record(human());
    db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'session_state_events'").run(BigInt(Number.MAX_SAFE_INTEGER) - 1n);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    const top = store.record(human())!;
    expect(top.sequence).toBe(Number.MAX_SAFE_INTEGER);
    store.drainNotices(COORD);
    expect(store.record(human())).toBeUndefined();
    expect(logger.entries).toHaveLength(1);
    expect(logger.entries[0]!.message).toMatch(/record failed/);
    expect(logger.entries[0]!.details).toMatchObject({ name: 'UnsafeIntegerError', code: 'unsafe-integer' });
    expect(String(logger.entries[0]!.details!['error'])).toMatch(/9007199254740992 is outside the safe integer range/);
    expect(store.stateVersion(CHILD, A)).toBe(Number.MAX_SAFE_INTEGER);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(2);
    expect(store.pendingNotices(COORD)).toEqual([]); // R18: a failed write enqueues nothing
  });

  it('R35 degrades reads of an out-of-range integer to 0 / empty with a log line instead of rounding', () => {
    const { store, db, logger } = openStore();
    store.record(human());
    db.prepare('UPDATE session_state_heads SET last_sequence = ?').run(2n ** 53n + 2n);
    expect(store.stateVersion(CHILD, A)).toBe(0);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 })).toEqual({
      stateVersion: 0,
      stateChanges: { events: [], historyGap: false, truncated: false, earliestAvailableSequence: 0 },
    });
    expect(logger.entries.map((e) => [e.message, e.details?.['code']])).toEqual([
      ['sqlite store: stateVersion failed', 'unsafe-integer'],
      ['sqlite store: changesSince failed', 'unsafe-integer'],
    ]);
  });
});

describe('sqlite store: lone surrogates (R1)', () => {
  // What each driver does with a lone surrogate, and that validation stops it first: driver.test.ts.
  it('rejects lone surrogates on every entry point, writing nothing, so distinct keys cannot collide', () => {
    const { store, db } = openStore();
    const lone = 'agent:main:x\uD800';
    const twin = 'agent:main:x\uFFFD';
    store.watch({ watcherSessionKey: COORD, targetSessionKey: twin, agentId: A });
    const t = store.record(human(twin))!;
    expectValidation(() => store.record(human(lone)), 'sessionKey');
    expectValidation(() => store.record(human(CHILD, { actorId: 'x\uDC00' })), 'actorId');
    expectValidation(() => store.record(human(CHILD, { watchers: [PARENT, 'agent:main:w\uD83D'] })), 'watchers.1');
    expectValidation(() => store.record(human(CHILD, { dedupeKey: 'k\uDFFF' })), 'dedupeKey');
    expectValidation(() => store.record(human(CHILD, { runId: '\uD800r' })), 'runId');
    expectValidation(() => store.watch({ watcherSessionKey: 'agent:main:w\uD800', targetSessionKey: CHILD, agentId: A }), 'watcherSessionKey');
    expectValidation(() => store.stateVersion(lone, A), 'sessionKey');
    expectValidation(() => store.changesSince({ sessionKey: lone, agentId: A, since: 0 }), 'sessionKey');
    expectValidation(() => store.pendingNotices('agent:main:w\uD800'), 'watcherSessionKey');
    expectValidation(() => store.drainNotices('agent:main:w\uD800'), 'watcherSessionKey');
    expectValidation(() => store.resetSession(lone), 'sessionKey');
    expectValidation(() => store.deleteSession(lone, A), 'sessionKey');
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(1);
    expect(store.stateVersion(twin, A)).toBe(t.sequence);
    expect(store.pendingNotices(COORD).map((n) => n.targetSessionKey)).toEqual([twin]);
    // Well-formed astral keys round-trip exactly and stay distinct from their U+FFFD look-alike.
    const astral = 'agent:main:x\uD83D\uDE00';
    const a = store.record(human(astral))!;
    expect(store.changesSince({ sessionKey: astral, agentId: A, since: 0 }).stateChanges.events[0]!.sessionKey).toBe(astral);
    expect(store.stateVersion(astral, A)).toBe(a.sequence);
    expect(store.stateVersion('agent:main:x\uFFFD\uFFFD', A)).toBe(0);
  });
});

describe('sqlite store: bare watcher keys (R13)', () => {
  it('never writes a cursor row or a notice for a bare key, on any path', () => {
    const { store, db } = openStore({ path: freshPath() });
    const bare = ['main', 'global', 'Agent:main:x', 'agent::x', 'agent:main:', 'agentmain'];
    for (const w of bare) expect(store.watch({ watcherSessionKey: w, targetSessionKey: CHILD, agentId: A })).toEqual({ watched: false });
    store.record(spawn(CHILD, 'main', 'r1'));
    store.record(human(CHILD, { watchers: bare }));
    store.record({ ...human(CHILD, { watchers: bare }), kind: 'goal_changed', summary: 'goal updated' });
    store.record({ sessionKey: CHILD, agentId: A, kind: 'run_completed', actorType: 'system', summary: 'child run completed', watchers: bare });
    store.record({ ...human('global'), agentId: 'ops', watchers: bare });
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors')).toBe(0);
    store.restart();
    for (const w of bare) {
      expect(store.pendingNotices(w)).toEqual([]);
      expect(store.drainNotices(w)).toEqual([]);
    }
    // The bare session still has its log and changesSince.
    expect(store.changesSince({ sessionKey: 'global', agentId: 'ops', since: 0 }).stateChanges.events).toHaveLength(1);
  });
});

describe('sqlite store: lifecycle (R50, R51)', () => {
  it('reset deletes exactly the watcher\'s cursor rows and so its pending notices', () => {
    const { store, db } = openStore();
    store.record(spawn());
    store.watch({ watcherSessionKey: PARENT, targetSessionKey: PEER, agentId: A });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PARENT, agentId: A });
    store.record(human());
    store.record(human(PEER));
    store.record(human(PARENT));
    store.resetSession(PARENT);
    expect(rows(db, 'SELECT watcher_session_key AS w, target_session_key AS t FROM session_watch_cursors')).toEqual([{ w: COORD, t: PARENT }]);
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.pendingNotices(COORD)).toHaveLength(1);
    expect(store.changesSince({ sessionKey: PARENT, agentId: A, since: 0 }).stateChanges.events).toHaveLength(1);
    store.restart();
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.pendingNotices(COORD)).toHaveLength(1);
  });

  it('delete removes the identity\'s events, head and cursors both ways, frees dedupe keys, and keeps the count exact', () => {
    const { store, db } = openStore();
    store.record(spawn());
    store.watch({ watcherSessionKey: CHILD, targetSessionKey: PEER, agentId: A });
    store.record(human(CHILD, { dedupeKey: 'd1' }));
    store.record(human(PEER));
    store.record({ ...human('global'), agentId: 'ops' });
    const other = store.record({ ...human('global'), agentId: 'main' })!;
    store.deleteSession(CHILD, A);
    expect(scalar(db, 'SELECT count(*) FROM session_state_events WHERE session_key = ?', CHILD)).toBe(0);
    expect(scalar(db, 'SELECT count(*) FROM session_state_heads WHERE session_key = ?', CHILD)).toBe(0);
    expect(scalar(db, 'SELECT count(*) FROM session_watch_cursors WHERE target_session_key = ? OR watcher_session_key = ?', CHILD, CHILD)).toBe(0);
    expect(store.eventCount()).toBe(3); // PEER's and both 'global' events
    expect(store.pendingNotices(PARENT)).toEqual([]);
    expect(store.pendingNotices(CHILD)).toEqual([]);
    const reused = store.record(human(CHILD, { dedupeKey: 'd1' }))!;
    expect(reused.sequence).toBeGreaterThan(other.sequence); // a new event: the key was freed; R7 never reuses
    store.deleteSession('global', 'ops');
    expect(store.stateVersion('global', 'main')).toBe(other.sequence);
  });
});

describe('sqlite store: acknowledgement (R27, R28)', () => {
  it('acks to the frozen watermark in the table; the follow-up is pending from the same commit', () => {
    const { store, db } = openStore();
    const s = store.record(spawn())!;
    const f = store.record(human())!;
    const g = store.record(human())!;
    expect(store.drainNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([s.sequence]);
    expect(rows(db, 'SELECT last_seen, notified, material FROM session_watch_cursors')).toEqual([{ last_seen: f.sequence, notified: g.sequence, material: g.sequence }]);
    expect(store.pendingNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([f.sequence]); // no restart needed
    expect(store.drainNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([f.sequence]);
    expect(store.drainNotices(PARENT)).toEqual([]);
    expect(rows(db, 'SELECT last_seen, notified, material FROM session_watch_cursors')).toEqual([{ last_seen: g.sequence, notified: g.sequence, material: g.sequence }]);
  });
});

describe('sqlite store: restart recovery (R29)', () => {
  it('R29 reopening the file changes no cursor: the same pending notices, acked ones stay acked, and later prunes as the reference does', () => {
    const path = freshPath();
    let referenceClock = T0;
    const reference = createMemoryStore({ now: () => referenceClock, retentionMs: 10 * DAY });
    const first = openStore({ path, retentionMs: 10 * DAY });
    for (const store of [first.store, reference]) {
      store.record(spawn());
      store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
      store.watch({ watcherSessionKey: COORD, targetSessionKey: 'agent:main:quiet', agentId: A });
      store.record(human());
      store.record(human(PEER));
      store.drainNotices(COORD);
      store.record(human(PEER)); // pending again, quoting the acked watermark
      store.record(human()); // PARENT's notice stays frozen
    }
    const pendingParent = first.store.pendingNotices(PARENT);
    const pendingCoord = first.store.pendingNotices(COORD);
    expect(pendingParent).toHaveLength(1);
    expect(pendingCoord).toHaveLength(1);
    first.store.close();

    // The next process, a day later: the pending notices are the file's, exactly as they were.
    const second = openStore({ path, retentionMs: 10 * DAY }, T0 + DAY);
    expect(second.store.pendingNotices(PARENT)).toEqual(pendingParent);
    expect(second.store.pendingNotices(COORD)).toEqual(pendingCoord);
    expect(second.store.drainNotices(PARENT)).toEqual(pendingParent);
    second.store.close();
    const third = openStore({ path, retentionMs: 10 * DAY }, T0 + DAY + 1);
    // Acked before the restart: stays acked; what is pending is the follow-up for the interleaved
    // event (R28), quoting the old watermark, as it would be without any restart.
    // Sequences: spawn 1, the first human turn 2 (the frozen N), then 3, 4, 5.
    expect(pendingParent.map((n) => n.lastSeenSequence)).toEqual([1]);
    expect(third.store.pendingNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([2]);
    expect(third.store.pendingNotices(COORD)).toEqual(pendingCoord);
    third.store.close();

    // The reference restarted at the same moments; ten days on, the prune at opening (R29, R44)
    // leaves the same cursors and notices in both.
    referenceClock = T0 + DAY;
    reference.restart();
    reference.drainNotices(PARENT);
    referenceClock = T0 + DAY + 1;
    reference.restart();
    const fourth = openStore({ path, retentionMs: 10 * DAY }, T0 + 11 * DAY + 2);
    referenceClock = T0 + 11 * DAY + 2;
    reference.restart();
    const pairs: [string, string][] = [[PARENT, CHILD], [COORD, PEER], [COORD, 'agent:main:quiet']];
    expect(pairs.map(([w, t]) => fourth.store.cursor(w, t, A))).toEqual(pairs.map(([w, t]) => reference.cursor(w, t, A)));
    expect([PARENT, COORD].map((w) => fourth.store.pendingNotices(w))).toEqual([PARENT, COORD].map((w) => reference.pendingNotices(w)));
    expect(fourth.store.cursor(COORD, 'agent:main:quiet', A)).toBeUndefined(); // idle and never pending: expired either way
    fourth.store.close();
  });

  it('two connections share one file: each sees the other\'s writes, sequences stay global', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    b.store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    const seqs: number[] = [];
    for (let i = 0; i < 20; i++) seqs.push((i % 2 ? a : b).store.record(human(i % 3 ? CHILD : PEER))!.sequence);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(20);
    expect(a.store.stateVersion(CHILD, A)).toBe(b.store.stateVersion(CHILD, A));
    // The cursor B wrote is durable, so A's records made COORD's notice pending, on both connections.
    expect(a.store.pendingNotices(COORD).map((n) => n.lastSeenSequence)).toEqual([0]);
    expect(b.store.pendingNotices(COORD)).toEqual(a.store.pendingNotices(COORD));
    expect(a.store.eventCount()).toBe(20);
    a.store.close();
    b.store.close();
  });
});

describe('sqlite store: options', () => {
  it('uses WAL, synchronous NORMAL and a 5 s busy timeout by default; all are configurable', () => {
    const def = openStore({ path: freshPath() });
    expect(def.db.pragma('journal_mode')).toBe('wal');
    expect(Number(def.db.pragma('synchronous'))).toBe(1);
    expect(Number(def.db.pragma('busy_timeout'))).toBe(5000);
    const full = openStore({ path: freshPath(), synchronous: 'FULL', busyTimeoutMs: 250 });
    expect(Number(full.db.pragma('synchronous'))).toBe(2);
    expect(Number(full.db.pragma('busy_timeout'))).toBe(250);
    const mem = createSqliteStore({ now: () => T0, driver: TEST_DRIVER });
    expect(mem.path).toBe(':memory:');
    expect(() => createSqliteStore({ now: () => T0, synchronous: 'SOMETIMES' as never })).toThrow(RangeError);
    expect(() => createSqliteStore({ now: () => T0, busyTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => createSqliteStore({ now: () => T0, maxRows: 0 })).toThrow(RangeError);
    for (const s of [def.store, full.store, mem]) s.close();
    expect(() => mem.stateVersion(CHILD, A)).toThrow(/closed/);
  });
});

describe('sqlite store: durable pending notices across connections (R26, R27, R27b, R52)', () => {
  it('R26 a notice raised on one connection is pending on another at once, with no restart; R27 a drain on either acks it for both', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    b.store.record(spawn());
    a.store.record(human());
    const onB = b.store.pendingNotices(PARENT);
    expect(onB.map((n) => n.lastSeenSequence)).toEqual([1]);
    expect(a.store.pendingNotices(PARENT)).toEqual(onB);
    expect(b.store.drainNotices(PARENT)).toEqual(onB);
    expect(a.store.drainNotices(PARENT)).toEqual([]); // exactly once: the other connection finds it acked
    expect(a.store.pendingNotices(PARENT)).toEqual([]);
    a.store.close();
    b.store.close();
  });

  it('R27 drains interleaved on two connections hand each notice to exactly one of them', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    const watchers = Array.from({ length: 6 }, (_, i) => `agent:main:w${i}`);
    const got = new Map<string, number[]>();
    let expected = 0;
    for (let round = 0; round < 8; round++) {
      (round % 2 ? a : b).store.record(human(CHILD, { watchers }));
      expected += watchers.length; // one new notice per watcher per round: each drained before the next record
      for (const [i, w] of watchers.entries()) {
        const first = (i + round) % 2 ? a : b;
        const second = first === a ? b : a;
        for (const n of [...first.store.drainNotices(w), ...second.store.drainNotices(w)]) {
          got.set(w, [...(got.get(w) ?? []), n.lastSeenSequence]);
        }
      }
    }
    const all = [...got.values()].flat();
    expect(all.length).toBe(expected);
    for (const w of watchers) expect(new Set(got.get(w)).size).toBe(got.get(w)!.length); // never the same L twice
    a.store.close();
    b.store.close();
  });

  it('R27b ackNotices on one connection acks what the other delivered; a stale L acks nothing', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    a.store.record(spawn());
    a.store.record(human());
    const delivered = b.store.pendingNotices(PARENT);
    a.store.record(human()); // interleaved: M > N
    expect(a.store.ackNotices(PARENT, delivered)).toEqual(delivered);
    expect(b.store.ackNotices(PARENT, delivered)).toEqual([]); // already acked: the follow-up quotes another L
    expect(b.store.pendingNotices(PARENT).map((n) => n.lastSeenSequence)).toEqual([2]);
    a.store.close();
    b.store.close();
  });

  it('R52 unwatch on one connection removes the pending notice for every connection', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    a.store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    a.store.record(human(PEER));
    expect(b.store.pendingNotices(COORD)).toHaveLength(1);
    expect(b.store.unwatch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A })).toEqual({ unwatched: true });
    expect(a.store.pendingNotices(COORD)).toEqual([]);
    expect(a.store.cursor(COORD, PEER, A)).toBeUndefined();
    a.store.close();
    b.store.close();
  });
});

describe('sqlite store: change hooks for the feed (PendingSource)', () => {
  it('listPending lists every pending pair of every watcher with its wake, from the file', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    a.store.record(spawn());
    a.store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A, provenance: 'ambient' });
    a.store.record(human());
    a.store.record(human(PEER));
    const byKey = (x: { watcherSessionKey: string }, y: { watcherSessionKey: string }) => (x.watcherSessionKey < y.watcherSessionKey ? -1 : 1);
    expect(b.store.listPending().sort(byKey)).toEqual([
      { watcherSessionKey: COORD, targetSessionKey: PEER, targetAgentId: A, lastSeenSequence: 0, wake: 'next-turn' }, // ambient (R25)
      { watcherSessionKey: PARENT, targetSessionKey: CHILD, targetAgentId: A, lastSeenSequence: 1, wake: 'immediate' },
    ]);
    b.store.drainNotices(PARENT);
    expect(a.store.listPending().map((p) => p.watcherSessionKey)).toEqual([COORD]);
    a.store.close();
    b.store.close();
  });

  it('changeToken (PRAGMA data_version) moves on another connection\'s commit, not on this one\'s own', () => {
    const path = freshPath();
    const a = openStore({ path });
    const b = openStore({ path });
    const t0 = a.store.changeToken();
    a.store.record(human(PEER));
    expect(a.store.changeToken()).toBe(t0); // its own commit: onLocalChange says so instead
    const u0 = b.store.changeToken();
    a.store.record(human(PEER));
    expect(b.store.changeToken()).not.toBe(u0);
    const u1 = b.store.changeToken();
    expect(b.store.changeToken()).toBe(u1); // nothing new: the token stands still
    a.store.close();
    b.store.close();
  });

  it('onLocalChange fires after this handle\'s committed writes that can change pending state; a throwing listener is logged and fails nothing', () => {
    const { store, logger } = openStore();
    let calls = 0;
    const off = store.onLocalChange(() => calls++);
    store.onLocalChange(() => {
      throw new Error('listener bug');
    });
    store.record(spawn()); // seeds a cursor
    const afterSeed = calls;
    expect(afterSeed).toBe(1);
    store.record(human());
    expect(calls).toBe(2);
    store.pendingNotices(PARENT); // reads fire nothing
    store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 });
    expect(calls).toBe(2);
    expect(store.drainNotices(PARENT)).toHaveLength(1);
    expect(calls).toBe(3);
    store.drainNotices(PARENT); // nothing pending: nothing written
    expect(calls).toBe(3);
    store.record(human(PEER)); // no watcher of PEER: no cursor written
    expect(calls).toBe(3);
    expect(store.unwatch({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A })).toEqual({ unwatched: true });
    expect(calls).toBe(4);
    expect(logger.entries.filter((e) => e.message.includes('change listener'))).toHaveLength(4);
    off();
    store.record(human(CHILD, { watchers: [COORD] }));
    expect(calls).toBe(4);
    store.close();
  });
});
