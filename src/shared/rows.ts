import { StateEvent, type WatchCursor } from '../../spec/index.js';
import { assertSchema, isValidAgentId, isValidSessionKey, isValidationError } from '../core/index.js';
import { toSafeNumber } from './integers.js';
import { CorruptStateError, cursorRowName } from './state-errors.js';
import { messageOf } from './logger.js';

/**
 * Rows of a durable store's tables and their decoding into spec values, one decoder for every SQL
 * adapter (SQLite and PostgreSQL lay their tables out alike), so both check what they read back the
 * same way (R9d). Integer columns may arrive as bigint, number or decimal string (toSafeNumber).
 * Errors name the adapter's own tables, passed in as `StateTables`.
 */
/** The events table's columns, as every adapter selects them (EventRow's fields, in order). */
export const EVENT_COLUMNS = 'sequence, dedupe_key, session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at, summary, payload_json';
/** The cursors table's columns, as every adapter selects them (CursorRow's fields, in order). */
export const CURSOR_COLUMNS = 'watcher_session_key, target_session_key, target_agent_id, last_seen, notified, material, provenance, updated_at';

// Type aliases, not interfaces: driver rows are index-signature records, which only aliases accept.
/** A row of a durable store's events table as the driver returns it, before decoding (R9d). */
export type EventRow = {
  sequence: unknown;
  dedupe_key: string | null;
  session_key: string;
  agent_id: string;
  session_id: string | null;
  kind: string;
  actor_type: string;
  actor_id: string | null;
  run_id: string | null;
  occurred_at: unknown;
  recorded_at: unknown;
  summary: string;
  payload_json: string | null;
};

/** A row of a durable store's cursors table as the driver returns it, before decoding (R9d). */
export type CursorRow = {
  watcher_session_key: string;
  target_session_key: string;
  target_agent_id: string;
  last_seen: unknown;
  notified: unknown;
  material: unknown;
  provenance: string;
  updated_at: unknown;
};

/** The names the adapter gives its tables, as they should appear in error messages. */
export interface StateTables {
  readonly events: string;
  readonly heads: string;
  readonly cursors: string;
}

/** Told of an event whose payload column did not decode (its sequence and why); the event is returned without the payload. */
export type OnBadPayload = (sequence: number, reason: string) => void;

/** What changesSince read from one snapshot, before the R9d consistency checks. */
export interface HeadReadBack {
  readonly sessionKey: string;
  readonly agentId: string;
  readonly lastSequence: unknown;
  readonly prunedMaxSequence: unknown;
  readonly lowest: unknown;
  readonly page: readonly StateEvent[];
}

export interface RowDecoders {
  /**
   * Decodes one event row. A payload that is not a JSON object (a row edited by hand, a torn disk
   * page) is dropped from that one event and reported through `onBadPayload`, instead of failing
   * a whole changesSince page.
   */
  eventFromRow(row: EventRow, onBadPayload?: OnBadPayload): StateEvent;
  /**
   * eventFromRow, then the spec's own StateEvent schema: a row that decodes to something no store
   * could have recorded (a negative sequence, a summary with a newline, an unknown kind) is a
   * CorruptStateError naming the row, so changesSince never hands it to a caller (R9d).
   */
  checkedEventFromRow(row: EventRow, onBadPayload?: OnBadPayload): StateEvent;
  /** Cursor rows: L <= N <= M, all >= 0, a known provenance; anything else is a CorruptStateError (R9d). */
  cursorFromRow(row: CursorRow): WatchCursor;
  /** The cursor as stored (integers still decoded exactly), without the R9d checks: for inspect, which shows corrupt rows. */
  cursorAsStored(row: CursorRow): WatchCursor;
  /**
   * The head, watermark and lowest sequence changesSince read, decoded and checked against each
   * other and the page (R5, R9d): a negative value or a head below one of its own events means rows
   * were written by something else, a CorruptStateError naming the head row. An absent head or
   * lowest (null or undefined) reads as 0 / undefined.
   */
  checkedHead(read: HeadReadBack): { stateVersion: number; prunedMaxSequence: number; lowestRetained: number | undefined };
}

