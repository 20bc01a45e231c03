/**
 * session-state-kit/tools: the agent-facing session tools (PROTOCOL.md section 11, T rules) over any
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
  type ToolContext,
  type ToolOutput,
  type ToolStore,
  type UnwatchRequest,
} from './handlers.js';
export { UnknownToolError, createSessionTools, toolJsonSchema, type SessionTools, type SessionToolsOptions, type ToolDefinition, type ToolResults } from './registry.js';
export { eventLine, noticesText, sessionStatusText, sessionUnwatchText, sessionWatchText, sessionsListText } from './text.js';
export * from '../../spec/schemas/tools.js';
