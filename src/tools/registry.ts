import { AgentId, type MaybePromise } from '../../spec/index.js';
import {
  SESSIONS_LIST_PAGE,
  SessionsListArgs,
  TOOL_ARGS,
  type SessionNoticesResult,
  type SessionStatusResult,
  type SessionUnwatchResult,
  type SessionWatchResult,
  type SessionsListResult,
  type SessionsListRow,
  type ToolName,
} from '../../spec/schemas/tools.js';
import { ValidationError, assertSchema, isValidationError, parseAgentScopedKey, validateSessionKey } from '../core/index.js';
import { checkArgs, resolveAgentId } from './args.js';
import {
  SESSIONS_LIST_BATCH,
  annotateSessionsList,
  sessionNotices,
  sessionStatus,
  sessionUnwatch,
  sessionWatch,
  storeParentOf,
  visibleTo,
  type SessionsPageRequest,
  type SessionsPageRow,
  type ToolContext,
  type ToolOutput,
  type ToolStore,
} from './handlers.js';
import { checkCaller, scopeChecker, type Caller, type ParentOf, type Visibility } from './scope.js';
import { sessionsListPageText, sessionsListText, storeUnavailableText } from './text.js';
import { messageOf } from '../shared/logger.js';

/** The tools layer logs (a row it skips, T4) through this; the runtime's own logger fits. */
export interface ToolLogger {
  /** Something was skipped and the tool went on (e.g. a session row sessions_list cannot show). */
  warn(message: string, details?: Record<string, unknown>): void;
}

/**
 * T14: the store degraded (R9, R35) during a call, so what it answered is a fallback, not the
 * state: a model must not read "nothing changed" or "no notices" into it.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'unavailable';
  constructor(
    readonly tool: string,
    readonly text: string,
  ) {
    super(`${tool}: the state store could not answer`);
  }
}

/** A tool as an agent framework (MCP, a function-calling API) lists it. */
export interface ToolDefinition {
  name: ToolName;
  description: string;
  /** Plain JSON Schema (draft 2020-12 compatible) of the arguments; also in spec/json/tool-<name>-args.json. */
  inputSchema: Record<string, unknown>;
}

/** T1: SessionTools.call was given a tool name it does not offer; `tool` is that name. */
export class UnknownToolError extends Error {
  override readonly name = 'UnknownToolError';
  constructor(readonly tool: string) {
    super(`unknown tool: ${tool}`);
  }
}

const DESCRIPTIONS: Record<ToolName, string> = {
  session_status:
    "A session's stateVersion; with changesSince, the typed changes after that version (at most 200) and whether history was pruned (historyGap). Call it when a notice says a session changed, before acting on what you knew of it.",
  sessions_list: 'The sessions the state store knows, with stateVersion for those that have logged changes.',
  session_watch:
    'Watch a session (e.g. one you just sent a message to): when another actor (a person, another agent) changes it, you get one notice naming it and the version to reconcile from. Pass your own session key as watcherSessionKey.',
  session_unwatch: 'Stop watching a session; a pending notice about it goes too.',
  session_notices: 'Take your pending stale-state notices: one line per changed session, each delivered once.',
};

/** T1, T4, T10: options of createSessionTools: the store, the runtime's agent, its session rows (to offer sessions_list) and the caller the tools act for. */
export interface SessionToolsOptions {
  /** Any store of the contract; methods may be async. */
  store: ToolStore;
  /** T2: the runtime's own agent, used for a bare session key given without agentId. */
  defaultAgentId?: string;
  /**
   * The rows sessions_list annotates (a runtime's own session list), read whole for every page.
   * Without it (or listSessionsPage), sessions_list is not offered.
   */
  listSessions?: () => MaybePromise<SessionsListRow[]>;
  /**
   * T15: a keyed page read (the stores' `sessionsPage`): the sessions strictly after `after` in
   * key order, at most `limit`, each with its head and spawn parent. A page then reads only its own
   * rows; it is used instead of listSessions when both are given.
   */
  listSessionsPage?: (request: SessionsPageRequest) => MaybePromise<readonly SessionsPageRow[]>;
  /**
   * T10: the agent-scoped session these tools act for. Bound, the notice tools act only on its own
   * notices and targets outside `visibility` are refused (ForbiddenError). Left out, the tools are
   * unbound: any session's notices can be read and acknowledged by naming it, which only a trusted
   * runtime (one that sets the arguments itself) should offer.
   */
  caller?: string;
  /** T10: `self`, `tree` (default), `agent` or `all`; only with a caller. */
  visibility?: Visibility;
  /** T12: the spawn tree; defaults to the child_spawned events of the log. */
  parentOf?: ParentOf;
  /**
   * T14: a count of storage failures the store has logged (the runtime counts its store logger's
   * errors). When it moves during a read-only answer, the tool fails with StoreUnavailableError
   * instead of answering a degraded value as the state.
   */
  storeFailures?: () => number;
  /** Where a session row sessions_list skips is reported (T4). */
  logger?: ToolLogger;
}

