import Type, { type Static } from 'typebox';
import { AgentId, SessionKey, Version } from './primitives.js';

/** R25: main-session watchers are woken now; sub-agent watchers see the notice on their next turn. */
export const WakePolicy = Type.Union([Type.Literal('immediate'), Type.Literal('next-turn')]);
export type WakePolicy = Static<typeof WakePolicy>;

/** R23-R24: one stale-state notice for one watcher/target pair. */
export const Notice = Type.Object(
  {
    watcherSessionKey: SessionKey,
    targetSessionKey: SessionKey,
    targetAgentId: AgentId,
    lastSeenSequence: Version,
    contextKey: Type.String({ pattern: '^session-state:[0-9a-f]+:[0-9a-f]+$' }),
    wake: WakePolicy,
    text: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
export type Notice = Static<typeof Notice>;
