import Type, { type Static } from 'typebox';

/** R2: who acted. Evaluated once, at the producer boundary. */
export const ActorType = Type.Union([Type.Literal('human'), Type.Literal('agent'), Type.Literal('system')], {
  description: 'human: a person; agent: another session (actorId is its key); system: the runtime itself.',
});
export type ActorType = Static<typeof ActorType>;
/** R2: every actor type, in a fixed order (for iteration and generators). */
export const ACTOR_TYPES: readonly ActorType[] = ['human', 'agent', 'system'];
