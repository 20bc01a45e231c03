import { appendFileSync, closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangesSinceRequest, ChangesSinceResponse, CreateOptions, Notice, NoticeAck, RecordInput, SessionStateStore, StateEvent, WatchRequest, WatchResult } from '../../spec/index.js';
import { LIMITS } from '../../spec/index.js';
import { checkedNow, decodeContextKey, isAgentScopedKey, encodeContextKey, prepareRecord, validateChangesSinceRequest, validateIdentity, validateNoticeAcks, validateSessionKey, validateWatchRequest } from '../../src/core/index.js';
import type { OpenClawApi } from './api.js';

/**
 * The contract's store (spec/schemas/contract.ts) over OpenClaw's own functions, one wire op to
 * what the gateway really does (docs/openclaw.md has the table). Two profiles:
 * - `raw`: OpenClaw called as it is; its answers go out as it gives them.
 * - `fronted`: the same calls behind the kit's input validation (R1-R9, R6's clock refusal) and
 *   with representation-only fixes: the context-key format (R24), and the `recordedAt` and
 *   `dedupeKey` an event carries, which OpenClaw does not store, kept in a side file. No behaviour
 *   is added: whatever still fails under `fronted` is OpenClaw's.
 * What OpenClaw lacks (unwatch, recordMany, per-store limits, ambient watches by request, a
 * notice link) answers as W3/W4 say for an unknown op or option: a ProtocolError.
 */

export type Profile = 'raw' | 'fronted';

/** W3: what an op or option OpenClaw has no counterpart for answers. */
function protocolError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ProtocolError' });
}

const NOTICE_PREFIX = 'session-state:';
/** R23: the L a notice text quotes (OpenClaw's queue entries carry only the text). */
const QUOTED_L = /changesSince (\d+)\.$/;

/** Every op reads the driver's clock through here; OpenClaw's own `Date.now()` reads it too (W2). */
let driverNow = 0;
const realDateNow = Date.now;
Date.now = () => driverNow;
export function restoreDateNow(): void {
  Date.now = realDateNow;
}

interface FrontRow {
  sequence: number;
  recordedAt: number;
  dedupeKey?: string;
}

export class OpenClawStore implements SessionStateStore {
  private readonly known = new Set<string>();
  private closed = false;
  private front = new Map<number, FrontRow>();
  private frontRead = 0;

  constructor(
    private readonly api: OpenClawApi,
    private readonly profile: Profile,
    readonly dir: string,
    private readonly options: CreateOptions,
    /** The handle that made the folder removes it when it closes (W8: the driver closes the others first). */
    private readonly owned = false,
  ) {
    for (const [name, value, limit] of [
      ['retentionMs', options.retentionMs, LIMITS.retentionMs],
      ['maxRows', options.maxRows, LIMITS.maxRows],
    ] as const) {
      if (value !== undefined && value !== limit) throw protocolError(`unknown option ${name}=${value}: OpenClaw's retention is fixed (${limit}); it has no per-store limits`);
    }
    if (options.noticeLink !== undefined) throw protocolError('unknown option noticeLink: OpenClaw has no link template in its notices');
    // A gateway starting on this state: its queue is empty, the startup sweep re-enqueues what the
    // cursors hold, and the prune after it sets the prune clock (R29, R43).
    this.use();
    api.resetSystemEventsForTest();
    api.sweepSessionStateWatchNotices({ now: this.now() });
  }

  /**
   * The driver's clock as OpenClaw reads it: integer milliseconds (Date.now never has a fraction).
   * Fronted refuses what R6 refuses, in exactly the calls that read the kit's clock (record,
   * watch, drain, ack, prune, restart and opening a store); elsewhere the reading only sets
   * OpenClaw's Date.now.
   */
  private now(readsClock = true): number {
    const raw = this.options.now();
    driverNow = this.profile === 'fronted' && readsClock ? checkedNow(raw) : Math.floor(raw);
    return driverNow;
  }

  /** OpenClaw finds its state by OPENCLAW_STATE_DIR, read on every open: this store's state is the process's. */
  private use(): void {
    if (this.closed) throw new Error('store is closed');
    process.env['OPENCLAW_STATE_DIR'] = this.dir;
  }

