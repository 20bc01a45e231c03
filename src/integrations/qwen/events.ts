import { planHookStep, type HookPlan, type HookStep } from '../hook-plan.js';

/**
 * Qwen Code's lifecycle hooks as steps of the shared planner (PROTOCOL.md T56, T57). Shapes are
 * those `@qwen-code/qwen-code` 0.24.4 sends, recorded from the real binary into
 * test/hook/qwen-payloads/ (and checked against it again by test/hook/qwen-payloads.test.ts): every
 * input carries `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp` and
 * `permission_mode`, inside a turn a `prompt_id`, inside a sub-agent an `agent_id`; SessionStart adds
 * `source` (startup, resume, clear, compact), UserPromptSubmit the `prompt`, PostCompact a `trigger`,
 * SessionEnd a `reason`. Only the fields read here are checked; the rest is Qwen's.
 */

/** T56: the agent of a Qwen session key `agent:qwen:<session_id>`. */
export const QWEN_AGENT = 'qwen';

/** T56: the Qwen hook events the kit acts on; Stop, PreCompact and the tool events get "no opinion". */
export const QWEN_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'] as const;
export type QwenHookEventName = (typeof QWEN_HOOK_EVENTS)[number];

/** SessionStart's `source` values in 0.24.4. */
export const QWEN_SESSION_SOURCES = ['startup', 'resume', 'clear', 'compact'] as const;

/**
 * T57: the events whose `hookSpecificOutput.additionalContext` reaches the model: SessionStart's
 * goes into the system instruction, UserPromptSubmit's is appended to the prompt. SubagentStart's
 * is read into a template variable that the sub-agents of 0.24.4 do not use (its text did not reach
 * the sub-agent's request), so it prints nothing.
 */
export const QWEN_CONTEXT_EVENTS: ReadonlySet<string> = new Set(['SessionStart', 'UserPromptSubmit']);

/** T56: the dedupe space of a Qwen agent (R8, T17): `qwen`, or `qwen@<agent>` for another agent id. */
export function qwenDedupeSpace(agentId: string): string {
  return agentId === QWEN_AGENT ? 'qwen' : `qwen@${agentId}`;
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** T56: a Qwen payload (parsed JSON) as a planner step, or the one-line reason to ignore it ("no opinion", T57). */
export function qwenStep(p: Record<string, unknown>): HookStep | string {
  const event = p['hook_event_name'];
  if (!(QWEN_HOOK_EVENTS as readonly unknown[]).includes(event)) return `ignored hook event ${JSON.stringify(event)} (handles ${QWEN_HOOK_EVENTS.join(', ')})`;
  const sessionId = p['session_id'];
  if (!str(sessionId)) return 'session_id is missing or not a string';
  switch (event as QwenHookEventName) {
    case 'SessionStart': {
      const source = p['source'];
      if (!(QWEN_SESSION_SOURCES as readonly unknown[]).includes(source)) return `SessionStart source ${JSON.stringify(source)} is not one of ${QWEN_SESSION_SOURCES.join(', ')}`;
      // A /clear starts a new session id; the old one's SessionEnd (reason clear) records the reset (T34).
      if (source === 'clear') return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: 'startup' };
      // T56: the start's context lives in the system instruction, which a resumed session rebuilds without it.
      if (source === 'resume') return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: 'resume', keyLineLost: true };
      return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: source as 'startup' | 'compact' };
    }
    case 'UserPromptSubmit': {
      // Inside a sub-agent the prompt is the parent model's, and its notices are the main session's (T41).
      if (str(p['agent_id'])) return `UserPromptSubmit inside sub-agent ${JSON.stringify(p['agent_id'])} is no person's prompt: ignored`;
      const prompt = p['prompt'];
      // T56: Qwen also runs UserPromptSubmit when a tool's result continues the turn, with an empty
      // prompt: no person spoke, and the turn's notices went out with its prompt (T51).
      if (typeof prompt !== 'string' || prompt.trim() === '') return 'UserPromptSubmit with an empty prompt (a tool result continuing the turn): ignored, notices wait for the next prompt';
      // No dedupe key: prompt_id is `<session>########<n>`, a counter Qwen recomputes, which repeats (T56).
      return { type: 'prompt', hookEvent: 'UserPromptSubmit', sessionId, byPerson: true };
    }
    case 'SubagentStart':
    case 'SubagentStop': {
      const agentId = p['agent_id'];
      if (!str(agentId)) return `${String(event)} agent_id is missing or not a string`;
      return { type: event === 'SubagentStart' ? 'subagent_start' : 'subagent_stop', hookEvent: event as string, sessionId, subagentId: agentId };
    }
    case 'PostCompact':
      return { type: 'compacted', hookEvent: 'PostCompact', sessionId, trigger: p['trigger'] === 'manual' ? 'manual' : 'auto' };
    case 'SessionEnd':
      return p['reason'] === 'clear' ? { type: 'cleared', hookEvent: 'SessionEnd', sessionId } : { type: 'ended', hookEvent: 'SessionEnd', sessionId };
  }
}

/** T56: the shared plan for one Qwen payload, or the reason to ignore it. */
export function planQwenHookEvent(p: Record<string, unknown>, o: { agentId: string }, registered = true): HookPlan | string {
  const step = qwenStep(p);
  if (typeof step === 'string') return step;
  return planHookStep(step, { agentId: o.agentId, channel: 'qwen', dedupeSpace: qwenDedupeSpace(o.agentId) }, registered);
}
