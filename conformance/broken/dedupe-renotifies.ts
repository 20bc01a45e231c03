/**
 * BROKEN (R8): a dedupe hit returns the existing event (correctly) but runs the notification step
 * again, so a retried producer call re-opens notices that were already drained.
 */
import type { CreateOptions, StateEvent } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R8', what: 'a dedupe hit notifies watchers again' };

class DedupeRenotifies extends VariantStore {
  protected override onDedupeHit(existing: StateEvent, watchers: string[], now: number): void {
    const plan = this.plan(existing, this.cursorsOn(existing.sessionKey, existing.agentId), watchers, now);
    for (const c of plan.cursorWrites) this.put(c);
    for (const n of plan.notices) this.enqueue(n);
  }
}

export const create = (options: CreateOptions) => new DedupeRenotifies(options);
