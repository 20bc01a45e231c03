import { LIMITS, type RecordInput } from '../../../spec/index.js';
import { isSelfEcho, ownEchoSet, type OwnMessage } from './echo.js';
import { humanDedupeKey, missingDedupeKey, type JsonValue, type UpstreamLink } from './link.js';

/** One user turn a source found upstream, before self-echo filtering (U4). */
export interface UpstreamTurn {
  /** The person's text, used only for the echo comparison; never recorded (R3, R4). */
  text: string;
  /** Upstream clock, epoch ms, when the source knows it. */
  occurredAt?: number;
  /** Image blocks in the turn (U4: an image-only turn is compared by its image count). */
  images?: number;
  /** The text was cut by the long-line reader (U6); U4 compares it as a prefix. */
  truncated?: boolean;
}

/**
 * What one check of one source concluded (U2, U6, U7).
 *  found        the source exists; `turns` are user turns since the marker (maybe none),
 *               `nextMarker` covers exactly the bytes/items classified, `position` names that
 *               point uniquely within the incarnation (U5). `blocked` says the cursor cannot move.
 *  missing      the source definitively does not exist (ENOENT, not a regular file, ...).
 *  inconclusive anything else: an error, a timeout, an ambiguous answer.
 */
export type Observation =
  | {
      status: 'found';
      turns: readonly UpstreamTurn[];
      nextMarker: JsonValue;
      position: string;
      blocked?: string;
      /** Fallback time for activity without per-turn times (e.g. file mtime). */
      sourceTime?: number;
      /** An operator note, e.g. that the remote window overflowed (U7). */
      note?: string;
    }
  | { status: 'missing'; detail?: string }
  | { status: 'inconclusive'; detail: string };

/** U2, U4, U5: what planCheck needs besides the link and the observation: the clock and the session's own recent messages. */
export interface CheckContext {
  /** The monitor's clock (bookkeeping only, R6). */
  now: number;
  /** The session's user messages sent from our side, oldest first (U4). */
  ownTexts: readonly OwnMessage[];
  /**
   * U5: whether anyone watches the session, judged after the source was read. `false`: found
   * activity is passed over (the marker advances, nothing is recorded). Omitted (or `true`): record
   * as usual; the monitor omits it only when it cannot tell (no `demand`, no store `isWatched`).
   */
  watched?: boolean;
}

/**
 * The next step for one link after one check. The driver executes it and writes links only by
 * compare-and-set on the link it checked (U8).
 *  write   no event: store `next` (marker, miss count, status). `passedOver` counts human turns
 *          found while nobody watched: not recorded, the marker moved past them (U5).
 *  record  record `record` through the store contract (the same path as every other producer);
 *          if it returns an event (new or deduped, R8) store `onRecorded` (null = delete the link,
 *          U2), otherwise store `onFailed`, which keeps the marker (U5).
 */
export type CheckPlan =
  | { action: 'write'; next: UpstreamLink; humanTurns: 0; echoTurns: number; passedOver?: number }
  | { action: 'record'; record: RecordInput; onRecorded: UpstreamLink | null; onFailed: UpstreamLink; humanTurns: number; echoTurns: number };

