/**
 * BROKEN (R5, R20): heads looked up by session key alone, so the bare `global` sessions of two
 * agents report each other's versions.
 */
import type { ChangesSinceRequest, CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R5', what: 'ignores agentId when reading heads' };

class IgnoresAgent extends VariantStore {
  private anyAgentHead(sessionKey: string): number {
    let v = 0;
    for (const h of this.state.heads.values()) if (h.sessionKey === sessionKey) v = Math.max(v, h.stateVersion);
    return v;
  }
  override stateVersion(sessionKey: string, agentId: string): number {
    super.stateVersion(sessionKey, agentId);
    return this.anyAgentHead(sessionKey);
  }
  override changesSince(request: ChangesSinceRequest) {
    const r = super.changesSince(request);
    return { ...r, stateVersion: this.anyAgentHead(request.sessionKey) };
  }
}

export const create = (options: CreateOptions) => new IgnoresAgent(options);
