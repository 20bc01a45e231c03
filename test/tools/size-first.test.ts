import { describe, expect, it } from 'vitest';
import { RecordInput } from '../../spec/index.js';
import { SessionStatusArgs } from '../../spec/schemas/tools.js';
import { assertSchema } from '../../src/core/index.js';
import { createMemoryStore } from '../../src/memory/index.js';

// T16: oversized input is refused by size first. Counted, not timed: the values the validator
// reads through a Proxy. The refusal used to read every field or element several times over (the
// error report walks the whole value, and again for its message).
function counting<T extends object>(target: T, counts: (p: string | symbol) => boolean): { value: T; reads: () => number } {
  let reads = 0;
  return { value: new Proxy(target, { get: (t, p) => (counts(p) && reads++, Reflect.get(t, p)) }), reads: () => reads };
}

describe('T16 size first', () => {
  it('T16 a closed object with 100,000 unknown fields: the first unknown field is named after reading a handful of values', () => {
    const target: Record<string, unknown> = { sessionKey: 'agent:main:worker' };
    for (let i = 0; i < 100_000; i++) target[`f${i}`] = i;
    const { value, reads } = counting(target, () => true);
    expect(() => assertSchema(SessionStatusArgs, value)).toThrow(expect.objectContaining({ field: 'f0', code: 'unknown-field' }));
    expect(reads()).toBeLessThan(10);
  });

  it('T16 100,001 watchers: refused as a range error reading each element once; a bad element is still named first', () => {
    const watchersSchema = (RecordInput as unknown as { properties: { watchers: Parameters<typeof assertSchema>[0] } }).properties.watchers;
    const keys = Array.from({ length: 100_001 }, (_, i) => `agent:main:w${i}`);
    const { value, reads } = counting(keys, (p) => typeof p === 'string' && /^\d+$/.test(p));
    expect(() => assertSchema(watchersSchema, value, 'watchers')).toThrow(expect.objectContaining({ field: 'watchers', code: 'range', message: 'watchers: must not have more than 100000 items' }));
    expect(reads()).toBe(keys.length);
    const bad = [...keys];
    bad[7] = 'agent:main:"x';
    expect(() => assertSchema(watchersSchema, bad, 'watchers')).toThrow(expect.objectContaining({ field: 'watchers.7', code: 'format' }));
  });

  it('T16 through record(): the same refusals, and nothing is written', () => {
    const store = createMemoryStore({ now: () => 1 });
    const base = { sessionKey: 'agent:main:worker', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'hi', payload: { channel: 'telegram' } } as const;
    const watchers = Array.from({ length: 100_001 }, (_, i) => `agent:main:w${i}`);
    expect(() => store.record({ ...base, watchers })).toThrow(expect.objectContaining({ field: 'watchers', code: 'range' }));
    const extra: Record<string, unknown> = { ...base };
    for (let i = 0; i < 100_000; i++) extra[`f${i}`] = i;
    expect(() => store.record(extra as never)).toThrow(expect.objectContaining({ field: 'f0', code: 'unknown-field' }));
    expect(store.stateVersion('agent:main:worker', 'main')).toBe(0);
  });
});