/** The structured result of each tool. */
export interface ToolResults {
  session_status: SessionStatusResult;
  sessions_list: SessionsListResult;
  session_watch: SessionWatchResult;
  session_unwatch: SessionUnwatchResult;
  session_notices: SessionNoticesResult;
}

/** T1: the session tools over one store: their definitions (name, description, input schema) and a way to call them by name. */
export interface SessionTools {
  definitions: ToolDefinition[];
  /** T10: the session the tools are bound to, or undefined when unbound (a trusted runtime). */
  caller: Caller | undefined;
  /** Runs a tool by name. Bad arguments throw a ValidationError naming the field (nothing written); an unknown name throws UnknownToolError. */
  call<N extends ToolName>(name: N, args: unknown): Promise<ToolOutput<ToolResults[N]>>;
  /** Runs a tool given by a name not known at compile time (the result is then untyped). */
  call(name: string, args: unknown): Promise<ToolOutput<unknown>>;
}

/**
 * T14: what R9/R35's fallback looks like per tool. Only such an answer is turned into an error when
 * the failure count moved: a real answer (a drained notice, an unwatch that happened) stands even
 * if another call failed at the same time, so nothing acked is ever hidden from the model.
 */
const FALLBACK: Record<Exclude<ToolName, 'session_watch'>, (result: unknown) => boolean> = {
  session_status: (r) => (r as SessionStatusResult).stateVersion === 0,
  sessions_list: () => true,
  session_unwatch: (r) => !(r as SessionUnwatchResult).unwatched,
  session_notices: (r) => (r as SessionNoticesResult).notices.length === 0,
};

/** T1: the session tools over one store, ready to list and call. */
export function createSessionTools(options: SessionToolsOptions): SessionTools {
  if (options.defaultAgentId !== undefined) assertSchema(AgentId, options.defaultAgentId, 'defaultAgentId');
  const caller = checkCaller(options.caller, options.visibility);
  const ctx: ToolContext = {
    store: options.store,
    ...(options.defaultAgentId !== undefined ? { defaultAgentId: options.defaultAgentId } : {}),
    ...(caller !== undefined ? { caller } : {}),
    ...(options.parentOf !== undefined ? { parentOf: options.parentOf } : {}),
  };
  const offered = (Object.keys(TOOL_ARGS) as ToolName[]).filter((name) => name !== 'sessions_list' || options.listSessions !== undefined || options.listSessionsPage !== undefined);
  // T13: bound, the watcher is the caller: a call may leave watcherSessionKey out.
  const asCaller = (args: unknown): unknown =>
    caller !== undefined && args !== null && typeof args === 'object' && !Array.isArray(args) && !('watcherSessionKey' in args) ? { ...args, watcherSessionKey: caller.sessionKey } : args;
  const run: Record<ToolName, (args: unknown) => Promise<ToolOutput<unknown>>> = {
    session_status: (args) => sessionStatus(ctx, args),
    sessions_list: (args) => {
      const a = checkArgs<SessionsListArgs>(SessionsListArgs, args, []);
      return options.listSessionsPage !== undefined ? keyedPage(ctx, options, a) : listPage(ctx, options, a);
    },
    session_watch: (args) => sessionWatch(ctx, asCaller(args)),
    session_unwatch: (args) => sessionUnwatch(ctx, asCaller(args)),
    session_notices: (args) => sessionNotices(ctx, asCaller(args ?? {})),
  };
  return {
    definitions: offered.map((name) => ({ name, description: DESCRIPTIONS[name], inputSchema: caller === undefined ? toolJsonSchema(name) : boundToolJsonSchema(name) })),
    caller,
    call: async (name: string, args: unknown) => {
      if (!(offered as string[]).includes(name)) throw new UnknownToolError(name);
      const failures = options.storeFailures;
      if (failures === undefined || name === 'session_watch') return run[name as ToolName](args);
      // T14: session_watch says `unavailable` itself (T5); the others would answer R35's fallback as the state.
      const before = failures();
      let out: ToolOutput<unknown> | undefined;
      let error: unknown;
      try {
        out = await run[name as ToolName](args);
      } catch (e) {
        if (isValidationError(e)) throw e;
        error = e;
      }
      if (failures() !== before && (out === undefined || FALLBACK[name as Exclude<ToolName, 'session_watch'>](out.result))) throw new StoreUnavailableError(name, storeUnavailableText(name as ToolName));
      if (error !== undefined) throw error;
      return out!;
    },
  };
}