export function rowDecoders(tables: StateTables): RowDecoders {
  const E = tables.events;
  const C = tables.cursors;
  const H = tables.heads;

  const eventFromRow = (row: EventRow, onBadPayload?: OnBadPayload): StateEvent => {
    const event = {
      sequence: toSafeNumber(row.sequence, `${E}.sequence`),
      sessionKey: row.session_key,
      agentId: row.agent_id,
      kind: row.kind,
      actorType: row.actor_type,
      occurredAt: toSafeNumber(row.occurred_at, `${E}.occurred_at`),
      recordedAt: toSafeNumber(row.recorded_at, `${E}.recorded_at`),
      summary: row.summary,
    } as StateEvent;
    // Absent optional fields stay absent (as the reference store returns them), never null.
    if (row.session_id !== null) event.sessionId = row.session_id;
    if (row.actor_id !== null) event.actorId = row.actor_id;
    if (row.run_id !== null) event.runId = row.run_id;
    if (row.payload_json !== null) {
      const payload = parsePayload(row.payload_json);
      if (typeof payload === 'string') onBadPayload?.(event.sequence, payload);
      else event.payload = Object.freeze(payload);
    }
    if (row.dedupe_key !== null) event.dedupeKey = row.dedupe_key;
    return Object.freeze(event);
  };

  const checkedEventFromRow = (row: EventRow, onBadPayload?: OnBadPayload): StateEvent => {
    const event = eventFromRow(row, onBadPayload);
    try {
      assertSchema(StateEvent, event);
    } catch (error) {
      if (isValidationError(error)) throw new CorruptStateError(E, `sequence ${event.sequence}`, error.message);
      throw error;
    }
    return event;
  };

  const cursorAsStored = (row: CursorRow): WatchCursor => ({
      watcherSessionKey: row.watcher_session_key,
      targetSessionKey: row.target_session_key,
      targetAgentId: row.target_agent_id,
      lastSeenSequence: toSafeNumber(row.last_seen, `${C}.last_seen`),
      notifiedSequence: toSafeNumber(row.notified, `${C}.notified`),
      materialSequence: toSafeNumber(row.material, `${C}.material`),
      provenance: row.provenance as WatchCursor['provenance'],
      updatedAt: toSafeNumber(row.updated_at, `${C}.updated_at`),
  });

  const cursorFromRow = (row: CursorRow): WatchCursor => {
    const cursor = cursorAsStored(row);
    const L = cursor.lastSeenSequence;
    const N = cursor.notifiedSequence;
    const M = cursor.materialSequence;
    // R9d: keys written by another program are checked like input (R1) before any notice text quotes them (R23).
    if (!isValidSessionKey(cursor.watcherSessionKey) || !isValidSessionKey(cursor.targetSessionKey) || !isValidAgentId(cursor.targetAgentId)) {
      throw new CorruptStateError(
        C,
        cursorRowName(row.watcher_session_key, row.target_session_key, row.target_agent_id),
        'a key or agent id that R1 does not allow',
      );
    }
    if (L < 0 || L > N || N > M || cursor.updatedAt < 0 || !['spawn', 'explicit', 'ambient'].includes(cursor.provenance)) {
      throw new CorruptStateError(
        C,
        cursorRowName(row.watcher_session_key, row.target_session_key, row.target_agent_id),
        `needs 0 <= last_seen <= notified <= material, updated_at >= 0 and a known provenance; has ${L}, ${N}, ${M}, ${cursor.updatedAt}, ${JSON.stringify(row.provenance)}`,
      );
    }
    return cursor;
  };

  const present = (v: unknown): boolean => v !== null && v !== undefined;

  const checkedHead = (read: HeadReadBack) => {
    const stateVersion = present(read.lastSequence) ? toSafeNumber(read.lastSequence, `${H}.last_sequence`) : 0;
    const prunedMaxSequence = present(read.prunedMaxSequence) ? toSafeNumber(read.prunedMaxSequence, `${H}.pruned_max_sequence`) : 0;
    const headRow = `(${JSON.stringify(read.sessionKey)}, ${JSON.stringify(read.agentId)})`;
    if (stateVersion < 0 || prunedMaxSequence < 0) throw new CorruptStateError(H, headRow, 'a negative version or watermark');
    const lowestRetained = present(read.lowest) ? toSafeNumber(read.lowest, `${E}.sequence`) : undefined;
    if (lowestRetained !== undefined && lowestRetained < 1) throw new CorruptStateError(E, `sequence ${lowestRetained}`, 'a sequence must be >= 1');
    const above = read.page.find((e) => e.sequence > stateVersion);
    if (above) throw new CorruptStateError(H, headRow, `last_sequence ${stateVersion} is below the stored event ${above.sequence}`);
    return { stateVersion, prunedMaxSequence, lowestRetained };
  };

  return { eventFromRow, checkedEventFromRow, cursorFromRow, cursorAsStored, checkedHead };
}

function parsePayload(json: string): NonNullable<StateEvent['payload']> | string {
  try {
    const value: unknown = JSON.parse(json);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'payload_json is not a JSON object';
    return value as NonNullable<StateEvent['payload']>;
  } catch (error) {
    return `payload_json does not parse: ${messageOf(error)}`;
  }
}

/**
 * The insert's values, in the column order both adapters' INSERT statements name (dedupe_key,
 * session_key, agent_id, session_id, kind, actor_type, actor_id, run_id, occurred_at, recorded_at,
 * summary, payload_json): absent optional fields are NULL, the payload is JSON text.
 */
export function eventInsertValues(event: Omit<StateEvent, 'sequence'>): (string | number | null)[] {
  return [
    event.dedupeKey ?? null,
    event.sessionKey,
    event.agentId,
    event.sessionId ?? null,
    event.kind,
    event.actorType,
    event.actorId ?? null,
    event.runId ?? null,
    event.occurredAt,
    event.recordedAt,
    event.summary,
    event.payload === undefined ? null : JSON.stringify(event.payload),
  ];
}
