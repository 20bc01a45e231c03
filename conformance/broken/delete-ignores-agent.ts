/**
 * BROKEN (R1): deleteSession does not check that the agent matches an agent-scoped key, so
 * deleteSession("agent:main:main", "ops") deletes the (empty) identity of the wrong agent and then
 * ends every watch the real session "agent:main:main" holds, with its pending notices.
 */
import type { CreateOptions } from '../../spec/index.js';
import { identityKey, parseAgentScopedKey, validateIdentity } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R1', what: 'a wrong-agent deleteSession is accepted and removes the real session\'s watches' };

class DeleteIgnoresAgent extends VariantStore {
  override deleteSession(sessionKey: string, agentId: string): void {
    validateIdentity(sessionKey, (typeof sessionKey === 'string' ? parseAgentScopedKey(sessionKey)?.agentId : undefined) ?? agentId); // the key alone
    validateIdentity('global', agentId); // the agent id alone
    const id = identityKey(sessionKey, agentId);
    const gone = new Set(this.state.sessionEvents.get(id) ?? []);
    for (const e of gone) if (e.dedupeKey !== undefined) this.state.dedupe.delete(e.dedupeKey);
    this.state.events = this.state.events.filter((e) => !gone.has(e));
    this.state.sessionEvents.delete(id);
    this.state.heads.delete(id);
    this.state.cursors.delete(id);
    this.resetSession(sessionKey);
  }
}

export const create = (options: CreateOptions) => new DeleteIgnoresAgent(options);
