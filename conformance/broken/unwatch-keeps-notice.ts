/**
 * BROKEN (R52): unwatch deletes the cursor (no further notices) but the notice that was pending
 * stays deliverable, as if it sat in a queue of its own, until the watcher drains it.
 */
import type { CreateOptions, Notice, UnwatchRequest, UnwatchResult } from '../../spec/index.js';
import { compareNotices, identityKey, isPending, noticeOf, validateUnwatchRequest } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R52', what: 'unwatch leaves the pending notice behind' };

class UnwatchKeepsNotice extends VariantStore {
  private readonly leftovers = new Map<string, Notice[]>();

  override unwatch(request: UnwatchRequest): UnwatchResult {
    const r = validateUnwatchRequest(request);
    const c = this.state.cursors.get(identityKey(r.targetSessionKey, r.agentId))?.get(r.watcherSessionKey);
    if (c && isPending(c)) this.leftovers.set(r.watcherSessionKey, [...(this.leftovers.get(r.watcherSessionKey) ?? []), noticeOf(c)]);
    return super.unwatch(request);
  }

  override pendingNotices(watcherSessionKey: string): Notice[] {
    return [...super.pendingNotices(watcherSessionKey), ...(this.leftovers.get(watcherSessionKey) ?? [])].sort(compareNotices);
  }

  override drainNotices(watcherSessionKey: string): Notice[] {
    const out = [...super.drainNotices(watcherSessionKey), ...(this.leftovers.get(watcherSessionKey) ?? [])].sort(compareNotices);
    this.leftovers.delete(watcherSessionKey);
    return out;
  }

  override resetSession(sessionKey: string): void {
    super.resetSession(sessionKey);
    this.leftovers.delete(sessionKey);
  }
}

export const create = (options: CreateOptions) => new UnwatchKeepsNotice(options);
