import type { MaybePromise, SessionStateStore } from '../../spec/index.js';
import { ValidationError, isAgentScopedKey, parseAgentScopedKey, validateSessionKey } from '../core/index.js';

/**
 * T10-T16: who is calling and what it may see. A caller is one agent-scoped session; its
 * visibility is the production system's `tools.sessions.visibility`: `self` (only itself), `tree`
 * (itself and the sessions it spawned, transitively; the default), `agent` (every session of its
 * agent, and its tree), `all` (every session). Each scope contains the one before it.
 */
export const VISIBILITIES = ['self', 'tree', 'agent', 'all'] as const;
/** T10: how far a bound caller sees: `self`, `tree`, `agent` or `all` (each scope contains the one before it). */
export type Visibility = (typeof VISIBILITIES)[number];
/** T10: the visibility of a caller given without one: `tree` (itself and the sessions it spawned). */
export const DEFAULT_VISIBILITY: Visibility = 'tree';

/** T13: how far up the spawn tree a target is followed looking for the caller (a cycle ends too). */
export const MAX_TREE_DEPTH = 32;

/** T12: the session that spawned a session, or undefined when none is known. */
export type ParentOf = (sessionKey: string, agentId: string) => MaybePromise<string | undefined>;

/** T11: a call outside the caller's scope. `field` names the argument, `visibility` the scope. */
export class ForbiddenError extends Error {
  override readonly name = 'ForbiddenError';
  readonly code = 'forbidden';
  constructor(
    readonly field: string,
    readonly visibility: Visibility,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** T11: true for a ForbiddenError, also one from another copy of the module (same name and a `field`). */
export function isForbiddenError(error: unknown): error is ForbiddenError {
  return error instanceof ForbiddenError || (error instanceof Error && error.name === 'ForbiddenError' && 'field' in error);
}

/** T10: the session bound tools act for (agent-scoped) and what it may see. */
export interface Caller {
  sessionKey: string;
  agentId: string;
  visibility: Visibility;
}

/** T10: checks `caller` and `visibility` as given to createSessionTools; a caller must be agent-scoped (R13). */
export function checkCaller(caller: unknown, visibility: unknown): Caller | undefined {
  if (caller === undefined) {
    if (visibility !== undefined) throw new ValidationError('visibility', 'not-allowed', 'needs a caller: visibility scopes what one session may see');
    return undefined;
  }
  validateSessionKey(caller, 'caller');
  const scoped = parseAgentScopedKey(caller);
  if (!scoped || !isAgentScopedKey(caller)) throw new ValidationError('caller', 'format', `must be an agent-scoped session key (agent:<agentId>:...), got "${caller}"`);
  const v = visibility ?? DEFAULT_VISIBILITY;
  if (typeof v !== 'string' || !(VISIBILITIES as readonly string[]).includes(v)) throw new ValidationError('visibility', 'type', `must be one of: ${VISIBILITIES.join(', ')}`);
  return { sessionKey: caller, agentId: scoped.agentId, visibility: v as Visibility };
}

/**
 * T12: the spawn tree from durable state. A child's parent is the `actorId` of the first
 * `child_spawned` event in the first page of its log (R14: the runtime records it on the child,
 * with the spawning parent as the agent actor). Cursors are not used: a spawn-provenance cursor
 * also comes from any producer-passed watcher (R15), and unwatch (R52) or expiry (R44) remove it.
 * A pruned spawn event (R40-R44) takes the child out of the tree: the scope only ever narrows.
 */
export function spawnParentFromLog(store: Pick<SessionStateStore, 'changesSince'>): ParentOf {
  return async (sessionKey, agentId) => {
    const page = await store.changesSince({ sessionKey, agentId, since: 0 });
    for (const e of page.stateChanges.events) {
      if (e.kind !== 'child_spawned') continue;
      return e.actorType === 'agent' && e.actorId !== undefined && isAgentScopedKey(e.actorId) ? e.actorId : undefined;
    }
    return undefined;
  };
}

/** T11-T13: whether `caller` may see the session (sessionKey, agentId). `parentOf` is read at most MAX_TREE_DEPTH times. */
export async function inScope(caller: Caller, parentOf: ParentOf, sessionKey: string, agentId: string): Promise<boolean> {
  return scopeChecker(caller, parentOf)(sessionKey, agentId);
}

/**
 * T11-T13: inScope for many sessions at once (a listing's page). It answers at once while
 * `parentOf` does, and remembers how many steps each session it walked is from the caller (or that
 * it never reaches it), so sessions of one spawn chain share their walks instead of each taking up
 * to MAX_TREE_DEPTH steps. The answers are inScope's: a target is in the tree when following
 * parents reaches the caller within MAX_TREE_DEPTH steps; a missing or bare parent or a cycle ends
 * the walk outside.
 */
export function scopeChecker(caller: Caller, parentOf: ParentOf): (sessionKey: string, agentId: string) => MaybePromise<boolean> {
  /** Steps from a session to the caller; Infinity: it never reaches the caller. */
  const steps = new Map<string, number>();
  const idOf = (sessionKey: string, agentId: string) => `${agentId}\u0000${sessionKey}`;
  interface Walk {
    key: string;
    agent: string;
    /** The sessions walked so far, the target first: each is one step further from the caller than the next. */
    path: string[];
  }
  /** Sessions on the path get their distance once the end is known; an end only within the depth cap says nothing of them. */
  const settle = (walk: Walk, beyondLast: number): boolean => {
    for (let i = 0; i < walk.path.length; i++) steps.set(walk.path[i]!, beyondLast + walk.path.length - i);
    return beyondLast + walk.path.length <= MAX_TREE_DEPTH;
  };
  /** One parent read: the answer, or undefined when the walk goes on from the parent. */
  const next = (walk: Walk, parent: string | undefined): boolean | undefined => {
    if (parent === undefined) return settle(walk, Infinity);
    if (parent === caller.sessionKey) return settle(walk, 0);
    const scoped = parseAgentScopedKey(parent);
    const id = scoped === undefined ? undefined : idOf(parent, scoped.agentId);
    if (scoped === undefined || walk.path.includes(id!)) return settle(walk, Infinity);
    const known = steps.get(id!);
    if (known !== undefined) return settle(walk, known);
    if (walk.path.length >= MAX_TREE_DEPTH) return false; // the cap: nothing is learned of the path
    walk.path.push(id!);
    walk.key = parent;
    walk.agent = scoped.agentId;
    return undefined;
  };
  const run = (walk: Walk): MaybePromise<boolean> => {
    for (;;) {
      const answer = parentOf(walk.key, walk.agent);
      if (isThenable(answer)) return Promise.resolve(answer as PromiseLike<string | undefined>).then((parent) => next(walk, parent) ?? run(walk));
      const done = next(walk, answer);
      if (done !== undefined) return done;
    }
  };
  return (sessionKey, agentId) => {
    // An agent-scoped key fixes its agent (T2), so the caller's own key is the caller's own session.
    if (caller.visibility === 'all' || sessionKey === caller.sessionKey) return true;
    if (caller.visibility === 'self') return false;
    if (caller.visibility === 'agent' && agentId === caller.agentId) return true;
    const id = idOf(sessionKey, agentId);
    const known = steps.get(id);
    if (known !== undefined) return known <= MAX_TREE_DEPTH;
    return run({ key: sessionKey, agent: agentId, path: [id] });
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

const SCOPE_WORDS: Record<Visibility, string> = {
  self: 'only its own session',
  tree: 'its own session and the sessions it spawned',
  agent: `its agent's sessions and the sessions it spawned`,
  all: 'every session',
};

/** T11: the refusal for a target outside the scope. */
export function forbiddenTarget(caller: Caller, field: string, sessionKey: string): ForbiddenError {
  return new ForbiddenError(field, caller.visibility, `session "${sessionKey}" is outside this caller's visibility "${caller.visibility}" (${SCOPE_WORDS[caller.visibility]}; caller "${caller.sessionKey}")`);
}

/** T11: the refusal for another session's notices. */
export function forbiddenWatcher(caller: Caller, field: string, watcherSessionKey: string): ForbiddenError {
  return new ForbiddenError(field, caller.visibility, `these tools are bound to session "${caller.sessionKey}": they act only on its own watches and notices, not on "${watcherSessionKey}"`);
}
