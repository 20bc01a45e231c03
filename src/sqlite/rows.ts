import { rowDecoders } from '../shared/rows.js';

/**
 * The SQLite adapter's binding of the shared row decoders (src/shared/rows.ts) to its table names.
 * Shared by the store and by read-only tools (the CLI's inspect), so a file reads the same whoever
 * opens it.
 */
export type { CursorRow, EventRow } from '../shared/rows.js';

export const {
  /** R9d: decodes one row of session_state_events (a payload that does not decode is dropped and reported). */
  eventFromRow,
  checkedEventFromRow,
  /** R9d: decodes one row of session_watch_cursors; a row no store could have written is a CorruptStateError. */
  cursorFromRow,
  checkedHead,
} = rowDecoders({
  events: 'session_state_events',
  heads: 'session_state_heads',
  cursors: 'session_watch_cursors',
});
