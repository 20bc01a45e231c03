/**
 * Indistinguishable from the reference: random programs (records of every kind, watches, drains,
 * reads, clock jumps, prunes, restarts, resets, deletes) run against the in-memory store and the
 * SQLite store side by side; every observable result must be equal.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, type EventKind, type SessionStateStore } from '../../spec/index.js';
import { isValidationError } from '../../src/core/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { createSqliteStore } from '../../src/sqlite/index.js';
import { DAY, HOUR, T0 } from '../contract/harness.js';
import { tempDir } from './helpers.js';

const dir = tempDir('diff');
let fileNo = 0;

const TARGETS: [string, string][] = [
  ['agent:main:t0', 'main'],
  ['agent:main:t1', 'main'],
  ['agent:main:subagent:c', 'main'],
  ['global', 'main'],
  ['global', 'ops'],
];
const WATCHERS = ['agent:main:w0', 'agent:main:subagent:w1', 'agent:main:t0', 'main', 'agent:main:subagent:c'];

function payloadFor(kind: EventKind, pick: number): Record<string, unknown> | undefined {
  switch (kind) {
    case 'run_failed':
      return { outcome: (['cancelled', 'timeout', 'error'] as const)[pick % 3] };
    case 'upstream_missing':
      return { channel: 'claude' };
    case 'adopted':
      return { catalogId: 'claude', hostId: 'gateway:local' };
    case 'human_direct_message':
      return pick % 2 ? { channel: 'telegram', turns: 1 + pick } : undefined;
    case 'goal_changed':
      return pick % 2 ? { action: 'updated' } : undefined;
    default:
      return undefined;
  }
}

const target = fc.integer({ min: 0, max: TARGETS.length - 1 });
const watcher = fc.constantFrom(...WATCHERS);
const op = fc.oneof(
  { weight: 8, arbitrary: fc.record({
    t: fc.constant('record' as const),
    target,
    kind: fc.constantFrom(...EVENT_KINDS),
    actor: fc.option(fc.constantFrom(...WATCHERS), { nil: undefined }),
    watchers: fc.subarray(WATCHERS),
    dedupe: fc.option(fc.constantFrom('d1', 'd2', 'd3'), { nil: undefined }),
    occurredOffset: fc.option(fc.constantFrom(-3 * DAY, -HOUR, 0, HOUR), { nil: undefined }),
    onlyIfWatched: fc.boolean(),
    pick: fc.nat(5),
  }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('watch' as const), w: watcher, target }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('drain' as const), w: watcher }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('pending' as const), w: watcher }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('changes' as const), target, since: fc.nat(40), limit: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('version' as const), target }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.constantFrom(1, 10 * 60 * 1000, HOUR, DAY, 6 * DAY) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('prune' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('restart' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('reset' as const), w: watcher }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delete' as const), target }) },
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** Runs one op; a ValidationError is a result too (both stores must throw it). */
function apply(store: SessionStateStore, o: Op, clock: { t: number }): unknown {
  try {
    switch (o.t) {
      case 'record': {
        const [sessionKey, agentId] = TARGETS[o.target]!;
        const payload = payloadFor(o.kind, o.pick);
        return store.record({
          sessionKey, agentId, kind: o.kind, actorType: o.actor ? 'agent' : 'human', summary: `${o.kind} happened`,
          ...(o.actor ? { actorId: o.actor } : {}), ...(payload ? { payload } : {}), ...(o.dedupe ? { dedupeKey: o.dedupe } : {}),
          ...(o.occurredOffset !== undefined ? { occurredAt: clock.t + o.occurredOffset } : {}),
          watchers: o.watchers, onlyIfWatched: o.onlyIfWatched,
        } as never);
      }
      case 'watch': {
        const [targetSessionKey, agentId] = TARGETS[o.target]!;
        return store.watch({ watcherSessionKey: o.w, targetSessionKey, agentId });
      }
      case 'drain':
        return store.drainNotices(o.w);
      case 'pending':
        return store.pendingNotices(o.w);
      case 'changes': {
        const [sessionKey, agentId] = TARGETS[o.target]!;
        return store.changesSince({ sessionKey, agentId, since: o.since, ...(o.limit ? { limit: o.limit } : {}) });
      }
      case 'version': {
        const [sessionKey, agentId] = TARGETS[o.target]!;
        return store.stateVersion(sessionKey, agentId);
      }
      case 'advance':
        return undefined;
      case 'prune':
        return store.prune();
      case 'restart':
        return store.restart();
      case 'reset':
        return store.resetSession(o.w);
      case 'delete': {
        const [sessionKey, agentId] = TARGETS[o.target]!;
        return store.deleteSession(sessionKey, agentId);
      }
    }
  } catch (error) {
    if (isValidationError(error)) return { validationError: (error as { field: string }).field };
    throw error;
  }
}

function snapshot(store: SessionStateStore): unknown {
  return {
    pending: WATCHERS.map((w) => store.pendingNotices(w)),
    logs: TARGETS.map(([sessionKey, agentId]) => store.changesSince({ sessionKey, agentId, since: 0 })),
  };
}

function agree(ops: Op[], path: string | undefined): void {
  const clock = { t: T0 };
  const options = { now: () => clock.t, retentionMs: 10 * DAY, maxRows: 12 };
  const memory = createMemoryStore(options);
  const sqlite = createSqliteStore({ ...options, logger: silentLogger, ...(path ? { path } : {}) });
  try {
    ops.forEach((o, i) => {
      if (o.t === 'advance') clock.t += o.ms;
      const expected = apply(memory, o, clock);
      const actual = apply(sqlite, o, clock);
      expect(actual, `op ${i}: ${JSON.stringify(o)}`).toEqual(expected);
    });
    expect(snapshot(sqlite)).toEqual(snapshot(memory));
  } finally {
    sqlite.close();
  }
}

describe('sqlite store vs the in-memory reference', () => {
  it('agree on every result of random programs (:memory:)', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 80, size: 'max' }), (ops) => agree(ops, undefined)), { numRuns: 150 });
  });

  it('agree on every result of random programs (file)', () => {
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 80, size: 'max' }), (ops) => agree(ops, join(dir, `d${fileNo++}.db`))), { numRuns: 25 });
  });
});
