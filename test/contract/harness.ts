import type { CreateOptions, SessionStateStore, StoreFactory } from '../../spec/index.js';

/** A controllable clock and a store built by any contract factory. */
export interface Harness {
  store: SessionStateStore;
  clock: { now: () => number; set: (t: number) => void; advance: (ms: number) => void };
}

export const T0 = Date.UTC(2026, 0, 1);
export const DAY = 24 * 60 * 60 * 1000;
export const HOUR = 60 * 60 * 1000;

export async function harness(factory: StoreFactory, options: Omit<CreateOptions, 'now'> = {}): Promise<Harness> {
  let t = T0;
  const clock = { now: () => t, set: (v: number) => void (t = v), advance: (ms: number) => void (t += ms) };
  const store = await factory({ ...options, now: clock.now });
  return { store, clock };
}

export const A = 'main';
export const PARENT = 'agent:main:main';
export const CHILD = 'agent:main:subagent:child';
export const PEER = 'agent:main:peer';
export const COORD = 'agent:main:coordinator';

export function human(sessionKey = CHILD, extra: Record<string, unknown> = {}) {
  return { sessionKey, agentId: A, kind: 'human_direct_message' as const, actorType: 'human' as const, summary: 'human message via telegram', ...extra };
}

export function spawn(child = CHILD, parent = PARENT, runId = 'r1') {
  return {
    sessionKey: child, agentId: A, kind: 'child_spawned' as const, actorType: 'agent' as const, actorId: parent,
    runId, dedupeKey: `child-spawned:${runId}`, summary: 'child session spawned', watchers: [parent],
  };
}
