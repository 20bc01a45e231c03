import { planHookStep, type HookPlan, type HookStep } from '../hook-plan.js';

/**
 * GitHub Copilot CLI's lifecycle hooks as steps of the shared planner (PROTOCOL.md T52-T54).
 * Shapes are those of `@github/copilot` 1.0.102 for hooks configured under PascalCase event names
 * (Copilot's "VS Code compatible" format: snake_case fields with `hook_event_name`; the camelCase
 * names get camelCase payloads that name no event). test/hook/copilot-payloads/ holds what the
 * pinned binary sent, and test/hook/copilot-payloads.test.ts checks them against it.
 */

/** T52: the agent of a Copilot session key `agent:copilot:<session_id>`. */
export const COPILOT_AGENT = 'copilot';

/** T52: the Copilot hook events the kit acts on. Stop, the sub-agent and tool events get "no opinion". */
export const COPILOT_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd'] as const;
export type CopilotHookEventName = (typeof COPILOT_HOOK_EVENTS)[number];

/** T53: the events whose `additionalContext` Copilot hands to the model (checked with the real binary). */
export const COPILOT_CONTEXT_EVENTS: ReadonlySet<string> = new Set(['SessionStart', 'UserPromptSubmit']);

/** `SessionStart` sources in 1.0.102: `new` (a new session, also after /clear), `startup`, `resume`. */
export const COPILOT_SESSION_SOURCES = ['new', 'startup', 'resume'] as const;

/** T52: the dedupe space of a Copilot agent (R8, T17): `copilot`, or `copilot@<agent>` for another agent id. */
export function copilotDedupeSpace(agentId: string): string {
  return agentId === COPILOT_AGENT ? 'copilot' : `copilot@${agentId}`;
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * T52: a Copilot payload (parsed JSON) as a planner step, or the one-line reason to ignore it.
 * Every field read is checked: a payload the kit cannot use gets "no opinion" (T53).
 */
export function copilotStep(p: Record<string, unknown>): HookStep | string {
  const event = p['hook_event_name'];
  if (!(COPILOT_HOOK_EVENTS as readonly unknown[]).includes(event)) return `ignored hook event ${JSON.stringify(event)} (handles ${COPILOT_HOOK_EVENTS.join(', ')})`;
  const sessionId = p['session_id'];
  if (!str(sessionId)) return 'session_id is missing or not a string';
  switch (event as CopilotHookEventName) {
    case 'SessionStart': {
      const source = p['source'];
      if (!(COPILOT_SESSION_SOURCES as readonly unknown[]).includes(source)) return `SessionStart source ${JSON.stringify(source)} is not one of ${COPILOT_SESSION_SOURCES.join(', ')}`;
      // T52: /clear is a new session with a new id (source "new"), so every start only registers.
      return { type: 'session_start', hookEvent: 'SessionStart', sessionId, source: source === 'resume' ? 'resume' : 'startup' };
    }
    case 'UserPromptSubmit':
      // T52: inside a sub-agent Copilot runs this hook for the parent model's instruction, under the
      // sub-agent's own id: no person typed it, and no session of the kit's is its.
      if (p['agent_id'] !== undefined) return `UserPromptSubmit of sub-agent ${JSON.stringify(p['agent_id'])}: the parent model's instruction, not a person's turn; ignored`;
      // Copilot names no prompt id: a prompt delivered twice is two turns (no dedupe key).
      return { type: 'prompt', hookEvent: 'UserPromptSubmit', sessionId, byPerson: true };
    case 'PreCompact':
      // Copilot has no event after a compaction: it is recorded as it starts (as Gemini's, T48).
      return { type: 'compacted', hookEvent: 'PreCompact', sessionId, trigger: p['trigger'] === 'manual' ? 'manual' : 'auto' };
    case 'SessionEnd':
      // T52: /clear and /exit both end with reason "user_exit"; the ended session stays resumable.
      return { type: 'ended', hookEvent: 'SessionEnd', sessionId };
  }
}

/** T52: the shared plan for one Copilot payload, or the reason to ignore it. */
export function planCopilotHookEvent(p: Record<string, unknown>, o: { agentId: string }): HookPlan | string {
  const step = copilotStep(p);
  if (typeof step === 'string') return step;
  // As T9: each hook run is its own process and SessionStart registers the session.
  const plan = planHookStep(step, { agentId: o.agentId, channel: 'copilot', dedupeSpace: copilotDedupeSpace(o.agentId) }, true);
  if (typeof plan === 'string' || step.type !== 'session_start') return plan;
  const { introduceOnlyIfNew: _, ...rest } = plan;
  // T52: a resumed conversation does not hold the start's context of an earlier run (checked with
  // the real binary: the request after a resume lacks it), so a resume tells the key again.
  if (step.source === 'resume') return rest;
  // T52: Copilot runs the first prompt's hook beside the start's, not after it, so a person's turn
  // may be recorded first and the head is no proof the session is new. The start that inserted the
  // session's `created` event is the one that tells the key (R8 makes that exactly one).
  return { ...rest, introduceIfCreatedNow: true };
}

/**
 * T54: whether a Claude Code hook payload was sent by Copilot, which also runs the hooks of a
 * project's `.claude/settings.json`. Copilot marks the hook's environment (`COPILOT_CLI=1`); a
 * Claude Code started from a Copilot shell inherits that too, so the payload must also not be
 * Claude Code's: Claude Code always names its transcript, Copilot names none before `Stop` and
 * then one of its own, `session-state/<id>/events.jsonl`.
 */
export function sentByCopilot(p: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env['COPILOT_CLI'] !== '1') return false;
  const transcript = p['transcript_path'];
  if (transcript === undefined) return true;
  return typeof transcript === 'string' && /[\\/]session-state[\\/][^\\/]+[\\/]events\.jsonl$/.test(transcript);
}
