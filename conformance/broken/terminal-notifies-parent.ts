/**
 * BROKEN (R16): run_completed / run_failed treated like material events, so the spawning parent
 * and producer-passed watchers are notified as well as explicit watchers.
 */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { planNotifications } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R16', what: 'terminal runs notify the spawning parent' };

class TerminalNotifiesParent extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    const asMaterial = NOTIFY_CLASS[event.kind] === 'terminal' ? ({ ...event, kind: 'agent_message' } as StateEvent) : event;
    return planNotifications(asMaterial, cursors, watchers, now);
  }
}

export const create = (options: CreateOptions) => new TerminalNotifiesParent(options);
