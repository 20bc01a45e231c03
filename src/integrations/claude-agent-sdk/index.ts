/**
 * session-state-kit/claude-agent-sdk: hook callbacks for `@anthropic-ai/claude-agent-sdk`
 * (PROTOCOL.md T9, T30-T34). The SDK is an optional peer: this entry point imports only its types.
 */
export {
  CLAUDE_CODE_AGENT,
  CLAUDE_HOOK_EVENTS,
  MACHINE_PROMPT_SOURCES,
  claudeSessionKey,
  claudeSubagentKey,
  planClaudeHookEvent,
  sessionKeyIntro,
  type ClaudeEventOptions,
  type ClaudeEventPlan,
  type ClaudeHookEventName,
  type ClaudeHookInput,
} from './events.js';
export { createClaudeAgentSdkHooks, type ClaudeAgentSdkHooks, type ClaudeAgentSdkHooksOptions, type ClaudeHookStore } from './hooks.js';
