import type {
  PostCompactHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  UserPromptSubmitHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import type { RecordInput } from '../../../spec/index.js';
import { parseAgentScopedKey, validateRecordInput } from '../../core/index.js';

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

/**
 * T9, T30-T34: what one hook event should do: the records to write, a session to reset, whose notices to deliver, a key to introduce.
 */
export interface ClaudeEventPlan {
  event: ClaudeHookEventName;
  /** The session the event is about (the main session; for SubagentStart/Stop the child). */
  sessionKey: string;
  /** In order; each is validated (R1-R4) before anything is written. */
  records: RecordInput[];
  /** T34: reset this session's own watches (R50) after the records. */
  resetSession?: string;
  /** Whose pending notices go to the model with this event's output, if any. */
  deliverTo?: string;
  /** T30: tell the model this session's key (SessionStart; the child's key on SubagentStart). */
  introduce?: string;
}

/** T9: a Claude Code session id as its session key; undefined when the id cannot make a valid key. */
export function claudeSessionKey(agentId: string, sessionId: string): string | undefined {
  if (typeof sessionId !== 'string' || sessionId.length === 0) return undefined;
  const key = `agent:${agentId}:${sessionId}`;
  return parseAgentScopedKey(key)?.agentId === agentId ? key : undefined;
}

/** T32: a sub-agent's own session: `agent:<agent>:subagent:<session_id>:<agent_id>` (R25: its notices wait for its next turn). */
export function claudeSubagentKey(agentId: string, sessionId: string, subagentId: string): string | undefined {
  if (typeof subagentId !== 'string' || subagentId.length === 0) return undefined;
  return claudeSessionKey(agentId, `subagent:${sessionId}:${subagentId}`);
}

/** T30: the line that tells a model which key is its own. */
export function sessionKeyIntro(sessionKey: string): string {
  return `Session-state key of this session: "${sessionKey}". Pass it as watcherSessionKey to the session-state tools.`;
}

function created(sessionKey: string, o: ClaudeEventOptions, sessionId: string): RecordInput {
  return { sessionKey, agentId: o.agentId, kind: 'created', actorType: 'system', summary: `session started via ${o.channel}`, dedupeKey: `${claudeCodeDedupeSpace(o.agentId)}:created:${sessionId}` };
}

/**
 * T30-T34: the plan for one payload, or a one-line reason to ignore it. `registered` says whether
 * this process already registered the session (so UserPromptSubmit, which the SDK runs where it
 * does not run SessionStart, registers it once and introduces its key once).
 */
export function planClaudeHookEvent(input: ClaudeHookInput, o: ClaudeEventOptions, registered = false): ClaudeEventPlan | string {
  if (input === null || typeof input !== 'object') return 'hook input is not an object';
  const sessionId = input.session_id;
  const sessionKey = claudeSessionKey(o.agentId, sessionId);
  if (sessionKey === undefined) return `session_id ${JSON.stringify(sessionId)} does not make a session key`;
  let plan: ClaudeEventPlan;
  switch (input.hook_event_name) {
    case 'SessionStart':
      plan = { event: 'SessionStart', sessionKey, records: [created(sessionKey, o, sessionId)], deliverTo: sessionKey, introduce: sessionKey };
      break;
    case 'UserPromptSubmit': {
      const records = registered ? [] : [created(sessionKey, o, sessionId)];
      const source = input.source;
      if (source === undefined || !MACHINE_PROMPT_SOURCES.has(source)) {
        const promptId = input.prompt_id;
        records.push({
          sessionKey,
          agentId: o.agentId,
          kind: 'human_direct_message',
          actorType: 'human',
          summary: `human message via ${o.channel}`,
          payload: { channel: o.channel },
          onlyIfWatched: true,
          ...(typeof promptId === 'string' && promptId.length > 0 ? { dedupeKey: `${claudeCodeDedupeSpace(o.agentId)}:prompt:${sessionId}:${promptId}` } : {}),
        });
      }
      plan = { event: 'UserPromptSubmit', sessionKey, records, deliverTo: sessionKey, ...(registered ? {} : { introduce: sessionKey }) };
      break;
    }
    case 'SubagentStart': {
      const child = claudeSubagentKey(o.agentId, sessionId, input.agent_id);
      if (child === undefined) return `agent_id ${JSON.stringify(input.agent_id)} does not make a session key`;
      plan = {
        event: 'SubagentStart',
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
            dedupeKey: `${claudeCodeDedupeSpace(o.agentId)}:subagent:${sessionId}:${input.agent_id}`,
          },
        ],
        introduce: child,
      };
      break;
    }
    case 'SubagentStop': {
      const child = claudeSubagentKey(o.agentId, sessionId, input.agent_id);
      if (child === undefined) return `agent_id ${JSON.stringify(input.agent_id)} does not make a session key`;
      plan = {
        event: 'SubagentStop',
        sessionKey: child,
        records: [
          {
            sessionKey: child,
            agentId: o.agentId,
            kind: 'run_completed',
            actorType: 'agent',
            actorId: child,
            summary: `subagent finished via ${o.channel}`,
            dedupeKey: `${claudeCodeDedupeSpace(o.agentId)}:subagent-end:${sessionId}:${input.agent_id}`,
          },
        ],
      };
      break;
    }
    case 'PostCompact':
      plan = {
        event: 'PostCompact',
        sessionKey,
        records: [{ sessionKey, agentId: o.agentId, kind: 'compacted', actorType: 'system', summary: `context compacted (${input.trigger === 'manual' ? 'manual' : 'auto'}) via ${o.channel}` }],
      };
      break;
    case 'SessionEnd':
      plan =
        input.reason === 'clear'
          ? {
              event: 'SessionEnd',
              sessionKey,
              records: [{ sessionKey, agentId: o.agentId, kind: 'session_reset', actorType: 'system', summary: `session cleared via ${o.channel}` }],
              resetSession: sessionKey,
            }
          : { event: 'SessionEnd', sessionKey, records: [] };
      break;
    default:
      return `ignored hook event ${JSON.stringify((input as { hook_event_name?: unknown }).hook_event_name)}`;
  }
  for (const record of plan.records) {
    try {
      validateRecordInput(record);
    } catch (error) {
      return `${plan.event} cannot be recorded: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return plan;
}
