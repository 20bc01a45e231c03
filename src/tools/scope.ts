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
  // An agent-scoped key fixes its agent (T2), so the caller's own key is the caller's own session.
  if (caller.visibility === 'all' || sessionKey === caller.sessionKey) return true;
  if (caller.visibility === 'self') return false;
  if (caller.visibility === 'agent' && agentId === caller.agentId) return true;
  const seen = new Set<string>([sessionKey]);
  let key = sessionKey;
  let agent = agentId;
  for (let depth = 0; depth < MAX_TREE_DEPTH; depth++) {
    const parent = await parentOf(key, agent);
    if (parent === undefined) return false;
    if (parent === caller.sessionKey) return true;
    const scoped = parseAgentScopedKey(parent);
    if (!scoped || seen.has(parent)) return false;
    seen.add(parent);
    key = parent;
    agent = scoped.agentId;
  }
  return false;
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
