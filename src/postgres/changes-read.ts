import type { ChangesSinceResponse, StateEvent } from '../../spec/index.js';
import { buildChangesSince, type NormalizedChangesSince } from '../core/index.js';
import { checkedPgHead, type PgEventRow } from './rows.js';

/** A row of sql.ts's `changesSince`: an event (or none) with the head and the lowest sequence beside it. */
export type ChangesSinceRow = PgEventRow & { head_last: string | null; head_pruned: string | null; lowest: string | null };

/**
 * R30-R33: changesSince from the rows of the one statement that reads head, page and lowest
 * sequence in one snapshot, for the store and `inspect` alike. R5, R9d: a negative head or
 * watermark, a sequence below 1 or a head below one of its own events means rows were written by
 * something else: reported (CorruptStateError), never served.
 */
export function changesSinceFromRows(r: NormalizedChangesSince, rows: readonly ChangesSinceRow[], toEvent: (row: PgEventRow) => StateEvent): ChangesSinceResponse {
  const first = rows[0];
  const page = rows.filter((row) => row.sequence !== null).map(toEvent);
  const { stateVersion, prunedMaxSequence, lowestRetained } = checkedPgHead({
    sessionKey: r.sessionKey,
    agentId: r.agentId,
    lastSequence: first?.head_last,
    prunedMaxSequence: first?.head_pruned,
    lowest: first?.lowest,
    page,
  });
  return buildChangesSince(r, { stateVersion, prunedMaxSequence, page, lowestRetained });
}
