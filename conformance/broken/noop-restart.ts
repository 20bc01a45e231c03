/**
 * BROKEN (R29): restart keeps the in-memory queue as it is and never sweeps (N stays below M), so the
 * pending notices look right, but the next drain acks only to the old watermark and sends a needless
 * follow-up; a real process restart would have lost them.
 */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R29', what: 'restart neither drops the queue nor sweeps the cursors' };

class NoopRestart extends VariantStore {
  override restart(): void {
    this.clock();
    this.prune();
  }
}

export const create = (options: CreateOptions) => new NoopRestart(options);
