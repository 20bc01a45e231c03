/**
 * BROKEN (R29): restart runs v1's recovery sweep, N := M on every pending cursor. The pending notices
 * look the same, but the sweep folds interleaved work into the notice, so the follow-up a later ack
 * owes (R28) depends on whether some process restarted in between.
 */
import type { CreateOptions } from '../../spec/index.js';
import { isPending } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R29', what: 'restart sweeps the cursors (N := M), changing what a later ack reopens' };

class RestartSweeps extends VariantStore {
  override restart(): void {
    this.clock();
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) if (isPending(c)) this.put({ ...c, notifiedSequence: c.materialSequence });
    }
    this.prune();
  }
}

export const create = (options: CreateOptions) => new RestartSweeps(options);
