/**
 * session-state-kit/tools: the agent-facing session tools (PROTOCOL.md section 12, T rules) over any
 * store of the contract: session_status with changesSince, stateVersion on sessions_list rows, the
 * watch a sessions_send implementation registers, session_unwatch and session_notices. Each handler
 * returns structured data and the compact text a model reads. Pure: no Node, no clock, no I/O
 * beyond the store it is given.
 *
 * @module session-state-kit/tools
 */
export { checkArgs, resolveAgentId } from './args.js';
export {
  SESSIONS_LIST_BATCH,
  annotateSessionsList,
  sessionNotices,
  sessionStatus,
  sessionUnwatch,
  sessionWatch,
  watchAfterSend,
  type SendWatchRequest,
  type SessionsPageRequest,
  type SessionsPageRow,
  type ToolContext,
  type ToolOutput,
  type ToolStore,
  type UnwatchRequest,
  visibleTo,
} from './handlers.js';
export {
  DEFAULT_VISIBILITY,
  ForbiddenError,
  MAX_TREE_DEPTH,
  VISIBILITIES,
  checkCaller,
  inScope,
  scopeChecker,
  isForbiddenError,
  spawnParentFromLog,
  type Caller,
  type ParentOf,
  type Visibility,
} from './scope.js';
export { StoreUnavailableError, UnknownToolError, createSessionTools, type ToolLogger, toolJsonSchema, type SessionTools, type SessionToolsOptions, type ToolDefinition, type ToolResults } from './registry.js';
export { eventLine, noticesText, sessionStatusText, sessionUnwatchText, sessionWatchText, sessionsListPageText, sessionsListText, storeUnavailableText } from './text.js';
export * from '../../spec/schemas/tools.js';
