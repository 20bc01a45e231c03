import type { PairChange, PendingPair, PendingRead, PendingReadRequest, PendingWatchersPageRequest } from '../../spec/index.js';
import { checkPendingWatchersPageRequest } from '../core/index.js';
import { checkedPairRow, type BadRows } from '../shared/pending-rows.js';
import { readTransaction } from './driver/transaction.js';
import type { SqliteConnection, SqliteStatement } from './driver/types.js';
import { toSafeNumber } from './errors.js';

/**
 * The change feed's reads of a SQLite state file (R61, R68), on any connection to it: the store's
 * own and a read-only one (the live view, `ui`). A position is the change sequence (schema step
 * 8); a read is one read transaction, so its changes and snapshot stand at one position.
 */
const PAIR_COLUMNS = 'watcher_session_key, target_session_key, target_agent_id, last_seen, notified, provenance';

export const PENDING_READS_SQL = {
  changeSequence: 'SELECT change_sequence FROM session_state_feed WHERE id = 1',
  // R68: the pairs whose notice changed after a position, from the step-8 index alone. The second
  // term lets the planner prove the partial index's condition.
  changedSince: `SELECT ${PAIR_COLUMNS} FROM session_watch_cursors INDEXED BY session_watch_cursors_changed WHERE changed > ? AND changed > 0 ORDER BY changed`,
  // R61: one watcher's pending pairs for a new subscriber's snapshot, from the pending index.
  pendingOfWatcher: `SELECT ${PAIR_COLUMNS} FROM session_watch_cursors INDEXED BY session_watch_cursors_pending WHERE watcher_session_key = ? AND notified > last_seen`,
  pendingAll: `SELECT ${PAIR_COLUMNS} FROM session_watch_cursors INDEXED BY session_watch_cursors_pending WHERE notified > last_seen`,
  // T15: the next `limit` watchers with a pending notice after a key, one seek of the pending index
  // each (a skip scan): a page costs its watchers, not their pairs nor anyone else's.
  pendingWatchersAfter:
    'WITH RECURSIVE w(k, n) AS (' +
    `SELECT (${nextPendingWatcher('?')}), 1 ` +
    `UNION ALL SELECT (${nextPendingWatcher('w.k')}), n + 1 FROM w WHERE w.k IS NOT NULL AND n < ?` +
    ') SELECT k FROM w WHERE k IS NOT NULL',
} as const;

function nextPendingWatcher(after: string): string {
  return `SELECT watcher_session_key FROM session_watch_cursors INDEXED BY session_watch_cursors_pending WHERE notified > last_seen AND watcher_session_key > ${after} ORDER BY watcher_session_key LIMIT 1`;
}

type PairRow = { watcher_session_key: unknown; target_session_key: unknown; target_agent_id: unknown; last_seen: unknown; notified: unknown; provenance: unknown };

export class SqlitePendingReads {
  private readonly stmt: { [K in keyof typeof PENDING_READS_SQL]: SqliteStatement };

  constructor(
    private readonly db: SqliteConnection,
    /** R9d: where corrupt cursor rows are reported (each once) before they are skipped. */
    private readonly bad: BadRows,
  ) {
    const stmt = {} as Record<string, SqliteStatement>;
    for (const [name, sql] of Object.entries(PENDING_READS_SQL)) stmt[name] = db.prepare(sql);
    this.stmt = stmt as SqlitePendingReads['stmt'];
  }

  /** R68: the changes after `since` and the snapshot asked for, at one position. */
  read(request: PendingReadRequest): PendingRead {
    const since = request.since === undefined ? undefined : positionNumber(request.since);
    return readTransaction(this.db, () => {
      const position = toSafeNumber((this.stmt.changeSequence.get() as { change_sequence: unknown }).change_sequence, 'session_state_feed.change_sequence');
      let rows = since === undefined ? [] : (this.stmt.changedSince.all(since) as PairRow[]);
      // R68: the reader wants only these watchers' changes: the others are not decoded.
      if (request.watchers !== undefined && rows.length > 0) {
        const only = new Set(request.watchers);
        rows = rows.filter((r) => only.has(r.watcher_session_key as string));
      }
      const changes = this.pairs(rows);
      let snapshot: PendingPair[] = [];
      if (request.snapshot === 'all') snapshot = this.pending(this.stmt.pendingAll.all() as PairRow[]);
      else if (request.snapshot) for (const w of new Set(request.snapshot)) snapshot.push(...this.pending(this.stmt.pendingOfWatcher.all(w) as PairRow[]));
      return { position: String(position), changes, snapshot };
    });
  }

  /** Every pending pair of every watcher (a full read: tools and sources without positions). */
  listPending(): PendingPair[] {
    return this.pending(this.stmt.pendingAll.all() as PairRow[]);
  }

  /** T15: the watchers with a pending notice after `after` in key order (code point order, as BINARY compares UTF-8), at most `limit`. */
  pendingWatchersPage(request: PendingWatchersPageRequest): string[] {
    checkPendingWatchersPageRequest(request);
    const { after, limit } = request;
    // Every key is non-empty (R1): '' comes before all of them.
    return (this.stmt.pendingWatchersAfter.all(after ?? '', limit) as { k: unknown }[]).flatMap((r) => (typeof r.k === 'string' ? [r.k] : []));
  }

  private pairs(rows: readonly PairRow[]): PairChange[] {
    const out: PairChange[] = [];
    for (const row of rows) {
      const pair = checkedPairRow(
        'session_watch_cursors',
        { watcherSessionKey: row.watcher_session_key, targetSessionKey: row.target_session_key, targetAgentId: row.target_agent_id, lastSeen: row.last_seen, notified: row.notified, provenance: row.provenance },
        this.bad,
      );
      if (pair) out.push(pair);
    }
    return out;
  }

  private pending(rows: readonly PairRow[]): PendingPair[] {
    return this.pairs(rows).map(({ pending: _pending, ...pair }) => pair);
  }
}

/** A feed position of a SQLite store: a change sequence (R68). */
function positionNumber(position: string): number {
  const n = Number(position);
  if (position === '' || !/^\d+$/.test(position) || !Number.isSafeInteger(n)) throw new RangeError(`readPending: not a position of this store: ${JSON.stringify(position)}`);
  return n;
}
