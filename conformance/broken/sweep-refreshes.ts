/**
 * BROKEN (R29/R44): restart runs the reference implementation's sweep, which sets N := M and
 * refreshes `updatedAt` on every pending cursor, so every restart keeps the pending cursor of a
 * watcher that is gone alive for another retention period.
 */
import type { CreateOptions } from '../../spec/index.js';
import { isPending } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R44', what: 'restart sweeps and refreshes updatedAt of pending cursors (R29/R44)' };

class SweepRefreshes extends VariantStore {
  override restart(): void {
    const now = this.clock();
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) if (isPending(c)) this.put({ ...c, notifiedSequence: c.materialSequence, updatedAt: now });
    }
    this.prune();
  }
}

export const create = (options: CreateOptions) => new SweepRefreshes(options);