  /**
   * The gateway keeps a session entry for every session it routes; the startup sweep re-enqueues
   * only for watchers whose entry exists. A key the driver names gets its entry once, as the
   * session it stands for would have.
   */
  private ensureSession(key: unknown): void {
    if (typeof key !== 'string' || this.known.has(key) || !key.startsWith('agent:')) return;
    this.known.add(key);
    try {
      if (this.api.loadSessionEntryReadOnly({ sessionKey: key, clone: false }) === undefined) this.api.replaceSessionEntrySync({ sessionKey: key }, { sessionId: `ssk-${this.known.size}`, updatedAt: driverNow });
    } catch {
      // A key OpenClaw cannot route gets no entry; its behaviour then is OpenClaw's.
    }
  }

  // --- fronted: what OpenClaw does not store, kept beside it (one file, shared by every handle) ---

  private frontFile(): string {
    return join(this.dir, 'kit-front.jsonl');
  }
  private remember(event: Record<string, unknown> | undefined, input: RecordInput, now: number): void {
    if (this.profile !== 'fronted' || event === undefined) return;
    const sequence = event['sequence'] as number;
    if (this.frontRows().has(sequence)) return;
    const row: FrontRow = { sequence, recordedAt: now, ...(typeof input.dedupeKey === 'string' ? { dedupeKey: input.dedupeKey } : {}) };
    appendFileSync(this.frontFile(), `${JSON.stringify(row)}\n`);
  }
  /** The side file's rows; only the bytes appended since the last read are read (another handle may have added some). */
  private frontRows(): Map<number, FrontRow> {
    let fd: number;
    try {
      fd = openSync(this.frontFile(), 'r');
    } catch {
      return this.front;
    }
    try {
      const size = fstatSync(fd).size;
      if (size > this.frontRead) {
        const buffer = Buffer.alloc(size - this.frontRead);
        readSync(fd, buffer, 0, buffer.length, this.frontRead);
        const text = buffer.toString('utf8');
        const complete = text.lastIndexOf('\n') + 1;
        for (const line of text.slice(0, complete).split('\n').filter(Boolean)) {
          const row = JSON.parse(line) as FrontRow;
          this.front.set(row.sequence, row);
        }
        this.frontRead += Buffer.byteLength(text.slice(0, complete));
      }
    } finally {
      closeSync(fd);
    }
    return this.front;
  }
  /** An event as the contract shapes it: fronted adds recordedAt and dedupeKey in StateEvent's field order. */
  private event(row: Record<string, unknown>): StateEvent {
    if (this.profile === 'raw') return row as unknown as StateEvent;
    const side = this.frontRows().get(row['sequence'] as number);
    const out: Record<string, unknown> = {};
    for (const key of ['sequence', 'sessionKey', 'agentId', 'sessionId', 'kind', 'actorType', 'actorId', 'runId', 'occurredAt']) if (row[key] !== undefined) out[key] = row[key];
    out['recordedAt'] = side?.recordedAt ?? row['occurredAt'];
    out['summary'] = row['summary'];
    if (row['payload'] !== undefined) out['payload'] = row['payload'];
    if (side?.dedupeKey !== undefined) out['dedupeKey'] = side.dedupeKey;
    return out as unknown as StateEvent;
  }

  // --- the contract ---

