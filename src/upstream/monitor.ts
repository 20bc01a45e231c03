import type { SessionStateStore, StateEvent } from '../../spec/index.js';
import {
  ambiguousKeys,
  compareLinks,
  createLink,
  planCheck,
  refreshLink,
  resolveMonitorConfig,
  sameSource,
  validateContinueInput,
  type CheckPlan,
  type ContinueInput,
  type JsonValue,
  type LinkState,
  type MonitorConfig,
  type Observation,
  type OwnMessage,
  type UpstreamLink,
  type LinkIdentity,
} from '../core/upstream/index.js';
import { consoleLogger, type Logger, messageOf } from '../shared/logger.js';
import { createMemoryLinkStore } from './memory-link-store.js';
import { OwnTextLog } from './own-texts.js';
import type { LinkToken, MaybePromise, UpstreamLinkStore, UpstreamSource } from './types.js';

/** U1-U9: options of createUpstreamMonitor: the store, the sources, the clock, link storage, demand and timing. */
export interface UpstreamMonitorOptions extends Partial<MonitorConfig> {
  /** The signal log. Activity is recorded through its contract `record`, like any producer (U5). */
  store: SessionStateStore;
  /** Sources by kind (U6, U7). */
  sources: readonly UpstreamSource[];
  /** The clock for bookkeeping (link timestamps); event times come from upstream (R6). */
  now: () => number;
  /** Links, markers and miss counts; default in memory. */
  links?: UpstreamLinkStore;
  /** U4: the session's user messages sent from our side, oldest first. Default: what was passed to noteOwnUserMessage. */
  ownTexts?: (sessionKey: string, agentId: string) => MaybePromise<readonly OwnMessage[]>;
  /**
   * U5, U8: whether anyone watches the session. Unwatched links are still checked (U2 keeps
   * working), but activity found then is passed over: the marker moves past it and nothing is
   * recorded. When it says true, a store `isWatched` (if any) is asked too. Default: the store's
   * optional `isWatched(sessionKey, agentId)`; with neither, every check records (R9b decides).
   */
  demand?: (sessionKey: string, agentId: string) => MaybePromise<boolean>;
  /** U8: whether our own run is active in the session; such links are deferred. Default: never. */
  isBusy?: (sessionKey: string, agentId: string) => MaybePromise<boolean>;
  logger?: Logger;
}

/** U3: what continueSession did: linked (new or refreshed), or why not. */
export type ContinueResult =
  | { linked: true; created: boolean; link: LinkStatusView }
  | { linked: false; reason: 'no-source' | 'owner-conflict' | 'machine-thread' | 'baseline-failed' | 'raced' | 'storage-error'; detail?: string };

/** U9: what operators see of one link. */
export interface LinkStatusView extends LinkIdentity {
  state: LinkState | 'ambiguous';
  detail?: string;
  missCount: number;
  marker: JsonValue;
  serial: number;
  generation: number;
  createdAt: number;
  updatedAt: number;
  lastCheckedAt?: number;
}

/** What one tick did, for tests and diagnostics. */
export interface TickReport {
  /** Links whose source was checked. */
  checked: number;
  /** Events returned by record (new or deduped). */
  recorded: StateEvent[];
  /** Links deleted after upstream_missing (U2). */
  removed: { sessionKey: string; agentId: string }[];
  /** Links left alone: busy, changed own texts, ambiguous owner, or raced by a Continue (U1, U8). */
  skipped: { sessionKey: string; agentId: string; reason: 'busy' | 'own-texts-changed' | 'ambiguous' | 'raced' | 'stopped' }[];
  /** Self-echo turns suppressed (U4). */
  echoes: number;
  /** Human turns found while nobody watched: passed over, not recorded (U5 Decision). */
  passedOver: number;
}

