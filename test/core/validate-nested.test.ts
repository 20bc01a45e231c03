/**
 * R1, R9, R9a: assertObjectInOrder (the ordered field check every request validator uses) on its
 * own: every string nested in a checked field must be well-formed UTF-16, at any depth, and the
 * error names its path; nested null, numbers and absent optional values are not strings and pass.
 * And what a refusal's message tells a caller beyond the field: the limit that was exceeded, that
 * a character or shape is refused, that a field is unknown.
 */
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { ValidationError, assertObjectInOrder, validateRecordInput } from '../../src/core/index.js';
import { CHILD, human } from '../contract/harness.js';

const Schema = Type.Object(
  {
    name: Type.String(),
    meta: Type.Optional(
      Type.Object({
        label: Type.Optional(Type.String()),
        note: Type.Union([Type.Null(), Type.String()]),
        count: Type.Optional(Type.Number()),
        tags: Type.Optional(Type.Array(Type.Union([Type.Null(), Type.String()]))),
        inner: Type.Optional(Type.Object({ deep: Type.Optional(Type.String()) })),
      }),
    ),
  },
  { additionalProperties: false },
);

function refused(input: unknown): { field: string; code: string } | undefined {
  try {
    assertObjectInOrder(Schema, input);
  } catch (caught) {
    expect(caught).toBeInstanceOf(ValidationError);
    const error = caught as ValidationError;
    return { field: error.field, code: error.code };
  }
  return undefined;
}

describe('R1 well-formed strings at any depth', () => {
  it('R1: a lone surrogate nested in an object field is "format", named by its full path', () => {
    expect(refused({ name: 'n', meta: { note: null, label: 'a\uD800' } })).toEqual({ field: 'meta.label', code: 'format' });
    expect(refused({ name: 'n', meta: { note: 'x\uDC00' } })).toEqual({ field: 'meta.note', code: 'format' });
    expect(refused({ name: 'n', meta: { note: null, inner: { deep: '\uDBFF' } } })).toEqual({ field: 'meta.inner.deep', code: 'format' });
    expect(refused({ name: 'n', meta: { note: null, tags: ['ok', null, '\uD83D'] } })).toEqual({ field: 'meta.tags.2', code: 'format' });
    expect(refused({ name: '\uD800' })).toEqual({ field: 'name', code: 'format' });
  });

  it('R1: nested null, numbers, absent optional values and surrogate pairs pass', () => {
    expect(refused({ name: 'n', meta: { note: null, count: 3, tags: [null, 'x😀'], inner: { deep: undefined }, label: undefined } })).toBeUndefined();
    expect(refused({ name: 'n', meta: { note: '😀', inner: {} } })).toBeUndefined();
    expect(refused({ name: 'n' })).toBeUndefined();
  });

  it('R9a: a missing required field, a schema failure and an unknown field are named in that order of checks', () => {
    expect(refused({})).toEqual({ field: 'name', code: 'required' });
    expect(refused({ name: 5, zzz: 1 })).toEqual({ field: 'name', code: 'type' });
    expect(refused({ name: 'n', zzz: 1 })).toEqual({ field: 'zzz', code: 'unknown-field' });
    expect(refused({ name: 'n', meta: { note: null, count: 'x' } })).toEqual({ field: 'meta.count', code: 'type' });
    expect(refused([])).toEqual({ field: '(input)', code: 'type' });
  });
});

describe('R9 what a refusal message tells the caller', () => {
  const message = (extra: Record<string, unknown>) => {
    try {
      validateRecordInput(human(CHILD, extra));
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a refusal');
  };

  it('R3, R9: a length refusal states the limit', () => {
    expect(message({ summary: 's'.repeat(201) })).toContain('200');
    expect(message({ sessionKey: `agent:main:${'k'.repeat(600)}` })).toContain('512');
  });

  it('R1, R3: a refused character or shape is reported as not allowed, not as a type problem', () => {
    expect(message({ summary: 'two\nlines' })).toMatch(/not allowed/);
    expect(message({ sessionKey: 'agent:main:"q"' })).toMatch(/not allowed/);
  });

  it('R4, R9: an unknown field is reported as not known, at the top and inside the payload', () => {
    expect(message({ text: 'hello' })).toMatch(/not a known field/);
    expect(message({ payload: { channel: 'telegram', text: 'hello' } })).toMatch(/not a known field/);
  });
});
