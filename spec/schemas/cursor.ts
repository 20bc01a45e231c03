import Type, { type Static } from 'typebox';
import { AgentId, EpochMs, SessionKey, Version } from './primitives.js';

/** R20: spawn = implicit (spawn edge or producer-passed parent); explicit = sessions_send watch: true. */
export const CursorProvenance = Type.Union([Type.Literal('spawn'), Type.Literal('explicit')]);
export type CursorProvenance = Static<typeof CursorProvenance>;

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

/** R21: explicit watch request (sessions_send watch: true, after a successful dispatch). */
export const WatchRequest = Type.Object(
  { watcherSessionKey: SessionKey, targetSessionKey: SessionKey, agentId: AgentId },
  { additionalProperties: false, description: 'agentId is the target session\'s agent.' },
);
export type WatchRequest = Static<typeof WatchRequest>;

export const WatchResult = Type.Object({ watched: Type.Boolean() }, { additionalProperties: false });
export type WatchResult = Static<typeof WatchResult>;

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
