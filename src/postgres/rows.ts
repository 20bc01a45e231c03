import type { StateEvent, WatchCursor } from '../../spec/index.js';
import { toSafeNumber } from './errors.js';
import { TABLES } from './schema.js';

/**
 * Rows of the adapter's tables and their decoding into spec values, shared by the store and the
 * CLI's `inspect --pg`. bigint columns arrive as decimal strings (pg's default for int8) and are
 * decoded exactly; a value past 2^53 - 1 is an UnsafeIntegerError, never a rounded number.
 */
export type PgEventRow = {
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

export type PgCursorRow = {
  watcher_session_key: string;
  target_session_key: string;
  target_agent_id: string;
  last_seen: unknown;
  notified: unknown;
  material: unknown;
  provenance: string;
  updated_at: unknown;
};

const E = TABLES.events;
const C = TABLES.cursors;

/** A payload that is not a JSON object (edited by hand) is dropped from that one event and reported. */
export function eventFromPgRow(row: PgEventRow, onBadPayload?: (sequence: number, reason: string) => void): StateEvent {
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
    let reason: string | undefined;
    try {
      const value: unknown = JSON.parse(row.payload_json);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) reason = 'payload_json is not a JSON object';
      else event.payload = Object.freeze(value as NonNullable<StateEvent['payload']>);
    } catch (error) {
      reason = `payload_json does not parse: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (reason !== undefined) onBadPayload?.(event.sequence, reason);
  }
  if (row.dedupe_key !== null) event.dedupeKey = row.dedupe_key;
  return Object.freeze(event);
}

export function cursorFromPgRow(row: PgCursorRow): WatchCursor {
  return {
    watcherSessionKey: row.watcher_session_key,
    targetSessionKey: row.target_session_key,
    targetAgentId: row.target_agent_id,
    lastSeenSequence: toSafeNumber(row.last_seen, `${C}.last_seen`),
    notifiedSequence: toSafeNumber(row.notified, `${C}.notified`),
    materialSequence: toSafeNumber(row.material, `${C}.material`),
    provenance: row.provenance as WatchCursor['provenance'],
    updatedAt: toSafeNumber(row.updated_at, `${C}.updated_at`),
  };
}

/** Cursor rows as the eight parallel arrays the unnest upsert takes. */
export function cursorArrays(cursors: readonly WatchCursor[]): unknown[] {
  return [
    cursors.map((c) => c.watcherSessionKey),
    cursors.map((c) => c.targetSessionKey),
    cursors.map((c) => c.targetAgentId),
    cursors.map((c) => c.lastSeenSequence),
    cursors.map((c) => c.notifiedSequence),
    cursors.map((c) => c.materialSequence),
    cursors.map((c) => c.provenance),
    cursors.map((c) => c.updatedAt),
  ];
}
