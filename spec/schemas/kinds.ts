import Type, { type Static, type TSchema } from 'typebox';
import { Token } from './primitives.js';

/**
 * R10: every event kind and how it reaches watchers.
 *  - notify:   material; every watcher of the target gets (at most one pending) notice.
 *  - terminal: run_completed / run_failed notify explicit (watch: true) watchers only; a spawning
 *              parent learns of completion from the runtime's sub-agent announcement, and the log
 *              never duplicates that (seed: "log-only kinds ... never duplicates").
 *  - seed:     child_spawned seeds the spawning parent's cursor (R14) and notifies nobody.
 *  - log-only: kept for reconciliation history, never notifies.
 */
export const NOTIFY_CLASS = {
  /** A person spoke to the session directly (channel, web chat, or upstream in an adopted session). */
  human_direct_message: 'notify',
  /** The session's goal was created, changed, cleared or completed. */
  goal_changed: 'notify',
  /** Another agent steered this session (sessions_send). The sender is suppressed as the actor (R12). */
  agent_message: 'notify',
  /** The session was reset: a new lifecycle; whatever a watcher assumed about its context is void. */
  session_reset: 'notify',
  /** The adopted session's upstream source disappeared (three consecutive misses, U2). */
  upstream_missing: 'notify',
  /** A child session was spawned; recorded on the child, seeds the parent's cursor. */
  child_spawned: 'seed',
  /** A child run finished successfully. */
  run_completed: 'terminal',
  /** A child run failed; payload.outcome says cancelled, timeout or error. */
  run_failed: 'terminal',
  /** The session's context was compacted: history for reconciliation, not a change of intent. */
  compacted: 'log-only',
  /** The session was adopted from an external catalog. */
  adopted: 'log-only',
  /** The session was created. */
  created: 'log-only',
} as const;

/** R10: the name of an event kind (a key of NOTIFY_CLASS). */
export type EventKind = keyof typeof NOTIFY_CLASS;
/** R10: how an event kind reaches watchers: notify, terminal, seed or log-only. */
export type NotifyClass = (typeof NOTIFY_CLASS)[EventKind];
/** R10: every event kind, in NOTIFY_CLASS order. */
export const EVENT_KINDS = Object.keys(NOTIFY_CLASS) as EventKind[];

/** R10: the schema of an event kind (one of EVENT_KINDS). */
export const EventKindSchema = Type.Union(
  [
    Type.Literal('human_direct_message'),
    Type.Literal('goal_changed'),
    Type.Literal('agent_message'),
    Type.Literal('session_reset'),
    Type.Literal('upstream_missing'),
    Type.Literal('child_spawned'),
    Type.Literal('run_completed'),
    Type.Literal('run_failed'),
    Type.Literal('compacted'),
    Type.Literal('adopted'),
    Type.Literal('created'),
  ],
  { description: 'Event kind; see NOTIFY_CLASS and PROTOCOL.md R10.' },
);

/** R4: why a child run failed, the `outcome` of a `run_failed` payload. */
export const RunOutcome = Type.Union([Type.Literal('cancelled'), Type.Literal('timeout'), Type.Literal('error')]);
/** R4: why a child run failed, the `outcome` of a `run_failed` payload. */
export type RunOutcome = Static<typeof RunOutcome>;

/**
 * R4: payloads are closed, per-kind objects with no free text, so message text cannot be
 * smuggled into the log. `null` means the kind carries no payload at all.
 */
export const PAYLOAD_SCHEMAS: Record<EventKind, TSchema | null> = {
  human_direct_message: Type.Object(
    {
      channel: Type.Optional(Token),
      turns: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    },
    { additionalProperties: false },
  ),
  goal_changed: Type.Object(
    {
      action: Type.Optional(
        Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('cleared'), Type.Literal('completed')]),
      ),
    },
    { additionalProperties: false },
  ),
  agent_message: null,
  session_reset: null,
  upstream_missing: Type.Object({ channel: Token }, { additionalProperties: false }),
  child_spawned: null,
  run_completed: null,
  run_failed: Type.Object({ outcome: RunOutcome }, { additionalProperties: false }),
  compacted: null,
  adopted: Type.Object({ catalogId: Token, hostId: Token }, { additionalProperties: false }),
  created: null,
};

/** Kinds whose payload is required (the rest are optional or forbidden). */
export const PAYLOAD_REQUIRED: ReadonlySet<EventKind> = new Set<EventKind>(['run_failed', 'upstream_missing', 'adopted']);

/** R4: the schema of an event's payload: every kind's fields, all optional and closed; PAYLOAD_SCHEMAS is exact per kind. */
export const Payload = Type.Object(
  {
    channel: Type.Optional(Token),
    turns: Type.Optional(Type.Integer({ minimum: 1 })),
    action: Type.Optional(Type.String()),
    outcome: Type.Optional(RunOutcome),
    catalogId: Type.Optional(Token),
    hostId: Type.Optional(Token),
  },
  { additionalProperties: false, description: 'Union of all per-kind payload fields; PAYLOAD_SCHEMAS is exact per kind.' },
);
/** R4: an event's closed payload object (any kind's fields; PAYLOAD_SCHEMAS narrows per kind). */
export type Payload = Static<typeof Payload>;
