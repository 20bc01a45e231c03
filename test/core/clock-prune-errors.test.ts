/**
 * R6 (the clock), R9 (typed errors), R40-R43 (pruning decisions): the boundaries the stores rely
 * on, through the core's public functions and the reference store.
 */
import { describe, expect, it } from 'vitest';
import {
  ClockError,
  ValidationError,
  checkedNow,
  isPruneDue,
  isValidationError,
  raiseWatermark,
  resolvePruneConfig,
  retentionCutoff,
} from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { LIMITS } from '../../spec/index.js';
import { A, CHILD, DAY, T0, human } from '../contract/harness.js';

describe('R9 ValidationError', () => {
  it('R9: carries field and code, is named ValidationError, and its message starts with the field', () => {
    const error = new ValidationError('payload.outcome', 'required', 'is required');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
    expect(error.field).toBe('payload.outcome');
    expect(error.code).toBe('required');
    expect(error.message).toBe('payload.outcome: is required');
    expect(String(error)).toBe('ValidationError: payload.outcome: is required');
  });

  it('R9: isValidationError also knows one from another copy of the package (by name and field), nothing else', () => {
    expect(isValidationError(new ValidationError('x', 'type', 'm'))).toBe(true);
    // A second copy of the package (another bundle, another realm) has its own class.
    const foreign = Object.assign(new Error('x: m'), { name: 'ValidationError', field: 'x', code: 'type' });
    expect(isValidationError(foreign)).toBe(true);
    expect(isValidationError(Object.assign(new Error('m'), { name: 'ValidationError' }))).toBe(false); // no field
    expect(isValidationError(Object.assign(new Error('m'), { name: 'TypeError', field: 'x' }))).toBe(false);
    expect(isValidationError(Object.assign(new TypeError('m'), { field: 'x' }))).toBe(false);
    expect(isValidationError({ name: 'ValidationError', field: 'x', message: 'm' })).toBe(false); // not an Error
    for (const other of [undefined, null, 'ValidationError', new ClockError(-1), new RangeError('x')]) expect(isValidationError(other)).toBe(false);
  });
});

