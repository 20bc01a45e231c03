import type { RecordInput } from '../../spec/index.js';
import { isValidSessionKey, parseAgentScopedKey, validateRecordInput } from '../core/index.js';
import { messageOf } from '../shared/logger.js';

/**
 * One planner for every agent CLI's lifecycle hooks (PROTOCOL.md T9, T30-T34, T40-T44): a
 * runtime's adapter turns its payload into a `HookStep`, and this decides what to record, which
 * session to reset, whose notices to hand over and which key to introduce. Claude Code (command
 * hook and Agent SDK), Codex, Gemini CLI, Qwen Code, Copilot CLI and OpenCode's plugin differ only in
 * their payload shapes and output form, never in what a prompt, a start or a compaction means for
 * the log.
 */

/** What happened, in runtime-neutral terms. `hookEvent` is the runtime's own event name, echoed in its output. */
export type HookStep =
  /**
   * A session began or came back: `startup`, `resume`, `clear` (a cleared session), `compact`, `fork`.
   * `keyLineLost`: the runtime rebuilt the model's context without the key line it was told before
   * (Qwen Code keeps a start's context in the system instruction, which a resume does not restore).
   */
  | { type: 'session_start'; hookEvent: string; sessionId: string; source: 'startup' | 'resume' | 'clear' | 'compact' | 'fork'; keyLineLost?: boolean }
  /**
   * A prompt was submitted; `byPerson` is false for the runtime's own turns (T31). `keyLineLost`:
   * the model's context lacks the key line and this prompt is the first chance to tell it (T62:
   * OpenCode says nothing to the model at a start, and a compaction drops the line).
   */
  | { type: 'prompt'; hookEvent: string; sessionId: string; promptId?: string; byPerson: boolean; keyLineLost?: boolean }
  | { type: 'subagent_start'; hookEvent: string; sessionId: string; subagentId: string }
  | { type: 'subagent_stop'; hookEvent: string; sessionId: string; subagentId: string }
  | { type: 'compacted'; hookEvent: string; sessionId: string; trigger: 'manual' | 'auto' }
  /** The session's context was cleared (T34); recorded as a reset of the same session. */
  | { type: 'cleared'; hookEvent: string; sessionId: string }
  /** The session ended for another reason: nothing to record (T34). */
  | { type: 'ended'; hookEvent: string; sessionId: string };

/** How one runtime names its sessions and records: agent id, channel, and the dedupe space (T17). */
export interface HookPlanOptions {
  /** Agent id of the session keys. */
  agentId: string;
  /** Channel named in summaries and the human turn's payload (`claude-code`, `claude-agent-sdk`, `codex`). */
  channel: string;
  /** T17: the global dedupe namespace of this runtime and agent (R8), e.g. `claude-code`, `codex@ops`. */
  dedupeSpace: string;
}

/** What one hook event should do. */
export interface HookPlan {
  /** The runtime's event name, as its output must echo it. */
  event: string;
  /** The session the event is about (the main session; for sub-agent events the child). */
  sessionKey: string;
  /** In order; each is validated (R1-R4) before anything is written. */
  records: RecordInput[];
  /** T34: reset this session's own watches (R50) after the records. */
  resetSession?: string;
  /** Whose pending notices go to the model with this event's output, if any. */
  deliverTo?: string;
  /** T30: tell the model this session's key. */
  introduce?: string;
  /**
   * T51: introduce the key only when the session is new to the store (its head is 0 before this
   * event's records): a resume, or a second set of hooks on the same session (the Agent SDK inside
   * a project that also has the command hooks), already told the model. A cleared or compacted
   * context lost the line, so it is told again whatever the head.
   */
  introduceOnlyIfNew?: boolean;
  /**
   * T52: introduce the key only when this run's own `created` record is the one the store inserted
   * (not a dedupe hit, R8): for a runtime whose first prompt runs beside the start, where the
   * head may already count a person's turn.
   */
  introduceIfCreatedNow?: boolean;
}

/**
 * T17: one id inside a key or dedupe key built by joining with `:`. `%` and `:` are
 * percent-encoded, so no two id lists spell the same key (session `s1:x` with sub-agent `y` and
 * session `s1` with sub-agent `x:y` stay apart) and a main session id cannot spell a sub-agent's
 * key. The ids runtimes use (UUIDs, thread ids) contain neither, so their keys are unchanged.
 */
export function keyPart(id: string): string {
  return id.replace(/%/g, '%25').replace(/:/g, '%3A');
}

/** T9, T40: a runtime session id as its session key `agent:<agent>:<id>`; undefined when the id cannot make a valid key. */
export function runtimeSessionKey(agentId: string, sessionId: string): string | undefined {
  if (typeof sessionId !== 'string' || sessionId.length === 0) return undefined;
  const key = `agent:${agentId}:${keyPart(sessionId)}`;
  // R1 in full, before anything opens: an id the store would refuse ends the plan here (T9: nothing written).
  return isValidSessionKey(key) && parseAgentScopedKey(key)?.agentId === agentId ? key : undefined;
}

/** T32: a sub-agent's own session `agent:<agent>:subagent:<session_id>:<agent_id>`. */
export function runtimeSubagentKey(agentId: string, sessionId: string, subagentId: string): string | undefined {
  if (typeof subagentId !== 'string' || subagentId.length === 0 || typeof sessionId !== 'string' || sessionId.length === 0) return undefined;
  const key = `agent:${agentId}:subagent:${keyPart(sessionId)}:${keyPart(subagentId)}`;
  return isValidSessionKey(key) && parseAgentScopedKey(key)?.agentId === agentId ? key : undefined;
}

