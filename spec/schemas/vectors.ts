import Type, { type Static } from 'typebox';
import { DriverNow, WireCreateOptions } from './wire.js';

/**
 * Fixed conformance vectors (conformance/vectors/*.json): command scripts with the outputs the
 * reference store produced. Any implementation, in any language, can replay them without a
 * property-testing library: create a store with `options` and a clock at `startAt`, then for each
 * step set the clock to `now`, call `op` with `args` (positional, as in the contract) and compare.
 */
export const VECTOR_FORMAT = 'session-state-kit-vectors/1' as const;

/** What a step must produce. Results compare as JSON values (object key order is irrelevant;
 * undefined and void are null). Errors compare by name and, for ValidationError, field (R9);
 * messages are free. */
export const VectorExpectation = Type.Union([
  Type.Object({ ok: Type.Literal(true), result: Type.Unknown() }, { additionalProperties: false }),
  Type.Object(
    {
      ok: Type.Literal(false),
      error: Type.Object({ name: Type.String({ minLength: 1 }), field: Type.Optional(Type.String()) }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
]);
export type VectorExpectation = Static<typeof VectorExpectation>;

/** One step of a conformance vector: set the clock, call a contract method with positional args, compare with `expect`. */
export const VectorStep = Type.Object(
  {
    now: DriverNow,
    op: Type.Union(
      [
        Type.Literal('record'),
        Type.Literal('watch'),
        Type.Literal('unwatch'),
        Type.Literal('stateVersion'),
        Type.Literal('changesSince'),
        Type.Literal('pendingNotices'),
        Type.Literal('drainNotices'),
        Type.Literal('ackNotices'),
        Type.Literal('prune'),
        Type.Literal('resetSession'),
        Type.Literal('deleteSession'),
        Type.Literal('restart'),
      ],
      { description: 'A contract method (STORE_OPS without close, which is implicit at the end).' },
    ),
    args: Type.Array(Type.Unknown(), { maxItems: 2, description: 'Positional arguments; may be invalid on purpose.' }),
    expect: VectorExpectation,
  },
  { additionalProperties: false },
);
/** One step of a conformance vector (see the VectorStep schema). */
export type VectorStep = Static<typeof VectorStep>;

/** A fixed conformance vector file: store options, start clock and the steps to replay, with the rules it exercises. */
export const ConformanceVector = Type.Object(
  {
    format: Type.Literal(VECTOR_FORMAT),
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', description: 'Also the file name without .json.' }),
    rules: Type.Array(Type.String({ pattern: '^[RU][0-9]+[a-z]?$' }), { description: 'PROTOCOL.md rules the vector exercises.' }),
    description: Type.String(),
    options: WireCreateOptions,
    startAt: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: "The clock when the store is created (R43's lastPruneAt)." }),
    steps: Type.Array(VectorStep, { minItems: 1 }),
  },
  { additionalProperties: false, description: 'A fixed conformance vector generated from the reference store.' },
);
/** A fixed conformance vector file (see the ConformanceVector schema). */
export type ConformanceVector = Static<typeof ConformanceVector>;
