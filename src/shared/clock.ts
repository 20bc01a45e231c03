import { ValidationError } from '../core/errors.js';

/**
 * R6: the store's clock. Absent means the host's wall clock (Date.now); anything else that is not a
 * function is refused when the store is built, naming the option, instead of failing as a
 * TypeError on the first call that reads the time.
 */
export function resolveClock(now: unknown): () => number {
  if (now === undefined) return Date.now;
  if (typeof now !== 'function') {
    throw new ValidationError('now', 'type', `must be a function returning epoch milliseconds (omit it for Date.now); got ${now === null ? 'null' : typeof now}`);
  }
  return now as () => number;
}
