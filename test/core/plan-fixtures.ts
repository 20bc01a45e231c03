/** One target's cursors and events for planNotifications tests (core, no store). */
import type { StateEvent, WatchCursor } from '../../spec/index.js';

export const T = Date.UTC(2026, 0, 1);
export const TARGET = 'agent:main:peer';

/** A caught-up cursor (L = N = M = 2) of `watcherSessionKey` on TARGET. */
export const cursor = (watcherSessionKey: string, provenance: WatchCursor['provenance'] = 'explicit'): WatchCursor => ({
  watcherSessionKey,
  targetSessionKey: TARGET,
  targetAgentId: 'main',
  lastSeenSequence: 2,
  notifiedSequence: 2,
  materialSequence: 2,
  provenance,
  updatedAt: T,
});

/** A human message on TARGET at sequence 9, with `extra` over it. */
export const event = (extra: Partial<StateEvent> = {}): StateEvent => ({
  sequence: 9,
  sessionKey: TARGET,
  agentId: 'main',
  kind: 'human_direct_message',
  actorType: 'human',
  occurredAt: T,
  recordedAt: T,
  summary: 'human message via telegram',
  ...extra,
});
