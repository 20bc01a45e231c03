/** BROKEN (R30): a changesSince limit above 200 is honoured instead of clamped to 200. */
import type { ChangesSinceRequest, CreateOptions } from '../../spec/index.js';
import { buildChangesSince, identityKey, normalizeChangesSince } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R30', what: 'does not clamp limit to 200' };

class LimitNotClamped extends VariantStore {
  override changesSince(request: ChangesSinceRequest) {
    const r = normalizeChangesSince(request);
    if (request.limit !== undefined && request.limit > r.limit) r.limit = request.limit;
    const id = identityKey(r.sessionKey, r.agentId);
    const head = this.state.heads.get(id);
    const list = this.state.sessionEvents.get(id) ?? [];
    const after = list.filter((e) => e.sequence > r.since);
    return buildChangesSince(r, {
      stateVersion: head?.stateVersion ?? 0,
      prunedMaxSequence: head?.prunedMaxSequence ?? 0,
      page: after.slice(0, r.limit + 1),
      lowestRetained: list[0]?.sequence,
    });
  }
}

export const create = (options: CreateOptions) => new LimitNotClamped(options);
