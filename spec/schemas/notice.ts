import Type, { type Static } from 'typebox';
import { AgentId, SessionKey, Version } from './primitives.js';
import { LIMITS } from './limits.js';

/** R25: main-session watchers are woken now; sub-agent watchers and ambient cursors see the notice on their next turn. */
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

/**
 * R27b: one notice a caller delivered and now acknowledges. Only these two fields are read, so a
 * Notice object itself can be passed back (its other fields are allowed and ignored).
 */
export const NoticeAck = Type.Object(
  {
    contextKey: Type.String({ maxLength: 4 * 1024, description: 'R24: the notice\'s context key; one that does not decode strictly acks nothing.' }),
    lastSeenSequence: Version,
  },
  { description: 'A delivered notice: its context key and the L it quoted.' },
);
export type NoticeAck = Static<typeof NoticeAck>;

/** R27b: the second argument of ackNotices. */
export const NoticeAcks = Type.Array(NoticeAck, { maxItems: LIMITS.maxNoticesPerAck });
export type NoticeAcks = Static<typeof NoticeAcks>;
