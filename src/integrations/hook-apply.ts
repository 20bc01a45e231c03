import type { Notice, NoticeAck, RecordInput, StateEvent } from '../../spec/index.js';
import { NOTICES_PREAMBLE, noticesText } from '../tools/text.js';
import { sessionKeyIntro, type HookPlan } from './hook-plan.js';

/**
 * What a hook run does with its plan (hook-plan.ts) against the store: record, reset, read the
 * notices it may hand over and put the model's text together (PROTOCOL.md T9, T17, T51). How the
 * text reaches the model, and when it counts as delivered, is the runtime's: `hook` prints it and
 * acks once printed to a reader (T9), the OpenCode plugin adds it to the person's message and acks
 * once OpenCode stored that message (T62). Both go through this, so a start, a prompt or a
 * compaction means the same in every runtime.
 */

/** T17: at most this many notices go into one prompt's context; the rest wait, counted in one line. */
export const HOOK_MAX_NOTICES = 50;

/**
 * T9: a hook is on the path of every prompt. While another process holds the database's write lock
 * a statement waits at most HOOK_BUSY_MS, and a run that has spent HOOK_BUDGET_MS stops before its
 * next step, printing nothing: the person's turn goes on, the notices stay pending for the next one.
 */
export const HOOK_BUSY_MS = 150;
export const HOOK_BUDGET_MS = 500;

/**
 * T18: the hook and the MCP server exist to share notices through one database file. An empty path
 * or SQLite's `:memory:` (or a `file:` URI in memory mode) opens a private database that every
 * other process misses and that is gone when the hook exits: refuse it by name.
 */
export function sharedDbProblem(path: string): string | undefined {
  if (path.trim().length === 0) return '--db needs a file path; an empty path opens a private temporary database that no other process shares';
  if (path === ':memory:' || (/^file:/i.test(path) && /[?&]mode=memory(&|$)/i.test(path))) {
    return `--db ${JSON.stringify(path)} is an in-memory database: nothing would be stored or shared with other sessions; pass a file path`;
  }
  return undefined;
}

/** The part of the store a hook uses: the contract's record, stateVersion, resetSession, pendingNotices and ackNotices. */
export interface HookStore {
  /** R2-R9: records one event (a dedupe hit returns the event recorded before). */
  record(input: RecordInput): StateEvent | undefined | Promise<StateEvent | undefined>;
  /** R30: the session's head, 0 when the store knows no event of it (T51 reads it). */
  stateVersion(sessionKey: string, agentId: string): number | Promise<number>;
  /** R50: ends the session's own watches (T34). */
  resetSession(sessionKey: string): void | Promise<void>;
  /** R26: the watcher's pending notices, not acked. */
  pendingNotices(watcherSessionKey: string): Notice[] | Promise<Notice[]>;
  /** R27b: acks exactly these notices. */
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): Notice[] | Promise<Notice[]>;
  /** Releases the store. */
  close(): void | Promise<void>;
}

/** How one runtime's output is put together (T7, T17, T37). */
export interface HookContextOptions {
  /** T17: at most this many notices (default HOOK_MAX_NOTICES). */
  max?: number;
  /**
   * T62: a line in front of the notices saying what they are, for a runtime that hands the text to
   * the model bare (no wrapper of its own marks it as added context).
   */
  noticesPreamble?: boolean;
}

/**
 * T9, T17: the additional context for the model, or undefined when there is nothing to say. Shows
 * the first HOOK_MAX_NOTICES notices (R26 order, as given) and one line counting the rest;
 * `shown` is what it holds, the only notices the run may acknowledge.
 */
