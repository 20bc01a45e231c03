/**
 * BROKEN (R14): a child_spawned that names its own session among the watchers seeds a cursor of
 * the session on itself (S watching S). R14 seeds only watchers that differ from the event's own
 * key, as R11 does for notices; the stray cursor then counts as a watcher for R9b, so an
 * onlyIfWatched record on S is written although nobody else watches S.
 */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { isAgentScopedKey, planNotifications, seedOnSpawn } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R14', what: 'a child_spawned naming its own session as watcher seeds a cursor of the session on itself' };

class SpawnSeedsSelf extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    const plan = planNotifications(event, cursors, watchers, now);
    if (NOTIFY_CLASS[event.kind] === 'seed' && isAgentScopedKey(event.sessionKey) && watchers.includes(event.sessionKey)) {
      const existing = cursors.find((c) => c.watcherSessionKey === event.sessionKey);
      plan.cursorWrites.push(seedOnSpawn(existing, { watcherSessionKey: event.sessionKey, targetSessionKey: event.sessionKey, targetAgentId: event.agentId }, event.sequence, now));
    }
    return plan;
  }
}

export const create = (options: CreateOptions) => new SpawnSeedsSelf(options);
