import type {
  PostCompactHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  UserPromptSubmitHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import { planHookStep, quoteId, runtimeSessionKey, runtimeSubagentKey, sessionKeyIntro, type HookPlan, type HookStep } from '../hook-plan.js';

/**
 * The Claude hook events the kit acts on (PROTOCOL.md T9, T30-T34), decided from the payloads alone:
 * what to record, and whether the model is told its key and handed notices. Shared by every way
 * Claude Code reaches the kit: the Agent SDK's hook callbacks and the command hook
 * (`session-state-kit hook claude-code`, T9). Types come from the SDK and are erased at build time:
 * nothing here loads the SDK.
 */

/** T9: the agent of a Claude Code session key, for the command hook and the SDK alike (one session, one key). */
export const CLAUDE_CODE_AGENT = 'claude-code';
/**
 * T9, T17, T30: dedupe keys are global (R8), so they name the agent: one Claude Code session under
 * two agents is two sessions. The default agent keeps the plain `claude-code` space (the keys files
 * already hold); another agent gets `claude-code@<agent>`, which no default-agent key can spell (an
 * agent id has no `@` or `:`). The command hook and the SDK hooks share it, so a session registered
 * by either is registered once.
 */
export function claudeCodeDedupeSpace(agentId: string): string {
  return agentId === CLAUDE_CODE_AGENT ? 'claude-code' : `claude-code@${agentId}`;
}

/** The payloads the kit reads, exactly as the SDK types them. */
export type ClaudeHookInput =
  | SessionStartHookInput
  | UserPromptSubmitHookInput
  | SubagentStartHookInput
  | SubagentStopHookInput
  | PostCompactHookInput
  | SessionEndHookInput;

/** T30-T34: the name of a Claude hook event the kit handles. */
export type ClaudeHookEventName = ClaudeHookInput['hook_event_name'];

/** T30-T34: every Claude hook event the kit handles. */
export const CLAUDE_HOOK_EVENTS: readonly ClaudeHookEventName[] = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'];

/**
 * T31: prompt sources that are the runtime's own turns, not a person's. A prompt whose `source`
 * is absent (the field is still rolling out) or `user`/`sdk` counts as the person's.
 */
export const MACHINE_PROMPT_SOURCES: ReadonlySet<string> = new Set(['system', 'loop_wakeup', 'schedule_wakeup', 'poll_event']);

/** T9, T30: options of planClaudeHookEvent: the agent id of the session keys and the channel named in records. */
export interface ClaudeEventOptions {
  /** Agent id of the session keys (default `claude-code`, T9). */
  agentId: string;
  /** Channel named in summaries and the human turn's payload (`claude-code`, `claude-agent-sdk`). */
  channel: string;
}

/** T9, T30-T34: what one Claude hook event should do (the shared plan, T40). */
export interface ClaudeEventPlan extends HookPlan {
  event: ClaudeHookEventName;
}

/** T9: a Claude Code session id as its session key; undefined when the id cannot make a valid key. */
export function claudeSessionKey(agentId: string, sessionId: string): string | undefined {
  return runtimeSessionKey(agentId, sessionId);
}

/** T32: a sub-agent's own session: `agent:<agent>:subagent:<session_id>:<agent_id>` (R25: its notices wait for its next turn). */
export function claudeSubagentKey(agentId: string, sessionId: string, subagentId: string): string | undefined {
  return runtimeSubagentKey(agentId, sessionId, subagentId);
}

export { sessionKeyIntro };

/** T30-T34: a Claude payload as the shared planner's step, or a reason to ignore it. */
function claudeStep(input: ClaudeHookInput): HookStep | string {
  const sessionId = input.session_id;
  switch (input.hook_event_name) {
    case 'SessionStart':
      return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: 'startup' };
    case 'UserPromptSubmit': {
      const source = input.source;
      const promptId = input.prompt_id;
      return {
        type: 'prompt',
        hookEvent: 'UserPromptSubmit',
        sessionId,
        byPerson: source === undefined || !MACHINE_PROMPT_SOURCES.has(source),
        ...(typeof promptId === 'string' && promptId.length > 0 ? { promptId } : {}),
      };
    }
    case 'SubagentStart':
      return { type: 'subagent_start', hookEvent: 'SubagentStart', sessionId, subagentId: input.agent_id };
    case 'SubagentStop':
      return { type: 'subagent_stop', hookEvent: 'SubagentStop', sessionId, subagentId: input.agent_id };
    case 'PostCompact':
      return { type: 'compacted', hookEvent: 'PostCompact', sessionId, trigger: input.trigger === 'manual' ? 'manual' : 'auto' };
    case 'SessionEnd':
      return input.reason === 'clear' ? { type: 'cleared', hookEvent: 'SessionEnd', sessionId } : { type: 'ended', hookEvent: 'SessionEnd', sessionId };
    default:
      return `ignored hook event ${JSON.stringify((input as { hook_event_name?: unknown }).hook_event_name)}`;
  }
}

/**
 * T30-T34: the plan for one payload, or a one-line reason to ignore it. `registered` says whether
 * this process already registered the session (so UserPromptSubmit, which the SDK runs where it
 * does not run SessionStart, registers it once and introduces its key once).
 */
export function planClaudeHookEvent(input: ClaudeHookInput, o: ClaudeEventOptions, registered = false): ClaudeEventPlan | string {
  if (input === null || typeof input !== 'object') return 'hook input is not an object';
  const sessionKey = claudeSessionKey(o.agentId, input.session_id);
  if (sessionKey === undefined) return `session_id ${quoteId(input.session_id)} does not make a session key (R1): ignored, nothing written`;
  const step = claudeStep(input);
  if (typeof step === 'string') return step;
  return planHookStep(step, { ...o, dedupeSpace: claudeCodeDedupeSpace(o.agentId) }, registered) as ClaudeEventPlan | string;
}
