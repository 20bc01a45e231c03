/**
 * R9a: which objects the one read of an input accepts. The argument itself may be any object (its
 * own enumerable fields are read, as from a class instance built by a runtime); below the top
 * level only plain objects and arrays are copied, and anything else is refused by name.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError, snapshotInput, validateRecordInput, validateWatchRequest } from '../../src/core/index.js';
import { A, CHILD, PARENT } from '../contract/harness.js';

describe('R9a the top-level argument', () => {
  it('R9a: a class instance is read by its own fields into a plain copy; prototype getters are not fields', () => {
    class Input {
      sessionKey = CHILD;
      agentId = A;
      kind = 'human_direct_message';
      actorType = 'human';
      summary = 'human message via telegram';
      get message() {
        return 'not a field';
      }
    }
    const input = new Input();
    const valid = validateRecordInput(input);
    expect(valid).toEqual({ sessionKey: CHILD, agentId: A, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    expect(Object.getPrototypeOf(valid)).toBe(Object.prototype);
    expect(valid).not.toBe(input);

    class Request {
      watcherSessionKey = PARENT;
      targetSessionKey = CHILD;
      agentId = A;
    }
    expect(validateWatchRequest(new Request())).toEqual({ watcherSessionKey: PARENT, targetSessionKey: CHILD, agentId: A });
  });

  it('R9a: a null-prototype argument is read like a plain one', () => {
    const input = Object.assign(Object.create(null), { sessionKey: CHILD, agentId: A, kind: 'created', actorType: 'system', summary: 'session created' });
    expect(validateRecordInput(input).kind).toBe('created');
  });

  it('R9a: below the top level a non-plain object is a ValidationError on its path, also inside an array', () => {
    const named = (value: unknown) => {
      try {
        snapshotInput(value);
      } catch (caught) {
        expect(caught).toBeInstanceOf(ValidationError);
        const error = caught as ValidationError;
        return [error.field, error.code];
      }
      return undefined;
    };
    expect(named({ a: new Date(0) })).toEqual(['a', 'type']);
    expect(named({ a: [1, new Map()] })).toEqual(['a.1', 'type']);
    expect(named([new Set()])).toEqual(['0', 'type']);
    expect(named({ a: { b: new (class {})() } })).toEqual(['a.b', 'type']);
    expect(named({ a: { b: Object.create(null) } })).toBeUndefined();
  });
});
