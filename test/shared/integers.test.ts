import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toSafeNumber } from '../../src/shared/integers.js';
import { UnsafeIntegerError } from '../../src/shared/state-errors.js';

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

describe('toSafeNumber: integer columns decode exactly or are refused', () => {
  it('takes bigints up to ±(2^53 - 1) and refuses every one past them, however close', () => {
    for (const v of [0n, 1n, -1n, MAX, -MAX, MAX - 1n]) expect(toSafeNumber(v, 'f')).toBe(Number(v));
    // 2^53 and 2^53 + 1 both convert to 2^53 as a number: the check must still refuse them.
    for (const v of [MAX + 1n, MAX + 2n, -(MAX + 1n), -(MAX + 2n), 2n ** 64n, -(2n ** 64n)]) {
      let error: unknown;
      try {
        toSafeNumber(v, 'the_column');
      } catch (e) {
        error = e;
      }
      expect(error, String(v)).toBeInstanceOf(UnsafeIntegerError);
      expect(String((error as Error).message)).toContain('the_column');
    }
  });
  it('agrees with a bigint range check for any bigint, and with itself for the same value as a string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }), (v) => {
        const safe = v <= MAX && v >= -MAX;
        if (safe) {
          expect(toSafeNumber(v, 'f')).toBe(Number(v));
          expect(toSafeNumber(String(v), 'f')).toBe(Number(v));
        } else {
          expect(() => toSafeNumber(v, 'f')).toThrow(UnsafeIntegerError);
          expect(() => toSafeNumber(String(v), 'f')).toThrow(UnsafeIntegerError);
        }
      }),
      { numRuns: 3000 },
    );
  });
  it('refuses what is not an integer, naming the field', () => {
    expect(() => toSafeNumber('1.5', 'col')).toThrow(/col/);
    expect(() => toSafeNumber(null, 'col')).toThrow(/col: expected an integer, got null/);
    expect(() => toSafeNumber(2.5, 'col')).toThrow(UnsafeIntegerError);
  });
});
