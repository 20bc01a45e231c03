import Type, { type Static } from 'typebox';
import { ChangesSinceResponse } from './changes-since.js';
import { Notice } from './notice.js';
import { AgentId, SessionKey, Version } from './primitives.js';

/**
 * PROTOCOL.md section 12 (T rules): the agent-facing session tools. Each tool has an argument
 * schema (what a model may send; JSON Schema copies in spec/json/tool-*.json, also served by the
 * MCP server), a structured result and a compact text (T-rules, byte-exact in
 * conformance/tools/vectors). Arguments are closed: an unknown field is a ValidationError (R9).
 */

const OptionalAgentId = Type.Optional(
  Type.String({
    ...AgentId,
    description: "The session's agent id. May be left out for an agent-scoped key (agent:<agentId>:...), whose agent it must match (R1, T2).",
  }),
);

/** T3: `session_status`. */
export const SessionStatusArgs = Type.Object(
  {
    sessionKey: Type.String({ ...SessionKey, description: 'The session to report on, e.g. the key a notice names.' }),
    agentId: OptionalAgentId,
    changesSince: Type.Optional(
      Type.Integer({
        ...Version,
        description: 'A stateVersion seen before (a notice quotes it): also return the typed events after it (at most 200), without moving any cursor.',
      }),
    ),
  },
  { additionalProperties: false, description: "A session's stateVersion and, with changesSince, the exact delta since a version seen before." },
);
export type SessionStatusArgs = Static<typeof SessionStatusArgs>;

/** T3: the structured result of `session_status`: the session's head and, when asked, the typed changes after a version. */
export const SessionStatusResult = Type.Object(
  {
    sessionKey: SessionKey,
    agentId: AgentId,
    stateVersion: Version,
    stateChanges: Type.Optional(ChangesSinceResponse.properties.stateChanges),
  },
  { additionalProperties: false },
);
/** T3: the structured result of `session_status`. */
export type SessionStatusResult = Static<typeof SessionStatusResult>;

/** T4: one row of sessions_list as annotated: the runtime's fields pass through, stateVersion only when > 0. */
export const SessionsListRow = Type.Object(
  { sessionKey: SessionKey, agentId: Type.Optional(AgentId), stateVersion: Type.Optional(Type.Integer({ ...Version, minimum: 1 })) },
  { additionalProperties: true },
);
export type SessionsListRow = Static<typeof SessionsListRow>;

/** T15: sessions_list pages: the default and the largest page a call may ask for. */
export const SESSIONS_LIST_PAGE = 100;
/** T15: the largest page a sessions_list call may ask for. */
export const SESSIONS_LIST_MAX_PAGE = 1000;
/** T15: an opaque page cursor is at most this long (it holds one session identity). */
export const PAGE_CURSOR_MAX_LENGTH = 2048;

/** T4, T15: `sessions_list` (the MCP server lists the sessions its database knows), one page at a time. */
export const SessionsListArgs = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SESSIONS_LIST_MAX_PAGE, description: `Sessions per page (default ${SESSIONS_LIST_PAGE}).` })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: PAGE_CURSOR_MAX_LENGTH, pattern: '^[A-Za-z0-9_-]+$', description: 'The nextCursor of the previous page.' })),
  },
  { additionalProperties: false, description: 'Sessions with their stateVersion (present only when the session has logged changes), in key order, one page at a time.' },
);
export type SessionsListArgs = Static<typeof SessionsListArgs>;

/** T4: the structured result of `sessions_list`: the annotated rows and, when more follow, the cursor of the next page. */
export const SessionsListResult = Type.Object(
  { sessions: Type.Array(SessionsListRow), nextCursor: Type.Optional(Type.String({ description: 'Present when more sessions follow: pass it as cursor.' })) },
  { additionalProperties: false },
);
/** T4: the structured result of `sessions_list`. */
export type SessionsListResult = Static<typeof SessionsListResult>;

/** T5: `session_watch` (the registration sessions_send with watch: true performs after a successful dispatch). */
export const SessionWatchArgs = Type.Object(
  {
    watcherSessionKey: Type.String({ ...SessionKey, description: 'Your own session key (agent-scoped: agent:<agentId>:...); notices go to it.' }),
    targetSessionKey: Type.String({ ...SessionKey, description: 'The session to watch: the one that actually received your message.' }),
    agentId: OptionalAgentId,
  },
  { additionalProperties: false, description: "Watch a session: one notice when another actor changes it, starting from its current stateVersion." },
);
export type SessionWatchArgs = Static<typeof SessionWatchArgs>;

/** T5: why a watch was refused; absent when watched. */
export const WatchRefusal = Type.Union([Type.Literal('not-dispatched'), Type.Literal('bare-watcher'), Type.Literal('same-session'), Type.Literal('unavailable')]);
export type WatchRefusal = Static<typeof WatchRefusal>;

/** T5: the structured result of `session_watch`: watched with the current stateVersion, or a refusal reason. */
export const SessionWatchResult = Type.Object(
  { watched: Type.Boolean(), stateVersion: Type.Optional(Version), reason: Type.Optional(WatchRefusal) },
  { additionalProperties: false },
);
/** T5: the structured result of `session_watch`. */
export type SessionWatchResult = Static<typeof SessionWatchResult>;

