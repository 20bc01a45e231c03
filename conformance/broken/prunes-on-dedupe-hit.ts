/**
 * BROKEN (R43): the write path prunes after a dedupe hit too, as one production system does: a
 * producer retrying a dedupe key can remove history (and turn a caller's historyGap true) at a
 * moment R43 does not allow.
 */
import type { CreateOptions, StateEvent } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R43', what: 'prunes after a dedupe hit when the interval has passed' };

class PrunesOnDedupeHit extends VariantStore {
  protected override onDedupeHit(_existing: StateEvent, _watchers: readonly string[], now: number): void {
    if (this.pruneDue(now, this.internals.lastPruneAt)) this.prune();
  }
}

export const create = (options: CreateOptions) => new PrunesOnDedupeHit(options);
