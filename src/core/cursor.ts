import type { CursorProvenance, WatchCursor } from '../../spec/index.js';

/**
 * R20-R29: the cursor state machine. Every function is pure: it takes the current row (or
 * undefined) and returns the row to write. Notation from PROTOCOL.md: L = lastSeenSequence,
 * N = notifiedSequence, M = materialSequence; invariant L <= N <= M; pending iff N > L.
 */

export interface CursorIdentity {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
}

export function isPending(cursor: WatchCursor): boolean {
  return cursor.notifiedSequence > cursor.lastSeenSequence;
}

function seeded(id: CursorIdentity, at: number, provenance: CursorProvenance, now: number): WatchCursor {
  return {
    watcherSessionKey: id.watcherSessionKey,
    targetSessionKey: id.targetSessionKey,
    targetAgentId: id.targetAgentId,
    lastSeenSequence: at,
    notifiedSequence: at,
    materialSequence: at,
    provenance,
    updatedAt: now,
  };
}

/** R20: explicit is never downgraded to spawn. */
function mergeProvenance(existing: CursorProvenance, requested: CursorProvenance): CursorProvenance {
  return existing === 'explicit' || requested === 'explicit' ? 'explicit' : 'spawn';
}

/**
 * R14: child_spawned seeds the parent's cursor at the spawn event's sequence. A pending notice on
 * an existing cursor is never clobbered (a reused child key must not lose an unacked change).
 */
export function seedOnSpawn(existing: WatchCursor | undefined, id: CursorIdentity, sequence: number, now: number): WatchCursor {
  if (!existing) return seeded(id, sequence, 'spawn', now);
  if (isPending(existing)) return { ...existing, updatedAt: now };
  return seeded(id, sequence, existing.provenance, now);
}

/**
 * R21: explicit watch starts at the target's current head, so history never notifies (R22).
 * An existing cursor keeps L, N and M (a pending notice survives a second watch); it is promoted
 * to explicit and its expiry clock restarts.
 */
export function registerExplicit(existing: WatchCursor | undefined, id: CursorIdentity, head: number, now: number): WatchCursor {
  if (!existing) return seeded(id, head, 'explicit', now);
  return { ...existing, provenance: mergeProvenance(existing.provenance, 'explicit'), updatedAt: now };
}

/**
 * R15: a material event with sequence s. If nothing is pending (N == L), freeze the watermark
 * N := s; otherwise N stays frozen. M := s either way. A watcher with no cursor (a producer-passed
 * parent) starts from L = 0: it never acknowledged anything of this target.
 */
export function applyMaterial(existing: WatchCursor | undefined, id: CursorIdentity, sequence: number, now: number): WatchCursor {
  const base = existing ?? seeded(id, 0, 'spawn', now);
  const idle = base.notifiedSequence === base.lastSeenSequence;
  return {
    ...base,
    notifiedSequence: idle ? sequence : base.notifiedSequence,
    materialSequence: Math.max(base.materialSequence, sequence),
    updatedAt: now,
  };
}

/**
 * R27-R28: ack on drain. L := N (the frozen watermark, not the head: acking to the head would lose
 * an event that arrived between enqueue and drain). If M > old N, N := M and exactly one follow-up
 * notice quoting the old N is owed.
 */
export function acknowledge(cursor: WatchCursor, now: number): { cursor: WatchCursor; followUpLastSeen?: number } {
  const frozen = cursor.notifiedSequence;
  const next: WatchCursor = {
    ...cursor,
    lastSeenSequence: frozen,
    notifiedSequence: Math.max(cursor.materialSequence, frozen),
    updatedAt: now,
  };
  return cursor.materialSequence > frozen ? { cursor: next, followUpLastSeen: frozen } : { cursor: next };
}

/**
 * R29: restart sweep. A cursor with M > L gets N := M and one re-enqueued notice quoting L.
 * updatedAt is deliberately left alone (R44): a restart is not a sign of life from the watcher, and
 * refreshing it would keep the cursors of vanished watchers pending forever across restarts.
 */
export function sweep(cursor: WatchCursor, _now?: number): WatchCursor | undefined {
  if (cursor.materialSequence <= cursor.lastSeenSequence) return undefined;
  return { ...cursor, notifiedSequence: cursor.materialSequence };
}
