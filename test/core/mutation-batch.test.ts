import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { ValidationError } from '../../src/core/errors.js';
import { prepareRecord, prepareRecordBatch } from '../../src/core/record.js';

/**
 * R9e: a batch is checked whole before anything is written, and its first bad input is named by
 * its index, with the field, code and message the single input would have had.
 */
const T = 1_767_225_600_000;
const good = { sessionKey: 'agent:main:s', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hi' };

function refusal(inputs: unknown): ValidationError {
  try {
    prepareRecordBatch(inputs, T);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('accepted');
}

describe('R9e prepareRecordBatch names the first bad input by its index', () => {
  it('R9e not an array, too many, a hole: the batch itself is named', () => {
    expect(refusal({ 0: good }).message).toBe('(input): recordMany takes an array of record inputs');
    const over = refusal(new Array(LIMITS.maxRecordsPerBatch + 1).fill(good));
    expect([over.field, over.code, over.message]).toEqual(['(input)', 'range', `(input): a batch holds at most ${LIMITS.maxRecordsPerBatch} inputs, got ${LIMITS.maxRecordsPerBatch + 1}`]);
    expect(prepareRecordBatch(new Array(LIMITS.maxRecordsPerBatch).fill(good), T)).toHaveLength(LIMITS.maxRecordsPerBatch);
    // eslint-disable-next-line no-sparse-arrays
    const hole = refusal([good, , good]);
    expect([hole.field, hole.code, hole.message]).toEqual(['1', 'required', '1: is a hole in the array']);
  });

  it('R9e a bad element: its index before the field, the message without the field repeated', () => {
    const bad = refusal([good, { ...good, summary: 42 }]);
    expect([bad.field, bad.code]).toEqual(['1.summary', 'type']);
    let single: ValidationError | undefined;
    try {
      prepareRecord({ ...good, summary: 42 }, T);
    } catch (e) {
      single = e as ValidationError;
    }
    expect(single!.message.startsWith('summary: ')).toBe(true);
    expect(bad.message).toBe(`1.${single!.message}`);
    const whole = refusal([good, good, 'text']);
    expect(whole.field).toBe('2');
    expect(whole.message.startsWith('2: ')).toBe(true);
    expect(whole.message).not.toContain('(input)');
    expect(prepareRecordBatch([], T)).toEqual([]);
  });
});

describe('R3 a record passing more watchers than allowed', () => {
  it('R3 is refused on watchers with code range', () => {
    const watchers = Array.from({ length: LIMITS.maxWatchersPerRecord + 1 }, (_, i) => `agent:main:w${i}`);
    let error: ValidationError | undefined;
    try {
      prepareRecord({ ...good, watchers }, T);
    } catch (e) {
      error = e as ValidationError;
    }
    expect([error?.field, error?.code]).toEqual(['watchers', 'range']);
    expect(prepareRecord({ ...good, watchers: watchers.slice(1) }, T)).toBeDefined();
  });
});
