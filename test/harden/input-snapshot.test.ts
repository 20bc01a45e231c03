/**
 * R9a: the input is read once. A getter or Proxy that answers one value while it is validated and
 * another afterwards must not get the unvalidated value stored; holes in arrays are a
 * ValidationError naming the index; when several fields are bad the error names the first in
 * schema order; a non-object input is `field: "(input)"`; the store clock defaults to Date.now and
 * a non-function `now` is refused at construction (R6).
 */
import { describe, expect, it } from 'vitest';
import { ValidationError, validateRecordInput } from '../../src/core/index.js';
import { validateContinueInput } from '../../src/core/upstream/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { A, CHILD, COORD, PARENT, T0, human } from '../contract/harness.js';
import { TEST_DRIVER } from '../sqlite/helpers.js';

const stores = {
  memory: () => createMemoryStore({ now: () => T0 }),
  sqlite: () => createSqliteStore({ now: () => T0, driver: TEST_DRIVER, logger: silentLogger }),
};

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.field;
    throw error;
  }
  return undefined;
}

/** An object whose `key` answers `first` on its first read and `later` on every read after that. */
function flipping<T extends object>(base: T, key: string, first: unknown, later: unknown): T {
  let reads = 0;
  const o = { ...base } as Record<string, unknown>;
  Object.defineProperty(o, key, { enumerable: true, get: () => (reads++ === 0 ? first : later) });
  return o as T;
}

for (const [name, make] of Object.entries(stores)) {
  describe(`R9a input read once (${name} store)`, () => {
    it('R9a: a getter that changes after validation does not get its later value stored', () => {
      const store = make();
      const input = flipping(human(CHILD), 'sessionKey', CHILD, 'agent:main:x\n"evil"');
      const e = store.record(input as never)!;
      expect(e.sessionKey).toBe(CHILD);
      expect(store.changesSince({ sessionKey: CHILD, agentId: A, since: 0 }).stateChanges.events.map((x) => x.sessionKey)).toEqual([CHILD]);
      store.close();
    });

    it('R9a: a Proxy is read once per field; watchers are copied', () => {
      const store = make();
      const watchers = [COORD];
      const counts = new Map<string | symbol, number>();
      const proxy = new Proxy(human(CHILD, { watchers }), {
        get(target, key, receiver) {
          counts.set(key, (counts.get(key) ?? 0) + 1);
          const n = counts.get(key)!;
          if (key === 'summary' && n > 1) return 'two\nlines';
          return Reflect.get(target, key, receiver);
        },
      });
      const e = store.record(proxy as never)!;
      expect(e.summary).toBe('human message via telegram');
      expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
      watchers.push('agent:main:late');
      expect(store.pendingNotices('agent:main:late')).toEqual([]);
      expect(store.pendingNotices(COORD)).toHaveLength(1);
      store.close();
    });

    it('R9a: watch and changesSince use one read of their request', () => {
      const store = make();
      const w = flipping({ watcherSessionKey: COORD, agentId: A }, 'targetSessionKey', CHILD, 'agent:main:other');
      expect(store.watch(w as never)).toEqual({ watched: true });
      store.record(human(CHILD));
      expect(store.pendingNotices(COORD).map((n) => n.targetSessionKey)).toEqual([CHILD]);
      const c = flipping({ agentId: A, since: 0 }, 'sessionKey', CHILD, 'agent:main:"x"');
      expect(store.changesSince(c as never).stateChanges.events).toHaveLength(1);
      store.close();
    });

    it('R9a: unwatch and ackNotices use one read of their input; a hole in the acks names its index', () => {
      const store = make();
      store.watch({ watcherSessionKey: COORD, targetSessionKey: CHILD, agentId: A });
      store.watch({ watcherSessionKey: COORD, targetSessionKey: PARENT, agentId: A });
      store.record(human(CHILD));
      store.record(human(PARENT));
      const onChild = store.pendingNotices(COORD).find((n) => n.targetSessionKey === CHILD)!;
      // A getter that answers a valid key, then another one: the validated key is the one unwatched.
      const u = flipping({ watcherSessionKey: COORD, agentId: A }, 'targetSessionKey', PARENT, 'agent:main:"x"');
      expect(store.unwatch(u as never)).toEqual({ unwatched: true });
      expect(store.pendingNotices(COORD)).toEqual([onChild]);
      // An ack whose L reads as the pending one while validated and as another afterwards acks by the validated L.
      const ack = flipping({ contextKey: onChild.contextKey }, 'lastSeenSequence', onChild.lastSeenSequence, 999);
      expect(store.ackNotices(COORD, [ack as never]).map((n) => n.targetSessionKey)).toEqual([CHILD]);
      expect(store.pendingNotices(COORD)).toEqual([]);
      // eslint-disable-next-line no-sparse-arrays
      const sparse = [, onChild] as never[];
      expect(fieldOf(() => store.ackNotices(COORD, sparse))).toBe('notices.0');
      store.close();
    });

    it('R9a: a hole in watchers is a ValidationError naming the index, and nothing is written', () => {
      const store = make();
      // eslint-disable-next-line no-sparse-arrays
      const sparse = [PARENT, , COORD] as string[];
      expect(fieldOf(() => store.record(human(CHILD, { watchers: sparse }) as never))).toBe('watchers.1');
      expect(store.stateVersion(CHILD, A)).toBe(0);
      expect(store.pendingNotices(PARENT)).toEqual([]);
      store.close();
    });
  });
}

