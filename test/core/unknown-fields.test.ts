/**
 * R9, R9a: a field is known only if its schema names it. Names every object inherits
 * (`constructor`, `toString`, `hasOwnProperty`) and an own `__proto__` key (what JSON.parse makes
 * of `{"__proto__": ...}`) are unknown fields, refused by name, never stored.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError, validateRecordInput, validateWatchRequest } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';

const BASE = { sessionKey: 'agent:main:a', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 's' };

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('R9 unknown fields', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('R9 an own %s field of record input is an unknown field', (name) => {
    const e = refusal(() => validateRecordInput({ ...BASE, [name]: 'x' }));
    expect([e.field, e.code]).toEqual([name, 'unknown-field']);
  });

  it('R9a an own __proto__ key is refused by name and does not change what is stored', () => {
    const input = JSON.parse(`{"sessionKey":"agent:main:a","agentId":"main","kind":"human_direct_message","actorType":"human","summary":"s","__proto__":{"payload":{"text":"x"}}}`) as unknown;
    const e = refusal(() => validateRecordInput(input));
    expect([e.field, e.code]).toEqual(['__proto__', 'unknown-field']);
    const store = createMemoryStore({ now: () => 1_767_225_600_000 });
    expect(() => store.record(input as never)).toThrow(ValidationError);
    expect(store.stateVersion('agent:main:a', 'main')).toBe(0);
  });

  it('R9 the same holds for the other requests', () => {
    const e = refusal(() => validateWatchRequest({ watcherSessionKey: 'agent:main:w', targetSessionKey: 'agent:main:a', agentId: 'main', constructor: 1 }));
    expect([e.field, e.code]).toEqual(['constructor', 'unknown-field']);
  });
});
