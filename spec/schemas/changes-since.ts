import Type, { type Static } from 'typebox';
import { StateEvent } from './event.js';
import { AgentId, SessionKey, Version } from './primitives.js';
import { LIMITS } from './limits.js';

/** R30: reconciliation request. */
export const ChangesSinceRequest = Type.Object(
  {
    sessionKey: SessionKey,
    agentId: AgentId,
    since: Version,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: `Clamped to ${LIMITS.maxChangesPerRead}.` })),
  },
  { additionalProperties: false },
);
export type ChangesSinceRequest = Static<typeof ChangesSinceRequest>;

/** R30-R34: the seed's shape, plus truncated and earliestAvailableSequence. */
export const ChangesSinceResponse = Type.Object(
  {
    stateVersion: Version,
    stateChanges: Type.Object(
      {
        events: Type.Array(StateEvent, { maxItems: LIMITS.maxChangesPerRead }),
        historyGap: Type.Boolean(),
        truncated: Type.Boolean(),
        earliestAvailableSequence: Version,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ChangesSinceResponse = Static<typeof ChangesSinceResponse>;