describe('R9a which field an error names', () => {
  it('R9a: a non-object input is field "(input)"', () => {
    for (const bad of [null, undefined, 42, 'x', [human()]]) expect(fieldOf(() => validateRecordInput(bad))).toBe('(input)');
  });

  it('R9a: with two bad fields the earlier one in schema order is named', () => {
    expect(fieldOf(() => validateRecordInput(human(CHILD, { sessionKey: '', summary: '' })))).toBe('sessionKey');
    expect(fieldOf(() => validateRecordInput(human(CHILD, { summary: '', kind: 'nope' })))).toBe('kind');
    expect(fieldOf(() => validateRecordInput(human(CHILD, { watchers: [''], runId: '' })))).toBe('runId');
    // unknown fields come after every known field; R1's agent agreement after the schema.
    expect(fieldOf(() => validateRecordInput({ zzz: 1, ...human(CHILD, { summary: '' }) }))).toBe('summary');
    expect(fieldOf(() => validateRecordInput({ ...human(CHILD), agentId: 'other', zzz: 1 }))).toBe('zzz');
    expect(fieldOf(() => validateRecordInput({ ...human(CHILD), agentId: 'other', summary: '' }))).toBe('summary');
    // a missing required field counts at its own place in the order
    const { agentId: _drop, ...noAgent } = human(CHILD, { summary: '' });
    expect(fieldOf(() => validateRecordInput(noAgent))).toBe('agentId');
  });

  it('R9a: the upstream Continue input is read once too', () => {
    const input = flipping(
      { agentId: A, catalogId: 'claude', hostId: 'local', threadId: 't1', upstreamKind: 'claude-jsonl', ref: { filePath: '/x' } },
      'sessionKey',
      CHILD,
      'agent:main:\u2028',
    );
    expect(validateContinueInput(input).sessionKey).toBe(CHILD);
  });
});

describe('R6 store clock option', () => {
  it('R6: now defaults to Date.now in every store factory', () => {
    for (const make of [() => createMemoryStore(), () => createSqliteStore({ driver: TEST_DRIVER, logger: silentLogger })]) {
      const before = Date.now();
      const store = make();
      const e = store.record(human())!;
      expect(e.recordedAt).toBeGreaterThanOrEqual(before);
      expect(e.recordedAt).toBeLessThanOrEqual(Date.now());
      store.close();
    }
  });

  it('R6: a non-function now is a ValidationError on "now" at construction', () => {
    for (const bad of [123, 'Date.now', null, {}]) {
      expect(fieldOf(() => createMemoryStore({ now: bad as never }))).toBe('now');
      expect(fieldOf(() => createSqliteStore({ now: bad as never, driver: TEST_DRIVER, logger: silentLogger }))).toBe('now');
    }
  });
});
