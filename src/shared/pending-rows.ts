import type { CursorProvenance } from '../../spec/index.js';
import { isValidAgentId, isValidSessionKey, wakeFor } from '../core/index.js';
import type { PairChange } from '../../spec/index.js';
import type { Logger } from './logger.js';
import { toSafeNumber } from './integers.js';
import { CorruptStateError, cursorRowName } from './state-errors.js';
import { messageOf } from './logger.js';

/**
 * R9d for the cursor rows a notice or a feed read is made of. The shared file is input too:
 * another program may have written a row whose target key holds a line break and a fake
 * instruction, which would otherwise go verbatim into a notice a model reads (R23). Such a row is
 * a logged CorruptStateError and never a notice; the rows beside it are read as usual, so one bad
 * row cannot stop the feed or the notices of anyone else.
 */

const PROVENANCES: ReadonlySet<string> = new Set<CursorProvenance>(['spawn', 'explicit', 'ambient']);

/** The columns a pending read takes of a cursor, as any driver returns them. */
export interface PairRowValues {
  watcherSessionKey: unknown;
  targetSessionKey: unknown;
  targetAgentId: unknown;
  lastSeen: unknown;
  notified: unknown;
  provenance: unknown;
}

/** Logs each bad row once per store (a feed re-reads often), at most `limit` distinct rows remembered. */
export class BadRows {
  private readonly seen = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly label: string,
    private readonly details: Record<string, unknown> = {},
    private readonly limit = 10_000,
  ) {}

  report(error: CorruptStateError): void {
    const key = `${error.table}\u0000${error.row}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= this.limit) this.seen.clear();
    this.seen.add(key);
    try {
      this.logger.error(`${this.label}: skipped a corrupt cursor row`, { ...this.details, name: error.name, code: error.code, table: error.table, row: error.row, error: error.message });
    } catch {
      // R9: a failing logger fails nobody
    }
  }
}

/**
 * One cursor row as a feed change (R68), or undefined for a row that breaks R1 or the cursor
 * arithmetic (R9d), after reporting it. `pending` is N > L.
 */
export function checkedPairRow(table: string, v: PairRowValues, bad: BadRows): PairChange | undefined {
  const row = cursorRowName(v.watcherSessionKey, v.targetSessionKey, v.targetAgentId);
  try {
    if (!isValidSessionKey(v.watcherSessionKey) || !isValidSessionKey(v.targetSessionKey) || !isValidAgentId(v.targetAgentId)) {
      throw new CorruptStateError(table, row, 'a key or agent id that R1 does not allow');
    }
    const lastSeen = toSafeNumber(v.lastSeen, `${table}.last_seen`);
    const notified = toSafeNumber(v.notified, `${table}.notified`);
    if (lastSeen < 0 || notified < lastSeen || typeof v.provenance !== 'string' || !PROVENANCES.has(v.provenance)) {
      throw new CorruptStateError(table, row, `needs 0 <= last_seen <= notified and a known provenance; has ${lastSeen}, ${notified}, ${JSON.stringify(v.provenance)}`);
    }
    return {
      watcherSessionKey: v.watcherSessionKey,
      targetSessionKey: v.targetSessionKey,
      targetAgentId: v.targetAgentId,
      lastSeenSequence: lastSeen,
      wake: wakeFor(v.watcherSessionKey, v.provenance as CursorProvenance),
      pending: notified > lastSeen,
    };
  } catch (error) {
    bad.report(error instanceof CorruptStateError ? error : new CorruptStateError(table, row, messageOf(error)));
    return undefined;
  }
}
