/** BROKEN (R17): log-only kinds (compacted, adopted, created) notify like material events. */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { planNotifications } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R17', what: 'log-only kinds notify' };

class LogOnlyNotifies extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    const asMaterial = NOTIFY_CLASS[event.kind] === 'log-only' ? ({ ...event, kind: 'goal_changed' } as StateEvent) : event;
    return planNotifications(asMaterial, cursors, watchers, now);
  }
}

export const create = (options: CreateOptions) => new LogOnlyNotifies(options);
