/**
 * What every backend's read model must answer over the scenario of fixture.ts (R80): the same
 * checks for the SQLite file (test/sqlite/read-model.test.ts) and the PostgreSQL schema
 * (test/postgres/read-model.test.ts), each answer held against the store's own answer over the
 * same data and against values the scenario fixes.
 */
import { expect } from 'vitest';
import { LIMITS, type ChangesSinceResponse, type Notice, type WatchCursor } from '../../spec/index.js';
import type { InspectReads } from '../../src/shared/read-model.js';
import { BUSY, BUSY_EVENTS, CHILD_A, CHILD_B, DAY, MANAGER, OLD, OPS, T0 } from './fixture.js';

/** The store's answers the checks compare with; a SQLite store gives them at once, a PostgreSQL one as promises. */
export interface FixtureAnswers {
  changesSince(request: { sessionKey: string; agentId: string; since: number; limit?: number }): ChangesSinceResponse | Promise<ChangesSinceResponse>;
  stateVersion(sessionKey: string, agentId: string): number | Promise<number>;
  cursor(watcher: string, target: string, agentId: string): WatchCursor | undefined | Promise<WatchCursor | undefined>;
  pendingNotices(watcher: string): Notice[] | Promise<Notice[]>;
}

/** R5, R32, R33: one row per identity in key order, each as the store answers it. */
export async function checkHeads(reader: InspectReads, store: FixtureAnswers): Promise<void> {
  const heads = await reader.heads();
  expect(heads.map((h) => `${h.sessionKey}/${h.agentId}`)).toEqual([`${BUSY}/main`, `${OLD}/main`, `${CHILD_A}/main`, `${CHILD_B}/main`, 'global/main', 'global/ops']);
  for (const h of heads) {
    const all = await store.changesSince({ sessionKey: h.sessionKey, agentId: h.agentId, since: 0, limit: LIMITS.maxChangesPerRead });
    expect(h.stateVersion).toBe(await store.stateVersion(h.sessionKey, h.agentId));
    expect(h.retainedEvents).toBe(all.stateChanges.events.length);
    expect(h.earliestAvailableSequence).toBe(all.stateChanges.earliestAvailableSequence);
    expect(Number(h.prunedMaxSequence) > 0).toBe(all.stateChanges.historyGap);
  }
  const old = heads.find((h) => h.sessionKey === OLD)!;
  expect(old).toMatchObject({ stateVersion: 3, prunedMaxSequence: 2, retainedEvents: 1, earliestAvailableSequence: 3, updatedAt: T0 + 31 * DAY });
  expect(heads.find((h) => h.sessionKey === BUSY)!.retainedEvents).toBe(BUSY_EVENTS);
}

/** agentsOf lists the agents of a bare key in order; hasHead and knowsSession see heads and cursors, not strangers. */
export async function checkKeys(reader: InspectReads): Promise<void> {
  expect(await reader.agentsOf('global')).toEqual(['main', 'ops']);
  expect(await reader.agentsOf(OLD)).toEqual(['main']);
  expect(await reader.agentsOf('agent:main:nobody')).toEqual([]);
  expect(await reader.hasHead('global', 'ops')).toBe(true);
  expect(await reader.hasHead('global', 'nobody')).toBe(false);
  expect(await reader.hasHead(OPS, 'ops')).toBe(false);
  // OPS and MANAGER only watch: known by their cursors alone.
  expect(await reader.knowsSession(OPS)).toBe(true);
  expect(await reader.knowsSession(MANAGER)).toBe(true);
  expect(await reader.knowsSession(CHILD_A)).toBe(true);
  expect(await reader.knowsSession('agent:main:nobody')).toBe(false);
}

/** R30-R35: changesSince answers exactly as the store does, pages and gaps included. */
export async function checkChangesSince(reader: InspectReads, store: FixtureAnswers): Promise<void> {
  for (const [key, agent, since, limit] of [
    [OLD, 'main', 0, undefined],
    [BUSY, 'main', 0, 5],
    [BUSY, 'main', 7, undefined],
    [CHILD_A, 'main', 1, undefined],
    ['global', 'ops', 0, 1],
  ] as const) {
    const request = { sessionKey: key, agentId: agent, since, ...(limit === undefined ? {} : { limit }) };
    expect(await reader.changesSince(request)).toEqual(await store.changesSince(request));
  }
}

/** R20, R26: every cursor as stored, in key order, pending when N > L, filtered by watcher and by target; pending notices as the store has them, not acked. */
export async function checkCursorsAndNotices(reader: InspectReads, store: FixtureAnswers): Promise<void> {
  const all = await reader.cursors();
  expect(all.map((c) => `${c.watcherSessionKey} ${c.targetSessionKey}/${c.targetAgentId}`)).toEqual([`${MANAGER} ${CHILD_A}/main`, `${MANAGER} ${CHILD_B}/main`, `${OPS} global/ops`]);
  for (const c of all) {
    const mine = (await store.cursor(c.watcherSessionKey, c.targetSessionKey, c.targetAgentId))!;
    expect(c).toMatchObject({ lastSeenSequence: mine.lastSeenSequence, notifiedSequence: mine.notifiedSequence, materialSequence: mine.materialSequence, provenance: mine.provenance });
    expect(c.pending).toBe(mine.notifiedSequence > mine.lastSeenSequence);
  }
  expect(all.map((c) => c.pending)).toEqual([true, false, true]);
  expect((await reader.cursors({ watcher: OPS })).map((c) => c.targetSessionKey)).toEqual(['global']);
  expect((await reader.cursors({ target: CHILD_B })).map((c) => c.watcherSessionKey)).toEqual([MANAGER]);
  expect((await reader.cursors({ watcher: MANAGER, target: CHILD_B })).map((c) => c.targetSessionKey)).toEqual([CHILD_B]);
  expect(await reader.cursors({ watcher: OPS, target: CHILD_B })).toEqual([]);

  for (const w of [MANAGER, OPS, 'agent:main:nobody']) expect(await reader.pendingNotices(w)).toEqual(await store.pendingNotices(w));
  expect((await reader.pendingNotices(MANAGER)).map((n) => n.targetSessionKey)).toEqual([CHILD_A]);
  expect(await store.pendingNotices(MANAGER)).toHaveLength(1);
}

/**
 * What stats must say of the scenario a day after it was written (`now` is the scenario's clock at
 * its end), with the default cap and retention, whatever the backend: its counts, the cap and
 * retention, the oldest retained event and the newest time. `rows` is the backend's own count.
 */
export function fixtureStats(now: number, rows: number) {
  return {
    rows,
    sessions: 6,
    sessionsWithPrunedHistory: 1,
    cursors: 3,
    watchers: 2,
    pendingPairs: 2,
    eventsPastRetention: 0,
    cursorsPastRetention: 0,
    now: now + DAY,
    maxRows: LIMITS.maxRows,
    rowsUntilCap: LIMITS.maxRows - rows,
    retentionMs: LIMITS.retentionMs,
    newestOccurredAt: now,
    oldestEvent: { sequence: 3, occurredAt: T0 + 31 * DAY, ageMs: now + DAY - (T0 + 31 * DAY) },
  };
}