/** A usable record time: RecordInput.occurredAt must be a non-negative safe integer (R6 clamps the rest). */
function epochOrUndefined(value: number | undefined): number | undefined {
  // Number.isSafeInteger is false for undefined, NaN and the infinities (Math.floor keeps them).
  const ms = Math.floor(value ?? Number.NaN);
  return ms >= 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

function touched(link: UpstreamLink, now: number): UpstreamLink {
  const next = { ...link, revision: link.revision + 1, updatedAt: now, lastCheckedAt: now };
  delete next.statusDetail;
  return next;
}

/** U5: the record a check with `turns` human turns produces. */
export function humanActivityRecord(link: UpstreamLink, turns: number, position: string, occurredAt: number | undefined): RecordInput {
  const record: RecordInput = {
    sessionKey: link.sessionKey,
    agentId: link.agentId,
    kind: 'human_direct_message',
    actorType: 'human',
    summary: `human message via ${link.catalogId}`,
    // U5 Decision (event shape): the production shape, so dashboards and filters carry over: no
    // payload for one turn, `{turns}` for a burst; the channel is in the summary.
    ...(turns > 1 && { payload: { turns } }),
    dedupeKey: humanDedupeKey(link, position),
    // R9b: upstream turns are high-volume human turns on a session with no parent entry.
    onlyIfWatched: true,
  };
  if (occurredAt !== undefined) record.occurredAt = occurredAt;
  return record;
}

/** U2: the one record three consecutive misses produce. */
export function upstreamMissingRecord(link: UpstreamLink): RecordInput {
  return {
    sessionKey: link.sessionKey,
    agentId: link.agentId,
    kind: 'upstream_missing',
    actorType: 'system',
    summary: `upstream missing via ${link.catalogId}`,
    payload: { channel: link.catalogId },
    dedupeKey: missingDedupeKey(link),
  };
}

/**
 * U2, U4, U5: the pure heart of the monitor. Given a link, what its source reported and the
 * session's own recent texts, decide the record (if any) and the link state after it.
 */
export function planCheck(link: UpstreamLink, observation: Observation, ctx: CheckContext): CheckPlan {
  const missLimit = LIMITS.upstreamMissLimit;
  const base = touched(link, ctx.now);

  if (observation.status === 'inconclusive') {
    // U2: neither a miss nor a find; the streak and the marker stay.
    return { action: 'write', next: { ...base, status: 'inconclusive', statusDetail: observation.detail }, humanTurns: 0, echoTurns: 0 };
  }

  if (observation.status === 'missing') {
    const count = Math.min(missLimit, link.missCount + 1);
    if (count < missLimit) {
      return {
        action: 'write',
        next: { ...base, missCount: count, status: 'missing', statusDetail: `source not found (${count}/${missLimit})` },
        humanTurns: 0,
        echoTurns: 0,
      };
    }
    // U2: the limit is reached: one upstream_missing, then the link goes. If the record fails,
    // hold at limit - 1 so the next miss retries (its dedupe key keeps that exactly once).
    return {
      action: 'record',
      record: upstreamMissingRecord(link),
      onRecorded: null,
      onFailed: { ...base, missCount: missLimit - 1, status: 'missing', statusDetail: `source not found (${missLimit}/${missLimit}); upstream_missing not recorded yet` },
      humanTurns: 0,
      echoTurns: 0,
    };
  }

  // found: U2 resets the streak, whatever else happens.
  const echoSet = ownEchoSet(ctx.ownTexts, LIMITS.selfEchoWindow);
  let human = 0;
  let echo = 0;
  // U5: the newest usable time of a human turn; -1 while none has one (usable times are >= 0).
  let newest = -1;
  for (const turn of observation.turns) {
    if (isSelfEcho(turn, echoSet)) {
      echo++;
      continue;
    }
    human++;
    newest = Math.max(newest, epochOrUndefined(turn.occurredAt) ?? -1);
  }
  const found: UpstreamLink = { ...base, missCount: 0, status: observation.blocked ? 'blocked' : 'ok' };
  const detail = observation.blocked ?? observation.note;
  if (detail !== undefined) found.statusDetail = detail;
  const advanced: UpstreamLink = { ...found, marker: observation.nextMarker };

  if (ctx.watched === false) {
    // U5 Decision: activity found while nobody watches is not news to a later watcher (a watch
    // starts at the target's current version, R22). Re-baseline: move the marker past it, record
    // nothing. A blocked cursor stays reported as blocked; otherwise the link says why it is quiet.
    const quiet: UpstreamLink = observation.blocked ? advanced : { ...advanced, status: 'unwatched' };
    if (!observation.blocked && human > 0) quiet.statusDetail = `nobody watches: ${human} human turn(s) passed over, not recorded`;
    return { action: 'write', next: quiet, humanTurns: 0, echoTurns: echo, passedOver: human };
  }

  if (human === 0) return { action: 'write', next: advanced, humanTurns: 0, echoTurns: echo }; // scan-only advance

  const occurredAt = newest >= 0 ? newest : epochOrUndefined(observation.sourceTime);
  return {
    action: 'record',
    record: humanActivityRecord(link, human, observation.position, occurredAt),
    onRecorded: advanced,
    // U5: the marker waits; the next check re-reads the same turns and the dedupe key makes the retry
    // safe. If the watcher went away meanwhile, the next check sees that and re-baselines instead.
    onFailed: { ...found, status: 'record-pending', statusDetail: `${human} human turn(s) found; record did not succeed (log unavailable, or nobody watches)` },
    humanTurns: human,
    echoTurns: echo,
  };
}
