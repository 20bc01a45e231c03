/**
 * BROKEN (R20/R26/R27 across handles): pending notices live in each handle's memory, as v1's
 * process-local queue did. A handle enqueues what its own records raise and rebuilds its queue
 * from the cursors when it opens or restarts; reads and drains answer from that queue. With one
 * handle it is indistinguishable from the reference (the single-handle suite passes it); with two,
 * a notice raised through one handle never shows in the other, and a notice both handles queued
 * (both swept it at open) is drained twice. Only multi-handle mode (conformance/handles.ts) can
 * catch it: conformance/broken.test.ts shows which properties do.
 */
import type { CreateOptions, Notice, NoticeAck, StateEvent, UnwatchRequest, UnwatchResult, WatchRequest, WatchResult } from '../../spec/index.js';
import { compareNotices } from '../../src/core/index.js';
import { MemoryStore, type MemoryState } from '../../src/memory/index.js';
import type { HandleFactory } from '../handles.js';

export const breaks = { rule: 'R26', what: "keeps pending notices in each handle's memory (v1's process-local queue), so other handles never see them and two handles can drain one" };

const slot = (n: Notice) => `${n.watcherSessionKey}\u0000${n.targetAgentId}\u0000${n.targetSessionKey}`;

class HandleLocalQueue extends MemoryStore {
  /** This handle's queue: what it raised itself or swept at open/restart. */
  private readonly local = new Map<string, Notice>();

  constructor(options: CreateOptions, state?: MemoryState) {
    super(options, state);
    this.sweepIn();
  }

  override openHandle(options: CreateOptions): MemoryStore {
    return new HandleLocalQueue(options, this.state);
  }

  /** Every pending notice of the shared durable state (what the reference would answer). */
  private durable(): Map<string, Notice> {
    const out = new Map<string, Notice>();
    for (const p of this.listPending()) {
      for (const n of super.pendingNotices(p.watcherSessionKey)) out.set(slot(n), n);
    }
    return out;
  }

  /** v1's rebuild: the queue becomes exactly the pending cursors. */
  private sweepIn(): void {
    this.local.clear();
    for (const [k, n] of this.durable()) this.local.set(k, n);
  }

  /** After this handle's own writes: drop what is no longer pending, refresh what is (a wake may change). */
  private sync(): void {
    const now = this.durable();
    for (const [k, n] of this.local) {
      const d = now.get(k);
      if (!d) this.local.delete(k);
      else if (d.lastSeenSequence === n.lastSeenSequence) this.local.set(k, d);
    }
  }

  override record(input: Parameters<MemoryStore['record']>[0]): StateEvent | undefined {
    const before = this.durable();
    const e = super.record(input);
    // Enqueue what this record raised (a new pair or a new L), in this handle only.
    for (const [k, n] of this.durable()) {
      if (before.get(k)?.lastSeenSequence !== n.lastSeenSequence) this.local.set(k, n);
    }
    this.sync();
    return e;
  }

  // The same for a batch (R9e), so with one handle this store is still the reference.
  override recordMany(inputs: Parameters<MemoryStore['recordMany']>[0]): (StateEvent | undefined)[] {
    const before = this.durable();
    const out = super.recordMany(inputs);
    for (const [k, n] of this.durable()) {
      if (before.get(k)?.lastSeenSequence !== n.lastSeenSequence) this.local.set(k, n);
    }
    this.sync();
    return out;
  }

  override pendingNotices(watcherSessionKey: string): Notice[] {
    super.pendingNotices(watcherSessionKey); // validation (R9)
    return [...this.local.values()].filter((n) => n.watcherSessionKey === watcherSessionKey).sort(compareNotices);
  }

  override drainNotices(watcherSessionKey: string): Notice[] {
    const mine = this.pendingNotices(watcherSessionKey);
    super.ackNotices(watcherSessionKey, mine); // acks what is still pending with that L; checks the clock (R6)
    for (const n of mine) this.local.delete(slot(n));
    this.takeFollowUps(watcherSessionKey, mine);
    return mine; // whether or not another handle drained them already
  }

  override ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): Notice[] {
    const acked = super.ackNotices(watcherSessionKey, notices);
    for (const n of acked) this.local.delete(slot(n));
    this.takeFollowUps(watcherSessionKey, acked);
    return acked;
  }

  /** R28: a follow-up left pending by this handle's ack goes into this handle's queue. */
  private takeFollowUps(watcherSessionKey: string, acked: readonly Notice[]): void {
    const now = this.durable();
    for (const n of acked) {
      const d = now.get(slot(n));
      if (d && d.watcherSessionKey === watcherSessionKey) this.local.set(slot(d), d);
    }
  }

  override restart(): void {
    super.restart();
    this.sweepIn();
  }

  override watch(request: WatchRequest): WatchResult {
    const r = super.watch(request);
    this.sync();
    return r;
  }

  override unwatch(request: UnwatchRequest): UnwatchResult {
    const r = super.unwatch(request);
    this.sync();
    return r;
  }

  override prune(): void {
    super.prune();
    // The MemoryStore constructor prunes before this class's fields exist.
    if (this.local) this.sync();
  }

  override resetSession(sessionKey: string): void {
    super.resetSession(sessionKey);
    this.sync();
  }

  override deleteSession(sessionKey: string, agentId: string): void {
    super.deleteSession(sessionKey, agentId);
    this.sync();
  }
}

export const create = (options: CreateOptions): MemoryStore => new HandleLocalQueue(options);

/** The same as a multi-handle target: handles share the durable state, not the queue. */
export const handles: HandleFactory = {
  create,
  openHandle: (first, options) => (first as MemoryStore).openHandle(options),
};
