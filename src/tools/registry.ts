import { AgentId, type MaybePromise } from '../../spec/index.js';
import {
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
import { assertSchema } from '../core/index.js';
import { checkArgs } from './args.js';
import { annotateSessionsList, sessionNotices, sessionStatus, sessionUnwatch, sessionWatch, type ToolContext, type ToolOutput, type ToolStore } from './handlers.js';

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

/** T1, T4: options of createSessionTools: the tool context plus, to offer sessions_list, the runtime's session rows. */
export interface SessionToolsOptions extends ToolContext {
  /** The rows sessions_list annotates (a runtime's own session list). Without it, sessions_list is not offered. */
  listSessions?: () => MaybePromise<SessionsListRow[]>;
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
  /** Runs a tool by name. Bad arguments throw a ValidationError naming the field (nothing written); an unknown name throws UnknownToolError. */
  call<N extends ToolName>(name: N, args: unknown): Promise<ToolOutput<ToolResults[N]>>;
  /** Runs a tool given by a name not known at compile time (the result is then untyped). */
  call(name: string, args: unknown): Promise<ToolOutput<unknown>>;
}

/** T1: the session tools over one store, ready to list and call. */
export function createSessionTools(options: SessionToolsOptions): SessionTools {
  if (options.defaultAgentId !== undefined) assertSchema(AgentId, options.defaultAgentId, 'defaultAgentId');
  const ctx: ToolContext = options.defaultAgentId === undefined ? { store: options.store } : { store: options.store, defaultAgentId: options.defaultAgentId };
  const offered = (Object.keys(TOOL_ARGS) as ToolName[]).filter((name) => name !== 'sessions_list' || options.listSessions !== undefined);
  const run: Record<ToolName, (args: unknown) => Promise<ToolOutput<unknown>>> = {
    session_status: (args) => sessionStatus(ctx, args),
    sessions_list: async (args) => {
      checkArgs(SessionsListArgs, args, []);
      return annotateSessionsList(ctx, await options.listSessions!());
    },
    session_watch: (args) => sessionWatch(ctx, args),
    session_unwatch: (args) => sessionUnwatch(ctx, args),
    session_notices: (args) => sessionNotices(ctx, args),
  };
  return {
    definitions: offered.map((name) => ({ name, description: DESCRIPTIONS[name], inputSchema: toolJsonSchema(name) })),
    call: async (name: string, args: unknown) => {
      if (!(offered as string[]).includes(name)) throw new UnknownToolError(name);
      return run[name as ToolName](args);
    },
  };
}

/** The argument schema of a tool as plain JSON (TypeBox schemas are JSON Schema already; this drops anything non-JSON). */
export function toolJsonSchema(name: ToolName): Record<string, unknown> {
  return JSON.parse(JSON.stringify(TOOL_ARGS[name])) as Record<string, unknown>;
}

export type { ToolStore };
