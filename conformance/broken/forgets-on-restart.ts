/**
 * BROKEN (R29): restart treats pending notices as process memory that a restart may forget: it
 * marks every pending cursor seen (L := N := M), so the notices raised before it never arrive.
 */
import type { CreateOptions } from '../../spec/index.js';
import { isPending } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R29', what: 'forgets pending notices on restart (acks them all)' };

class ForgetsOnRestart extends VariantStore {
  override restart(): void {
    for (const byWatcher of this.state.cursors.values()) {
      for (const c of byWatcher.values()) {
        if (isPending(c)) this.put({ ...c, lastSeenSequence: c.materialSequence, notifiedSequence: c.materialSequence });
      }
    }
    super.restart();
  }
}

export const create = (options: CreateOptions) => new ForgetsOnRestart(options);
