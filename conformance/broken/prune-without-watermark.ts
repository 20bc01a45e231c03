/**
 * BROKEN (R42, R33): prunes without stamping prunedMaxSequence first, so a reader whose events
 * were pruned is told there is no gap.
 */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R42', what: 'prunes without stamping the pruned watermark' };

class PruneWithoutWatermark extends VariantStore {
  override prune(): void {
    const saved = new Map([...this.state.heads].map(([id, h]) => [id, h.prunedMaxSequence] as const));
    super.prune();
    for (const [id, h] of this.state.heads) h.prunedMaxSequence = saved.get(id) ?? 0;
  }
}

export const create = (options: CreateOptions) => new PruneWithoutWatermark(options);