/**
 * T12: the spawn tree for one page. A store that lists its spawn parents is read once (one query,
 * however many rows the page checks); otherwise each session's parent is asked at most once, so a
 * spawn chain's walks share their steps.
 */
async function pageParentOf(ctx: ToolContext): Promise<ParentOf> {
  const all = ctx.parentOf === undefined ? ctx.store.spawnParents : undefined;
  if (typeof all === 'function') {
    const parents = new Map<string, string>();
    for (const [sessionKey, agentId, parent] of await all.call(ctx.store)) parents.set(`${agentId}\u0000${sessionKey}`, parent);
    return (sessionKey, agentId) => parents.get(`${agentId}\u0000${sessionKey}`);
  }
  const parentOf = ctx.parentOf ?? storeParentOf(ctx.store);
  const known = new Map<string, MaybePromise<string | undefined>>();
  return (sessionKey, agentId) => {
    const id = `${agentId}\u0000${sessionKey}`;
    if (!known.has(id)) known.set(id, parentOf(sessionKey, agentId));
    return known.get(id);
  };
}

/** T15: a page cursor names the last identity shown (base64url of its JSON), so a page boundary survives rows added or removed. */
function encodeCursor(sessionKey: string, agentId: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify([sessionKey, agentId]));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') return [parsed[0], parsed[1]];
  } catch {
    // fall through: not one of ours
  }
  throw new ValidationError('cursor', 'format', 'is not a cursor sessions_list returned (pass nextCursor as it came)');
}

const compareIdentity = (a: { sessionKey: string; agentId: string }, b: { sessionKey: string; agentId: string }): number =>
  a.sessionKey < b.sessionKey ? -1 : a.sessionKey > b.sessionKey ? 1 : a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0;

/** T15: how many rows a bound page reads at a time while it looks for rows in the caller's scope. */
const SCOPE_SCAN_ROWS = 1000;

/**
 * T4, T12, T15: sessions_list over a keyed page read. Unbound, a page reads `limit + 1` rows after
 * the cursor (the one more says whether more follow) and nothing else. Bound (T11), it reads on in
 * chunks until `limit + 1` rows of the caller's scope are found or the list ends; the rows bring
 * their spawn parents (T12), and an ancestor outside them is asked once per page. A row that names
 * no session is skipped and logged (T4).
 */
