/**
 * BROKEN (R29, R43): restart does nothing at all. The pending notices are right (they are the
 * cursors), but a restart neither prunes nor restarts the prune clock, so what a real process
 * restart would have pruned (aged events, idle cursors) stays until the next hourly prune.
 */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R29', what: 'restart neither prunes nor restarts the prune clock' };

class NoopRestart extends VariantStore {
  override restart(): void {
    this.clock();
  }
}

export const create = (options: CreateOptions) => new NoopRestart(options);
