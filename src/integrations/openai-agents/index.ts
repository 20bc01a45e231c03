/**
 * session-state-kit/openai-agents: the kit in `@openai/agents` (PROTOCOL.md T35-T38): the session
 * tools as the SDK's function tools, delegated runs as child sessions, and pending notices in a
 * run's input. The SDK is an optional peer of the package.
 *
 * @module session-state-kit/openai-agents
 */
export { sessionFunctionTools, type SessionFunctionToolsOptions } from './tools.js';
export { agentIdFromName, trackDelegations, type ChildSession, type DelegationOptions, type DelegationStore, type DelegationTracker } from './delegation.js';
export { NOTICES_PREAMBLE, noticesEveryTurn, noticesItem, runWithNotices, withPendingNotices, type NoticeInput, type NoticeStore, type TurnNotices } from './notices.js';
