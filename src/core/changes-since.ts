import { LIMITS, type ChangesSinceRequest, type ChangesSinceResponse, type StateEvent } from '../../spec/index.js';
import { validateChangesSinceRequest } from './validate.js';

/** R30: limit defaults to 200 and is clamped to it. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined) return LIMITS.maxChangesPerRead;
  return Math.max(1, Math.min(LIMITS.maxChangesPerRead, Math.floor(limit)));
}

/** R30: a validated changesSince request with `limit` clamped to 1..LIMITS.maxChangesPerRead. */
export interface NormalizedChangesSince {
  sessionKey: string;
  agentId: string;
  since: number;
  limit: number;
}

/** R9, R30: validates a changesSince request (throws ValidationError) and clamps its limit. */
export function normalizeChangesSince(request: unknown): NormalizedChangesSince {
  const r: ChangesSinceRequest = validateChangesSinceRequest(request);
  return { sessionKey: r.sessionKey, agentId: r.agentId, since: r.since, limit: clampLimit(r.limit) };
}

/** R30-R33: what a store reads, in one snapshot, to answer changesSince. */
export interface ChangesSinceFacts {
  /** R5: the session's head (0 if none). */
  stateVersion: number;
  /** R33: the session's pruned watermark (0 if none). */
  prunedMaxSequence: number;
  /** Up to limit + 1 events with sequence > since, ascending. */
  page: readonly StateEvent[];
  /** R32: the lowest retained sequence of the session, if any. */
  lowestRetained: number | undefined;
}

/** R30-R33: builds the response from facts the store read in one consistent snapshot. */
export function buildChangesSince(request: NormalizedChangesSince, facts: ChangesSinceFacts): ChangesSinceResponse {
  const truncated = facts.page.length > request.limit;
  const events = truncated ? facts.page.slice(0, request.limit) : [...facts.page];
  const earliestAvailableSequence =
    facts.lowestRetained !== undefined ? facts.lowestRetained : facts.stateVersion > 0 ? facts.stateVersion + 1 : 0;
  return {
    stateVersion: facts.stateVersion,
    stateChanges: {
      events,
      historyGap: request.since < facts.prunedMaxSequence,
      truncated,
      earliestAvailableSequence,
    },
  };
}

/** R35: what a failed read degrades to. */
export function emptyChangesSince(): ChangesSinceResponse {
  return { stateVersion: 0, stateChanges: { events: [], historyGap: false, truncated: false, earliestAvailableSequence: 0 } };
}
