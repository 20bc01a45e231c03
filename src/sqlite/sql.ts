import { CURSOR_COLUMNS, EVENT_COLUMNS } from '../shared/rows.js';
import { EFFECTIVE_CURSORS, V7_TAKEN } from './schema.js';

/**
 * Every statement the SQLite store runs, by name, as src/postgres/sql.ts is for PostgreSQL: the
 * store prepares them once per connection, the benchmarks run them raw, and tests EXPLAIN them.
 * Only reading and writing rows happens here; every protocol decision comes from src/core.
 */

/**
 * R68 (schema step 8): the change sequence a write that changes pending notices tags its cursors
 * with. SQLite evaluates the uncorrelated subquery once per statement; the writer then moves the
 * counter on (bumpChangeSequence), under the write lock, so the value is never handed out twice.
 */
const NEXT_CHANGE = '(SELECT change_sequence + 1 FROM session_state_feed WHERE id = 1)';


/**
 * R15 for the target's idle cursors (N = L; core applyMaterial): N freezes at the event, M rises to
 * it, and everything up to it is folded (schema step 7). Pending cursors are not written: the
 * target's slots (upsertSlotsSql) carry the event to them, as session_watch_cursors_effective shows.
 * The integer state test comes before the key comparisons: SQLite checks the terms in this order,
 * and the UPDATE visits every cursor on the target but changes only the idle ones. Parameters: N,
 * M, updated_at, folded, target agent, target key, the actor (IS NOT: no actor excludes nobody,
 * R12). R13: a cursor never watches its own target. R16: terminal runs reach explicit cursors only.
 */
function notifyIdleCursorsSql(onlyExplicit: boolean): string {
  return (
    `UPDATE session_watch_cursors SET notified = ?, material = max(material, ?), updated_at = ?, folded = ?, changed = ${NEXT_CHANGE} ` +
    'WHERE target_agent_id = ? AND target_session_key = ? AND notified = last_seen ' +
    'AND watcher_session_key IS NOT ? AND watcher_session_key <> target_session_key' +
    (onlyExplicit ? " AND provenance = 'explicit'" : '')
  );
}

/**
 * Schema step 7: a notifying event enters its target's slots (material for every notifying kind;
 * nonterminal too unless it is a terminal run, R16), but only while a cursor is held on the target:
 * a cursor created later is folded to its target's newest event, so what happened before it never
 * counts. A slot keeps the newest event and the newest by another actor: an event by the slot's own
 * actor replaces only the first, any other pushes the first down to be the second. SQLite evaluates
 * every SET expression on the old row. Parameters: session key, agent id, per class the sequence,
 * actor (NULL: none) and time (the cursors' updated_at, R44), then target agent and key.
 */
function upsertSlotsSql(terminal: boolean): string {
  const classes = terminal ? ['material'] : ['material', 'nonterminal'];
  const slot = (c: string) =>
    `${c}_other_sequence = CASE WHEN ${c}_actor IS excluded.${c}_actor THEN ${c}_other_sequence ELSE ${c}_sequence END, ` +
    `${c}_other_at = CASE WHEN ${c}_actor IS excluded.${c}_actor THEN ${c}_other_at ELSE ${c}_at END, ` +
    `${c}_sequence = excluded.${c}_sequence, ${c}_actor = excluded.${c}_actor, ${c}_at = excluded.${c}_at`;
  const columns = classes.flatMap((c) => [`${c}_sequence`, `${c}_actor`, `${c}_at`]);
  const values = classes.flatMap(() => ['?', '?', '?']);
  return (
    `INSERT INTO session_state_slots (session_key, agent_id, ${columns.join(', ')}) ` +
    `SELECT ?, ?, ${values.join(', ')} WHERE EXISTS (SELECT 1 FROM session_watch_cursors WHERE target_agent_id = ? AND target_session_key = ?) ` +
    'ON CONFLICT (session_key, agent_id) DO UPDATE SET ' +
    classes.map(slot).join(', ')
  );
}

/**
 * R42 (core raiseWatermark) in one statement: every removed row `removedRows` names raises its
 * identity's watermark with max(), so the highest removed sequence wins without a GROUP BY (its
 * sort and materialized join cost a quarter of a 1k-row age prune over 10k sessions, bench
 * phases-drain-prune). The rows come newest first, so an identity's later rows mostly find its
 * watermark already raised and write nothing. A head is never lowered or removed, and a head the
 * store wrote keeps its last_sequence and updated_at (R5 holds them at or above every stored
 * row). The insert branch only runs for an identity whose head is missing (a file another writer
 * left so): it writes the head R5 asks for instead of losing the watermark, and a later removed
 * row of that identity with a higher sequence (age order is not sequence order) raises it too.
 */
