import { AgentId, type MaybePromise, type Notice, type SessionStateStore } from '../../spec/index.js';
import {
  SessionNoticesArgs,
  SessionStatusArgs,
  SessionUnwatchArgs,
  SessionWatchArgs,
  type SessionNoticesResult,
  type SessionStatusResult,
  type SessionUnwatchResult,
  type SessionWatchResult,
} from '../../spec/schemas/tools.js';
import { ValidationError, assertSchema, isAgentScopedKey, validateSessionKey } from '../core/index.js';
import { checkArgs, resolveAgentId } from './args.js';
import { forbiddenTarget, forbiddenWatcher, inScope, spawnParentFromLog, type Caller, type ParentOf } from './scope.js';
import { noticesText, sessionStatusText, sessionUnwatchText, sessionWatchText, sessionsListText } from './text.js';

/** What every handler returns: the structured result (for programs) and the compact text a model reads (T3-T7). */
export interface ToolOutput<T> {
  result: T;
  text: string;
}

/** The unwatch method of the store contract (R52); typed here so any store that has it works. */
export interface UnwatchRequest {
  watcherSessionKey: string;
  targetSessionKey: string;
  agentId: string;
}

/** T1: the store the tools run on: any store of the contract (methods may be async). */
export type ToolStore = SessionStateStore & {
  /** R52, T6: ends one watch; the session_unwatch tool calls it. */
  unwatch?(request: UnwatchRequest): MaybePromise<{ unwatched: boolean }>;
  /** T12: the durable spawn parent (kept through pruning); without it the tree is read from the log. */
  spawnParent?(sessionKey: string, agentId: string): MaybePromise<string | undefined>;
  /** T12: every recorded spawn parent at once; a listing reads it once per page instead of once per row. */
  spawnParents?(): MaybePromise<Iterable<readonly [sessionKey: string, agentId: string, parent: string]>>;
};

/** T15: a keyed page read: the sessions strictly after `after` in key order, at most `limit`. */
export interface SessionsPageRequest {
  /** The last session of the previous page (as the page cursor names it); absent: from the first. */
  after?: { sessionKey: string; agentId: string };
  limit: number;
}

/** T4, T12, T15: one session of a keyed page read, with the head read with it. */
export interface SessionsPageRow {
  sessionKey: string;
  agentId: string;
  /** T4: the session's head as the page read it (0: none). */
  stateVersion: number;
  /** T12: the durable spawn parent read with the page (null: none recorded); absent: not read, asked per session. */
  spawnParent?: string | null;
}

/** T12: the spawn tree a store can answer: its durable spawn parents, else its retained log. */
export function storeParentOf(store: ToolStore): ParentOf {
  const durable = store.spawnParent;
  return typeof durable === 'function' ? (sessionKey, agentId) => durable.call(store, sessionKey, agentId) : spawnParentFromLog(store);
}

/** T1, T2, T10: what every tool handler runs with: the store, the runtime's own agent id and, when bound, the caller. */
export interface ToolContext {
  /** Any store of the contract; methods may be async. */
  store: ToolStore;
  /** T2: the runtime's own agent, used for a bare session key given without agentId. */
  defaultAgentId?: string;
  /** T10: the session these tools act for, and what it may see; absent: unbound (a trusted runtime). */
  caller?: Caller;
  /** T12: the spawn tree; defaults to the store's durable spawn parents (storeParentOf). */
  parentOf?: ParentOf;
}

/** T11: refuses a target outside the caller's scope (unbound: everything is in scope). */
async function assertTarget(ctx: ToolContext, field: string, sessionKey: string, agentId: string): Promise<void> {
  if (ctx.caller === undefined) return;
  if (!(await inScope(ctx.caller, ctx.parentOf ?? storeParentOf(ctx.store), sessionKey, agentId))) throw forbiddenTarget(ctx.caller, field, sessionKey);
}

/** T13: bound tools act only on the caller's own watches and notices. */
function assertWatcher(ctx: ToolContext, watcherSessionKey: string): void {
  if (ctx.caller !== undefined && watcherSessionKey !== ctx.caller.sessionKey) throw forbiddenWatcher(ctx.caller, 'watcherSessionKey', watcherSessionKey);
}

/** T11, T4: whether a row may be listed to the caller. */
export async function visibleTo(ctx: ToolContext, sessionKey: string, agentId: string): Promise<boolean> {
  return ctx.caller === undefined || inScope(ctx.caller, ctx.parentOf ?? storeParentOf(ctx.store), sessionKey, agentId);
}