  record(input: RecordInput): StateEvent | undefined {
    this.use();
    const now = this.now();
    if (this.profile === 'fronted') prepareRecord(input, now); // R1-R9: throws ValidationError, writes nothing
    for (const key of [input?.sessionKey, input?.actorId, ...(Array.isArray(input?.watchers) ? input.watchers : [])]) this.ensureSession(key);
    const { watchers, onlyIfWatched, ...rest } = input as RecordInput & { watchers?: string[]; onlyIfWatched?: boolean };
    let row: Record<string, unknown> | undefined;
    if (onlyIfWatched === true && input.kind === 'human_direct_message') {
      // R9b: the gateway's "only if watched" producer is the human-turn recorder, which probes for a
      // watcher (a spawn parent, else any cursor on the target) before it writes.
      const payload = (input.payload ?? {}) as { channel?: unknown };
      const channel = typeof payload.channel === 'string' ? payload.channel : /^human message via (.+)$/.exec(input.summary ?? '')?.[1];
      row = this.api.recordSessionHumanDirectMessage(
        {
          sessionKey: input.sessionKey,
          agentId: input.agentId,
          actor: { actorType: input.actorType, ...(input.actorId !== undefined ? { actorId: input.actorId } : {}) },
          ...(channel !== undefined ? { channel } : {}),
          ...(input.payload !== undefined ? { payload: input.payload } : {}),
          ...(input.dedupeKey !== undefined ? { dedupeKey: input.dedupeKey } : {}),
          ...(input.runId !== undefined ? { runId: input.runId } : {}),
          ...(input.occurredAt !== undefined ? { occurredAt: input.occurredAt } : {}),
          entry: { ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}), ...(watchers?.[0] !== undefined ? { spawnedBy: watchers[0] } : {}) },
        },
        { now },
      );
    } else {
      row = this.api.recordSessionStateEvent({ ...rest, ...(watchers !== undefined ? { watcherSessionKeys: watchers } : {}) }, { now });
    }
    this.remember(row, input, now);
    return row === undefined ? undefined : this.event(row);
  }

  recordMany(): never {
    throw protocolError('unknown op recordMany: OpenClaw records one event per call');
  }

  watch(request: WatchRequest): WatchResult {
    this.use();
    if (this.profile === 'fronted') validateWatchRequest(request);
    // R6: a watch that writes nothing (a bare watcher, or the target itself) reads no clock.
    const writes = typeof request?.watcherSessionKey === 'string' && isAgentScopedKey(request.watcherSessionKey) && request.watcherSessionKey !== request.targetSessionKey;
    const now = this.now(writes);
    if (request?.provenance === 'ambient') throw protocolError("unknown option provenance='ambient': OpenClaw registers ambient watches only for routed group sessions, never by request");
    this.ensureSession(request?.watcherSessionKey);
    this.ensureSession(request?.targetSessionKey);
    return { watched: this.api.registerSessionStateWatch({ watcherSessionKey: request.watcherSessionKey, targetSessionKey: request.targetSessionKey, targetAgentId: request.agentId }, { now }) };
  }

  unwatch(): never {
    throw protocolError('unknown op unwatch: OpenClaw has no command to end a watch (v1)');
  }

  stateVersion(sessionKey: string, agentId: string): number {
    this.use();
    this.now(false);
    if (this.profile === 'fronted') validateIdentity(sessionKey, agentId);
    return this.api.getSessionStateVersion(sessionKey, agentId);
  }

  /** What session_status answers for changesSince: the head, and the page of events after `since`. */
  changesSince(request: ChangesSinceRequest): ChangesSinceResponse {
    this.use();
    this.now(false);
    if (this.profile === 'fronted') validateChangesSinceRequest(request);
    const page = this.api.listSessionStateEventsSince(request.sessionKey, request.agentId, request.since, request.limit);
    return {
      stateVersion: this.api.getSessionStateVersion(request.sessionKey, request.agentId),
      stateChanges: { ...page, events: page.events.map((e) => this.event(e)) },
    } as ChangesSinceResponse;
  }

  /** One queue entry of OpenClaw's as a notice: the watcher, the target its context key names, the L its text quotes. */
  private notice(watcher: string, entry: { text: string; contextKey: string | null }): Notice | undefined {
    const target = entry.contextKey === null ? undefined : this.api.decodeSessionStateNoticeContextKey(entry.contextKey);
    if (target === undefined) return undefined;
    let targetAgentId = '';
    try {
      targetAgentId = this.api.resolveAgentIdFromSessionKey(target);
    } catch {
      // A bare target: OpenClaw's cursor names no agent for it.
    }
    return {
      watcherSessionKey: watcher,
      targetSessionKey: target,
      targetAgentId,
      lastSeenSequence: Number(QUOTED_L.exec(entry.text)?.[1] ?? Number.NaN),
      contextKey: this.profile === 'fronted' ? encodeContextKey(targetAgentId, target) : entry.contextKey!,
      // R25: OpenClaw wakes a watcher unless it is a sub-agent session (shouldWakeWatcher).
      wake: this.api.isSubagentSessionKey(watcher) ? 'next-turn' : 'immediate',
      text: entry.text,
    };
  }

  /** The watcher's queued session-state entries (the in-memory system-event queue of this process). */
  private queued(watcher: string): { id: string; text: string; contextKey: string | null }[] {
    if (this.profile === 'fronted') validateSessionKey(watcher, 'watcherSessionKey');
    if (this.profile === 'fronted' && !watcher.startsWith('agent:')) return [];
    return this.api.peekSystemEventEntries(watcher).filter((e) => e.contextKey?.startsWith(NOTICE_PREFIX));
  }

  pendingNotices(watcherSessionKey: string): Notice[] {
    this.use();
    this.now(false);
    return this.queued(watcherSessionKey).map((e) => this.notice(watcherSessionKey, e)).filter((n): n is Notice => n !== undefined);
  }

  /** The reply path: take the queued entries, decode their targets, acknowledge those cursors (which may enqueue one follow-up each). */
  drainNotices(watcherSessionKey: string): Notice[] {
    this.use();
    if (this.profile === 'fronted') validateSessionKey(watcherSessionKey, 'watcherSessionKey');
    const now = this.now();
    this.ensureSession(watcherSessionKey);
    const queued = this.queued(watcherSessionKey);
    if (queued.length === 0) return [];
    const taken = this.api.consumeSelectedSystemEventEntries(watcherSessionKey, queued);
    const notices = taken.map((e) => this.notice(watcherSessionKey, e)).filter((n): n is Notice => n !== undefined);
    if (notices.length > 0) this.api.acknowledgeSessionStateNotices(watcherSessionKey, notices.map((n) => n.targetSessionKey), { now });
    return notices;
  }

  /** R27b over the same steps: take exactly the queued entries the caller delivered (same target, same L), then acknowledge them. */
  ackNotices(watcherSessionKey: string, acks: readonly NoticeAck[]): Notice[] {
    this.use();
    if (this.profile === 'fronted') validateNoticeAcks(watcherSessionKey, acks);
    const now = this.now();
    const wanted = new Set(
      acks.map((a) => {
        const target = this.profile === 'fronted' ? decodeContextKey(a.contextKey)?.targetSessionKey : this.api.decodeSessionStateNoticeContextKey(a.contextKey);
        return `${target}\u0000${a.lastSeenSequence}`;
      }),
    );
    const queued = this.queued(watcherSessionKey).filter((e) => {
      const n = this.notice(watcherSessionKey, e);
      return n !== undefined && wanted.has(`${n.targetSessionKey}\u0000${n.lastSeenSequence}`);
    });
    if (queued.length === 0) return [];
    const taken = this.api.consumeSelectedSystemEventEntries(watcherSessionKey, queued);
    const notices = taken.map((e) => this.notice(watcherSessionKey, e)).filter((n): n is Notice => n !== undefined);
    if (notices.length > 0) this.api.acknowledgeSessionStateNotices(watcherSessionKey, notices.map((n) => n.targetSessionKey), { now });
    return notices;
  }

  /** The hourly prune's body, run now (OpenClaw exports no prune of its own). */
  prune(): void {
    this.use();
    const now = this.now();
    this.api.runOpenClawStateWriteTransaction(({ db }) => this.api.pruneSessionStateEventsInDatabase(db, now));
  }

  /** The gateway's session reset handler. */
  resetSession(sessionKey: string): void {
    this.use();
    this.now(false);
    if (this.profile === 'fronted') validateSessionKey(sessionKey);
    this.api.handleSessionStateSessionReset(sessionKey);
  }

  /** The gateway's session delete handler. */
  deleteSession(sessionKey: string, agentId: string): void {
    this.use();
    this.now(false);
    if (this.profile === 'fronted') validateIdentity(sessionKey, agentId);
    this.api.handleSessionStateSessionDeleted(sessionKey, agentId);
  }

  /** A gateway restart: the in-memory queue is gone; the startup sweep re-enqueues from the cursors, then prunes. */
  restart(): void {
    this.use();
    const now = this.now();
    this.api.resetSystemEventsForTest();
    this.api.sweepSessionStateWatchNotices({ now });
  }

  close(): void {
    this.closed = true;
    if (this.owned) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** W5, W8: stores under `root`, each a fresh OpenClaw state folder; another handle is this process on the same folder. */
export function openClawStores(api: OpenClawApi, profile: Profile, root: string) {
  return {
    create: (options: CreateOptions) => new OpenClawStore(api, profile, mkdtempSync(join(root, 'state-')), options, true),
    sharing: {
      backingOf: (store: SessionStateStore) => (store instanceof OpenClawStore ? store.dir : undefined),
      open: (backing: string, options: CreateOptions) => new OpenClawStore(api, profile, backing, options),
    },
  };
}