/** T6: `session_unwatch`. */
export const SessionUnwatchArgs = Type.Object(
  {
    watcherSessionKey: Type.String({ ...SessionKey, description: 'Your own session key.' }),
    targetSessionKey: Type.String({ ...SessionKey, description: 'The watched session.' }),
    agentId: OptionalAgentId,
  },
  { additionalProperties: false, description: 'Stop watching a session; its pending notice, if any, goes too.' },
);
export type SessionUnwatchArgs = Static<typeof SessionUnwatchArgs>;

/** T6: the structured result of `session_unwatch`: whether a cursor was deleted. */
export const SessionUnwatchResult = Type.Object({ unwatched: Type.Boolean() }, { additionalProperties: false });
/** T6: the structured result of `session_unwatch`. */
export type SessionUnwatchResult = Static<typeof SessionUnwatchResult>;

/** T7: `session_notices` (drain). */
export const SessionNoticesArgs = Type.Object(
  { watcherSessionKey: Type.String({ ...SessionKey, description: 'Your own session key.' }) },
  { additionalProperties: false, description: 'Take your pending stale-state notices (each is delivered once), oldest target first.' },
);
export type SessionNoticesArgs = Static<typeof SessionNoticesArgs>;

/** T7: the structured result of `session_notices`: the drained notices. */
export const SessionNoticesResult = Type.Object({ notices: Type.Array(Notice) }, { additionalProperties: false });
/** T7: the structured result of `session_notices`. */
export type SessionNoticesResult = Static<typeof SessionNoticesResult>;

/** The tools an agent sees, by name, with their argument schemas. */
export const TOOL_ARGS = {
  session_status: SessionStatusArgs,
  sessions_list: SessionsListArgs,
  session_watch: SessionWatchArgs,
  session_unwatch: SessionUnwatchArgs,
  session_notices: SessionNoticesArgs,
} as const;
/** T1: the name of one agent tool. */
export type ToolName = keyof typeof TOOL_ARGS;
/** T1: every agent tool name, in TOOL_ARGS order. */
export const TOOL_NAMES = Object.keys(TOOL_ARGS) as ToolName[];

/** Tool vectors (conformance/tools/vectors/*.json): a store script, then tool calls with the exact structured result and text. */
export const TOOL_VECTOR_FORMAT = 'session-state-kit-tool-vectors/1' as const;

/**
 * One call of a tool vector: the clock, a tool (or `record` to change the store) with its args, and the exact expected result and text.
 */
export const ToolVectorCall = Type.Object(
  {
    now: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The store clock for this call.' }),
    tool: Type.Union([
      Type.Literal('session_status'),
      Type.Literal('sessions_list'),
      Type.Literal('session_watch'),
      Type.Literal('session_unwatch'),
      Type.Literal('session_notices'),
      Type.Literal('record'),
    ], { description: 'A tool, or `record` (store.record with args as its input; result: the stored sequence or null) to change the store between calls.' }),
    args: Type.Unknown({ description: 'Tool arguments; sessions_list takes {rows, defaultAgentId?} here (the runtime rows to annotate). May be invalid on purpose.' }),
    expect: Type.Union([
      Type.Object({ ok: Type.Literal(true), result: Type.Unknown(), text: Type.Optional(Type.String()) }, { additionalProperties: false }),
      Type.Object(
        {
          ok: Type.Literal(false),
          error: Type.Object({ name: Type.String({ minLength: 1 }), field: Type.Optional(Type.String()), message: Type.Optional(Type.String({ description: 'T11: a refusal text the model reads.' })) }, { additionalProperties: false }),
        },
        { additionalProperties: false },
      ),
    ]),
  },
  { additionalProperties: false },
);
/** One call of a tool vector (see the ToolVectorCall schema). */
export type ToolVectorCall = Static<typeof ToolVectorCall>;

/** A fixed tool vector file: the rules it exercises and the calls to replay against the tool handlers. */
export const ToolVector = Type.Object(
  {
    format: Type.Literal(TOOL_VECTOR_FORMAT),
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', description: 'Also the file name without .json.' }),
    rules: Type.Array(Type.String({ pattern: '^[RTU][0-9]+b?$' })),
    description: Type.String(),
    startAt: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    defaultAgentId: Type.Optional(Type.String({ ...AgentId, description: "T2: the runtime's own agent, for bare keys without agentId." })),
    caller: Type.Optional(Type.String({ ...SessionKey, description: 'T10: the session the tools are bound to; absent: unbound.' })),
    visibility: Type.Optional(
      Type.Union([Type.Literal('self'), Type.Literal('tree'), Type.Literal('agent'), Type.Literal('all')], { description: "T10: the caller's scope (default tree)." }),
    ),
    calls: Type.Array(ToolVectorCall, { minItems: 1 }),
  },
  { additionalProperties: false, description: 'A fixed tool vector generated from the reference store and the tool handlers.' },
);
/** A fixed tool vector file (see the ToolVector schema). */
export type ToolVector = Static<typeof ToolVector>;
