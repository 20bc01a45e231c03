import { planHookStep, type HookPlan, type HookStep } from '../hook-plan.js';

/**
 * Codex CLI's lifecycle hooks as steps of the shared planner (PROTOCOL.md T40-T44). Shapes are
 * those of `@openai/codex` 0.171.0: the command-hook input schemas the binary embeds
 * (`<event>.command.input`, JSON Schema draft-07); test/hook/codex-schemas.ts reads them out of the
 * pinned binary and every fixture is validated against them. Only the fields read here are typed.
 */

/** T40: the agent of a Codex session key `agent:codex:<session_id>` (a Codex thread id). */
export const CODEX_AGENT = 'codex';

/** T40: the Codex hook events the kit acts on. Stop, PreCompact and the tool events get "no opinion". */
export const CODEX_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PostCompact', 'SessionEnd'] as const;
export type CodexHookEventName = (typeof CODEX_HOOK_EVENTS)[number];

/** `session-start.command.input`'s `source` values in 0.171.0. */
export const CODEX_SESSION_SOURCES = ['startup', 'resume', 'clear', 'compact', 'fork'] as const;

interface CodexBase {
  session_id: string;
  transcript_path: string | null;
  cwd: string;
}
/** The Codex hook payloads the kit reads (fields it does not read are left out). */
export type CodexHookInput =
  | (CodexBase & { hook_event_name: 'SessionStart'; source: (typeof CODEX_SESSION_SOURCES)[number]; model: string })
  | (CodexBase & { hook_event_name: 'UserPromptSubmit'; prompt: string; turn_id: string; agent_id?: string; agent_type?: string })
  | (CodexBase & { hook_event_name: 'SubagentStart'; agent_id: string; agent_type: string; turn_id: string })
  | (CodexBase & { hook_event_name: 'SubagentStop'; agent_id: string; agent_type: string; turn_id: string })
  | (CodexBase & { hook_event_name: 'PostCompact'; trigger: 'manual' | 'auto'; turn_id: string })
  | (CodexBase & { hook_event_name: 'SessionEnd'; reason: string });

/** T40: the dedupe space of a Codex agent (R8, T17): `codex`, or `codex@<agent>` for another agent id. */
export function codexDedupeSpace(agentId: string): string {
  return agentId === CODEX_AGENT ? 'codex' : `codex@${agentId}`;
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * T40-T42: a Codex payload (already parsed JSON) as a planner step, or the one-line reason to
 * ignore it. Every field read is checked here: Codex is another program, and a payload the kit
 * cannot use is answered with "no opinion" (T43), never guessed at.
 */
export function codexStep(p: Record<string, unknown>): HookStep | string {
  const event = p['hook_event_name'];
  if (!(CODEX_HOOK_EVENTS as readonly unknown[]).includes(event)) return `ignored hook event ${JSON.stringify(event)} (handles ${CODEX_HOOK_EVENTS.join(', ')})`;
  const sessionId = p['session_id'];
  if (!str(sessionId)) return 'session_id is missing or not a string';
  switch (event as CodexHookEventName) {
    case 'SessionStart': {
      const source = p['source'];
      if (!(CODEX_SESSION_SOURCES as readonly unknown[]).includes(source)) return `SessionStart source ${JSON.stringify(source)} is not one of ${CODEX_SESSION_SOURCES.join(', ')}`;
      return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: source as (typeof CODEX_SESSION_SOURCES)[number] };
    }
    case 'UserPromptSubmit': {
      const turnId = p['turn_id'];
      // T41: inside a sub-agent thread the prompt is the parent model's instruction, not a person's
      // (the same line U10 draws for upstream threads); Codex names the sub-agent in `agent_id`.
      const inSubagent = str(p['agent_id']);
      return { type: 'prompt', hookEvent: 'UserPromptSubmit', sessionId, byPerson: !inSubagent, ...(str(turnId) ? { promptId: turnId } : {}) };
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
      // 0.171.0 reports only reason "other": a Codex /clear shows up as SessionStart source "clear" (T42).
      return { type: 'ended', hookEvent: 'SessionEnd', sessionId };
  }
}

/** T40-T42: the shared plan for one Codex payload, or the reason to ignore it. */
export function planCodexHookEvent(p: Record<string, unknown>, o: { agentId: string }, registered = true): HookPlan | string {
  const step = codexStep(p);
  if (typeof step === 'string') return step;
  return planHookStep(step, { agentId: o.agentId, channel: 'codex', dedupeSpace: codexDedupeSpace(o.agentId) }, registered);
}

/** T43: the events whose output Codex reads `hookSpecificOutput.additionalContext` from (0.171.0 output schemas). */
export const CODEX_CONTEXT_EVENTS: ReadonlySet<string> = new Set(['SessionStart', 'UserPromptSubmit', 'SubagentStart']);
