import type { CursorProvenance, WatchCursor } from '../../spec/index.js';

/**
 * R20-R28: the cursor state machine. Every function is pure: it takes the current row (or
 * undefined) and returns the row to write. Notation from PROTOCOL.md: L = lastSeenSequence,
 * N = notifiedSequence, M = materialSequence; invariant L <= N <= M; pending iff N > L.
 */

export interface CursorIdentity {
  watcherSessionKey: string;
  targetSessionKey: string;
  targetAgentId: string;
}

/** R20: a cursor has a pending notice iff its notified sequence N is above its last seen sequence L. */
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

const RANK: Record<CursorProvenance, number> = { ambient: 0, spawn: 1, explicit: 2 };

/** R20: provenance is never downgraded: explicit > spawn > ambient. */
export function mergeProvenance(existing: CursorProvenance, requested: CursorProvenance): CursorProvenance {
  return RANK[requested] > RANK[existing] ? requested : existing;
}

/**
 * R14: child_spawned seeds the parent's cursor at the spawn event's sequence. A pending notice on
 * an existing cursor is never clobbered (a reused child key must not lose an unacked change).
 */
export function seedOnSpawn(existing: WatchCursor | undefined, id: CursorIdentity, sequence: number, now: number): WatchCursor {
  if (!existing) return seeded(id, sequence, 'spawn', now);
  // R20/R21b: a spawn seed promotes an ambient cursor to spawn; explicit stays explicit.
  const provenance = mergeProvenance(existing.provenance, 'spawn');
  if (isPending(existing)) return { ...existing, provenance, updatedAt: now };
  return seeded(id, sequence, provenance, now);
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
 * R21b: an ambient (queue-only) watch is registered once: with no cursor, one is created at the
 * target's head with provenance ambient; an existing cursor of any provenance is left exactly as it
 * is, `updatedAt` included (undefined: nothing to write). Repeating an ambient registration (a group
 * re-announcing its members) is therefore no sign of life and cannot keep a dormant watch alive (R44).
 */
export function registerAmbient(existing: WatchCursor | undefined, id: CursorIdentity, head: number, now: number): WatchCursor | undefined {
  return existing ? undefined : seeded(id, head, 'ambient', now);
}

/** R21, R21b: the registration a watch request asks for (provenance defaults to explicit). */
export function registerWatch(
  existing: WatchCursor | undefined,
  id: CursorIdentity,
  head: number,
  now: number,
  provenance: 'explicit' | 'ambient' = 'explicit',
): WatchCursor | undefined {
  return provenance === 'ambient' ? registerAmbient(existing, id, head, now) : registerExplicit(existing, id, head, now);
}

/**
 * R15: a material event with sequence s. If nothing is pending (N == L), freeze the watermark
 * N := s; otherwise N stays frozen. M := s either way. A watcher with no cursor (a producer-passed
 * parent) starts from L = 0: it never acknowledged anything of this target.
 */
export function applyMaterial(existing: WatchCursor | undefined, id: CursorIdentity, sequence: number, now: number): WatchCursor {
  const base = existing ?? seeded(id, 0, 'spawn', now);
  const idle = base.notifiedSequence === base.lastSeenSequence;
  // Field by field rather than `{ ...base }`: this runs for every watcher of every material event.
  return {
    watcherSessionKey: base.watcherSessionKey,
    targetSessionKey: base.targetSessionKey,
    targetAgentId: base.targetAgentId,
    lastSeenSequence: base.lastSeenSequence,
    notifiedSequence: idle ? sequence : base.notifiedSequence,
    materialSequence: Math.max(base.materialSequence, sequence),
    provenance: base.provenance,
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
 * R27b: whether a delivered notice (quoting `lastSeenSequence`) may be acked now: the cursor must
 * still be pending with that same L. A cursor acked since (L moved on), or gone, acks nothing, so a
 * late ack of an old notice can never swallow the follow-up that replaced it.
 */
export function ackMatches(cursor: WatchCursor | undefined, lastSeen: number | readonly number[]): cursor is WatchCursor {
  if (cursor === undefined || !isPending(cursor)) return false;
  return typeof lastSeen === 'number' ? cursor.lastSeenSequence === lastSeen : lastSeen.includes(cursor.lastSeenSequence);
}
