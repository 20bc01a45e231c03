/**
 * R9: the `code` of a ValidationError says what kind of problem the named field has, whatever
 * schema a caller checks with assertSchema (the stores' read-back checks and the tools use it with
 * their own schemas): a missing field is `required`, a bound of any kind (minimum, exclusive
 * minimum, length, item count) is `range`, a pattern or format is `format`, a wrong type is `type`.
 */
import Type from 'typebox';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { ValidationError, assertSchema } from '../../src/core/index.js';

function codeOf(schema: TSchema, value: unknown): { field: string; code: string } {
  try {
    assertSchema(schema, value, 'f');
  } catch (caught) {
    expect(caught).toBeInstanceOf(ValidationError);
    const error = caught as ValidationError;
    expect(error.message.startsWith('f')).toBe(true);
    return { field: error.field, code: error.code };
  }
  throw new Error('expected a ValidationError');
}

describe('R9 ValidationError codes for every bound', () => {
  it('R9: inclusive and exclusive numeric bounds are "range"', () => {
    expect(codeOf(Type.Integer({ minimum: 1 }), 0)).toEqual({ field: 'f', code: 'range' });
    expect(codeOf(Type.Integer({ maximum: 5 }), 6)).toEqual({ field: 'f', code: 'range' });
    expect(codeOf(Type.Integer({ exclusiveMinimum: 0 }), 0)).toEqual({ field: 'f', code: 'range' });
    expect(codeOf(Type.Integer({ exclusiveMaximum: 5 }), 5)).toEqual({ field: 'f', code: 'range' });
  });

  it('R9: string length and item-count bounds are "range"', () => {
    expect(codeOf(Type.String({ minLength: 2 }), 'a')).toEqual({ field: 'f', code: 'range' });
    expect(codeOf(Type.String({ maxLength: 2 }), 'abc')).toEqual({ field: 'f', code: 'range' });
    expect(codeOf(Type.Array(Type.String(), { minItems: 1 }), [])).toEqual({ field: 'f', code: 'range' });
    expect(codeOf(Type.Array(Type.String(), { maxItems: 1 }), ['a', 'b'])).toEqual({ field: 'f', code: 'range' });
  });

  it('R9: a pattern or a format is "format"; a wrong type, a constant or a union is "type"', () => {
    expect(codeOf(Type.String({ pattern: '^a+$' }), 'b')).toEqual({ field: 'f', code: 'format' });
    expect(codeOf(Type.String({ format: 'email' }), 'x')).toEqual({ field: 'f', code: 'format' });
    expect(codeOf(Type.Integer(), 'x')).toEqual({ field: 'f', code: 'type' });
    expect(codeOf(Type.Literal('a'), 'b')).toEqual({ field: 'f', code: 'type' });
    expect(codeOf(Type.Union([Type.String(), Type.Number()]), true)).toEqual({ field: 'f', code: 'type' });
  });

  it('R9: a missing property is "required" and an unknown one "unknown-field", each named inside the value', () => {
    const schema = Type.Object({ a: Type.String(), b: Type.Optional(Type.Object({ c: Type.String() }, { additionalProperties: false })) }, { additionalProperties: false });
    expect(codeOf(schema, {})).toEqual({ field: 'f.a', code: 'required' });
    expect(codeOf(schema, { a: 'x', z: 1 })).toEqual({ field: 'f.z', code: 'unknown-field' });
    expect(codeOf(schema, { a: 'x', b: {} })).toEqual({ field: 'f.b.c', code: 'required' });
    expect(codeOf(schema, { a: 'x', b: { c: 'y', d: 1 } })).toEqual({ field: 'f.b.d', code: 'unknown-field' });
  });
});
