/**
 * A small team and what the live view's pages show of it (R81-R85), the same on every backend:
 * test/ui/mutation-pages.test.ts reads it from a SQLite file, test/postgres/read-model.test.ts
 * from a PostgreSQL schema, each through its read model.
 */
import { expect } from 'vitest';
import type { RecordInput, WatchRequest } from '../../spec/index.js';
import { MINUTE_MS } from '../../src/ui/source.js';
import type { StoreUiSource } from '../../src/ui/store-source.js';

export const TEAM_T0 = 1_767_225_600_000 + 30 * MINUTE_MS + 5;

/** What writing the team needs of a store: its calls may answer at once or with promises. */
export interface TeamStore {
  watch(request: WatchRequest): unknown;
  record(input: RecordInput): unknown;
}

/**
 * A lead watching a worker; a person writes to the worker three minutes in a row, the worker
 * finishes, and someone on another agent speaks in the last minute. `clock` is the store's clock;
 * the returned time is the clock's at the end.
 */
export async function writeTeam(store: TeamStore, clock: { advance(ms: number): void; now(): number }): Promise<number> {
  await store.watch({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:worker', agentId: 'main' });
  for (let i = 0; i < 3; i++) {
    await store.record({ sessionKey: 'agent:main:worker', agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: `person ${i}` });
    clock.advance(MINUTE_MS);
  }
  await store.record({ sessionKey: 'agent:main:worker', agentId: 'main', kind: 'run_completed', actorType: 'agent', actorId: 'agent:main:worker', summary: 'done' });
  await store.record({ sessionKey: 'agent:ops:x', agentId: 'ops', kind: 'human_direct_message', actorType: 'human', summary: 'ops' });
  return clock.now();
}

/** Sessions, a timeline, the watches and the activity of the team, page by page, as every backend must show them. */
export async function expectTeamPages(source: StoreUiSource, now: number): Promise<void> {
  const one = await source.sessions({ limit: 1 });
  expect(one.rows.map((r) => [r.sessionKey, r.agentId])).toEqual([['agent:main:lead', '']]);
  expect(one.rows[0]!.watcherOnly).toBe(true);
  const two = await source.sessions({ limit: 2, after: one.next! });
  expect(two.rows.map((r) => [r.sessionKey, r.agentId, r.stateVersion])).toEqual([
    ['agent:main:worker', 'main', 4],
    ['agent:ops:x', 'ops', 5],
  ]);
  expect(two.rows[0]).toMatchObject({ lastActorType: 'agent', lastActorId: 'agent:main:worker', lastKind: 'run_completed', earliestAvailableSequence: 1 });
  expect(two.next).toBeUndefined();
  expect((await source.sessions({ limit: 5, agent: 'ops' })).rows.map((r) => r.sessionKey)).toEqual(['agent:ops:x']);
  expect((await source.sessions({ limit: 5, search: 'WORK' })).rows.map((r) => r.sessionKey)).toEqual(['agent:main:worker']);

  const t1 = await source.timeline({ sessionKey: 'agent:main:worker', agentId: 'main', limit: 3 });
  expect(t1.events.map((e) => e.sequence)).toEqual([4, 3, 2]);
  expect(t1.next).toBe(2);
  const t2 = await source.timeline({ sessionKey: 'agent:main:worker', agentId: 'main', limit: 3, before: t1.next! });
  expect(t2.events.map((e) => e.sequence)).toEqual([1]);
  expect(t2.next).toBeUndefined();
  expect(await source.timeline({ sessionKey: 'agent:main:nobody', agentId: 'main', limit: 3 })).toEqual({ events: [] });

  const w = await source.watches({ limit: 5, pending: true });
  expect(w.rows).toHaveLength(1);
  expect(w.rows[0]).toMatchObject({ watcherSessionKey: 'agent:main:lead', targetSessionKey: 'agent:main:worker', pending: true, lastSeenSequence: 0 });
  expect((await source.watches({ limit: 5, session: 'agent:ops:x' })).rows).toEqual([]);

  const a = await source.activity(5);
  expect(a.end).toBe(Math.floor(now / MINUTE_MS) * MINUTE_MS);
  expect(a.buckets).toHaveLength(5);
  expect(a.buckets.map((b) => b.human + b.agent + b.system)).toEqual([0, 1, 1, 1, 2]);
  expect(a.buckets[4]).toMatchObject({ human: 1, agent: 1 });
}
