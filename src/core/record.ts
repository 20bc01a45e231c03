import { LIMITS, NOTIFY_CLASS, type EventKind, type RecordInput, type StateEvent, type WatchCursor } from '../../spec/index.js';
import { applyMaterial, seedOnSpawn, type CursorIdentity } from './cursor.js';
import { ValidationError, isValidationError } from './errors.js';
import { isAgentScopedKey } from './keys.js';
import { validateRecordFields } from './validate.js';

/** An event ready to insert: validated, clamped, without its sequence (the store assigns it, R7). */
export type PreparedEvent = Omit<StateEvent, 'sequence'>;

/** R6: occurredAt is display truth only; clamp it into [now - 24h, now]. */
export function clampOccurredAt(occurredAt: number | undefined, now: number): number {
  if (occurredAt === undefined || !Number.isFinite(occurredAt)) return now;
  return Math.min(now, Math.max(now - LIMITS.occurredAtSkewMs, occurredAt));
}

/** Shared by every input that passes no watchers, so the common record allocates no list. */
const NO_WATCHERS: readonly string[] = Object.freeze([]);

/** R1-R6, R9: validate and normalize; throws ValidationError before anything is written. */
export function prepareRecord(input: unknown, now: number): { event: PreparedEvent; watchers: readonly string[]; onlyIfWatched: boolean } {
  const valid: RecordInput = validateRecordFields(input);
  const event: PreparedEvent = {
    sessionKey: valid.sessionKey,
    agentId: valid.agentId,
    kind: valid.kind,
    actorType: valid.actorType,
    occurredAt: clampOccurredAt(valid.occurredAt, now),
    recordedAt: now,
    summary: valid.summary,
  };
  // Optional fields are left out rather than set to undefined, so records compare structurally.
  if (valid.sessionId !== undefined) event.sessionId = valid.sessionId;
  if (valid.actorId !== undefined) event.actorId = valid.actorId;
  if (valid.runId !== undefined) event.runId = valid.runId;
  // Frozen by validateRecordFields: the stored record must not change when the caller later edits
  // its input or output.
  if (valid.payload !== undefined) event.payload = valid.payload;
  if (valid.dedupeKey !== undefined) event.dedupeKey = valid.dedupeKey;
  return { event, watchers: valid.watchers ?? NO_WATCHERS, onlyIfWatched: valid.onlyIfWatched === true };
}

/** What a store needs to record one input: the event without its sequence, plus R9b/R11 options. */
export type PreparedRecord = ReturnType<typeof prepareRecord>;

/**
 * R9e: validates a whole batch before anything is written. The argument is read once (R9a): its
 * length, then each element once. The first bad input rejects the batch, named by its index
 * (`3.summary`; an element that is not an object is `3`), so a batch is all or nothing.
 */
export function prepareRecordBatch(inputs: unknown, now: number): PreparedRecord[] {
  if (!Array.isArray(inputs)) throw new ValidationError('(input)', 'type', 'recordMany takes an array of record inputs');
  const length = inputs.length;
  if (length > LIMITS.maxRecordsPerBatch) {
    throw new ValidationError('(input)', 'range', `a batch holds at most ${LIMITS.maxRecordsPerBatch} inputs, got ${length}`);
  }
  const prepared: PreparedRecord[] = [];
  for (let i = 0; i < length; i++) {
    if (!(i in inputs)) throw new ValidationError(String(i), 'required', 'is a hole in the array');
    try {
      prepared.push(prepareRecord(inputs[i], now));
    } catch (error) {
      if (!isValidationError(error)) throw error;
      const field = error.field === '(input)' ? String(i) : `${i}.${error.field}`;
      const prefix = `${error.field}: `;
      const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
      throw new ValidationError(field, error.code, message);
    }
  }
  return prepared;
}

/** R11, R13: producer-passed watchers that can hold cursors: agent-scoped, not the target itself, deduped. */
export function eligibleWatchers(watchers: readonly string[], targetSessionKey: string): string[] {
  if (watchers.length === 0) return [];
  const seen = new Set<string>();
  for (const w of watchers) {
    if (w !== targetSessionKey && isAgentScopedKey(w)) seen.add(w);
  }
  return [...seen];
}

/** R9b: with onlyIfWatched, record only when someone could be told (a cursor or an eligible producer watcher). */
export function isWatched(cursorsOnTarget: readonly WatchCursor[], producerWatchers: readonly string[], targetSessionKey: string): boolean {
  if (cursorsOnTarget.length > 0) return true;
  for (const w of producerWatchers) {
    if (w !== targetSessionKey && isAgentScopedKey(w)) return true;
  }
  return false;
}

