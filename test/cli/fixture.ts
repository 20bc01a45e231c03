import { SqliteStore } from '../../src/sqlite/sqlite-store.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { RecordInput } from '../../spec/index.js';

/**
 * A state database with something of everything inspect shows: spawn and explicit cursors, one
 * pending and one settled pair, a pruned session (historyGap), a session long enough to truncate a
 * page, and one bare key used by two agents.
 */
export const T0 = Date.UTC(2026, 0, 1);
export const DAY = 24 * 60 * 60 * 1000;

export const MANAGER = 'agent:main:main';
export const CHILD_A = 'agent:main:subagent:a';
export const CHILD_B = 'agent:main:subagent:b';
export const OLD = 'agent:main:old';
export const BUSY = 'agent:main:busy';
export const OPS = 'agent:ops:main';
export const BUSY_EVENTS = 12;

export interface Fixture {
  store: SqliteStore;
  clock: { now: () => number; advance: (ms: number) => void };
}

const human = (sessionKey: string, agentId = 'main'): RecordInput => ({
  sessionKey, agentId, kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram', payload: { channel: 'telegram' },
});
const spawn = (child: string, runId: string): RecordInput => ({
  sessionKey: child, agentId: 'main', kind: 'child_spawned', actorType: 'agent', actorId: MANAGER,
  runId, dedupeKey: `child-spawned:${runId}`, summary: 'child session spawned', watchers: [MANAGER],
});

/** What the scenario calls: a SQLite store (answers at once) or a PostgreSQL one (promises). */
export interface ScenarioStore {
  record(input: RecordInput): unknown;
  watch(request: { watcherSessionKey: string; targetSessionKey: string; agentId: string }): unknown;
  drainNotices(watcherSessionKey: string): unknown;
  prune(): unknown;
}
type Clock = Fixture['clock'];

/** The scenario as steps, so one list serves the synchronous store and the asynchronous one alike. */
function steps(store: ScenarioStore, clock: Clock): (() => unknown)[] {
  const out: (() => unknown)[] = [
    // Old history, pruned later: its watermark makes changesSince 0 report a gap (R33).
    () => store.record(human(OLD)),
    () => store.record({ sessionKey: OLD, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated', payload: { action: 'updated' } }),
    () => clock.advance(31 * DAY),
    () => store.record(human(OLD)),
    () => store.prune(),

    () => store.record(spawn(CHILD_A, 'run-a')),
    () => store.record(spawn(CHILD_B, 'run-b')),
    () => clock.advance(1000),
    () => store.record(human(CHILD_B)),
    () => store.drainNotices(MANAGER), // settles B (R27)
    () => clock.advance(1000),
    () => store.record(human(CHILD_A)),
    () => store.record({ sessionKey: CHILD_A, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated', payload: { action: 'updated' } }),
    // Pending on A: L = spawn, N frozen at the first change, M at the second.

    // One bare key, two agents; an explicit watcher from another agent on one of them (R21).
    () => store.record({ ...human('global', 'main'), summary: 'human message via slack', payload: { channel: 'slack' } }),
    () => store.record(human('global', 'ops')),
    () => store.watch({ watcherSessionKey: OPS, targetSessionKey: 'global', agentId: 'ops' }),
    () => clock.advance(1000),
    () => store.record(human('global', 'ops')),
  ];
  for (let i = 0; i < BUSY_EVENTS; i++) {
    out.push(() => store.record({ sessionKey: BUSY, agentId: 'main', kind: 'compacted', actorType: 'system', summary: `compacted ${i}` }));
  }
  return out;
}

/** A clock that moves only when the scenario says so. */
export function fixtureClock(): Clock {
  let t = T0;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** Writes the scenario into `path` and returns the open store (the caller closes it). */
export function writeFixture(path: string): Fixture {
  const clock = fixtureClock();
  const store = new SqliteStore({ path, now: clock.now, logger: silentLogger });
  for (const step of steps(store, clock)) step();
  return { store, clock };
}

/** The same scenario into a store whose calls return promises (PostgreSQL), each awaited in turn; its clock must be `clock`. */
export async function writeFixtureTo(store: ScenarioStore, clock: Clock): Promise<void> {
  for (const step of steps(store, clock)) await step();
}