describe('R6 checkedNow', () => {
  it('R6: integer readings from 0 to 2^53-1 pass unchanged', () => {
    for (const t of [0, 1, T0, Number.MAX_SAFE_INTEGER]) expect(checkedNow(t)).toBe(t);
  });

  it('R6: a fractional reading is floored', () => {
    expect(checkedNow(T0 + 0.999)).toBe(T0);
    expect(checkedNow(0.5)).toBe(0);
    expect(checkedNow(Number.MAX_SAFE_INTEGER - 0.5)).toBe(Number.MAX_SAFE_INTEGER - 1);
  });

  it('R6: anything but a finite number in 0..2^53-1 is a ClockError that carries the reading', () => {
    for (const bad of [-1, -0.5, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '5', null, undefined, 5n, new Date(T0)]) {
      let thrown: unknown;
      try {
        checkedNow(bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, String(bad)).toBeInstanceOf(ClockError);
      expect((thrown as ClockError).name).toBe('ClockError');
      expect((thrown as ClockError).value).toBe(bad);
      expect((thrown as ClockError).message).toContain('now()');
    }
  });

  it('R6: a store whose clock reads 2^53-1 still records; one past it records nothing', async () => {
    let t = Number.MAX_SAFE_INTEGER;
    const store = createMemoryStore({ now: () => t });
    const event = await store.record(human());
    expect(event?.recordedAt).toBe(Number.MAX_SAFE_INTEGER);
    t = Number.MAX_SAFE_INTEGER + 2;
    await expect((async () => store.record(human()))()).rejects.toBeInstanceOf(ClockError);
    expect(await store.stateVersion(CHILD, A)).toBe(event!.sequence);
  });
});

describe('R40, R41 prune configuration', () => {
  it('R40, R41: defaults are the protocol limits', () => {
    expect(resolvePruneConfig({})).toEqual({ retentionMs: LIMITS.retentionMs, maxRows: LIMITS.maxRows });
    expect(resolvePruneConfig({ retentionMs: undefined, maxRows: undefined })).toEqual({ retentionMs: LIMITS.retentionMs, maxRows: LIMITS.maxRows });
  });

  it('R40, R41: 1 and 2^53-1 are accepted for both', () => {
    expect(resolvePruneConfig({ retentionMs: 1, maxRows: 1 })).toEqual({ retentionMs: 1, maxRows: 1 });
    const max = Number.MAX_SAFE_INTEGER;
    expect(resolvePruneConfig({ retentionMs: max, maxRows: max })).toEqual({ retentionMs: max, maxRows: max });
    expect(resolvePruneConfig({ retentionMs: DAY })).toEqual({ retentionMs: DAY, maxRows: LIMITS.maxRows });
    expect(resolvePruneConfig({ maxRows: 7 })).toEqual({ retentionMs: LIMITS.retentionMs, maxRows: 7 });
  });

  it('R40, R41: zero, negative, fractional, unsafe or non-number values are a RangeError naming the option', () => {
    for (const value of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, Number.POSITIVE_INFINITY, '10']) {
      const bad = value as number; // '10' is a string on purpose: the cast only lets it reach the check
      expect(() => resolvePruneConfig({ retentionMs: bad }), `retentionMs ${String(bad)}`).toThrow(RangeError);
      expect(() => resolvePruneConfig({ retentionMs: bad }), `retentionMs ${String(bad)}`).toThrow(/retentionMs/);
      expect(() => resolvePruneConfig({ maxRows: bad }), `maxRows ${String(bad)}`).toThrow(RangeError);
      expect(() => resolvePruneConfig({ maxRows: bad }), `maxRows ${String(bad)}`).toThrow(/maxRows/);
    }
    // Each option is checked on its own: a good one does not excuse a bad other.
    expect(() => resolvePruneConfig({ retentionMs: DAY, maxRows: 0 })).toThrow(/maxRows/);
    expect(() => resolvePruneConfig({ retentionMs: 0, maxRows: 5 })).toThrow(/retentionMs/);
  });

  it('R40, R41: a store refuses a bad option when it is built', () => {
    expect(() => createMemoryStore({ now: () => T0, retentionMs: 0 })).toThrow(RangeError);
    expect(() => createMemoryStore({ now: () => T0, maxRows: 0.5 })).toThrow(RangeError);
  });
});

describe('R40, R42, R43 prune decisions', () => {
  it('R40, R44: the cutoff is now minus the retention', () => {
    expect(retentionCutoff(T0, { retentionMs: DAY, maxRows: 1 })).toBe(T0 - DAY);
    expect(retentionCutoff(DAY, { retentionMs: DAY, maxRows: 1 })).toBe(0);
  });

  it('R43: due at exactly one interval after the last prune, not one millisecond before', () => {
    const hour = LIMITS.pruneIntervalMs;
    expect(isPruneDue(T0 + hour, T0)).toBe(true);
    expect(isPruneDue(T0 + hour - 1, T0)).toBe(false);
    expect(isPruneDue(T0 + hour + 1, T0)).toBe(true);
    expect(isPruneDue(T0, T0)).toBe(false);
  });

  it('R43: a clock that stepped back (even by 1 ms) makes it due', () => {
    expect(isPruneDue(T0 - 1, T0)).toBe(true);
    expect(isPruneDue(T0 - DAY, T0)).toBe(true);
  });

  it('R42: the watermark only rises', () => {
    expect(raiseWatermark(5, 9)).toBe(9);
    expect(raiseWatermark(9, 5)).toBe(9);
    expect(raiseWatermark(7, 7)).toBe(7);
    expect(raiseWatermark(0, 1)).toBe(1);
  });
});
