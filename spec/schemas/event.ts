import Type, { type Static } from 'typebox';
import { ActorType } from './actors.js';
import { EventKindSchema, Payload } from './kinds.js';
import { AgentId, EpochMs, OpaqueId, SessionKey, Sequence, Summary } from './primitives.js';
import { LIMITS } from './limits.js';

/** R3-R9: what a producer hands to `record`. */
export const RecordInput = Type.Object(
  {
    sessionKey: SessionKey,
    agentId: AgentId,
    sessionId: Type.Optional(OpaqueId),
    kind: EventKindSchema,
    actorType: ActorType,
    actorId: Type.Optional(SessionKey),
    runId: Type.Optional(OpaqueId),
    occurredAt: Type.Optional(EpochMs),
    summary: Summary,
    payload: Type.Optional(Payload),
    dedupeKey: Type.Optional(OpaqueId),
    watchers: Type.Optional(Type.Array(SessionKey, { maxItems: LIMITS.maxWatchersPerRecord })),
    onlyIfWatched: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Input of record(); see PROTOCOL.md R3-R9.' },
);
export type RecordInput = Static<typeof RecordInput>;

/** R9e: recordMany's argument. */
export const RecordInputs = Type.Array(RecordInput, { maxItems: LIMITS.maxRecordsPerBatch, description: 'R9e: the inputs of one recordMany call, recorded in order in one transaction.' });

/** A stored event, as record() returns it and changesSince lists it. */
export const StateEvent = Type.Object(
  {
    sequence: Sequence,
    sessionKey: SessionKey,
    agentId: AgentId,
    sessionId: Type.Optional(OpaqueId),
    kind: EventKindSchema,
    actorType: ActorType,
    actorId: Type.Optional(SessionKey),
    runId: Type.Optional(OpaqueId),
    occurredAt: EpochMs,
    recordedAt: EpochMs,
    summary: Summary,
    payload: Type.Optional(Payload),
    dedupeKey: Type.Optional(OpaqueId),
  },
  { additionalProperties: false, description: 'A stored signal-log event: metadata and one summary line, never message text.' },
);
export type StateEvent = Static<typeof StateEvent>;
