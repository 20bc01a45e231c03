/**
 * R6: the store's clock is the only time source, and every stored time is an integer of epoch
 * milliseconds. A fractional reading (performance.timeOrigin + performance.now()) is floored, so
 * every store stores the same value; a clock that is not a finite, non-negative number is a
 * configuration error, reported as such instead of being written (or silently rejected by a column type).
 */
export class ClockError extends Error {
  override readonly name = 'ClockError';
  constructor(readonly value: unknown) {
    super(`the store's now() returned ${String(value)}; it must return epoch milliseconds (a finite number >= 0)`);
  }
}

/** R6: a clock reading as integer epoch milliseconds (floored); throws ClockError if it is not a finite number >= 0. */
export function checkedNow(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > Number.MAX_SAFE_INTEGER) throw new ClockError(value);
  return Math.floor(value);
}
