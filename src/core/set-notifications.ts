import { NOTIFY_CLASS, type EventKind, type StateEvent } from '../../spec/index.js';
import { eligibleWatchers } from './record.js';

/**
 * R10-R17 as one set-based step per event, for stores that can update every cursor on a target
 * in one statement instead of reading each cursor and writing it back (bench/phases.ts: the per-watcher
 * round trip was the cost of an append with watchers). It decides the same things as
 * `planNotifications`, which stays the reference: test/core/set-notifications.test.ts applies both
 * to random cursor sets and holds the results equal.
 *
 * - `none`: R17, a log-only kind touches no cursor.
 * - `seed`: R14, each listed watcher's cursor is seeded with `seedOnSpawn` (few rows: the spawner).
 * - `notify`: R11, R15, R16: first a blank cursor (L = N = M = 0, provenance spawn) is created for
 *   each of `addWatchers` that has none, then every cursor on the target (only explicit ones when
 *   `onlyExplicit`, R16), except `exceptWatcher`'s (R12), gets `applyMaterial` at the event's sequence.
 */
export type SetNotificationPlan =
  | { kind: 'none' }
  | { kind: 'seed'; watchers: string[] }
  | { kind: 'notify'; onlyExplicit: boolean; exceptWatcher: string | undefined; addWatchers: string[] };

export function planSetNotifications(event: Pick<StateEvent, 'kind' | 'sessionKey' | 'actorId'>, producerWatchers: readonly string[]): SetNotificationPlan {
  const notifyClass = NOTIFY_CLASS[event.kind as EventKind];
  if (notifyClass === 'log-only') return { kind: 'none' }; // R17
  const passed = eligibleWatchers(producerWatchers, event.sessionKey); // R13: agent-scoped, not the target
  if (notifyClass === 'seed') return { kind: 'seed', watchers: passed }; // R14
  // R16: terminal runs reach explicit cursors only; producer-passed watchers are not added.
  if (notifyClass === 'terminal') return { kind: 'notify', onlyExplicit: true, exceptWatcher: event.actorId, addWatchers: [] };
  // R11 + R12: producer-passed watchers join the cursor holders; the actor is never told.
  return { kind: 'notify', onlyExplicit: false, exceptWatcher: event.actorId, addWatchers: passed.filter((w) => w !== event.actorId) };
}
