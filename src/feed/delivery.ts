import { LIMITS, type MaybePromise, type Notice, type NoticeAck } from '../../spec/index.js';
import { WakeScheduler, isWakeable, type WakePolicyOptions } from '../core/index.js';
import { consoleLogger, errorDetails, guardedLogger, type Logger } from '../shared/logger.js';
import type { NoticeFeed, NoticeSignal } from './types.js';
import type { PendingPair } from './types.js';

/**
 * R67: at-least-once delivery of notices to woken watchers. Wires a store, a change feed and the
 * wake policy (src/core/wake, R64-R66) to the runtime's `deliver` callback: when a watcher's wake
 * is due it reads `pendingNotices`, hands them to `deliver`, and only after that resolves acks
 * exactly those notices (`ackNotices`: a pair acked is one whose L is still the L delivered).
 * A failed delivery acks nothing: the notices stay pending in durable state and are offered
 * again after `retryMs`. Watchers that are never woken (sub-agents, ambient cursors, side lanes)
 * are left alone: they read their notices on their next turn.
 */

/** What delivery needs from a store: the two contract methods of at-least-once delivery. */
export interface DeliveryStore {
  /** R26: the watcher's pending notices, not acked. */
  pendingNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  /** R27b: acks exactly the given notices still pending with the same L; returns those acked. */
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): MaybePromise<Notice[]>;
}

/** R64-R67: options of startDelivery: the store, the feed, the `deliver` callback and the wake policy. */
export interface DeliveryOptions {
  store: DeliveryStore;
  feed: NoticeFeed;
  /**
   * Wakes the watcher with these notices (e.g. starts its turn with them in the prompt). Resolve
   * when they reached the watcher: they are then acked. Throw or reject when they did not: they
   * stay pending and are retried. Resolve `false` when the runtime woke the watcher but its turn
   * will read the notices itself (`drainNotices`): nothing is acked and nothing is retried.
   */
  deliver: (watcherSessionKey: string, notices: Notice[]) => MaybePromise<void | boolean>;
  /** The wake policy (R64-R66) or a scheduler to share; default: 20 s coalescing, default lanes. */
  wake?: WakeScheduler | WakePolicyOptions;
  /** The clock, epoch ms; default Date.now. */
  now?: () => number;
  /** A one-shot timer returning its cancel; default an unref'd setTimeout. */
  setTimer?: (fn: () => void, ms: number) => () => void;
  /** Retry delay after a failed delivery or ack; default the coalescing window (at least 1 ms). */
  retryMs?: number;
  /**
   * R67: at most this many notices per `deliver` call and per ack; a watcher with more gets them in
   * pages, in R26 order, each acked before the next is delivered. Default and maximum
   * `LIMITS.maxNoticesPerAck` (10,000), what one `ackNotices` takes.
   */
  pageSize?: number;
  logger?: Logger;
}

/** R67: a running delivery helper (see startDelivery): close it to stop listening. */
export interface Delivery {
  /** Stops listening and cancels owed wakes; a delivery in flight still finishes (and acks). */
  close(): void;
  /** Resolves when no delivery is in flight (for tests and orderly shutdown). */
  idle(): Promise<void>;
  /** How many watchers delivery holds state for (owed a look, a retry, or in flight): diagnostics and tests. */
  readonly tracked: number;
  readonly scheduler: WakeScheduler;
}

function defaultTimer(fn: () => void, ms: number): () => void {
  const t = setTimeout(fn, ms);
  (t as { unref?: () => void }).unref?.();
  return () => clearTimeout(t);
}

/**
 * R64-R67: wakes watchers on feed signals (coalesced, by lane) with their pending notices and acks them only once `deliver` says they arrived.
 */
