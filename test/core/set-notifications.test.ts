/**
 * R10-R17: the set-based plan (what the SQLite store turns into one UPDATE per event) decides
 * exactly what the reference planner decides. `applySetPlan` below is the plan's meaning, written
 * the way the SQL statements execute it: blank cursors for the added watchers, then R15 on every
 * cursor the filter selects.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, type StateEvent, type WatchCursor } from '../../spec/index.js';
import { acknowledge, applyMaterial, planNotifications, planSetNotifications, seedOnSpawn, type SetNotificationPlan } from '../../src/core/index.js';

const T = Date.UTC(2026, 0, 1);
const TARGET = 'agent:main:target';
const KEYS = ['agent:main:a', 'agent:main:b', 'agent:main:subagent:c', 'agent:ops:d', TARGET, 'global', 'main'];

function applySetPlan(plan: SetNotificationPlan, event: StateEvent, cursors: readonly WatchCursor[], now: number): Map<string, WatchCursor> {
  const rows = new Map(cursors.map((c) => [c.watcherSessionKey, c] as const));
  const id = (w: string) => ({ watcherSessionKey: w, targetSessionKey: event.sessionKey, targetAgentId: event.agentId });
  if (plan.kind === 'seed') for (const w of plan.watchers) rows.set(w, seedOnSpawn(rows.get(w), id(w), event.sequence, now));
  if (plan.kind === 'notify') {
    // INSERT ... ON CONFLICT DO NOTHING of a blank cursor (L = N = M = 0, spawn).
    for (const w of plan.addWatchers) if (!rows.has(w)) rows.set(w, { ...id(w), lastSeenSequence: 0, notifiedSequence: 0, materialSequence: 0, provenance: 'spawn', updatedAt: now });
    // UPDATE ... WHERE watcher IS NOT actor AND watcher <> target [AND provenance = 'explicit'].
    for (const [w, c] of rows) {
      if (w === plan.exceptWatcher || w === event.sessionKey) continue;
      if (plan.onlyExplicit && c.provenance !== 'explicit') continue;
      rows.set(w, applyMaterial(c, id(w), event.sequence, now));
    }
  }
  return rows;
}

const cursorArb = fc
  .record({
    w: fc.constantFrom(...KEYS.filter((k) => k.startsWith('agent:') && k !== TARGET)),
    l: fc.nat({ max: 5 }),
    dn: fc.nat({ max: 3 }),
    dm: fc.nat({ max: 3 }),
    provenance: fc.constantFrom<WatchCursor['provenance']>('explicit', 'spawn', 'ambient'),
  })
  .map(({ w, l, dn, dm, provenance }): WatchCursor => ({
    watcherSessionKey: w,
    targetSessionKey: TARGET,
    targetAgentId: 'main',
    lastSeenSequence: l,
    notifiedSequence: l + dn,
    materialSequence: l + dn + dm,
    provenance,
    updatedAt: T - 1,
  }));

describe('set-based notification plan (R10-R17)', () => {
  it('R15 R16 R12 R13 R14 R17: applying planSetNotifications equals planNotifications on every cursor set, kind, actor and producer watcher list', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(cursorArb, { selector: (c) => c.watcherSessionKey, maxLength: 4 }),
        fc.constantFrom(...EVENT_KINDS),
        fc.option(fc.constantFrom(...KEYS), { nil: undefined }),
        fc.array(fc.constantFrom(...KEYS), { maxLength: 4 }),
        (cursors, kind, actorId, watchers) => {
          const event: StateEvent = { sequence: 20, sessionKey: TARGET, agentId: 'main', kind, actorType: 'agent', occurredAt: T, recordedAt: T, summary: 's', ...(actorId === undefined ? {} : { actorId }) };
          const reference = new Map(cursors.map((c) => [c.watcherSessionKey, c] as const));
          for (const c of planNotifications(event, cursors, watchers, T).cursorWrites) reference.set(c.watcherSessionKey, c);
          const setBased = applySetPlan(planSetNotifications(event, watchers), event, cursors, T);
          expect(Object.fromEntries(setBased)).toEqual(Object.fromEntries(reference));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('R27 R28: the drain statement (L := N, N := max(M, N)) is acknowledge() on every pending cursor', () => {
    fc.assert(
      fc.property(cursorArb.filter((c) => c.notifiedSequence > c.lastSeenSequence), (c) => {
        const sql = { ...c, lastSeenSequence: c.notifiedSequence, notifiedSequence: Math.max(c.materialSequence, c.notifiedSequence), updatedAt: T };
        expect(sql).toEqual(acknowledge(c, T).cursor);
      }),
    );
  });
});
