import Type, { type Static, type TSchema } from 'typebox';

/**
 * PROTOCOL.md "Conformance wire protocol" (W1-W7). The conformance driver runs an
 * implementation written in any language as a child process and talks JSON lines over its
 * stdin/stdout: one request per line in, one response per line out, in order. Arguments are the
 * contract methods' positional arguments (spec/schemas/contract.ts), passed through unvalidated on
 * purpose: the suite sends bad input too and expects the implementation's ValidationError back.
 */
export const WIRE_PROTOCOL_VERSION = 'session-state-kit-conformance/1' as const;

/** The store operations: exactly the contract methods (close included). */
export const STORE_OPS = [
  'record',
  'recordMany',
  'watch',
  'unwatch',
  'stateVersion',
  'changesSince',
  'pendingNotices',
  'drainNotices',
  'ackNotices',
  'prune',
  'resetSession',
  'deleteSession',
  'restart',
  'close',
] as const;
/** W4: the name of one store operation (a contract method) on the conformance wire. */
export type StoreOp = (typeof STORE_OPS)[number];

/** Positional arity of each store op, so a server can reject a malformed request early. */
export const STORE_OP_ARITY: Record<StoreOp, number> = {
  record: 1,
  recordMany: 1,
  watch: 1,
  unwatch: 1,
  stateVersion: 2,
  changesSince: 1,
  pendingNotices: 1,
  drainNotices: 1,
  ackNotices: 2,
  prune: 0,
  resetSession: 1,
  deleteSession: 2,
  restart: 0,
  close: 0,
};

/** Options of `create`: the contract's CreateOptions without the clock, which travels as `now`. */
export const WireCreateOptions = Type.Object(
  {
    retentionMs: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    maxRows: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    noticeLink: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'R23b: link template; {sessionKey} and {agentId} are replaced, percent-encoded.' })),
  },
  { additionalProperties: false },
);
export type WireCreateOptions = Static<typeof WireCreateOptions>;

/** W8: the result of `create` when the store can be opened again from another process. */
export const WireCreated = Type.Object(
  {
    backing: Type.String({ minLength: 1, maxLength: 4096, description: 'Opaque name of the backing store (e.g. a database file path), passed to openHandle in another process of the same command.' }),
  },
  { additionalProperties: false },
);
export type WireCreated = Static<typeof WireCreated>;

/** W8: options of `openHandle`: the backing store named by a `create`, and the same limits. */
export const WireOpenHandleOptions = Type.Object(
  {
    backing: Type.String({ minLength: 1, maxLength: 4096 }),
    retentionMs: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    maxRows: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    // W4: a handle formats notices too (R23b), so it takes the same template as the first.
    noticeLink: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'R23b: link template, as in WireCreateOptions.' })),
  },
  { additionalProperties: false },
);
export type WireOpenHandleOptions = Static<typeof WireOpenHandleOptions>;

const RequestId = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Echoed in the response.' });
/**
 * The driver's clock, passed through like `args`: any JSON number, so the suite can send a
 * fractional reading (the store floors it) or a negative one (the store refuses it with a
 * ClockError), both R6.
 */
export const DriverNow = Type.Number({
  description: "The driver's clock (epoch ms). The store's now() MUST return the latest now received, until the next request; R6 applies to it (fractional: floored; negative: ClockError).",
});
const Now = DriverNow;

function request<Op extends string, Args extends TSchema>(op: Op, args: Args, description: string) {
  return Type.Object({ id: RequestId, op: Type.Literal(op), args, now: Now }, { additionalProperties: false, description });
}

const Any = Type.Unknown();

