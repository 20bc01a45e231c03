import type { ChangesSinceResponse, StateEvent } from '../../spec/index.js';
import { buildChangesSince, type NormalizedChangesSince } from '../core/index.js';
import type { SqliteStatement } from './driver/types.js';
import { checkedHead, type EventRow } from './rows.js';

/** The three statements of a changesSince read (sql.ts: head, page, lowestRetained), prepared on some connection. */
export interface ChangesStatements {
  head: SqliteStatement;
  page: SqliteStatement;
  lowestRetained: SqliteStatement;
}

/**
 * R30-R33: changesSince on any connection to a state file, the store's and `inspect`'s read-only
 * one alike; the caller holds a read transaction, so head, page and lowest sequence come from one
 * snapshot. R5, R9d: a stored event above the head, or a negative watermark, means rows were
 * written by something else: reported (CorruptStateError), never served.
 */
export function readChangesSince(s: ChangesStatements, r: NormalizedChangesSince, toEvent: (row: EventRow) => StateEvent): ChangesSinceResponse {
  const head = s.head.get(r.sessionKey, r.agentId) as { last_sequence: unknown; pruned_max_sequence: unknown } | undefined;
  const page = (s.page.all(r.agentId, r.sessionKey, r.since, r.limit + 1) as EventRow[]).map(toEvent);
  const lowest = s.lowestRetained.get(r.agentId, r.sessionKey) as { sequence: unknown } | undefined;
  const { stateVersion, prunedMaxSequence, lowestRetained } = checkedHead({
    sessionKey: r.sessionKey,
    agentId: r.agentId,
    lastSequence: head?.last_sequence,
    prunedMaxSequence: head?.pruned_max_sequence,
    lowest: lowest?.sequence,
    page,
  });
  return buildChangesSince(r, { stateVersion, prunedMaxSequence, page, lowestRetained });
}
