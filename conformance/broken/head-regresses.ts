/**
 * BROKEN (R5, R42): the head is computed from the retained rows (highest retained sequence), so it
 * falls when pruning removes the newest events of a session.
 */
import type { ChangesSinceRequest, CreateOptions } from '../../spec/index.js';
import { identityKey } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R42', what: 'head regresses after prune (taken from retained rows)' };

class HeadRegresses extends VariantStore {
  private retainedHead(sessionKey: string, agentId: string): number {
    return this.state.sessionEvents.get(identityKey(sessionKey, agentId))?.at(-1)?.sequence ?? 0;
  }
  override stateVersion(sessionKey: string, agentId: string): number {
    super.stateVersion(sessionKey, agentId);
    return this.retainedHead(sessionKey, agentId);
  }
  override changesSince(request: ChangesSinceRequest) {
    const r = super.changesSince(request);
    return { ...r, stateVersion: this.retainedHead(request.sessionKey, request.agentId) };
  }
}

export const create = (options: CreateOptions) => new HeadRegresses(options);
