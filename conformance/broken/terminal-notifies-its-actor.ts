/**
 * BROKEN (R16, R12): a terminal run notifies every explicit watcher, the one that is the event's
 * own actor included, as if R16 overrode self-suppression. Caught by the vector `r16-passed-and-self`.
 */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R16', what: 'a terminal run notifies the explicit watcher that is its own actor' };

class TerminalNotifiesItsActor extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    if (NOTIFY_CLASS[event.kind] !== 'terminal' || event.actorId === undefined) return super.plan(event, cursors, watchers, now);
    const { actorId: _actor, ...anonymous } = event;
    return super.plan(anonymous as StateEvent, cursors, watchers, now);
  }
}

export const create = (options: CreateOptions) => new TerminalNotifiesItsActor(options);
