/**
 * BROKEN (R29/R44): the restart sweep sets N := M and also refreshes `updatedAt` (what the
 * reference implementation does), so every restart keeps the pending cursor of a watcher that is
 * gone alive for another retention period.
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { sweep } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R29', what: 'the restart sweep refreshes updatedAt (R29/R44)' };

class SweepRefreshes extends VariantStore {
  protected override sweepCursor(c: WatchCursor, now: number) {
    const swept = sweep(c, now);
    return swept && { ...swept, updatedAt: now };
  }
}

export const create = (options: CreateOptions) => new SweepRefreshes(options);
