/**
 * BROKEN (R16): a terminal run notifies no producer-passed watcher, not even one that holds an
 * explicit cursor of its own (R16 decides by the cursor). Caught by the vector `r16-passed-and-self`.
 */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R16', what: 'a terminal run notifies no producer-passed watcher, even one with an explicit cursor' };

class TerminalSkipsPassedWatchers extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    const plan = super.plan(event, cursors, watchers, now);
    if (NOTIFY_CLASS[event.kind] !== 'terminal') return plan;
    return { cursorWrites: plan.cursorWrites.filter((c) => !watchers.includes(c.watcherSessionKey)) };
  }
}

export const create = (options: CreateOptions) => new TerminalSkipsPassedWatchers(options);
