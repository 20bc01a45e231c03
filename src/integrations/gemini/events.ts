import { planHookStep, type HookPlan, type HookStep } from '../hook-plan.js';

/**
 * Gemini CLI's lifecycle hooks as steps of the shared planner (PROTOCOL.md T48). Shapes are those
 * of `@google/gemini-cli` 0.61.0: every hook input carries `session_id`, `transcript_path`, `cwd`,
 * `hook_event_name` and `timestamp`; SessionStart adds `source` (startup, resume, clear),
 * BeforeAgent the `prompt`, PreCompress a `trigger` (manual, auto), SessionEnd a `reason` (exit,
 * clear, logout, prompt_input_exit, other). The real binary's payloads are recorded and checked in
 * test/agents/gemini.test.ts.
 */

/** T48: the agent of a Gemini session key `agent:gemini:<session_id>`. */
export const GEMINI_AGENT = 'gemini';

/** T48: the Gemini hook events the kit acts on; AfterAgent, the model and tool events get "no opinion". */
export const GEMINI_HOOK_EVENTS = ['SessionStart', 'BeforeAgent', 'PreCompress', 'SessionEnd'] as const;

/** T48: the events whose output Gemini adds to the model's context (`hookSpecificOutput.additionalContext`). */
export const GEMINI_CONTEXT_EVENTS: ReadonlySet<string> = new Set(['SessionStart', 'BeforeAgent']);

/** T48: the dedupe space of a Gemini agent (R8, T17). */
export function geminiDedupeSpace(agentId: string): string {
  return agentId === GEMINI_AGENT ? 'gemini' : `gemini@${agentId}`;
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** T48: a Gemini payload (parsed JSON) as a planner step, or the one-line reason to ignore it. */
export function geminiStep(p: Record<string, unknown>): HookStep | string {
  const event = p['hook_event_name'];
  if (!(GEMINI_HOOK_EVENTS as readonly unknown[]).includes(event)) return `ignored hook event ${JSON.stringify(event)} (handles ${GEMINI_HOOK_EVENTS.join(', ')})`;
  const sessionId = p['session_id'];
  if (!str(sessionId)) return 'session_id is missing or not a string';
  switch (event as (typeof GEMINI_HOOK_EVENTS)[number]) {
    case 'SessionStart':
      // As for Claude Code (T34): a clear is reported by SessionEnd; the new start only registers.
      return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: 'startup' };
    case 'BeforeAgent':
      // Gemini names no prompt id: a prompt delivered twice is two turns (no dedupe key).
      return { type: 'prompt', hookEvent: 'BeforeAgent', sessionId, byPerson: true };
    case 'PreCompress':
      // Gemini has no event after compression: the compaction is recorded as it starts.
      return { type: 'compacted', hookEvent: 'PreCompress', sessionId, trigger: p['trigger'] === 'manual' ? 'manual' : 'auto' };
    case 'SessionEnd':
      return p['reason'] === 'clear' ? { type: 'cleared', hookEvent: 'SessionEnd', sessionId } : { type: 'ended', hookEvent: 'SessionEnd', sessionId };
  }
}

/** T48: the shared plan for one Gemini payload, or the reason to ignore it. */
export function planGeminiHookEvent(p: Record<string, unknown>, o: { agentId: string }, registered = true): HookPlan | string {
  const step = geminiStep(p);
  if (typeof step === 'string') return step;
  return planHookStep(step, { agentId: o.agentId, channel: 'gemini', dedupeSpace: geminiDedupeSpace(o.agentId) }, registered);
}