export function hookContext(plan: HookPlan, notices: readonly Notice[], options: number | HookContextOptions = {}): { text: string; shown: Notice[] } | undefined {
  const { max = HOOK_MAX_NOTICES, noticesPreamble = false } = typeof options === 'number' ? { max: options } : options;
  const lines: string[] = [];
  if (plan.introduce !== undefined) lines.push(sessionKeyIntro(plan.introduce));
  const shown = notices.slice(0, max);
  if (shown.length > 0 && noticesPreamble) lines.push(NOTICES_PREAMBLE);
  if (shown.length > 0) lines.push(noticesText(shown));
  const more = notices.length - shown.length;
  if (more > 0) {
    lines.push(`${more} more pending ${more === 1 ? 'notice' : 'notices'} not shown here: call session_notices with watcherSessionKey "${plan.deliverTo ?? plan.sessionKey}" to read them, or they follow with your next prompts.`);
  }
  return lines.length > 0 ? { text: lines.join('\n'), shown } : undefined;
}

export interface ApplyHookOptions {
  agentId: string;
  /** T43: whether this event's output reaches the model; only then are notices read (they would be lost). */
  carriesContext: boolean;
  /** One diagnostic line. */
  warn: (line: string) => void;
  /** T9: milliseconds since the run began; past HOOK_BUDGET_MS the run stops before its next step. Default: no budget. */
  elapsedMs?: () => number;
  context?: HookContextOptions;
}

/** What a plan came to: the text for the model (if any) and whose notices it holds. */
export interface AppliedHook {
  /** The text for the model, and exactly the notices in it. */
  context?: { text: string; shown: Notice[] };
  /** The watcher whose notices `context.shown` are: the one to ack them for. */
  deliverTo?: string;
  /** T51: whether the key line was due (it is in `context` when the event carries any). */
  introduced: boolean;
}

/**
 * T9, T51: records the plan's events, resets what it resets, and reads the notices it may hand over,
 * in that order. Undefined when the run spent its budget before it had something to say (nothing
 * to print; the notices stay pending). Store failures are the caller's to catch; a store that logs
 * and swallows its own (R9) just records less.
 */
export async function applyHookPlan(plan: HookPlan, store: HookStore, o: ApplyHookOptions): Promise<AppliedHook | undefined> {
  const overBudget = (step: string) => {
    const spent = o.elapsedMs?.() ?? 0;
    if (spent <= HOOK_BUDGET_MS) return false;
    o.warn(`gave up before ${step} after ${Math.round(spent)} ms (the state database is busy or slow); nothing printed, pending notices wait for the next prompt`);
    return true;
  };
  // T51: a key the store already knows was told to the model before (a resume, another hook).
  const head = plan.introduce !== undefined && (plan.introduceOnlyIfNew || plan.introduceIfCreatedNow) ? await store.stateVersion(plan.sessionKey, o.agentId) : 0;
  let introduce = plan.introduce !== undefined && (!plan.introduceOnlyIfNew || head === 0);
  // The store logs and swallows its own failures (R9): a turn that could not be recorded is lost,
  // the person's prompt is not.
  for (const record of plan.records) {
    if (overBudget('recording')) return undefined;
    const event = await store.record(record);
    // T52: a dedupe hit returns the event an earlier run inserted, at or below the head read before.
    if (plan.introduceIfCreatedNow && record.kind === 'created' && event !== undefined) introduce = plan.introduce !== undefined && event.sequence > head;
  }
  if (overBudget('reading notices')) return undefined;
  // T34: after `session_reset`, so its watchers hear of it before the cleared session's own watches end (R50).
  if (plan.resetSession !== undefined) await store.resetSession(plan.resetSession);
  // T43: an event whose output the runtime does not read as context gets no notices (they would be lost).
  const deliverTo = o.carriesContext ? plan.deliverTo : undefined;
  const notices = deliverTo === undefined ? [] : await store.pendingNotices(deliverTo);
  if (overBudget('printing')) return undefined;
  const context = o.carriesContext ? hookContext(introduce ? plan : { ...plan, introduce: undefined }, notices, o.context) : undefined;
  return { ...(context !== undefined ? { context } : {}), ...(deliverTo !== undefined ? { deliverTo } : {}), introduced: introduce };
}
