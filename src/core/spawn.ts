import type { StateEvent } from '../../spec/index.js';
import { isAgentScopedKey } from './keys.js';

/**
 * T12: the parent a `child_spawned` event names: its actor, when that is an agent acting as an
 * agent-scoped session (R14: the runtime records the spawn on the child, with the spawning parent
 * as the agent actor). Anything else names no parent. Stores keep the answer for a session's first
 * spawn event, so the tree scope does not change when that event is pruned.
 */
export function spawnParentOf(event: Pick<StateEvent, 'kind' | 'actorType' | 'actorId'>): string | undefined {
  if (event.kind !== 'child_spawned') return undefined;
  return event.actorType === 'agent' && event.actorId !== undefined && isAgentScopedKey(event.actorId) ? event.actorId : undefined;
}
