/**
 * BROKEN (R51): deleteSession(key, agentId) removes the cursors that watch `key` under every
 * agent, not only under `agentId`: deleting `global` of agent main ends every watch on `global`
 * of agent ops, with its pending notice. Only bare keys exist under several agents (R1), so
 * reaching it takes a watch on one agent's bare session and a delete of another agent's.
 */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R51', what: "deleteSession drops the cursors on the key under every agent, ending other agents' watches" };

class DeleteDropsOtherAgents extends VariantStore {
  override deleteSession(sessionKey: string, agentId: string): void {
    super.deleteSession(sessionKey, agentId);
    for (const [id, byWatcher] of [...this.state.cursors]) {
      const first = byWatcher.values().next().value;
      if (first?.targetSessionKey === sessionKey) this.state.cursors.delete(id);
    }
  }
}

export const create = (options: CreateOptions) => new DeleteDropsOtherAgents(options);
