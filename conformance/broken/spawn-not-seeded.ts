/**
 * BROKEN (R14): child_spawned does not seed the parent's cursor, so the parent's first notice
 * about the child quotes 0 (or whatever it saw before) instead of the spawn's sequence.
 */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { planNotifications } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R14', what: 'spawn does not seed the parent\'s cursor' };

class SpawnNotSeeded extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    if (NOTIFY_CLASS[event.kind] === 'seed') return { cursorWrites: [], notices: [] };
    return planNotifications(event, cursors, watchers, now);
  }
}

export const create = (options: CreateOptions) => new SpawnNotSeeded(options);
