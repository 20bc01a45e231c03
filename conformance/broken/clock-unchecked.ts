/**
 * BROKEN (R6): record, drain and restart use the clock reading as it is: a fractional reading is
 * stored unfloored (recordedAt 1767225600000.25), and a negative one is written instead of refused.
 */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R6', what: 'the clock is neither floored nor checked' };

class ClockUnchecked extends VariantStore {
  protected override clock(): number {
    return this.internals.options.now();
  }
}

export const create = (options: CreateOptions) => new ClockUnchecked(options);
