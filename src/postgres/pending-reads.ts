import type { PairChange, PendingPair, PendingRead, PendingReadRequest } from '../../spec/index.js';
import { checkedPairRow, type BadRows } from '../shared/pending-rows.js';
import { TABLES } from './schema.js';

/**
 * The change feed's reads of a PostgreSQL state schema (R61, R68, R71), for any connection that
 * runs the named statements of src/postgres/sql.ts: the store's pool and the live view's read-only
 * client. The caller runs them inside one REPEATABLE READ transaction, so the snapshot that is the
 * new position is the one every statement reads.
 */
export type PendingReadStatement = 'currentSnapshot' | 'changedSince' | 'changesNow' | 'pendingPairsOfWatchers' | 'allPendingPairs';
export type PendingReadQuery = (statement: PendingReadStatement, values: unknown[]) => Promise<Record<string, unknown>[]>;

/** A position of a PostgreSQL source: a pg_snapshot's text, `xmin:xmax:xip,...` (groups: xmin, xmax, xip). */
export const POSITION = /^(\d+):(\d+):([\d,]*)$/;

/** Refuses a position this store did not make. */
export function checkPosition(position: string): void {
  if (!POSITION.test(position)) throw new RangeError(`readPending: not a position of this store: ${JSON.stringify(position)}`);
}

/**
 * R61: a read that asks for a snapshot part runs several statements, which must share one
 * snapshot: the caller runs them in one REPEATABLE READ transaction. Any other read is one
 * statement (changesNow), and needs none.
 */
export function needsTransaction(request: PendingReadRequest): boolean {
  return request.snapshot === 'all' || (request.snapshot !== undefined && request.snapshot.length > 0);
}

export async function readPendingWith(query: PendingReadQuery, request: PendingReadRequest, bad: BadRows): Promise<PendingRead> {
  if (request.since !== undefined) checkPosition(request.since);
  const only = request.watchers === undefined ? null : [...new Set(request.watchers)];
  if (!needsTransaction(request)) {
    const rows = await query('changesNow', [request.since ?? null, only]);
    return { position: String(rows[0]!['snapshot']), changes: pairsOf(rows.filter((r) => r['watcher_session_key'] !== null), bad), snapshot: [] };
  }
  const position = String((await query('currentSnapshot', []))[0]!['snapshot']);
  const changes = request.since === undefined ? [] : pairsOf(await query('changedSince', [request.since, only]), bad);
  let snapshot: PendingPair[] = [];
  if (request.snapshot === 'all') snapshot = pendingOf(await query('allPendingPairs', []), bad);
  else if (request.snapshot && request.snapshot.length > 0) snapshot = pendingOf(await query('pendingPairsOfWatchers', [[...new Set(request.snapshot)]]), bad);
  return { position, changes, snapshot };
}

/** Every pending pair, checked (R9d). */
export async function listPendingWith(query: PendingReadQuery, bad: BadRows): Promise<PendingPair[]> {
  return pendingOf(await query('allPendingPairs', []), bad);
}

function pairsOf(rows: readonly Record<string, unknown>[], bad: BadRows): PairChange[] {
  const out: PairChange[] = [];
  for (const row of rows) {
    const pair = checkedPairRow(
      TABLES.cursors,
      { watcherSessionKey: row['watcher_session_key'], targetSessionKey: row['target_session_key'], targetAgentId: row['target_agent_id'], lastSeen: row['last_seen'], notified: row['notified'], provenance: row['provenance'] },
      bad,
    );
    if (pair) out.push(pair);
  }
  return out;
}

function pendingOf(rows: readonly Record<string, unknown>[], bad: BadRows): PendingPair[] {
  return pairsOf(rows, bad).map(({ pending: _pending, ...pair }) => pair);
}