function stampWatermarksSql(removedRows: string): string {
  const h = 'session_state_heads';
  return (
    `INSERT INTO ${h} (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) ` +
    `SELECT session_key, agent_id, sequence, sequence, recorded_at ${removedRows} ` +
    'ON CONFLICT (session_key, agent_id) DO UPDATE SET pruned_max_sequence = excluded.pruned_max_sequence, ' +
    `updated_at = CASE WHEN excluded.last_sequence > ${h}.last_sequence THEN excluded.updated_at ELSE ${h}.updated_at END, ` +
    `last_sequence = max(${h}.last_sequence, excluded.last_sequence) ` +
    `WHERE excluded.pruned_max_sequence > ${h}.pruned_max_sequence`
  );
}

/**
 * Every statement the store runs. Each is prepared once per connection. Exported so a test can
 * EXPLAIN QUERY PLAN each one and prove that nothing on the record or prune path scans a table.
 */
export { CURSOR_COLUMNS, EVENT_COLUMNS };

export const SQL = {
  // record
  eventByDedupeKey: `SELECT ${EVENT_COLUMNS} FROM session_state_events WHERE dedupe_key = ?`,
  // Positional parameters only: named-parameter binding differs between the drivers.
  insertEvent:
    'INSERT INTO session_state_events (dedupe_key, session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json) ' +
    'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  // R5: max(), so a head never moves backwards, even over a row this store did not write.
  upsertHead:
    'INSERT INTO session_state_heads (session_key, agent_id, last_sequence, pruned_max_sequence, updated_at) VALUES (?, ?, ?, 0, ?) ' +
    'ON CONFLICT (session_key, agent_id) DO UPDATE SET last_sequence = max(last_sequence, excluded.last_sequence), updated_at = excluded.updated_at',
  // R9b: whether any cursor is held on the target.
  anyCursorOnTarget:
    'SELECT 1 AS hit FROM session_watch_cursors WHERE target_agent_id = ? AND target_session_key = ? LIMIT 1',
  upsertSlots: upsertSlotsSql(false),
  upsertSlotsTerminal: upsertSlotsSql(true),
  // R11, R15 (set-based, core planSetNotifications): a producer-passed watcher without a cursor gets a
  // blank one (L = N = M = 0, as applyMaterial starts it), which notifyIdleCursors then moves like any other.
  insertBlankCursor:
    `INSERT INTO session_watch_cursors (${CURSOR_COLUMNS}) VALUES (?, ?, ?, 0, 0, 0, 'spawn', ?) ON CONFLICT (watcher_session_key, target_session_key, target_agent_id) DO NOTHING`,
  notifyIdleCursors: notifyIdleCursorsSql(false),
  notifyIdleExplicitCursors: notifyIdleCursorsSql(true),
  // A cursor written whole (seed, watch, ackNotices) from its effective state, and how far it is folded.
  // The last parameter says whether the write changes the pair's notice (R68: then it takes the next change sequence).
  upsertCursor:
    `INSERT INTO session_watch_cursors (${CURSOR_COLUMNS}, folded, changed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CASE WHEN ? THEN ${NEXT_CHANGE} ELSE 0 END) ` +
    'ON CONFLICT (watcher_session_key, target_session_key, target_agent_id) DO UPDATE SET ' +
    'last_seen = excluded.last_seen, notified = excluded.notified, material = excluded.material, provenance = excluded.provenance, updated_at = excluded.updated_at, folded = excluded.folded, ' +
    'changed = CASE WHEN excluded.changed > 0 THEN excluded.changed ELSE session_watch_cursors.changed END',
  // R68: moves the change sequence on after a statement tagged cursors with its next value.
  bumpChangeSequence: 'UPDATE session_state_feed SET change_sequence = change_sequence + 1 WHERE id = 1',
  // reads
  cursor: `SELECT ${CURSOR_COLUMNS}, fold_to FROM ${EFFECTIVE_CURSORS} WHERE watcher_session_key = ? AND target_session_key = ? AND target_agent_id = ?`,
  head: 'SELECT last_sequence, pruned_max_sequence FROM session_state_heads WHERE session_key = ? AND agent_id = ?',
  page: `SELECT ${EVENT_COLUMNS} FROM session_state_events INDEXED BY session_state_events_identity WHERE agent_id = ? AND session_key = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
  lowestRetained: 'SELECT sequence FROM session_state_events INDEXED BY session_state_events_identity WHERE agent_id = ? AND session_key = ? ORDER BY sequence LIMIT 1',
  // R20, R26-R27: pending notices are cursors with N > L, served by the partial index (schema step 4).
  // Only what a notice needs (R23, R25), all in the pending index (schema step 5): no table visit.
  pendingOfWatcher:
    'SELECT target_session_key, target_agent_id, last_seen, provenance FROM session_watch_cursors INDEXED BY session_watch_cursors_pending WHERE watcher_session_key = ? AND notified > last_seen',
  // What a drain reads (schema step 7): the same, and whether the slots carried the cursor a newer
  // event (then M and updated_at must be folded into the row before the ack reads M). Every cursor
  // column it needs is in the pending index; one slots lookup per pending cursor.
  pendingOfWatcherToDrain:
    `SELECT c.target_session_key, c.target_agent_id, c.last_seen, c.provenance, coalesce(${V7_TAKEN.sequence} > c.folded, 0) AS unfolded ` +
    'FROM session_watch_cursors AS c INDEXED BY session_watch_cursors_pending LEFT JOIN session_state_slots AS s ON s.session_key = c.target_session_key AND s.agent_id = c.target_agent_id ' +
    'WHERE c.watcher_session_key = ? AND c.notified > c.last_seen',
  // The fold: each such cursor takes its effective M and updated_at (as the effective view computes
  // them) and is folded to its target's newest slot event. Run only when the read found one to fold.
  foldPendingOfWatcher:
    `UPDATE session_watch_cursors AS c SET material = max(c.material, ${V7_TAKEN.sequence}), updated_at = ${V7_TAKEN.at}, folded = s.material_sequence ` +
    'FROM session_state_slots AS s WHERE c.watcher_session_key = ? AND c.notified > c.last_seen ' +
    `AND s.session_key = c.target_session_key AND s.agent_id = c.target_agent_id AND ${V7_TAKEN.sequence} > c.folded`,
  // R27-R28 for every pending cursor of a watcher at once (core acknowledge): L := N, N := max(M, N).
  // SQLite evaluates every SET expression on the old row, so L takes the old N.
  ackPendingOfWatcher:
    `UPDATE session_watch_cursors INDEXED BY session_watch_cursors_pending SET last_seen = notified, notified = max(material, notified), updated_at = ?, changed = ${NEXT_CHANGE} ` +
    'WHERE watcher_session_key = ? AND notified > last_seen',
  // The same through the watcher index, which the UPDATE does not change, so SQLite runs it in one
  // pass; it visits the watcher's idle cursors too, so only for a watcher whose cursors are mostly
  // pending (ACK_ONE_PASS_SPREAD, counted by the next statement from the same index).
  ackPendingOfWatcherOnePass:
    `UPDATE session_watch_cursors INDEXED BY session_watch_cursors_watcher SET last_seen = notified, notified = max(material, notified), updated_at = ?, changed = ${NEXT_CHANGE} ` +
    'WHERE watcher_session_key = ? AND notified > last_seen',
  cursorCountOfWatcher: 'SELECT count(*) AS n FROM session_watch_cursors INDEXED BY session_watch_cursors_watcher WHERE watcher_session_key = ?',
  // R27-R28 for one pending cursor, by its key: what a drain of a few notices runs per notice (ACK_BY_KEY_MAX).
  ackPendingCursor:
    `UPDATE session_watch_cursors SET last_seen = notified, notified = max(material, notified), updated_at = ?, changed = ${NEXT_CHANGE} ` +
    'WHERE target_agent_id = ? AND target_session_key = ? AND watcher_session_key = ? AND notified > last_seen',
  // R52
  deleteCursor: 'DELETE FROM session_watch_cursors WHERE watcher_session_key = ? AND target_session_key = ? AND target_agent_id = ?',
  // R40-R44 pruning. Each statement but capCut touches only the rows it removes (indexes on
  // occurred_at, the sequence primary key and cursor updated_at): O(removed * log n).
  // INDEXED BY / NOT INDEXED pin those plans: with some table statistics the planner would rather
  // walk the whole identity index to skip a GROUP BY sort (seen in the EXPLAIN test).
  countEvents: 'SELECT count(*) AS n FROM session_state_events',
  anyAgedEvent: 'SELECT 1 AS hit FROM session_state_events INDEXED BY session_state_events_occurred WHERE occurred_at < ? LIMIT 1',
  // R42: each affected head's watermark rises to its identity's highest removed sequence.
  stampAgedWatermarks: stampWatermarksSql(
    'FROM session_state_events INDEXED BY session_state_events_occurred WHERE occurred_at < ? ORDER BY occurred_at DESC, sequence DESC',
  ),
  deleteAged: 'DELETE FROM session_state_events INDEXED BY session_state_events_occurred WHERE occurred_at < ?',
  // R41: the cut is the highest sequence to remove: with n rows, the (n - maxRows)-th from the oldest.
  // No row counter is kept (it cost every append a write). count(*) walks the narrowest index (the
  // occurred_at one, a tenth of the table's pages), and the cut walks only the rows to remove from
  // the front: hourly (R43), instead of walking the newest maxRows rows of the table twice.
  capCut: 'SELECT sequence FROM session_state_events NOT INDEXED ORDER BY sequence LIMIT 1 OFFSET ?',
  // Two primary-key lookups: the log cannot hold more rows than its sequence span.
  lowestSequence: 'SELECT min(sequence) AS v FROM session_state_events',
  highestSequence: 'SELECT max(sequence) AS v FROM session_state_events',
  stampCappedWatermarks: stampWatermarksSql('FROM session_state_events NOT INDEXED WHERE sequence <= ? ORDER BY sequence DESC'),
  deleteUpTo: 'DELETE FROM session_state_events NOT INDEXED WHERE sequence <= ?',
  // R44 without an updated_at index (schema step 3): one scan of the cursor table, hourly.
  // By the effective updated_at (schema step 7): one slots lookup per cursor, hourly.
  anyIdleCursor: `SELECT 1 AS hit FROM ${EFFECTIVE_CURSORS} WHERE updated_at < ? LIMIT 1`,
  idleCursors: `SELECT ${CURSOR_COLUMNS} FROM ${EFFECTIVE_CURSORS} WHERE updated_at < ?`,
  deleteIdleCursors:
    'DELETE FROM session_watch_cursors WHERE (target_agent_id, target_session_key, watcher_session_key) IN ' +
    `(SELECT target_agent_id, target_session_key, watcher_session_key FROM ${EFFECTIVE_CURSORS} WHERE updated_at < ?)`,
  // R50-R51 lifecycle
  deleteCursorsOfWatcher: 'DELETE FROM session_watch_cursors INDEXED BY session_watch_cursors_watcher WHERE watcher_session_key = ?',
  deleteCursorsOnTarget: 'DELETE FROM session_watch_cursors WHERE target_agent_id = ? AND target_session_key = ?',
  deleteEventsOfIdentity: 'DELETE FROM session_state_events INDEXED BY session_state_events_identity WHERE agent_id = ? AND session_key = ?',
  deleteHead: 'DELETE FROM session_state_heads WHERE session_key = ? AND agent_id = ?',
  // T12: the first spawn of a session names its parent for good (schema step 9).
  insertSpawnParent: 'INSERT INTO session_spawn_parents (session_key, agent_id, parent) VALUES (?, ?, ?) ON CONFLICT (session_key, agent_id) DO NOTHING',
  spawnParent: 'SELECT parent FROM session_spawn_parents WHERE session_key = ? AND agent_id = ?',
  allSpawnParents: 'SELECT session_key, agent_id, parent FROM session_spawn_parents WHERE parent IS NOT NULL',
  // T15: one page of sessions after a position, walked off the heads' primary key (no sort, no
  // scan); with each its head (T4) and its spawn parent by key (T12), so a page costs its rows.
  sessionsPage:
    'SELECT h.session_key, h.agent_id, h.last_sequence, p.parent FROM session_state_heads h ' +
    'LEFT JOIN session_spawn_parents p ON p.session_key = h.session_key AND p.agent_id = h.agent_id ' +
    'WHERE (h.session_key, h.agent_id) > (?, ?) ORDER BY h.session_key, h.agent_id LIMIT ?',
  deleteSpawnParent: 'DELETE FROM session_spawn_parents WHERE session_key = ? AND agent_id = ?',
  // With the head, its slots: a session recreated under the key must not inherit them (R51).
  deleteSlots: 'DELETE FROM session_state_slots WHERE session_key = ? AND agent_id = ?',
} as const;