export function startDelivery(options: DeliveryOptions): Delivery {
  const { store, feed, deliver } = options;
  if (!store || typeof store.pendingNotices !== 'function' || typeof store.ackNotices !== 'function') {
    throw new TypeError('startDelivery: store must have pendingNotices and ackNotices');
  }
  if (!feed || typeof feed.subscribe !== 'function') throw new TypeError('startDelivery: feed must be a NoticeFeed');
  if (typeof deliver !== 'function') throw new TypeError('startDelivery: deliver must be a function');
  const scheduler = options.wake instanceof WakeScheduler ? options.wake : new WakeScheduler(options.wake);
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? defaultTimer;
  const logger = guardedLogger(options.logger ?? consoleLogger);
  const retryMs = options.retryMs ?? Math.max(1, scheduler.policy.coalesceMs);
  if (!Number.isSafeInteger(retryMs) || retryMs < 1) throw new RangeError(`retryMs must be a positive safe integer, got ${String(retryMs)}`);
  const pageSize = options.pageSize ?? LIMITS.maxNoticesPerAck;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > LIMITS.maxNoticesPerAck) {
    throw new RangeError(`pageSize must be an integer from 1 to ${LIMITS.maxNoticesPerAck}, got ${String(pageSize)}`);
  }

  // best effort (R9): a throwing logger must not stop delivery
  const log = (message: string, details: Record<string, unknown>) => logger.error(message, details);

  /** The latest news the feed reported per wakeable watcher (what a deferred wake and a retry are judged on). */
  const latest = new Map<string, PendingPair[]>();
  const inFlight = new Map<string, Promise<void>>();
  const rerun = new Set<string>();
  /** Watchers whose last read found nothing although the feed said something was pending. */
  const emptyOnce = new Set<string>();
  const retries = new Map<string, () => void>();
  let cancelDue: (() => void) | undefined;
  let dueAt: number | undefined;
  let closed = false;

  const armDue = () => {
    if (closed) return;
    const next = scheduler.nextDueAt();
    if (next === dueAt) return;
    cancelDue?.();
    cancelDue = undefined;
    dueAt = next;
    if (next === undefined) return;
    cancelDue = setTimer(fireDue, Math.max(0, next - now()));
  };

  const fireDue = () => {
    cancelDue = undefined;
    dueAt = undefined;
    if (closed) return;
    for (const w of scheduler.takeDue(now())) run(w);
    armDue();
  };

  const consider = (watcher: string, pending: readonly PendingPair[] | readonly Notice[]) => {
    if (closed) return;
    const decision = scheduler.request(watcher, pending, now());
    if (decision.wake === 'now') run(watcher);
    else if (decision.wake === 'later') armDue();
  };

  const retryLater = (watcher: string) => {
    if (closed || retries.has(watcher)) return;
    retries.set(
      watcher,
      setTimer(() => {
        retries.delete(watcher);
        consider(watcher, latest.get(watcher) ?? [{ wake: 'immediate' } as PendingPair]);
      }, retryMs),
    );
  };

  const attempt = async (watcher: string): Promise<void> => {
    let notices: Notice[];
    try {
      notices = await store.pendingNotices(watcher);
    } catch (error) {
      log('notice delivery: reading pending notices failed; retrying later', { watcherSessionKey: watcher, ...errorDetails(error) });
      retryLater(watcher);
      return;
    }
    if (notices.length === 0) {
      // Another process may have delivered them meanwhile, or the read failed: a store answers []
      // on a storage failure too (R9). When the feed said something is pending, look once more
      // later instead of dropping the wake (R67); a second empty read settles it.
      const hinted = latest.get(watcher);
      if (hinted !== undefined && hinted.length > 0 && !emptyOnce.has(watcher)) {
        emptyOnce.add(watcher);
        retryLater(watcher);
      } else {
        emptyOnce.delete(watcher);
        latest.delete(watcher);
      }
      return;
    }
    emptyOnce.delete(watcher);
    // Judged again on durable state.
    if (!isWakeable(watcher, notices, scheduler.policy.laneOf)) {
      latest.delete(watcher); // read on its next turn (R64): nothing to remember
      return;
    }
    // R67: in pages no larger than one ack takes, each acked before the next is handed over.
    for (let from = 0; from < notices.length; from += pageSize) {
      const page = notices.slice(from, from + pageSize);
      let outcome: void | boolean;
      try {
        // A copy: what is acked is what was read and handed over, whatever the runtime does with its array.
        outcome = await deliver(watcher, page.map((n) => ({ ...n })));
      } catch (error) {
        log('notice delivery: deliver failed; the notices stay pending and are retried', { watcherSessionKey: watcher, notices: page.length, ...errorDetails(error) });
        retryLater(watcher);
        return;
      }
      if (outcome === false) {
        latest.delete(watcher); // the watcher's own turn reads them
        return;
      }
      let acked: Notice[];
      try {
        acked = await store.ackNotices(watcher, page);
      } catch (error) {
        log('notice delivery: ack failed; the notices stay pending and will be delivered again', { watcherSessionKey: watcher, ...errorDetails(error) });
        retryLater(watcher);
        return;
      }
      // Fewer acked than delivered: changed meanwhile (the feed signals a new L) or the ack could
      // not be written. Look again later; a notice still pending unchanged is delivered again.
      if (acked.length < page.length) {
        retryLater(watcher);
        return;
      }
    }
    latest.delete(watcher); // nothing owed: keep memory to the watchers with something pending
  };

  const run = (watcher: string) => {
    if (inFlight.has(watcher)) {
      rerun.add(watcher);
      return;
    }
    const p = attempt(watcher)
      .catch((error: unknown) => log('notice delivery: unexpected failure', { watcherSessionKey: watcher, ...errorDetails(error) }))
      .finally(() => {
        inFlight.delete(watcher);
        // A signal that came while this attempt ran was already counted as a wake by the scheduler:
        // run again now (the attempt re-reads durable state), or that notice waits for the next signal.
        if (rerun.delete(watcher)) run(watcher);
      });
    inFlight.set(watcher, p);
  };

  const onSignal = (s: NoticeSignal) => {
    // R64: news that can never wake the watcher (a sub-agent, an ambient cursor, a side lane) is
    // left for its next turn and not remembered: memory stays with the watchers delivery serves.
    if (!isWakeable(s.watcherSessionKey, s.changed, scheduler.policy.laneOf)) return;
    latest.set(s.watcherSessionKey, s.changed);
    consider(s.watcherSessionKey, s.changed);
  };
  const unsubscribe = feed.subscribe(onSignal);

  return {
    scheduler,
    close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      cancelDue?.();
      for (const cancel of retries.values()) cancel();
      retries.clear();
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight.values()]);
    },
    get tracked() {
      return new Set([...latest.keys(), ...inFlight.keys(), ...retries.keys(), ...emptyOnce]).size;
    },
  };
}
