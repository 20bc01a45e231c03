import Type, { type Static } from 'typebox';
import { AgentId, EpochMs, SessionKey, Version } from './primitives.js';

/**
 * R20: spawn = implicit (spawn edge or producer-passed parent); explicit = sessions_send watch: true;
 * ambient = queue-only (group or ambient activity, R21b): notified like spawn, never woken (R25).
 * Never downgraded: explicit > spawn > ambient.
 */
export const CursorProvenance = Type.Union([Type.Literal('spawn'), Type.Literal('explicit'), Type.Literal('ambient')]);
export type CursorProvenance = Static<typeof CursorProvenance>;

/** R21, R21b: what a watch call may register (spawn cursors come from child_spawned and producers only). */
export const WatchProvenance = Type.Union([Type.Literal('explicit'), Type.Literal('ambient')], {
  description: 'explicit (default): sessions_send watch: true (R21); ambient: a queue-only watch (R21b).',
});
export type WatchProvenance = Static<typeof WatchProvenance>;

/**
 * R20-R27: one row per (watcher, target session, target agent).
 * Invariant L <= N <= M; a notice is pending iff N > L.
 */
export const WatchCursor = Type.Object(
  {
    watcherSessionKey: SessionKey,
    targetSessionKey: SessionKey,
    targetAgentId: AgentId,
    lastSeenSequence: Version,
    notifiedSequence: Version,
    materialSequence: Version,
    provenance: CursorProvenance,
    updatedAt: EpochMs,
  },
  { additionalProperties: false },
);
export type WatchCursor = Static<typeof WatchCursor>;

/** R21: explicit watch request (sessions_send watch: true, after a successful dispatch); R21b: ambient. */
export const WatchRequest = Type.Object(
  { watcherSessionKey: SessionKey, targetSessionKey: SessionKey, agentId: AgentId, provenance: Type.Optional(WatchProvenance) },
  { additionalProperties: false, description: 'agentId is the target session\'s agent; provenance defaults to explicit.' },
);
export type WatchRequest = Static<typeof WatchRequest>;

/** R21: the result of watch: false (nothing written) when the watcher is bare or is the target, else true. */
export const WatchResult = Type.Object({ watched: Type.Boolean() }, { additionalProperties: false });
/** R21: the result of watch: false (nothing written) when the watcher is bare or is the target, else true. */
export type WatchResult = Static<typeof WatchResult>;

/** R52: end one watch: the watcher's cursor on the target identity, whatever its provenance. */
export const UnwatchRequest = Type.Object(
  { watcherSessionKey: SessionKey, targetSessionKey: SessionKey, agentId: AgentId },
  { additionalProperties: false, description: 'agentId is the target session\'s agent.' },
);
export type UnwatchRequest = Static<typeof UnwatchRequest>;

/** R52: whether a cursor existed (and was deleted, with its pending notice). */
export const UnwatchResult = Type.Object({ unwatched: Type.Boolean() }, { additionalProperties: false });
export type UnwatchResult = Static<typeof UnwatchResult>;

/** A session's durable head (R5, R42). */
export const SessionHead = Type.Object(
  {
    sessionKey: SessionKey,
    agentId: AgentId,
    stateVersion: Version,
    prunedMaxSequence: Version,
    updatedAt: EpochMs,
  },
  { additionalProperties: false },
);
export type SessionHead = Static<typeof SessionHead>;
