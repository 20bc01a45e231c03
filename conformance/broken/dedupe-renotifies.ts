/**
 * BROKEN (R8): a dedupe hit returns the existing event (correctly) but runs the notification step
 * again, so a retried producer call tells watchers it names (who had no cursor) about an old event.
 */
import type { CreateOptions, StateEvent } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R8', what: 'a dedupe hit notifies watchers again' };

class DedupeRenotifies extends VariantStore {
  protected override onDedupeHit(existing: StateEvent, watchers: readonly string[], now: number): void {
    const plan = this.plan(existing, this.cursorsOn(existing.sessionKey, existing.agentId), watchers, now);
    for (const c of plan.cursorWrites) this.put(c);
  }
}

export const create = (options: CreateOptions) => new DedupeRenotifies(options);