/** One request line. */
export const WireRequest = Type.Union(
  [
    request('hello', Type.Tuple([]), 'Handshake; the first request. Result: WireHello.'),
    request('create', Type.Tuple([WireCreateOptions]), 'Close the current store (if any) and open a fresh, empty one with these options; its lastPruneAt is `now` (R43). Result: null, or WireCreated when another process of the same command can open a handle on it (W8).'),
    request('openHandle', Type.Tuple([WireOpenHandleOptions]), 'W8 (multi-handle mode): close the current store (if any) and open another handle on the backing store a `create` in another process of the same command named; its lastPruneAt is `now`, and opening prunes (R29). Result: null.'),
    request('record', Type.Tuple([Any]), 'store.record(input). Result: StateEvent or null (undefined).'),
    request('recordMany', Type.Tuple([Any]), 'store.recordMany(inputs), optional (R9e). Result: an array of StateEvent or null, one per input. An implementation without it answers an error response (any name), and the suite reports R9e as not run.'),
    request('watch', Type.Tuple([Any]), 'store.watch(request). Result: WatchResult.'),
    request('unwatch', Type.Tuple([Any]), 'store.unwatch(request). Result: UnwatchResult (R52).'),
    request('stateVersion', Type.Tuple([Any, Any]), 'store.stateVersion(sessionKey, agentId). Result: integer.'),
    request('changesSince', Type.Tuple([Any]), 'store.changesSince(request). Result: ChangesSinceResponse.'),
    request('pendingNotices', Type.Tuple([Any]), 'store.pendingNotices(watcherSessionKey). Result: Notice[].'),
    request('drainNotices', Type.Tuple([Any]), 'store.drainNotices(watcherSessionKey). Result: Notice[].'),
    request('ackNotices', Type.Tuple([Any, Any]), 'store.ackNotices(watcherSessionKey, notices). Result: Notice[] (the notices acked, R27b).'),
    request('prune', Type.Tuple([]), 'store.prune(). Result: null.'),
    request('resetSession', Type.Tuple([Any]), 'store.resetSession(sessionKey). Result: null.'),
    request('deleteSession', Type.Tuple([Any, Any]), 'store.deleteSession(sessionKey, agentId). Result: null.'),
    request('restart', Type.Tuple([]), 'store.restart(): drop in-memory state as a process restart would, then prune; no cursor changes (R29). Result: null.'),
    request('close', Type.Tuple([]), 'store.close(). Result: null.'),
    request('shutdown', Type.Tuple([]), 'Close everything and exit after answering. Result: null.'),
  ],
  { description: 'One line from the conformance driver to the implementation.' },
);
export type WireRequest = Static<typeof WireRequest>;
/** W2, W4: every request `op` a driver may send (store operations plus the wire's own). */
export type WireOp = WireRequest['op'];

/**
 * W4: a part of the contract an implementation may say it does not have. `limits`: the R40/R41
 * overrides `retentionMs` and `maxRows`; `noticeLink`: R23b's template; `unwatch`: R52;
 * `ambientWatch`: R21b's `provenance: 'ambient'`; `recordMany`: R9e.
 */
export const WireCapability = Type.Union([Type.Literal('limits'), Type.Literal('noticeLink'), Type.Literal('unwatch'), Type.Literal('ambientWatch'), Type.Literal('recordMany')]);
export type WireCapability = Static<typeof WireCapability>;

/** Result of `hello`. */
export const WireHello = Type.Object(
  {
    protocol: Type.Literal(WIRE_PROTOCOL_VERSION),
    implementation: Type.Optional(Type.String({ maxLength: 200, description: 'Free-form name and version of the implementation.' })),
    lacks: Type.Optional(
      Type.Array(WireCapability, {
        uniqueItems: true,
        description: 'W4: parts of the contract this implementation does not have. The suite then generates no call that needs them, and reports every property and vector that judges them as not run.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WireHello = Static<typeof WireHello>;

/** How a thrown error travels. `field` is required when name is ValidationError (R9). */
export const WireError = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'ValidationError for bad input (R9); anything else is a failure of the implementation.' }),
    field: Type.Optional(Type.String({ description: 'ValidationError.field: the dotted path of the offending field.' })),
    message: Type.String(),
  },
  { additionalProperties: false },
);
export type WireError = Static<typeof WireError>;

/** One response line, in request order. JSON null stands for undefined / void. */
export const WireResponse = Type.Union(
  [
    Type.Object({ id: RequestId, ok: Type.Literal(true), result: Type.Unknown() }, { additionalProperties: false }),
    Type.Object({ id: RequestId, ok: Type.Literal(false), error: WireError }, { additionalProperties: false }),
  ],
  { description: 'One line from the implementation to the conformance driver.' },
);
export type WireResponse = Static<typeof WireResponse>;