/** T3: `session_status {sessionKey, agentId?, changesSince?}`: stateVersion always; with changesSince the exact delta (R30-R34). */
export async function sessionStatus(ctx: ToolContext, args: unknown): Promise<ToolOutput<SessionStatusResult>> {
  const a = checkArgs<SessionStatusArgs>(SessionStatusArgs, args, ['sessionKey']);
  const agentId = resolveAgentId(a.sessionKey, a.agentId, ctx.defaultAgentId);
  await assertTarget(ctx, 'sessionKey', a.sessionKey, agentId);
  let result: SessionStatusResult;
  if (a.changesSince === undefined) {
    result = { sessionKey: a.sessionKey, agentId, stateVersion: await ctx.store.stateVersion(a.sessionKey, agentId) };
  } else {
    // R34: a read; it moves no cursor. R35: a failing store answers version 0 and an empty page.
    const r = await ctx.store.changesSince({ sessionKey: a.sessionKey, agentId, since: a.changesSince });
    result = { sessionKey: a.sessionKey, agentId, stateVersion: r.stateVersion, stateChanges: r.stateChanges };
  }
  return { result, text: sessionStatusText(result, a.changesSince) };
}

/** T4: heads are read this many at a time, so a long list neither runs serially nor floods an async store. */
export const SESSIONS_LIST_BATCH = 64;

/**
 * T4: annotates a runtime's sessions_list rows with `stateVersion`, present only when > 0 (the
 * session has logged changes). Rows keep their order and every other field; a stale
 * `stateVersion` on an input row is replaced. A row that names no session is a ValidationError
 * naming it (`rows.3.agentId`).
 */
export async function annotateSessionsList<R extends { sessionKey: string; agentId?: string }>(
  ctx: ToolContext,
  rows: readonly R[],
): Promise<ToolOutput<{ sessions: (R & { stateVersion?: number })[] }>> {
  if (!Array.isArray(rows)) throw new ValidationError('rows', 'type', 'must be an array of rows');
  const agents = rows.map((row, i) => {
    // Only the identity is checked: every other field is the runtime's, including a stale stateVersion.
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new ValidationError(`rows.${i}`, 'type', 'must be an object');
    validateSessionKey(row.sessionKey, `rows.${i}.sessionKey`);
    if (row.agentId !== undefined) assertSchema(AgentId, row.agentId, `rows.${i}.agentId`);
    return resolveAgentId(row.sessionKey, row.agentId, ctx.defaultAgentId, `rows.${i}.agentId`);
  });
  if (ctx.caller !== undefined) {
    // T11: a bound list shows only the caller's scope; a row outside it is left out, not refused.
    const keep: boolean[] = [];
    for (let i = 0; i < rows.length; i += SESSIONS_LIST_BATCH) {
      keep.push(...(await Promise.all(rows.slice(i, i + SESSIONS_LIST_BATCH).map((row, k) => visibleTo(ctx, row.sessionKey, agents[i + k]!)))));
    }
    const unbound: ToolContext = { ...ctx };
    delete unbound.caller;
    return annotateSessionsList(unbound, rows.filter((_, i) => keep[i]));
  }
  const versions: number[] = [];
  for (let i = 0; i < rows.length; i += SESSIONS_LIST_BATCH) {
    const batch = rows.slice(i, i + SESSIONS_LIST_BATCH).map((row, k) => ctx.store.stateVersion(row.sessionKey, agents[i + k]!));
    versions.push(...(await Promise.all(batch)));
  }
  const sessions = rows.map((row, i) => {
    const { stateVersion: _stale, ...rest } = row as R & { stateVersion?: number };
    const v = versions[i]!;
    return (v > 0 ? { ...rest, stateVersion: v } : rest) as R & { stateVersion?: number };
  });
  const forText = sessions.map((row, i) => ({ sessionKey: row.sessionKey, agentId: agents[i], ...(row.stateVersion !== undefined ? { stateVersion: row.stateVersion } : {}) }));
  return { result: { sessions }, text: sessionsListText(forText) };
}

/**
 * T5: `session_watch`: the explicit watch (R21) that sessions_send with `watch: true` performs
 * after a successful dispatch. Refusals write nothing and say why. `stateVersion` is read just
 * before registering: the watch starts at the head or later, so it is a safe baseline for a later
 * changesSince (it can only show a change more, never one less).
 */
