import { UnsafeIntegerError } from './state-errors.js';

/**
 * Decodes an integer column exactly, whatever the driver hands back: bigint (SQLite with
 * safeIntegers), number, or a decimal string (pg's default for int8). A value past 2^53 - 1 is an
 * UnsafeIntegerError naming `field`, never a silently rounded number.
 */
export function toSafeNumber(value: unknown, field: string): number {
  if (typeof value === 'string') {
    if (!/^-?\d+$/.test(value)) throw new TypeError(`${field}: expected an integer, got ${JSON.stringify(value)}`);
    return toSafeNumber(BigInt(value), field);
  }
  if (typeof value === 'bigint') {
    // Exact: a bigint within ±(2^53 - 1) converts exactly, and any beyond rounds to at least 2^53,
    // which is not a safe integer. Cheaper than two bigint comparisons (read per pending notice).
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new UnsafeIntegerError(field, value.toString());
    return n;
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(field, String(value));
    return value;
  }
  throw new TypeError(`${field}: expected an integer, got ${value === null ? 'null' : typeof value}`);
}
