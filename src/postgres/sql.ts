import { CURSOR_COLUMNS, EVENT_COLUMNS } from '../shared/rows.js';
import { TABLES, quoteIdent } from './schema.js';

/**
 * Every statement the PostgreSQL store runs, for one schema. Exported so the benchmark's raw
 * baseline runs exactly these statements through plain `pg`, and tests can EXPLAIN them.
 * Only reading and writing rows happens here; every protocol decision comes from src/core.
 */

export { CURSOR_COLUMNS, EVENT_COLUMNS };

/** Every statement the store runs, by name, for the given schema. */
export function statements(schema: string) {
  const s = quoteIdent(schema);
  const E = `${s}.${TABLES.events}`;
  const H = `${s}.${TABLES.heads}`;
  const C = `${s}.${TABLES.cursors}`;
  // R68 (schema step 2): a write that changes the pair's notice (u.ch) stamps the transaction's id; any other keeps the row's.
  const upsertCursorsTail =
    'ON CONFLICT (watcher_session_key, target_session_key, target_agent_id) DO UPDATE SET ' +
    'last_seen = excluded.last_seen, notified = excluded.notified, material = excluded.material, provenance = excluded.provenance, updated_at = excluded.updated_at, ' +
    `changed_xid = coalesce(excluded.changed_xid, ${C}.changed_xid)`;
  const unnestCursors = 'unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::bigint[], $9::boolean[]) AS u(w, t, a, l, n, m, p, at, ch)';
  const cursorValues = 'u.w, u.t, u.a, u.l, u.n, u.m, u.p, u.at, CASE WHEN u.ch THEN pg_current_xact_id() END';
  const pairColumns = 'watcher_session_key, target_session_key, target_agent_id, last_seen, notified, provenance';
  return {
    // record
    eventByDedupeKey: `SELECT ${EVENT_COLUMNS} FROM ${E} WHERE dedupe_key = $1`,
    // FOR UPDATE: a drain or ack of one of these cursors (which takes no identity lock) waits for
    // this record, and this record for it, so neither overwrites the other's cursor arithmetic.
    cursorsOnTarget: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE target_agent_id = $1 AND target_session_key = $2 ORDER BY watcher_session_key FOR UPDATE`,
    // One round trip for the event and its head. R5: the head only rises (GREATEST), whatever the
    // commit order; under the identity lock it is this event's sequence anyway.
    insertEventAndHead:
      `WITH e AS (INSERT INTO ${E} (dedupe_key, session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json) ` +
      'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING sequence) ' +
      `INSERT INTO ${H} (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) SELECT $2, $3, e.sequence, 0, $10 FROM e ` +
      `ON CONFLICT (session_key, agent_id) DO UPDATE SET last_sequence = GREATEST(${H}.last_sequence, excluded.last_sequence), updated_at = excluded.updated_at ` +
      'RETURNING (SELECT sequence FROM e) AS sequence',
    // Cursor rows in one statement; the NOTIFY rides along (delivered at commit, R62).
    upsertCursorsNotify:
      `INSERT INTO ${C} (${CURSOR_COLUMNS}, changed_xid) SELECT ${cursorValues} FROM ${unnestCursors} CROSS JOIN (SELECT count(pg_notify(ch, $11)) FROM unnest($10::text[]) AS ch) AS notify ` +
      upsertCursorsTail,
    // R74: the same, its NOTIFY carrying the news: the server writes its transaction's id between the two halves.
    upsertCursorsNews:
      `INSERT INTO ${C} (${CURSOR_COLUMNS}, changed_xid) SELECT ${cursorValues} FROM ${unnestCursors} CROSS JOIN (SELECT count(pg_notify(ch, $11 || pg_current_xact_id()::text || $12)) FROM unnest($10::text[]) AS ch) AS notify ` +
      upsertCursorsTail,
    upsertCursors: `INSERT INTO ${C} (${CURSOR_COLUMNS}, changed_xid) SELECT ${cursorValues} FROM ${unnestCursors} ` + upsertCursorsTail,
    // R68: the reader's new position, and the pairs changed by transactions an old position did not see.
    // The upper bound changes no answer (a row this snapshot sees was written below its xmax) but
    // makes the condition a range, which the planner reads through the index even on a table it
    // has no statistics for yet (one sees the whole table as "a third matches" and scans it all).
    currentSnapshot: 'SELECT pg_current_snapshot()::text AS snapshot',
    changedSince:
      `SELECT ${pairColumns} FROM ${C} WHERE ($2::text[] IS NULL OR watcher_session_key = ANY($2::text[])) AND changed_xid >= pg_snapshot_xmin($1::pg_snapshot) ` +
      'AND changed_xid < pg_snapshot_xmax(pg_current_snapshot()) AND NOT pg_visible_in_snapshot(changed_xid, $1::pg_snapshot) ORDER BY changed_xid',
    // R71: the same read as one statement, for a read that asks no snapshot part. A statement reads
    // one snapshot, and pg_current_snapshot() is that snapshot, so the position and the changes agree
    // without a transaction (one round trip instead of four). The row without pair columns carries
    // the position when nothing changed. $2: R68's watchers the reader wants (null: every watcher).
    changesNow:
      `SELECT s.snapshot, c.* FROM (SELECT pg_current_snapshot()::text AS snapshot) AS s LEFT JOIN LATERAL (SELECT ${pairColumns}, changed_xid FROM ${C} ` +
      'WHERE $1::pg_snapshot IS NOT NULL AND ($2::text[] IS NULL OR watcher_session_key = ANY($2::text[])) AND changed_xid >= pg_snapshot_xmin($1::pg_snapshot) ' +
      'AND changed_xid < pg_snapshot_xmax(pg_current_snapshot()) AND NOT pg_visible_in_snapshot(changed_xid, $1::pg_snapshot)) AS c ON true ORDER BY c.changed_xid',
    pendingPairsOfWatchers: `SELECT ${pairColumns} FROM ${C} WHERE watcher_session_key = ANY($1::text[]) AND notified > last_seen`,
    allPendingPairs: `SELECT ${pairColumns} FROM ${C} WHERE notified > last_seen`,
    // R73: the payload names the watchers the commit changed (routePayload), or everyone.
    // R75: $1 is the wake's channels (src/postgres/wake-channels.ts), the store's own first.
    notify: 'SELECT count(pg_notify(ch, $2)) FROM unnest($1::text[]) AS ch',
    // reads
    cursor: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = $1 AND target_session_key = $2 AND target_agent_id = $3`,
    cursorForUpdate: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = $1 AND target_session_key = $2 AND target_agent_id = $3 FOR UPDATE`,
    head: `SELECT last_sequence FROM ${H} WHERE session_key = $1 AND agent_id = $2`,
    // R30-R33 in one statement, so head, page and lowest sequence come from one snapshot.
    changesSince:
      `SELECT h.last_sequence AS head_last, h.pruned_max_sequence AS head_pruned, ` +
      `(SELECT sequence FROM ${E} WHERE agent_id = $1 AND session_key = $2 ORDER BY sequence LIMIT 1) AS lowest, p.* ` +
      `FROM (SELECT 1) AS one LEFT JOIN ${H} h ON h.session_key = $2 AND h.agent_id = $1 ` +
      `LEFT JOIN LATERAL (SELECT ${EVENT_COLUMNS} FROM ${E} WHERE agent_id = $1 AND session_key = $2 AND sequence > $3 ORDER BY sequence LIMIT $4) p ON true ` +
      'ORDER BY p.sequence',
    // R20: pending = cursors with N > L (served by the partial index).
    pendingOfWatcher: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = $1 AND notified > last_seen`,
    pendingOfWatcherForUpdate: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = $1 AND notified > last_seen ORDER BY target_session_key, target_agent_id FOR UPDATE`,
    allPending: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE notified > last_seen`,
    cursorsOfWatcherOn: `SELECT ${CURSOR_COLUMNS} FROM ${C} WHERE watcher_session_key = $1 AND (target_session_key, target_agent_id) IN (SELECT * FROM unnest($2::text[], $3::text[])) ORDER BY target_session_key, target_agent_id FOR UPDATE`,
    anyCursorOnTarget: `SELECT 1 AS hit FROM ${C} WHERE target_agent_id = $1 AND target_session_key = $2 LIMIT 1`,
    // R40-R44 pruning (under the prune lock).
    countEvents: `SELECT count(*) AS n FROM ${E}`,
    anyAgedEvent: `SELECT 1 AS hit FROM ${E} WHERE occurred_at < $1 LIMIT 1`,
    anyIdleCursor: `SELECT 1 AS hit FROM ${C} WHERE updated_at < $1 LIMIT 1`,
    sequenceSpan: `SELECT (SELECT sequence FROM ${E} ORDER BY sequence LIMIT 1) AS lo, (SELECT sequence FROM ${E} ORDER BY sequence DESC LIMIT 1) AS hi`,
    capCut: `SELECT sequence FROM ${E} ORDER BY sequence DESC LIMIT 1 OFFSET $1`,
    // R42: per identity, its highest removed row (with that row's time, for a head another writer left missing).
    agedMaxByIdentity: `SELECT DISTINCT ON (agent_id, session_key) agent_id, session_key, sequence AS max_sequence, recorded_at FROM ${E} WHERE occurred_at < $1 ORDER BY agent_id, session_key, sequence DESC`,
    cappedMaxByIdentity: `SELECT DISTINCT ON (agent_id, session_key) agent_id, session_key, sequence AS max_sequence, recorded_at FROM ${E} WHERE sequence <= $1 ORDER BY agent_id, session_key, sequence DESC`,
    deleteAged: `DELETE FROM ${E} WHERE occurred_at < $1`,
    deleteUpTo: `DELETE FROM ${E} WHERE sequence <= $1`,
    // R42 (core raiseWatermark) in one statement: each identity's highest removed row raises its
    // head's watermark, never lowers it, and writes nothing when it would not rise. R5: a head
    // missing while its rows exist (only another writer leaves a database so) is created with that
    // row's sequence and time, so the watermark is not lost.
    stampWatermarks:
      `INSERT INTO ${H} AS h (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) ` +
      'SELECT s, a, v, v, t FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS u(s, a, v, t) ' +
      'ON CONFLICT (session_key, agent_id) DO UPDATE SET pruned_max_sequence = excluded.pruned_max_sequence ' +
      'WHERE excluded.pruned_max_sequence > h.pruned_max_sequence',
    deleteIdleCursors: `DELETE FROM ${C} WHERE updated_at < $1 RETURNING notified > last_seen AS pending`,
    // R50-R52 lifecycle
    deleteCursorsOfWatcher: `DELETE FROM ${C} WHERE watcher_session_key = $1 RETURNING notified > last_seen AS pending`,
    deleteCursorsOnTarget: `DELETE FROM ${C} WHERE target_agent_id = $1 AND target_session_key = $2 RETURNING notified > last_seen AS pending`,
    deleteEventsOfIdentity: `DELETE FROM ${E} WHERE agent_id = $1 AND session_key = $2`,
    deleteHead: `DELETE FROM ${H} WHERE session_key = $1 AND agent_id = $2`,
    // T12 (schema step 3): the first spawn of a session names its parent for good.
    insertSpawnParent: `INSERT INTO ${s}.${TABLES.spawnParents} (session_key, agent_id, parent) VALUES ($1, $2, $3) ON CONFLICT (session_key, agent_id) DO NOTHING`,
    spawnParent: `SELECT parent FROM ${s}.${TABLES.spawnParents} WHERE session_key = $1 AND agent_id = $2`,
    allSpawnParents: `SELECT session_key, agent_id, parent FROM ${s}.${TABLES.spawnParents} WHERE parent IS NOT NULL`,
    // T15: one page of sessions after a position, walked off the heads' primary key (COLLATE "C":
    // code point order, no sort); with each its head (T4) and its spawn parent by key (T12). The
    // parent is a subquery per row, not a join: a merge join would walk the parents from the first.
    sessionsPage:
      `SELECT h.session_key, h.agent_id, h.last_sequence, ` +
      `(SELECT p.parent FROM ${s}.${TABLES.spawnParents} p WHERE p.session_key = h.session_key AND p.agent_id = h.agent_id) AS parent ` +
      `FROM ${H} h WHERE (h.session_key, h.agent_id) > ($1::text, $2::text) ORDER BY h.session_key, h.agent_id LIMIT $3`,
    // T15: the next watchers with a pending notice after a key, one seek of the pending index each
    // (a skip scan): a page costs its watchers, not their pairs nor anyone else's.
    pendingWatchersPage:
      'WITH RECURSIVE w(k, n) AS (' +
      `SELECT (SELECT watcher_session_key FROM ${C} WHERE notified > last_seen AND watcher_session_key > $1::text ORDER BY watcher_session_key LIMIT 1), 1 ` +
      `UNION ALL SELECT (SELECT watcher_session_key FROM ${C} WHERE notified > last_seen AND watcher_session_key > w.k ORDER BY watcher_session_key LIMIT 1), w.n + 1 FROM w WHERE w.k IS NOT NULL AND w.n < $2::int` +
      ') SELECT k FROM w WHERE k IS NOT NULL',
    deleteSpawnParent: `DELETE FROM ${s}.${TABLES.spawnParents} WHERE session_key = $1 AND agent_id = $2`,
    deleteCursor: `DELETE FROM ${C} WHERE watcher_session_key = $1 AND target_session_key = $2 AND target_agent_id = $3 RETURNING notified > last_seen AS pending`,
  } as const;
}

export type Statements = ReturnType<typeof statements>;
