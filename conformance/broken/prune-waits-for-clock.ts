/**
 * BROKEN (R43): the write path prunes only when an hour has passed since the last prune, so after
 * the clock steps back (NTP, a restored VM) it stops pruning until the clock catches up, and the
 * log grows past maxRows meanwhile.
 */
import type { CreateOptions } from '../../spec/index.js';
import { LIMITS } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R43', what: 'no write-path prune after the clock steps back' };

class PruneWaitsForClock extends VariantStore {
  protected override pruneDue(now: number, lastPruneAt: number): boolean {
    return now - lastPruneAt >= LIMITS.pruneIntervalMs;
  }
}

export const create = (options: CreateOptions) => new PruneWaitsForClock(options);
