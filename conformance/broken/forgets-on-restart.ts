/** BROKEN (R29): restart drops the queue and does not rebuild it from the durable cursors. */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R29', what: 'forgets pending notices on restart' };

class ForgetsOnRestart extends VariantStore {
  override restart(): void {
    this.notices.clear();
    this.prune();
  }
}

export const create = (options: CreateOptions) => new ForgetsOnRestart(options);
