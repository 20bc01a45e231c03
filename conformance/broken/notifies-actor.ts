/** BROKEN (R12): no self-suppression. The acting session is notified about its own action. */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { planNotifications } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R12', what: 'notifies the actor about its own action' };

class NotifiesActor extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    const { actorId: _ignored, ...anonymous } = event;
    return planNotifications(anonymous as StateEvent, cursors, watchers, now);
  }
}

export const create = (options: CreateOptions) => new NotifiesActor(options);
