/** BROKEN (R13): producer-passed bare watchers (`global`, `main`) get notices too. */
import type { CreateOptions, StateEvent, WatchCursor } from '../../spec/index.js';
import { NOTIFY_CLASS } from '../../spec/index.js';
import { applyMaterial, isAgentScopedKey, planNotifications } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R13', what: 'notifies bare watcher keys such as global' };

class NotifiesBare extends VariantStore {
  protected override plan(event: StateEvent, cursors: WatchCursor[], watchers: readonly string[], now: number) {
    const plan = planNotifications(event, cursors, watchers, now);
    if (NOTIFY_CLASS[event.kind] === 'notify') {
      for (const w of new Set(watchers)) {
        if (isAgentScopedKey(w) || w === event.sessionKey || w === event.actorId) continue;
        const id = { watcherSessionKey: w, targetSessionKey: event.sessionKey, targetAgentId: event.agentId };
        plan.cursorWrites.push(applyMaterial(cursors.find((c) => c.watcherSessionKey === w), id, event.sequence, now));
      }
    }
    return plan;
  }
}

export const create = (options: CreateOptions) => new NotifiesBare(options);
