import { LIMITS } from '../../spec/index.js';

/** R40-R44: pruning decisions; the stores do the deleting. */
export interface PruneConfig {
  retentionMs: number;
  maxRows: number;
}

/**
 * R40, R41: the retention and row cap to prune with: the overrides if given, else LIMITS; throws RangeError on a bad override.
 */
export function resolvePruneConfig(options: { retentionMs?: number | undefined; maxRows?: number | undefined }): PruneConfig {
  const retentionMs = options.retentionMs ?? LIMITS.retentionMs;
  const maxRows = options.maxRows ?? LIMITS.maxRows;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 1) throw new RangeError('retentionMs must be a positive safe integer');
  if (!Number.isSafeInteger(maxRows) || maxRows < 1) throw new RangeError('maxRows must be a positive safe integer');
  return { retentionMs, maxRows };
}

/** R40: events with occurredAt below this are removed. R44: cursors with updatedAt below it expire. */
export function retentionCutoff(now: number, config: PruneConfig): number {
  return now - config.retentionMs;
}

/** R43: the write path prunes at most once per interval; a clock that stepped back also makes it due. */
export function isPruneDue(now: number, lastPruneAt: number): boolean {
  return now - lastPruneAt >= LIMITS.pruneIntervalMs || now < lastPruneAt;
}

/** R42: the watermark only rises. */
export function raiseWatermark(current: number, removedMax: number): number {
  return removedMax > current ? removedMax : current;
}
