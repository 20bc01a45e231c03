import { StateEvent, type WatchCursor } from '../../spec/index.js';
import { assertSchema, isValidationError } from '../core/index.js';
import { CorruptStateError, toSafeNumber } from './errors.js';

/**
 * Rows of the adapter's tables (schema.ts) and their decoding into spec values. Shared by the
 * store and by read-only tools (the CLI's inspect), so a file reads the same whoever opens it.
 */
// Type aliases, not interfaces: driver rows are index-signature records, which only aliases accept.
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
}

export type CursorRow = {
  watcher_session_key: string;
  target_session_key: string;
  target_agent_id: string;
  last_seen: unknown;
  notified: unknown;
  material: unknown;
  provenance: string;
  updated_at: unknown;
}

/**
 * Decodes one event row. A payload that is not a JSON object (a file edited by hand, a torn
 * disk page) is dropped from that one event and reported through `onBadPayload`, instead of
 * failing a whole changesSince page.
 */
export function eventFromRow(row: EventRow, onBadPayload?: (sequence: number, reason: string) => void): StateEvent {
  const event = {
    sequence: toSafeNumber(row.sequence, 'session_state_events.sequence'),
    sessionKey: row.session_key,
    agentId: row.agent_id,
    kind: row.kind,
    actorType: row.actor_type,
    occurredAt: toSafeNumber(row.occurred_at, 'session_state_events.occurred_at'),
    recordedAt: toSafeNumber(row.recorded_at, 'session_state_events.recorded_at'),
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
}

function parsePayload(json: string): NonNullable<StateEvent['payload']> | string {
  try {
    const value: unknown = JSON.parse(json);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'payload_json is not a JSON object';
    return value as NonNullable<StateEvent['payload']>;
  } catch (error) {
    return `payload_json does not parse: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * eventFromRow, then the spec's own StateEvent schema: a row that decodes to something no store
 * could have recorded (a negative sequence, a summary with a newline, an unknown kind) is a
 * CorruptStateError naming the row, so changesSince never hands it to a caller.
 */
export function checkedEventFromRow(row: EventRow, onBadPayload?: (sequence: number, reason: string) => void): StateEvent {
  const event = eventFromRow(row, onBadPayload);
  try {
    assertSchema(StateEvent, event);
  } catch (error) {
    if (isValidationError(error)) throw new CorruptStateError('session_state_events', `sequence ${event.sequence}`, error.message);
    throw error;
  }
  return event;
}

/** Cursor rows: L <= N <= M, all >= 0, a known provenance; anything else is a CorruptStateError. */
export function cursorFromRow(row: CursorRow): WatchCursor {
  const cursor = decodeCursor(row);
  const L = cursor.lastSeenSequence;
  const N = cursor.notifiedSequence;
  const M = cursor.materialSequence;
  if (L < 0 || L > N || N > M || cursor.updatedAt < 0 || !['spawn', 'explicit', 'ambient'].includes(cursor.provenance)) {
    throw new CorruptStateError(
      'session_watch_cursors',
      `(${JSON.stringify(row.watcher_session_key)}, ${JSON.stringify(row.target_session_key)}, ${JSON.stringify(row.target_agent_id)})`,
      `needs 0 <= last_seen <= notified <= material, updated_at >= 0 and a known provenance; has ${L}, ${N}, ${M}, ${cursor.updatedAt}, ${JSON.stringify(row.provenance)}`,
    );
  }
  return cursor;
}

function decodeCursor(row: CursorRow): WatchCursor {
  return {
    watcherSessionKey: row.watcher_session_key,
    targetSessionKey: row.target_session_key,
    targetAgentId: row.target_agent_id,
    lastSeenSequence: toSafeNumber(row.last_seen, 'session_watch_cursors.last_seen'),
    notifiedSequence: toSafeNumber(row.notified, 'session_watch_cursors.notified'),
    materialSequence: toSafeNumber(row.material, 'session_watch_cursors.material'),
    provenance: row.provenance as WatchCursor['provenance'],
    updatedAt: toSafeNumber(row.updated_at, 'session_watch_cursors.updated_at'),
  };
}