/** U1-U9: a running upstream monitor: link sessions on Continue, check links on a timer, report their status. */
export interface UpstreamMonitor {
  /** U1, U3: a catalog Continue of an adopted session. Bad input throws a ValidationError; nothing else throws. */
  continueSession(input: ContinueInput): Promise<ContinueResult>;
  /** Removes a session's link (e.g. when the session is deleted, R51). */
  unlink(sessionKey: string, agentId: string): Promise<boolean>;
  /** U4: record a user message sent upstream from our side (default ownTexts only). */
  noteOwnUserMessage(sessionKey: string, agentId: string, text: OwnMessage): void;
  /** U8: one check of every link, now. Joins a tick already running; after stop() it checks nothing until start(). */
  tick(): Promise<TickReport>;
  /** U9: every link's state, ordered like checks. */
  status(): Promise<LinkStatusView[]>;
  /** U8: tick every intervalMs (first after firstDelayMs); timers do not keep the process alive. */
  start(): void;
  /** Stops the timers and aborts a running check. */
  stop(): void;
  /** Log calls whose injected logger threw (swallowed, U8). */
  droppedLogs(): number;
}

const tokenOf = (link: UpstreamLink): LinkToken => ({ serial: link.serial, revision: link.revision });

/** R9b: stores MAY offer `isWatched` outside the contract; it is feature-detected, never required. */
type MaybeWatchAware = SessionStateStore & { isWatched?: (sessionKey: string, agentId: string) => MaybePromise<unknown> };

function view(link: UpstreamLink, ambiguous: boolean): LinkStatusView {
  const v: LinkStatusView = {
    sessionKey: link.sessionKey,
    agentId: link.agentId,
    catalogId: link.catalogId,
    hostId: link.hostId,
    threadId: link.threadId,
    upstreamKind: link.upstreamKind,
    state: ambiguous ? 'ambiguous' : link.status,
    missCount: link.missCount,
    marker: link.marker,
    serial: link.serial,
    generation: link.generation,
    createdAt: link.createdAt,
    updatedAt: link.updatedAt,
  };
  const detail = ambiguous ? 'session key is linked by more than one agent; not checked' : link.statusDetail;
  if (detail !== undefined) v.detail = detail;
  if (link.lastCheckedAt !== undefined) v.lastCheckedAt = link.lastCheckedAt;
  return v;
}

function errorText(error: unknown): string {
  return messageOf(error);
}

