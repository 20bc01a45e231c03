/**
 * R40-R44 on the tables: watermarks stamped before deleting (and only raised), age by occurredAt,
 * the global cap via one cut sequence, cursor expiry, the schedule, and the proof that no prune
 * or record statement scans a table (EXPLAIN QUERY PLAN), so a prune costs what it removes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SqliteConnection } from '../../src/sqlite/index.js';
import { SQL } from '../../src/sqlite/sql.js';
import { MIGRATIONS } from '../../src/sqlite/schema.js';
import { A, CHILD, COORD, DAY, HOUR, PARENT, PEER, T0, human } from '../contract/harness.js';
import { connect, openStore, rows, scalar, tempDir } from './helpers.js';

const dir = tempDir('prune');

const heads = (db: SqliteConnection) =>
  Object.fromEntries(rows(db, 'SELECT session_key, last_sequence, pruned_max_sequence FROM session_state_heads').map((r) => [r['session_key'], [r['last_sequence'], r['pruned_max_sequence']]]));

describe('sqlite pruning', () => {
  it('R41/R42 the cap keeps the newest maxRows globally and stamps each identity with its highest removed sequence', () => {
    const { store, db } = openStore({ maxRows: 4 });
    const seq: Record<string, number[]> = { [CHILD]: [], [PEER]: [], [PARENT]: [] };
    for (const k of [CHILD, PEER, CHILD, PARENT, PEER, CHILD, PEER, PARENT, CHILD]) seq[k]!.push(store.record(human(k))!.sequence);
    store.prune();
    const kept = rows(db, 'SELECT sequence FROM session_state_events ORDER BY sequence').map((r) => r['sequence']);
    expect(kept).toEqual([6, 7, 8, 9]);
    // Highest removed per identity: CHILD lost 1 and 3, PEER 2 and 5, PARENT 4.
    expect(heads(db)).toEqual({ [CHILD]: [9, 3], [PEER]: [7, 5], [PARENT]: [8, 4] });
    expect(store.eventCount()).toBe(4);
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: 5 }).stateChanges.historyGap).toBe(false);
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: 4 }).stateChanges.historyGap).toBe(true);
  });

  it('R42 a watermark is only ever raised, and pruning never removes or lowers a head', () => {
    const { store, db, clock } = openStore({ retentionMs: DAY });
    store.record(human());
    store.record(human(PEER));
    db.prepare('UPDATE session_state_heads SET pruned_max_sequence = 1000 WHERE session_key = ?').run(CHILD);
    clock.advance(2 * DAY);
    store.prune();
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(0);
    expect(heads(db)).toEqual({ [CHILD]: [1, 1000], [PEER]: [2, 2] });
  });

  it('R42 the highest removed sequence wins whatever order occurredAt puts the removed rows in', () => {
    const { store, db, clock } = openStore({ retentionMs: DAY });
    // CHILD: a newer sequence that occurred earlier, then the reverse for PEER; both pairs go.
    const c1 = store.record(human(CHILD, { occurredAt: T0 - HOUR }))!;
    const c2 = store.record(human(CHILD, { occurredAt: T0 - 2 * HOUR }))!;
    const p1 = store.record(human(PEER, { occurredAt: T0 - 2 * HOUR }))!;
    const p2 = store.record(human(PEER, { occurredAt: T0 - HOUR }))!;
    clock.advance(DAY);
    const kept = store.record(human(CHILD))!;
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events').map((r) => r['sequence'])).toEqual([kept.sequence]);
    expect(heads(db)).toEqual({ [CHILD]: [kept.sequence, c2.sequence], [PEER]: [p2.sequence, p2.sequence] });
    // Raising a watermark leaves the rest of a head the store wrote alone (R5: updated_at is the last record's).
    expect(rows(db, 'SELECT session_key AS k, updated_at AS t FROM session_state_heads ORDER BY k')).toEqual([
      { k: PEER, t: T0 },
      { k: CHILD, t: T0 + DAY },
    ]);
    expect(c1.sequence).toBeLessThan(c2.sequence);
    expect(p1.sequence).toBeLessThan(p2.sequence);
  });

  it('R42, R5 removed rows whose head is missing (another writer left it so) still leave their watermark, in the head R5 asks for', () => {
    const { store, db, clock } = openStore({ retentionMs: DAY });
    store.record(human(CHILD));
    // Two rows the store never saw, the higher sequence older: age order walks the lower one first.
    const foreign = db.prepare(
      "INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, 'main', 'human_direct_message', 'human', ?, ?, 's')",
    );
    foreign.run(PEER, T0, T0 + 5);
    foreign.run(PEER, T0 - HOUR, T0 + 7);
    expect(heads(db)[PEER]).toBeUndefined();
    clock.advance(2 * DAY);
    store.prune();
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(0);
    expect(heads(db)).toEqual({ [CHILD]: [1, 1], [PEER]: [3, 3] });
    expect(scalar(db, 'SELECT updated_at FROM session_state_heads WHERE session_key = ?', PEER)).toBe(T0 + 7);
    expect(scalar(db, 'SELECT updated_at FROM session_state_heads WHERE session_key = ?', CHILD)).toBe(T0); // a head the store wrote keeps its time
    const read = store.changesSince({ sessionKey: PEER, agentId: A, since: 2 });
    expect(read.stateVersion).toBe(3);
    expect(read.stateChanges.historyGap).toBe(true);
    expect(store.changesSince({ sessionKey: PEER, agentId: A, since: 3 }).stateChanges.historyGap).toBe(false);
  });

  it('R40 age is strict on occurredAt: exactly at the cutoff survives', () => {
    const { store, db, clock } = openStore({ retentionMs: 2 * DAY });
    const a = store.record(human(CHILD, { occurredAt: T0 - DAY }))!;
    const b = store.record(human(CHILD, { occurredAt: T0 - DAY + 1 }))!;
    clock.set(T0 + DAY); // cutoff = T0 - DAY
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events').map((r) => r['sequence'])).toEqual([a.sequence, b.sequence]);
    clock.advance(1);
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events').map((r) => r['sequence'])).toEqual([b.sequence]);
    expect(heads(db)[CHILD]).toEqual([b.sequence, a.sequence]);
  });

  it('R44 expires idle cursors with their queued notices; refreshed cursors and the boundary survive', () => {
    const { store, db, clock } = openStore({ retentionMs: 10 * DAY });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: PEER, agentId: A });
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
    store.record(human(PEER)); // COORD/PEER pending, refreshed at T0
    clock.advance(DAY);
    store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A }); // refreshed at T0 + 1 day
    clock.set(T0 + 10 * DAY); // cutoff = T0: updated_at == cutoff survives
    store.prune();
    expect(store.pendingNotices(COORD)).toHaveLength(1);
    clock.advance(1);
    store.prune();
    expect(store.pendingNotices(COORD)).toEqual([]);
    expect(rows(db, 'SELECT target_session_key AS t FROM session_watch_cursors')).toEqual([{ t: CHILD }]);
    store.restart();
    expect(store.pendingNotices(COORD)).toEqual([]);
  });

  it('R43 restart() prunes, and an idle prune takes no write lock', () => {
    const { store, db, clock, logger } = openStore({ retentionMs: DAY, path: join(dir, 'idle.db'), busyTimeoutMs: 20 });
    store.record(human());
    clock.advance(DAY / 2);
    // Another connection holds the write lock: a prune with nothing to do must not even ask for it.
    const other = connect(store.path);
    other.exec('BEGIN IMMEDIATE');
    store.prune();
    expect(logger.entries).toEqual([]);
    other.exec('ROLLBACK');
    other.close();
    clock.advance(DAY);
    store.restart();
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(0);
    store.close();
  });

  it('R41, R43 a log whose sequence span exceeds the cap but whose rows do not (gaps) prunes without the write lock', () => {
    const { store, clock, logger } = openStore({ maxRows: 3, path: join(dir, 'gaps.db'), busyTimeoutMs: 20 });
    for (let i = 0; i < 5; i++) store.record(human(i % 2 === 0 ? CHILD : PEER));
    store.deleteSession(PEER, A); // sequences 1, 3, 5 remain: a span of 5, three rows
    const other = connect(store.path);
    other.exec('BEGIN IMMEDIATE');
    clock.advance(HOUR);
    store.prune();
    expect(logger.entries).toEqual([]);
    other.exec('ROLLBACK');
    other.close();
    expect(store.eventCount()).toBe(3);
    store.close();
  });

  it('R41 in the write transaction a count within the cap cuts nothing, though the span exceeds it (gaps) and an aged row brought the prune there', () => {
    const { store, db } = openStore({ maxRows: 3, retentionMs: DAY });
    for (const k of [CHILD, PEER, PEER, CHILD, CHILD]) store.record(human(k));
    store.deleteSession(PEER, A); // sequences 1, 4 and 5 remain: three rows over a span of five
    // An aged row (another writer's) makes the probe open the write transaction; once it is gone,
    // exactly maxRows rows remain. A cut from that count would point below the first row (SQLite
    // reads a negative OFFSET as 0) and remove sequence 1.
    db.prepare(
      "INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, 'main', 'human_direct_message', 'human', ?, ?, 's')",
    ).run(PARENT, T0 - 2 * DAY, T0);
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events ORDER BY sequence').map((r) => r['sequence'])).toEqual([1, 4, 5]);
    expect(heads(db)[CHILD]).toEqual([5, 0]);
    expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.historyGap).toBe(false);
  });

  it('R41 the probe\'s row count is not used once another connection has committed: the cap stays exact', () => {
    const { store, db } = openStore({ maxRows: 3, path: join(dir, 'recount.db') });
    for (let i = 0; i < 5; i++) store.record(human());
    // Between the read-only probe (5 rows) and the write transaction, another connection adds 4.
    const other = connect(store.path);
    const internals = store as unknown as { pruneRows: (...args: unknown[]) => boolean };
    const pruneRows = internals.pruneRows.bind(store);
    internals.pruneRows = (...args: unknown[]) => {
      for (let i = 0; i < 4; i++) {
        other
          .prepare("INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, 'main', 'human_direct_message', 'human', ?, ?, 's')")
          .run(PEER, T0, T0);
      }
      return pruneRows(...args);
    };
    store.prune();
    other.close();
    // Nine rows at the transaction: the newest three remain (a stale count of five would keep seven).
    expect(rows(db, 'SELECT sequence FROM session_state_events ORDER BY sequence').map((r) => r['sequence'])).toEqual([7, 8, 9]);
    store.close();
  });

  it('R41 the cap counts the rows themselves: rows written or deleted outside the store are capped exactly', () => {
    const { store, db } = openStore({ maxRows: 3 });
    for (let i = 0; i < 5; i++) store.record(human());
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events').map((r) => r['sequence'])).toEqual([3, 4, 5]);
    // Exactly at the cap: nothing to remove.
    db.prepare('DELETE FROM session_state_events WHERE sequence = 3').run();
    store.record(human());
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events').map((r) => r['sequence'])).toEqual([4, 5, 6]);
    // Rows the store never saw inserted (another tool, an old file) still count.
    db.prepare(
      "INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, 'main', 'human_direct_message', 'human', ?, ?, 's')",
    ).run(PEER, T0, T0);
    store.prune();
    expect(rows(db, 'SELECT sequence FROM session_state_events').map((r) => r['sequence'])).toEqual([5, 6, 7]);
    expect(store.eventCount()).toBe(3);
    expect(heads(db)[CHILD]).toEqual([6, 4]);
  });

  const IDLE_SCAN =
    /^(SCAN c( USING (COVERING )?INDEX session_watch_cursors_\w+)?|SEARCH s USING PRIMARY KEY \(session_key=\? AND agent_id=\?\) LEFT-JOIN|SEARCH session_watch_cursors USING PRIMARY KEY \(target_agent_id=\? AND target_session_key=\? AND watcher_session_key=\?\)|LIST SUBQUERY \d+)$/;
  it.each([
    ['an empty', 0],
    ['a filled', 3000],
  ])('the record and prune paths never scan a table (EXPLAIN QUERY PLAN of every statement, %s analyzed file)', (_label, fill) => {
    const db = connect(':memory:');
    for (const step of MIGRATIONS) step.up(db);
    const insert = db.prepare(
      "INSERT INTO session_state_events (session_key, agent_id, kind, actor_type, occurred_at, recorded_at, summary) VALUES (?, 'main', 'human_direct_message', 'human', ?, ?, 's')",
    );
    const cursor = db.prepare(
      "INSERT INTO session_watch_cursors (watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at) VALUES (?, ?, 'main', 0, ?, ?, 'spawn', ?)",
    );
    for (let i = 0; i < fill; i++) {
      insert.run(`agent:main:s${i % 3}`, T0 + i, T0 + i);
      if (i % 10 === 0) cursor.run(`agent:main:w${i}`, `agent:main:s${i % 3}`, i % 20 === 0 ? i : 0, i, T0 + i);
    }
    db.exec('ANALYZE'); // planner statistics, as a long-lived file has them
    const plan = (sql: string) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 1))
        .map((r) => String(r['detail']));
    // Allowed full walks, each bounded: capCut walks the primary key backwards and stops after
    // maxRows rows (OFFSET, hourly); countEvents serves eventCount() (diagnostics); pendingAll
    // walks the partial index that holds only pending cursors (the feed's listPending).
    const allowed: Record<string, RegExp> = {
      capCut: /^SCAN session_state_events$/,
      countEvents: /^SCAN session_state_events USING COVERING INDEX/,
      pendingAll: /^SCAN session_watch_cursors USING (COVERING )?INDEX session_watch_cursors_pending$/,
      // T12: a bound sessions_list page reads every recorded spawn parent once (only spawned
      // sessions have a row), instead of one lookup per listed session.
      allSpawnParents: /^SCAN session_spawn_parents$/,
      // R44 expiry scans the cursors (schema step 3 dropped their updated_at index), hourly, through
      // the effective view (schema step 7): each cursor finds its target's head by primary key.
      anyIdleCursor: IDLE_SCAN,
      idleCursors: IDLE_SCAN,
      deleteIdleCursors: IDLE_SCAN,
    };
    const seen: Record<string, string[]> = {};
    for (const [name, sql] of Object.entries(SQL)) {
      const details = plan(sql);
      seen[name] = details;
      for (const d of details) {
        if (name in allowed) expect(d, name).toMatch(allowed[name]!);
        else expect(d, `${name}: ${d}`).not.toMatch(/^SCAN /);
        expect(d, `${name}: ${d}`).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
      }
    }
    // The statements that matter most, spelled out.
    expect(seen['deleteAged']!.join()).toMatch(/SEARCH session_state_events USING (COVERING )?INDEX session_state_events_occurred \(occurred_at<\?\)/);
    // R42 set-based: the rows to remove, walked once newest first straight off the index (no sort,
    // which the loop above also forbids), each raising its head through the upsert's primary key.
    expect(seen['stampAgedWatermarks']).toEqual(['SEARCH session_state_events USING INDEX session_state_events_occurred (occurred_at<?)']);
    expect(seen['deleteUpTo']!.join()).toMatch(/SEARCH session_state_events USING INTEGER PRIMARY KEY \(rowid<\?\)/);
    expect(seen['stampCappedWatermarks']).toEqual(['SEARCH session_state_events USING INTEGER PRIMARY KEY (rowid<?)']);
    expect(seen['idleCursors']!.join()).toMatch(/^SCAN c( USING (COVERING )?INDEX session_watch_cursors_\w+)?,SEARCH s USING PRIMARY KEY \(session_key=\? AND agent_id=\?\) LEFT-JOIN$/);
    expect(seen['deleteIdleCursors']!.join()).toMatch(/^SEARCH session_watch_cursors USING PRIMARY KEY \(target_agent_id=\? AND target_session_key=\? AND watcher_session_key=\?\),LIST SUBQUERY/);
    expect(seen['lowestSequence']).toEqual(['SEARCH session_state_events']);
    expect(seen['highestSequence']).toEqual(['SEARCH session_state_events']);
    // Schema step 5: a target's cursors are one range of the primary key.
    expect(seen['anyCursorOnTarget']!.join()).toMatch(/SEARCH session_watch_cursors USING PRIMARY KEY \(target_agent_id=\? AND target_session_key=\?\)/);
    expect(seen['notifyIdleCursors']!.join()).toMatch(/SEARCH session_watch_cursors USING PRIMARY KEY \(target_agent_id=\? AND target_session_key=\?\)/);
    expect(seen['deleteCursorsOfWatcher']!.join()).toMatch(/USING (COVERING )?INDEX session_watch_cursors_watcher \(watcher_session_key=\?\)/);
    // Schema step 6: a watcher's pending notices are read from the pending index alone (it holds N for the N > L test).
    expect(seen['pendingOfWatcher']).toEqual(['SEARCH session_watch_cursors USING COVERING INDEX session_watch_cursors_pending (watcher_session_key=?)']);
    // Schema step 7: a drain reads its notices and whether to fold from the pending index, with one
    // head lookup per notice; the fold (only when needed) walks the same index.
    expect(seen['pendingOfWatcherToDrain']).toEqual([
      'SEARCH c USING COVERING INDEX session_watch_cursors_pending (watcher_session_key=?)',
      'SEARCH s USING PRIMARY KEY (session_key=? AND agent_id=?) LEFT-JOIN',
    ]);
    expect(seen['foldPendingOfWatcher']).toEqual([
      'SEARCH c USING INDEX session_watch_cursors_pending (watcher_session_key=?)',
      'SEARCH s USING PRIMARY KEY (session_key=? AND agent_id=?)',
    ]);
    expect(seen['cursor']).toEqual([
      'SEARCH c USING PRIMARY KEY (target_agent_id=? AND target_session_key=? AND watcher_session_key=?)',
      'SEARCH s USING PRIMARY KEY (session_key=? AND agent_id=?) LEFT-JOIN',
    ]);
    expect(seen['ackPendingOfWatcher']!.join()).toMatch(/SEARCH session_watch_cursors USING INDEX session_watch_cursors_pending \(watcher_session_key=\?\)/);
    expect(seen['ackPendingOfWatcherOnePass']!.join()).toMatch(/SEARCH session_watch_cursors USING INDEX session_watch_cursors_watcher \(watcher_session_key=\?\)/);
    expect(seen['cursorCountOfWatcher']).toEqual(['SEARCH session_watch_cursors USING COVERING INDEX session_watch_cursors_watcher (watcher_session_key=?)']);
    expect(seen['ackPendingCursor']!.join()).toMatch(/SEARCH session_watch_cursors USING PRIMARY KEY \(target_agent_id=\? AND target_session_key=\? AND watcher_session_key=\?\)/);
    expect(seen['eventByDedupeKey']!.join()).toMatch(/USING INDEX sqlite_autoindex_session_state_events_1 \(dedupe_key=\?\)/);
    expect(seen['page']!.join()).toMatch(/USING INDEX session_state_events_identity \(agent_id=\? AND session_key=\? AND sequence>\?\)/);
    expect(seen['capCut']).toEqual(['SCAN session_state_events']);
    db.close();
  });

  it('R43 the write path prunes hourly by the store clock, not on every append', () => {
    const { store, db, clock } = openStore({ maxRows: 2 });
    for (let i = 0; i < 10; i++) {
      clock.advance(HOUR / 10 - 1);
      store.record(human());
    }
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(10);
    clock.advance(10);
    store.record(human());
    expect(scalar(db, 'SELECT count(*) FROM session_state_events')).toBe(2);
  });
});