/** R10-R17: the cursor writes one recorded event causes, decided by planNotifications. */
export interface NotificationPlan {
  /**
   * Cursor rows to upsert, in watcher order. There is no notice list: a notice is pending iff its
   * cursor has N > L (R20), so committing these rows is what makes notices visible (R18).
   */
  cursorWrites: WatchCursor[];
}

/** The cursor row of `watcherSessionKey` among a target's cursors (a short list: scanned, not indexed). */
function cursorOf(cursorsOnTarget: readonly WatchCursor[], byWatcher: ReadonlyMap<string, WatchCursor> | undefined, watcherSessionKey: string): WatchCursor | undefined {
  if (byWatcher) return byWatcher.get(watcherSessionKey);
  for (const c of cursorsOnTarget) if (c.watcherSessionKey === watcherSessionKey) return c;
  return undefined;
}

/** Above this many cursors on one target, a Map beats scanning the list for each watcher. */
const SCAN_LIMIT = 8;

/**
 * R10-R17: what an inserted event does to cursors and notices. Pure: the store passes the
 * cursors currently held on the event's target (for this agent; at most one per watcher, as the
 * stores key them) and the producer's watchers.
 */
export function planNotifications(
  event: StateEvent,
  cursorsOnTarget: readonly WatchCursor[],
  producerWatchers: readonly string[],
  now: number,
): NotificationPlan {
  const plan: NotificationPlan = { cursorWrites: [] };
  const notifyClass = NOTIFY_CLASS[event.kind as EventKind];
  if (notifyClass === 'log-only') return plan; // R17
  // Nobody to seed or notify: the common append of an unwatched session does no more work.
  if (cursorsOnTarget.length === 0 && producerWatchers.length === 0) return plan;
  const byWatcher = cursorsOnTarget.length > SCAN_LIMIT ? new Map(cursorsOnTarget.map((c) => [c.watcherSessionKey, c] as const)) : undefined;
  const passed = eligibleWatchers(producerWatchers, event.sessionKey);

  if (notifyClass === 'seed') {
    // R14: seed the spawning parent(s); nobody is notified.
    for (const w of passed) plan.cursorWrites.push(seedOnSpawn(cursorOf(cursorsOnTarget, byWatcher, w), identityOf(event, w), event.sequence, now));
    return plan;
  }

  // R11: producer-passed watchers first, then every cursor holder; R16: terminal runs reach the
  // explicit cursors only (ambient cursors, R21b, are notified like spawn cursors). Each list holds
  // a watcher once (eligibleWatchers dedupes, a target's cursors are one per watcher), so only a
  // cursor holder the producer also passed needs skipping: no merged list, no Set per event.
  const terminal = notifyClass === 'terminal';
  if (!terminal) {
    for (const w of passed) {
      if (!isTold(event, w)) continue;
      const existing = cursorOf(cursorsOnTarget, byWatcher, w);
      // An existing cursor on this target already names the identity (watcher, target, agent).
      plan.cursorWrites.push(applyMaterial(existing, existing ?? identityOf(event, w), event.sequence, now));
    }
  }
  const alsoPassed = terminal || passed.length === 0 ? undefined : passed.length > SCAN_LIMIT ? new Set(passed) : passed;
  for (const c of cursorsOnTarget) {
    if (terminal && c.provenance !== 'explicit') continue;
    if (alsoPassed !== undefined && (Array.isArray(alsoPassed) ? alsoPassed.includes(c.watcherSessionKey) : (alsoPassed as Set<string>).has(c.watcherSessionKey))) continue;
    if (isTold(event, c.watcherSessionKey)) plan.cursorWrites.push(applyMaterial(c, c, event.sequence, now));
  }
  return plan;
}

/** R12, R13: a bare key, the target itself and the event's own actor are never told. */
function isTold(event: StateEvent, watcherSessionKey: string): boolean {
  if (watcherSessionKey === event.sessionKey || !isAgentScopedKey(watcherSessionKey)) return false; // R13
  return event.actorId === undefined || event.actorId !== watcherSessionKey; // R12
}

function identityOf(event: StateEvent, watcherSessionKey: string): CursorIdentity {
  return { watcherSessionKey, targetSessionKey: event.sessionKey, targetAgentId: event.agentId };
}