/** Runs `fn` with an abort signal that fires on timeout or stop; a late rejection is swallowed. */
async function bounded<T>(fn: (signal: AbortSignal) => Promise<T>, timeoutMs: number, parent: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const onStop = () => controller.abort(new Error('monitor stopped'));
  parent.addEventListener('abort', onStop, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`check timed out after ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    timer.unref?.();
  });
  const stopped = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
  const work = fn(controller.signal);
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout, stopped]);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener('abort', onStop);
  }
}

/**
 * U8, R9: a logger that throws must never make a check, a tick or a Continue throw: every call
 * goes through this guard, which swallows the logger's failure and counts it (`droppedLogs`).
 */
function guardLogger(inner: Logger, onDrop: () => void): Logger {
  const call = (level: 'warn' | 'error', message: string, details?: Record<string, unknown>) => {
    try {
      inner[level](message, details);
    } catch {
      onDrop();
    }
  };
  return { warn: (m, d) => call('warn', m, d), error: (m, d) => call('error', m, d) };
}

/**
 * The upstream monitor driver (PROTOCOL.md section 9). It owns no rules: the core decides
 * (planCheck, createLink, refreshLink); this file does the awaiting, the compare-and-set writes
 * and the isolation between links.
 */
export function createUpstreamMonitor(options: UpstreamMonitorOptions): UpstreamMonitor {
  const config = resolveMonitorConfig({
    ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
    ...(options.firstDelayMs !== undefined && { firstDelayMs: options.firstDelayMs }),
    ...(options.checkTimeoutMs !== undefined && { checkTimeoutMs: options.checkTimeoutMs }),
  });
  const links = options.links ?? createMemoryLinkStore();
  let droppedLogs = 0;
  const logger = guardLogger(options.logger ?? consoleLogger, () => droppedLogs++);
  const ownLog = new OwnTextLog();
  const ownTexts = options.ownTexts ?? ((k: string, a: string) => ownLog.recent(k, a));
  const sources = new Map<string, UpstreamSource>();
  for (const s of options.sources) {
    if (sources.has(s.kind)) throw new Error(`two sources for upstream kind ${s.kind}`);
    sources.set(s.kind, s);
  }

  let running: Promise<TickReport> | undefined;
  let lifetime = new AbortController();
  let firstTimer: ReturnType<typeof setTimeout> | undefined;
  let intervalTimer: ReturnType<typeof setInterval> | undefined;

  async function observe(source: UpstreamSource, link: UpstreamLink): Promise<Observation> {
    try {
      const target = { hostId: link.hostId, threadId: link.threadId, ref: link.ref, marker: link.marker };
      return await bounded((signal) => source.check(target, signal), config.checkTimeoutMs, lifetime.signal);
    } catch (error) {
      // U2: an error is inconclusive: not a miss, not a find.
      return { status: 'inconclusive', detail: `check failed: ${errorText(error)}` };
    }
  }

  async function execute(link: UpstreamLink, plan: CheckPlan, report: TickReport): Promise<void> {
    // U8: the link may have been continued (or removed) while the source was read: drop the result.
    const current = await links.get(link.sessionKey, link.agentId);
    if (!current || current.serial !== link.serial || current.revision !== link.revision) {
      report.skipped.push({ sessionKey: link.sessionKey, agentId: link.agentId, reason: 'raced' });
      return;
    }
    report.echoes += plan.echoTurns;
    if (plan.action === 'write') {
      report.passedOver += plan.passedOver ?? 0;
      await links.compareAndSet(link.sessionKey, link.agentId, tokenOf(link), plan.next);
      return;
    }
    let event: StateEvent | undefined;
    try {
      event = await options.store.record(plan.record);
    } catch (error) {
      // R9: the log never fails the caller; here the caller is the monitor, which retries next tick.
      logger.error('upstream monitor: record failed', { sessionKey: link.sessionKey, kind: plan.record.kind, error: errorText(error) });
    }
    // U5: the marker (and U2: the link's deletion) follow only a record that returned an event.
    const next = event ? plan.onRecorded : plan.onFailed;
    const wrote = await links.compareAndSet(link.sessionKey, link.agentId, tokenOf(link), next);
    if (event) report.recorded.push(event);
    if (event && next === null && wrote) report.removed.push({ sessionKey: link.sessionKey, agentId: link.agentId });
  }

  /**
   * U5 Decision: does anyone watch the session now? Asked after the source was read, so "no" means
   * every turn just read predates every watch that exists from now on. `undefined`:
   * the monitor cannot tell (no demand, no store isWatched), so it records and R9b decides.
   * Throws when the answer is unavailable.
   */
  async function watchedNow(link: UpstreamLink): Promise<boolean | undefined> {
    if (options.demand && !(await options.demand(link.sessionKey, link.agentId))) return false;
    const store = options.store as MaybeWatchAware;
    if (typeof store.isWatched === 'function') {
      const answer = await store.isWatched(link.sessionKey, link.agentId);
      // Passing over activity loses it for good, so only a real boolean may say "nobody watches".
      if (typeof answer !== 'boolean') throw new Error(`store.isWatched returned ${typeof answer}, not a boolean`);
      return answer;
    }
    return options.demand ? true : undefined;
  }

  async function checkLink(link: UpstreamLink, report: TickReport): Promise<void> {
    const id = { sessionKey: link.sessionKey, agentId: link.agentId };
    const source = sources.get(link.upstreamKind);
    if (!source) {
      const plan = planCheck(link, { status: 'inconclusive', detail: `no source adapter for upstream kind ${link.upstreamKind}` }, { now: options.now(), ownTexts: [] });
      await execute(link, plan, report);
      return;
    }
    // U8: our own run writes to the same upstream; its turns are ours, so wait until it is idle.
    if (options.isBusy && (await options.isBusy(link.sessionKey, link.agentId))) {
      report.skipped.push({ ...id, reason: 'busy' });
      return;
    }
    const own = [...(await ownTexts(link.sessionKey, link.agentId))];
    if (lifetime.signal.aborted) {
      report.skipped.push({ ...id, reason: 'stopped' });
      return;
    }
    const observation = await observe(source, link);
    if (lifetime.signal.aborted) {
      report.skipped.push({ ...id, reason: 'stopped' });
      return;
    }
    report.checked++;
    // Re-verify after the I/O: a run that started, or a prompt we sent meanwhile, would make the
    // echo comparison stale. Nothing is written; the next tick sees the same bytes again.
    if (options.isBusy && (await options.isBusy(link.sessionKey, link.agentId))) {
      report.skipped.push({ ...id, reason: 'busy' });
      return;
    }
    const ownAfter = await ownTexts(link.sessionKey, link.agentId);
    if (ownAfter.length !== own.length || ownAfter.some((t, i) => JSON.stringify(t) !== JSON.stringify(own[i]))) {
      report.skipped.push({ ...id, reason: 'own-texts-changed' });
      return;
    }
    // Only a found source needs the watch state (U5); misses and inconclusive checks do not (U2).
    let watched: boolean | undefined;
    let judged = observation;
    if (observation.status === 'found') {
      try {
        watched = await watchedNow(link);
      } catch (error) {
        // Recording or passing over could both be wrong: inconclusive, marker and streak stay.
        logger.warn('upstream monitor: watch state unavailable', { sessionKey: link.sessionKey, agentId: link.agentId, error: errorText(error) });
        judged = { status: 'inconclusive', detail: `watch state unavailable: ${errorText(error)}` };
      }
    }
    await execute(link, planCheck(link, judged, { now: options.now(), ownTexts: own, ...(watched !== undefined && { watched }) }), report);
  }

  async function runTick(): Promise<TickReport> {
    const report: TickReport = { checked: 0, recorded: [], removed: [], skipped: [], echoes: 0, passedOver: 0 };
    let all: UpstreamLink[];
    try {
      all = await links.list();
    } catch (error) {
      logger.error('upstream monitor: cannot list links', { error: errorText(error) });
      return report;
    }
    const ambiguous = ambiguousKeys(all);
    for (const link of all.sort(compareLinks)) {
      if (lifetime.signal.aborted) break;
      if (ambiguous.has(link.sessionKey)) {
        report.skipped.push({ sessionKey: link.sessionKey, agentId: link.agentId, reason: 'ambiguous' });
        continue;
      }
      try {
        await checkLink(link, report);
      } catch (error) {
        // U8: one link's failure never stops the others.
        logger.error('upstream monitor: link check failed', { sessionKey: link.sessionKey, agentId: link.agentId, error: errorText(error) });
      }
    }
    if (ambiguous.size > 0) logger.warn('upstream monitor: session keys linked by several agents were skipped', { sessionKeys: [...ambiguous] });
    return report;
  }

  function tick(): Promise<TickReport> {
    if (!running) running = runTick().finally(() => (running = undefined));
    return running;
  }

  async function continueSession(raw: ContinueInput): Promise<ContinueResult> {
    const input = validateContinueInput(raw); // R9: bad input throws before anything is written
    const source = sources.get(input.upstreamKind);
    if (!source) return { linked: false, reason: 'no-source', detail: `no source adapter for upstream kind ${input.upstreamKind}` };
    // U10: a thread no person drives (its prompts come from a parent agent or a script) is never
    // linked; a link to that same source made before this check existed is removed. A source that
    // cannot tell (an unreadable file) leaves the decision to the baseline below.
    let driver: string | undefined;
    if (source.machineDriven) {
      const target = { hostId: input.hostId, threadId: input.threadId, ref: input.ref };
      driver = await bounded((signal) => source.machineDriven!(target, signal), config.checkTimeoutMs, lifetime.signal).catch(() => undefined);
    }
    try {
      if (driver !== undefined) {
        for (let attempt = 0; attempt < 3; attempt++) {
          const stale = await links.get(input.sessionKey, input.agentId);
          if (!stale || !sameSource(stale, input) || (await links.compareAndSet(input.sessionKey, input.agentId, tokenOf(stale), null))) break;
        }
        return { linked: false, reason: 'machine-thread', detail: `${driver}: no person types into it` };
      }
      for (let attempt = 0; attempt < 3; attempt++) {
        const all = await links.list();
        if (all.some((l) => l.sessionKey === input.sessionKey && l.agentId !== input.agentId)) {
          return { linked: false, reason: 'owner-conflict', detail: 'the session key is already linked by another agent (one owner agent per adopted key)' };
        }
        const existing = all.find((l) => l.sessionKey === input.sessionKey && l.agentId === input.agentId);
        let next: UpstreamLink;
        if (existing && sameSource(existing, input)) {
          next = refreshLink(existing, input, options.now());
        } else {
          let marker: JsonValue;
          try {
            marker = await bounded((signal) => source.baseline({ hostId: input.hostId, threadId: input.threadId, ref: input.ref }, signal), config.checkTimeoutMs, lifetime.signal);
          } catch (error) {
            return { linked: false, reason: 'baseline-failed', detail: errorText(error) };
          }
          next = createLink(input, marker, await links.nextSerial(), options.now(), existing);
        }
        if (await links.compareAndSet(input.sessionKey, input.agentId, existing ? tokenOf(existing) : undefined, next)) {
          return { linked: true, created: next.generation === 1, link: view(next, false) };
        }
      }
      return { linked: false, reason: 'raced', detail: 'the link kept changing during Continue' };
    } catch (error) {
      logger.error('upstream monitor: continue failed', { sessionKey: input.sessionKey, error: errorText(error) });
      return { linked: false, reason: 'storage-error', detail: errorText(error) };
    }
  }

  return {
    continueSession,
    async unlink(sessionKey, agentId) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const link = await links.get(sessionKey, agentId);
        if (!link) return false;
        if (await links.compareAndSet(sessionKey, agentId, tokenOf(link), null)) return true;
      }
      return false;
    },
    noteOwnUserMessage: (sessionKey, agentId, text) => ownLog.note(sessionKey, agentId, text),
    tick,
    async status() {
      const all = await links.list();
      const ambiguous = ambiguousKeys(all);
      return all.sort(compareLinks).map((l) => view(l, ambiguous.has(l.sessionKey)));
    },
    start() {
      if (firstTimer || intervalTimer) return;
      if (lifetime.signal.aborted) lifetime = new AbortController();
      // Single flight: a timer tick is skipped while the previous one still runs.
      const fire = () => {
        if (!running) void tick().catch((error) => logger.error('upstream monitor: tick failed', { error: errorText(error) }));
      };
      firstTimer = setTimeout(() => {
        firstTimer = undefined;
        fire();
        intervalTimer = setInterval(fire, config.intervalMs);
        intervalTimer.unref?.();
      }, config.firstDelayMs);
      firstTimer.unref?.();
    },
    droppedLogs: () => droppedLogs,
    stop() {
      if (firstTimer) clearTimeout(firstTimer);
      if (intervalTimer) clearInterval(intervalTimer);
      firstTimer = intervalTimer = undefined;
      lifetime.abort(new Error('monitor stopped'));
    },
  };
}