async function keyedPage(ctx: ToolContext, options: SessionToolsOptions, args: SessionsListArgs): Promise<ToolOutput<SessionsListResult>> {
  const read = options.listSessionsPage!;
  let after: { sessionKey: string; agentId: string } | undefined;
  if (args.cursor !== undefined) {
    const [sessionKey, agentId] = decodeCursor(args.cursor);
    after = { sessionKey, agentId };
  }
  const limit = args.limit ?? SESSIONS_LIST_PAGE;
  const bound = ctx.caller !== undefined;
  const chunk = bound ? Math.max(limit + 1, SCOPE_SCAN_ROWS) : limit + 1;
  // T12: parents read with the page rows, and any other ancestor asked once per page. A runtime's
  // own tree (parentOf) is asked instead of the store's.
  const rowParents = ctx.parentOf === undefined;
  const askParent = ctx.parentOf ?? storeParentOf(ctx.store);
  const parents = new Map<string, MaybePromise<string | undefined>>();
  const parentOf: ParentOf = (sessionKey, agentId) => {
    const id = `${agentId}\u0000${sessionKey}`;
    if (!parents.has(id)) parents.set(id, askParent(sessionKey, agentId));
    return parents.get(id);
  };
  // One checker per page: sessions of one spawn chain share their walks (T12).
  const visible = ctx.caller === undefined ? undefined : scopeChecker(ctx.caller, parentOf);
  const page: { sessionKey: string; agentId: string; stateVersion: number; scoped: boolean }[] = [];
  const ends = new Set<string>();
  let more = false;
  for (let done = false; !done && !more; ) {
    const raw: unknown = await read(after === undefined ? { limit: chunk } : { after, limit: chunk });
    if (!Array.isArray(raw)) {
      options.logger?.warn('sessions_list: the page read answered no rows (not an array)', { type: typeof raw });
      break;
    }
    // The next read starts after the last row read, shown or not. A source that ignored `after`
    // would answer the same rows forever: a read that ends on a row already met ends the walk.
    const last = raw[raw.length - 1] as Partial<SessionsPageRow> | null | undefined;
    const lastId = last !== null && typeof last === 'object' && typeof last.sessionKey === 'string' && typeof last.agentId === 'string' ? `${last.agentId}\u0000${last.sessionKey}` : undefined;
    if (lastId !== undefined && ends.has(lastId)) {
      options.logger?.warn('sessions_list: the page read answered the same rows again; the list ends there', { sessionKey: last!.sessionKey });
      break;
    }
    if (raw.length < chunk || lastId === undefined) done = true;
    else {
      ends.add(lastId);
      after = { sessionKey: last!.sessionKey!, agentId: last!.agentId! };
    }
    const rows: typeof page = [];
    for (const [i, row] of (raw as unknown[]).entries()) {
      const r = row as Partial<SessionsPageRow> | null;
      try {
        if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new ValidationError(`rows.${i}`, 'type', 'must be an object');
        validateSessionKey(r.sessionKey, `rows.${i}.sessionKey`);
        // T2: an agent-scoped key names its agent (a valid id), which a row's agentId must match;
        // the key is parsed once per row (a listing's cost is per row).
        const scoped = parseAgentScopedKey(r.sessionKey);
        let agentId: string;
        if (scoped !== undefined && (r.agentId === undefined || r.agentId === scoped.agentId)) agentId = scoped.agentId;
        else {
          if (r.agentId !== undefined) assertSchema(AgentId, r.agentId, `rows.${i}.agentId`);
          agentId = resolveAgentId(r.sessionKey, r.agentId, ctx.defaultAgentId, `rows.${i}.agentId`);
        }
        const v = r.stateVersion;
        const stateVersion = typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0;
        if (rowParents && bound && r.spawnParent !== undefined) parents.set(`${agentId}\u0000${r.sessionKey}`, typeof r.spawnParent === 'string' ? r.spawnParent : undefined);
        rows.push({ sessionKey: r.sessionKey, agentId, stateVersion, scoped: scoped !== undefined });
      } catch (error) {
        options.logger?.warn('sessions_list: skipped a session row that names no session', { row: i, error: messageOf(error) });
      }
    }
    for (let i = 0; i < rows.length && !more; i += SESSIONS_LIST_BATCH) {
      const batch = rows.slice(i, i + SESSIONS_LIST_BATCH);
      // Answered at once while the parents are known; a parent read from the store is awaited, at most a batch at a time.
      const answers = visible === undefined ? undefined : batch.map((r) => visible(r.sessionKey, r.agentId));
      const shown = answers?.every((a) => typeof a === 'boolean') ? answers : answers && (await Promise.all(answers));
      for (const [k, r] of batch.entries()) {
        if (shown !== undefined && !shown[k]) continue;
        if (page.length === limit) {
          more = true;
          break;
        }
        page.push(r);
      }
    }
  }
  const sessions: SessionsListRow[] = page.map((r) => (r.stateVersion > 0 ? { sessionKey: r.sessionKey, agentId: r.agentId, stateVersion: r.stateVersion } : { sessionKey: r.sessionKey, agentId: r.agentId }));
  const lastShown = page[page.length - 1];
  const nextCursor = more && lastShown !== undefined ? encodeCursor(lastShown.sessionKey, lastShown.agentId) : undefined;
  const result: SessionsListResult = nextCursor === undefined ? { sessions } : { sessions, nextCursor };
  // T4: the text names the agent of a bare key only; an agent-scoped key's row needs no second parse.
  const forText = page.map((r) => (r.scoped ? { sessionKey: r.sessionKey, stateVersion: r.stateVersion || undefined } : { sessionKey: r.sessionKey, agentId: r.agentId, stateVersion: r.stateVersion || undefined }));
  return { result, text: sessionsListPageText(sessionsListText(forText), nextCursor) };
}

