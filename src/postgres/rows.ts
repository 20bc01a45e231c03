import type { WatchCursor } from '../../spec/index.js';
import { rowDecoders, type CursorRow, type EventRow } from '../shared/rows.js';
import { TABLES } from './schema.js';

/**
 * The PostgreSQL adapter's binding of the shared row decoders (src/shared/rows.ts) to its table
 * names, used by the store and the CLI's `inspect --pg`. bigint columns arrive as decimal strings
 * (pg's default for int8) and are decoded exactly; a value past 2^53 - 1 is an UnsafeIntegerError,
 * a value no store could have written a CorruptStateError (R9d), as on SQLite.
 */
export type PgEventRow = EventRow;
export type PgCursorRow = CursorRow;

const decoders = rowDecoders({ events: TABLES.events, heads: TABLES.heads, cursors: TABLES.cursors });

/** Decodes without the schema check (inspect shows what a row holds); the store uses checkedEventFromPgRow. */
export const eventFromPgRow = decoders.eventFromRow;
/** eventFromPgRow, then the spec's StateEvent schema: a row that fails it is a CorruptStateError (R9d). */
export const checkedEventFromPgRow = decoders.checkedEventFromRow;
/** Cursor rows: L <= N <= M, all >= 0, a known provenance; anything else is a CorruptStateError (R9d). */
export const cursorFromPgRow = decoders.cursorFromRow;
/** The cursor as stored, unchecked: `inspect --pg` shows a corrupt row, which is what an operator looks for. */
export const cursorAsStoredFromPgRow = decoders.cursorAsStored;
/** changesSince's head, watermark and lowest sequence, checked against each other and the page (R5, R9d). */
export const checkedPgHead = decoders.checkedHead;

/** Cursor rows as the nine parallel arrays the unnest upsert takes; `changed[i]`: write i changes its pair's notice (R68). */
export function cursorArrays(cursors: readonly WatchCursor[], changed: readonly boolean[]): unknown[] {
  return [
    cursors.map((c) => c.watcherSessionKey),
    cursors.map((c) => c.targetSessionKey),
    cursors.map((c) => c.targetAgentId),
    cursors.map((c) => c.lastSeenSequence),
    cursors.map((c) => c.notifiedSequence),
    cursors.map((c) => c.materialSequence),
    cursors.map((c) => c.provenance),
    cursors.map((c) => c.updatedAt),
    cursors.map((_, i) => changed[i] === true),
  ];
}