export async function sessionWatch(ctx: ToolContext, args: unknown): Promise<ToolOutput<SessionWatchResult>> {
  const a = checkArgs<SessionWatchArgs>(SessionWatchArgs, args, ['watcherSessionKey', 'targetSessionKey']);
  const agentId = resolveAgentId(a.targetSessionKey, a.agentId, ctx.defaultAgentId);
  assertWatcher(ctx, a.watcherSessionKey);
  await assertTarget(ctx, 'targetSessionKey', a.targetSessionKey, agentId);
  let result: SessionWatchResult;
  if (!isAgentScopedKey(a.watcherSessionKey)) result = { watched: false, reason: 'bare-watcher' };
  else if (a.watcherSessionKey === a.targetSessionKey) result = { watched: false, reason: 'same-session' };
  else {
    const stateVersion = await ctx.store.stateVersion(a.targetSessionKey, agentId);
    const { watched } = await ctx.store.watch({ watcherSessionKey: a.watcherSessionKey, targetSessionKey: a.targetSessionKey, agentId });
    result = watched ? { watched: true, stateVersion } : { watched: false, reason: 'unavailable' };
  }
  return { result, text: sessionWatchText(result, a.watcherSessionKey, a.targetSessionKey, agentId) };
}

/** T5: what a sessions_send implementation passes to watchAfterSend once it dispatched (or failed to dispatch) a message. */
export interface SendWatchRequest {
  /** The `watch` argument the model passed to sessions_send (absent or undefined: not asked). */
  watch?: boolean | undefined;
  /** Whether the runtime delivered the message. */
  dispatched: boolean;
  /** The sender's session key. */
  watcherSessionKey: string;
  /** The session that actually received the message (after any routing). */
  targetSessionKey: string;
  agentId?: string | undefined;
}

/**
 * T5: what a sessions_send implementation calls after dispatching. Without `watch: true` it does
 * nothing and returns no `watched` field; with it, the result carries `watched: true|false` (and
 * the text to append to the tool's answer). An undelivered message registers nothing.
 */
export async function watchAfterSend(ctx: ToolContext, request: SendWatchRequest): Promise<ToolOutput<SessionWatchResult> | undefined> {
  const { watch, dispatched, ...args } = request;
  if (watch !== undefined && typeof watch !== 'boolean') throw new ValidationError('watch', 'type', 'must be a boolean');
  if (typeof dispatched !== 'boolean') throw new ValidationError('dispatched', 'type', 'must be a boolean');
  if (watch !== true) return undefined;
  if (!dispatched) {
    const a = checkArgs<SessionWatchArgs>(SessionWatchArgs, args, ['watcherSessionKey', 'targetSessionKey']);
    const agentId = resolveAgentId(a.targetSessionKey, a.agentId, ctx.defaultAgentId);
    assertWatcher(ctx, a.watcherSessionKey);
    const result: SessionWatchResult = { watched: false, reason: 'not-dispatched' };
    return { result, text: sessionWatchText(result, a.watcherSessionKey, a.targetSessionKey, agentId) };
  }
  return sessionWatch(ctx, args);
}

/** T6: `session_unwatch` over the store's unwatch (R52): `unwatched` says whether a watch existed. */
export async function sessionUnwatch(ctx: ToolContext, args: unknown): Promise<ToolOutput<SessionUnwatchResult>> {
  const a = checkArgs<SessionUnwatchArgs>(SessionUnwatchArgs, args, ['watcherSessionKey', 'targetSessionKey']);
  const agentId = resolveAgentId(a.targetSessionKey, a.agentId, ctx.defaultAgentId);
  // T13: dropping one's own watch needs no scope check: it only ever narrows what the caller hears.
  assertWatcher(ctx, a.watcherSessionKey);
  const unwatch = ctx.store.unwatch;
  if (typeof unwatch !== 'function') throw new Error('this store does not implement unwatch (session-state-kit contract with durable notices)');
  const { unwatched } = await unwatch.call(ctx.store, { watcherSessionKey: a.watcherSessionKey, targetSessionKey: a.targetSessionKey, agentId });
  return { result: { unwatched }, text: sessionUnwatchText(unwatched, a.targetSessionKey, agentId) };
}

/** T7: `session_notices`: drains (R27) the watcher's pending notices; each is delivered once. */
export async function sessionNotices(ctx: ToolContext, args: unknown): Promise<ToolOutput<SessionNoticesResult>> {
  const a = checkArgs<SessionNoticesArgs>(SessionNoticesArgs, args, ['watcherSessionKey']);
  assertWatcher(ctx, a.watcherSessionKey);
  const notices: Notice[] = await ctx.store.drainNotices(a.watcherSessionKey);
  return { result: { notices }, text: noticesText(notices) };
}
