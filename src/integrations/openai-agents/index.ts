/**
 * session-state-kit/openai-agents: the kit in `@openai/agents` (PROTOCOL.md T35-T38): the session
 * tools as the SDK's function tools, delegated runs as child sessions, and pending notices in a
 * run's input. The SDK is an optional peer of the package.
 */
export { sessionFunctionTools, type SessionFunctionToolsOptions } from './tools.js';
export { agentIdFromName, trackDelegations, type ChildSession, type DelegationOptions, type DelegationStore, type DelegationTracker } from './delegation.js';
export { noticesEveryTurn, runWithNotices, withPendingNotices, type NoticeInput, type NoticeStore, type TurnNotices } from './notices.js';