/** An id from a payload, as a short JSON string for a one-line message (a hostile id can be long). */
export function quoteId(id: unknown): string {
  const text = JSON.stringify(typeof id === 'string' && id.length > 40 ? `${id.slice(0, 40)}…` : id) ?? String(id);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** T30: the line that tells a model which key is its own. */
export function sessionKeyIntro(sessionKey: string): string {
  return `Session-state key of this session: "${sessionKey}". Pass it as watcherSessionKey to the session-state tools.`;
}

function created(sessionKey: string, o: HookPlanOptions, sessionId: string): RecordInput {
  return { sessionKey, agentId: o.agentId, kind: 'created', actorType: 'system', summary: `session started via ${o.channel}`, dedupeKey: `${o.dedupeSpace}:created:${keyPart(sessionId)}` };
}

function reset(sessionKey: string, o: HookPlanOptions): RecordInput {
  return { sessionKey, agentId: o.agentId, kind: 'session_reset', actorType: 'system', summary: `session cleared via ${o.channel}` };
}

/**
 * T30-T34, T40-T44: the plan for one step, or a one-line reason to ignore it. `registered` says
 * whether this process already registered the session, so a prompt registers it (and introduces
 * its key) once where no start event ran before it.
 */
export function planHookStep(step: HookStep, o: HookPlanOptions, registered = false): HookPlan | string {
  const sessionKey = runtimeSessionKey(o.agentId, step.sessionId);
  if (sessionKey === undefined) return `session_id ${quoteId(step.sessionId)} does not make a session key (R1): ignored, nothing written`;
  const event = step.hookEvent;
  let plan: HookPlan;
  switch (step.type) {
    case 'session_start': {
      const records = [created(sessionKey, o, step.sessionId)];
      // T42: a session started by clearing its context is the same conversation with its memory
      // gone: its watchers hear of it as a reset, and its own watches end (R50).
      if (step.source === 'clear') records.push(reset(sessionKey, o));
      // T51: no notices here. The prompt that follows hands them over, so one model turn carries
      // at most one notice per pair (a start that drained them would reopen a follow-up the
      // prompt then drains too, two notices in one request).
      const retold = step.source === 'clear' || step.source === 'compact' || step.keyLineLost === true;
      plan = { event, sessionKey, records, introduce: sessionKey, ...(retold ? {} : { introduceOnlyIfNew: true }), ...(step.source === 'clear' ? { resetSession: sessionKey } : {}) };
      break;
    }
    case 'prompt': {
      const records = registered ? [] : [created(sessionKey, o, step.sessionId)];
      if (step.byPerson) {
        records.push({
          sessionKey,
          agentId: o.agentId,
          kind: 'human_direct_message',
          actorType: 'human',
          summary: `human message via ${o.channel}`,
          payload: { channel: o.channel },
          onlyIfWatched: true,
          ...(step.promptId !== undefined && step.promptId.length > 0 ? { dedupeKey: `${o.dedupeSpace}:prompt:${keyPart(step.sessionId)}:${keyPart(step.promptId)}` } : {}),
        });
      }
      // T51: told once per session, and again where the context lost it.
      const intro = step.keyLineLost === true ? { introduce: sessionKey } : registered ? {} : { introduce: sessionKey, introduceOnlyIfNew: true };
      plan = { event, sessionKey, records, deliverTo: sessionKey, ...intro };
      break;
    }
    case 'subagent_start': {
      const child = runtimeSubagentKey(o.agentId, step.sessionId, step.subagentId);
      if (child === undefined) return `agent_id ${quoteId(step.subagentId)} does not make a session key (R1): ignored, nothing written`;
      plan = {
        event,
        sessionKey: child,
        records: [
          {
            sessionKey: child,
            agentId: o.agentId,
            kind: 'child_spawned',
            actorType: 'agent',
            actorId: sessionKey,
            summary: `subagent started via ${o.channel}`,
            watchers: [sessionKey],
            dedupeKey: `${o.dedupeSpace}:subagent:${keyPart(step.sessionId)}:${keyPart(step.subagentId)}`,
          },
        ],
        introduce: child,
      };
      break;
    }
    case 'subagent_stop': {
      const child = runtimeSubagentKey(o.agentId, step.sessionId, step.subagentId);
      if (child === undefined) return `agent_id ${quoteId(step.subagentId)} does not make a session key (R1): ignored, nothing written`;
      plan = {
        event,
        sessionKey: child,
        records: [
          {
            sessionKey: child,
            agentId: o.agentId,
            kind: 'run_completed',
            actorType: 'agent',
            actorId: child,
            summary: `subagent finished via ${o.channel}`,
            dedupeKey: `${o.dedupeSpace}:subagent-end:${keyPart(step.sessionId)}:${keyPart(step.subagentId)}`,
          },
        ],
      };
      break;
    }
    case 'compacted':
      plan = { event, sessionKey, records: [{ sessionKey, agentId: o.agentId, kind: 'compacted', actorType: 'system', summary: `context compacted (${step.trigger}) via ${o.channel}` }] };
      break;
    case 'cleared':
      plan = { event, sessionKey, records: [reset(sessionKey, o)], resetSession: sessionKey };
      break;
    case 'ended':
      plan = { event, sessionKey, records: [] };
      break;
  }
  for (const record of plan.records) {
    try {
      validateRecordInput(record);
    } catch (error) {
      return `${event} cannot be recorded: ${messageOf(error)}`;
    }
  }
  return plan;
}