/**
 * T4, T15: the MCP sessions_list. The rows come from the database, not from the model: a row that
 * names no session is skipped and logged (T4), never blamed on the model's arguments. Rows
 * outside the caller's scope are left out (T11). Pages are in identity order, at most `limit` rows.
 */
async function listPage(ctx: ToolContext, options: SessionToolsOptions, args: SessionsListArgs): Promise<ToolOutput<SessionsListResult>> {
  const after = args.cursor === undefined ? undefined : decodeCursor(args.cursor);
  const limit = args.limit ?? SESSIONS_LIST_PAGE;
  const raw = await options.listSessions!();
  if (!Array.isArray(raw)) options.logger?.warn('sessions_list: the runtime listed no rows (not an array)', { type: typeof raw });
  const rows: { sessionKey: string; agentId: string; row: SessionsListRow }[] = [];
  for (const [i, row] of (Array.isArray(raw) ? raw : []).entries()) {
    try {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new ValidationError(`rows.${i}`, 'type', 'must be an object');
      validateSessionKey(row.sessionKey, `rows.${i}.sessionKey`);
      if (row.agentId !== undefined) assertSchema(AgentId, row.agentId, `rows.${i}.agentId`);
      rows.push({ sessionKey: row.sessionKey, agentId: resolveAgentId(row.sessionKey, row.agentId, ctx.defaultAgentId, `rows.${i}.agentId`), row });
    } catch (error) {
      options.logger?.warn('sessions_list: skipped a session row that names no session', { row: i, error: messageOf(error) });
    }
  }
  rows.sort(compareIdentity);
  const page: typeof rows = [];
  let start = after === undefined ? 0 : rows.findIndex((r) => compareIdentity(r, { sessionKey: after[0], agentId: after[1] }) > 0);
  if (start < 0) start = rows.length;
  let more = false;
  // Scope checks may read the store (T12): in batches, and only as far as the page needs. One
  // page asks each session's parent at most once: a spawn chain's walks share their steps.
  const pageCtx: ToolContext = ctx.caller === undefined ? ctx : { ...ctx, parentOf: await pageParentOf(ctx) };
  for (let i = start; i < rows.length && !more; i += SESSIONS_LIST_BATCH) {
    const batch = rows.slice(i, i + SESSIONS_LIST_BATCH);
    const visible = await Promise.all(batch.map((r) => visibleTo(pageCtx, r.sessionKey, r.agentId)));
    for (const [k, r] of batch.entries()) {
      if (!visible[k]) continue;
      if (page.length === limit) {
        more = true;
        break;
      }
      page.push(r);
    }
  }
  const { caller: _filtered, ...unbound } = ctx;
  const out = await annotateSessionsList(unbound, page.map((p) => p.row));
  const last = page[page.length - 1];
  const nextCursor = more && last !== undefined ? encodeCursor(last.sessionKey, last.agentId) : undefined;
  const result: SessionsListResult = nextCursor === undefined ? { sessions: out.result.sessions } : { sessions: out.result.sessions, nextCursor };
  return { result, text: sessionsListPageText(out.text, nextCursor) };
}

/** The argument schema of a tool as plain JSON (TypeBox schemas are JSON Schema already; this drops anything non-JSON). */
export function toolJsonSchema(name: ToolName): Record<string, unknown> {
  return JSON.parse(JSON.stringify(TOOL_ARGS[name])) as Record<string, unknown>;
}

/** T13: a bound server's schema: watcherSessionKey is optional (it is the caller; another key is refused). */
export function boundToolJsonSchema(name: ToolName): Record<string, unknown> {
  const schema = toolJsonSchema(name);
  const required = schema['required'];
  if (Array.isArray(required)) {
    const rest = required.filter((r) => r !== 'watcherSessionKey');
    if (rest.length > 0) schema['required'] = rest;
    else delete schema['required'];
  }
  const props = schema['properties'] as Record<string, Record<string, unknown>> | undefined;
  if (props?.['watcherSessionKey'] !== undefined) props['watcherSessionKey'] = { ...props['watcherSessionKey'], description: 'Optional: this server is bound to your session, which is the watcher.' };
  return schema;
}

export type { ToolStore };
