import { rowDecoders } from '../shared/rows.js';

/**
 * The SQLite adapter's binding of the shared row decoders (src/shared/rows.ts) to its table names.
 * Shared by the store and by read-only tools (the CLI's inspect), so a file reads the same whoever
 * opens it.
 */
export type { CursorRow, EventRow } from '../shared/rows.js';

/** R9d: the SQLite tables' row decoders: eventFromRow and cursorFromRow decode a row, the checked ones also reject what no store could have written. */
export const { eventFromRow, checkedEventFromRow, cursorFromRow, checkedHead } = rowDecoders({
  events: 'session_state_events',
  heads: 'session_state_heads',
  cursors: 'session_watch_cursors',
});
