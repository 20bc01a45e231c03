import type { HookCallback, HookCallbackMatcher, HookEvent, HookInput, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { MaybePromise, Notice, NoticeAck, RecordInput, StateEvent } from '../../../spec/index.js';
import { noticesText } from '../../tools/text.js';
import { errorDetails, silentLogger, type Logger } from '../../shared/logger.js';
import { keyPart } from '../hook-plan.js';
import { CLAUDE_CODE_AGENT, planClaudeHookEvent, sessionKeyIntro, type ClaudeHookInput } from './events.js';

/** The part of a store of the contract the hooks use. */
export interface ClaudeHookStore {
  /** R3-R19: records one event (see SessionStateStore.record). */
  record(input: RecordInput): MaybePromise<StateEvent | undefined>;
  /** R5: the session's head (T51: 0 means the model was never told its key). */
  stateVersion(sessionKey: string, agentId: string): MaybePromise<number>;
  /** R26: the watcher's pending notices, not acked. */
  pendingNotices(watcherSessionKey: string): MaybePromise<Notice[]>;
  /** R27b: acks exactly the given notices still pending with the same L; returns those acked. */
  ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]): MaybePromise<Notice[]>;
  /** R50: drops the session's cursors (and so its pending notices); its own log stays. */
  resetSession(sessionKey: string): MaybePromise<void>;
}

/** T30: options of createClaudeAgentSdkHooks: the store, the agent id of the session keys and a logger. */
export interface ClaudeAgentSdkHooksOptions {
  store: ClaudeHookStore;
  /** Agent id of the session keys (default `claude-code`, so a session has the key the command hook gives it, T9). */
  agentId?: string;
  /** Where a hook that could not do its work says so; a hook never fails the session (default: silent). */
  logger?: Logger;
}

/** T30-T34: what createClaudeAgentSdkHooks returns: the hooks to pass to the Claude Agent SDK and two lookups. */
export interface ClaudeAgentSdkHooks {
  /** Pass as `query({ prompt, options: { hooks } })`; merge with your own matchers per event if you have some. */
  hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /** T9: the session key of a Claude session id (the key notices and session tools use). */
  sessionKeyOf(sessionId: string): string;
  /** T30: notices handed to the model and not yet acknowledged, per session (they are acked when its turn ends). */
  handedOver(sessionKey: string): readonly Notice[];
}

const CHANNEL = 'claude-agent-sdk';
const MAX_REGISTERED = 4096;

/**
 * T30-T34: hook callbacks for `@anthropic-ai/claude-agent-sdk`. Each callback records what its
 * event means (T9, T31-T34), returns the session's key and pending notices as additional context
 * where the event lets a hook add context (SessionStart, UserPromptSubmit; the child's key on
 * SubagentStart), and acknowledges the notices it handed over only when that turn's `Stop` hook
 * runs (T30): a turn that failed or a process that died before it delivers them again.
 * A callback never throws and never blocks the prompt: a failure is logged and answered `{}`.
 */
export function createClaudeAgentSdkHooks(options: ClaudeAgentSdkHooksOptions): ClaudeAgentSdkHooks {
  const { store } = options;
  const agentId = options.agentId ?? CLAUDE_CODE_AGENT;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(agentId)) throw new TypeError(`agentId must be an agent id (R1), got ${JSON.stringify(agentId)}`);
  const logger = options.logger ?? silentLogger;
  const eventOptions = { agentId, channel: CHANNEL };
  /** Sessions this process registered (and introduced): T31 registers on the first prompt when SessionStart never came. */
  const registered = new Set<string>();
  /** T30: what each session's model was handed and has not yet been acked. */
  const handed = new Map<string, Notice[]>();

  const warn = (message: string, details?: Record<string, unknown>) => {
    try {
      logger.warn(`claude-agent-sdk hook: ${message}`, details);
    } catch {
      // The logger is the runtime's code; a hook must not fail because of it (R9).
    }
  };

  async function onEvent(input: ClaudeHookInput): Promise<HookJSONOutput> {
    const plan = planClaudeHookEvent(input, eventOptions, registered.has(claudeKey(input.session_id)));
    if (typeof plan === 'string') return (warn(plan), {});
    // T51: a key the store already knows was told to the model before (a resume, the command hooks).
    const introduce = plan.introduce !== undefined && (!plan.introduceOnlyIfNew || (await store.stateVersion(plan.sessionKey, agentId)) === 0);
    for (const record of plan.records) await store.record(record);
    if (plan.resetSession !== undefined) {
      await store.resetSession(plan.resetSession);
      handed.delete(plan.resetSession);
      registered.delete(plan.resetSession);
    }
    if (plan.event === 'SessionEnd') {
      // The session ends here; what it was handed and never finished a turn with stays pending.
      handed.delete(plan.sessionKey);
      registered.delete(plan.sessionKey);
    }
    if (plan.event === 'SessionStart' || plan.event === 'UserPromptSubmit') {
      // Bounded: the SDK runs no SessionEnd callback to forget a session by. Forgetting one costs a
      // dedupe hit on `created` and the key line once more, nothing else.
      if (registered.size >= MAX_REGISTERED) registered.clear();
      registered.add(plan.sessionKey);
    }
    const lines: string[] = [];
    if (introduce) lines.push(sessionKeyIntro(plan.introduce!));
    let notices: Notice[] = [];
    if (plan.deliverTo !== undefined) {
      notices = await store.pendingNotices(plan.deliverTo);
      if (notices.length > 0) lines.push(noticesText(notices));
    }
    if (lines.length === 0) return {};
    // T30: remembered now, acked at this turn's Stop (after the SDK took the output and the model ran).
    if (plan.deliverTo !== undefined) handed.set(plan.deliverTo, notices);
    const additionalContext = lines.join('\n');
    switch (plan.event) {
      case 'SessionStart':
        return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext } };
      case 'UserPromptSubmit':
        return { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext } };
      case 'SubagentStart':
        return { hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext } };
      default:
        return {};
    }
  }

  /** T30: the main thread's turn ended: the notices its prompt carried reached the model. */
  async function onStop(input: HookInput): Promise<HookJSONOutput> {
    if (input.hook_event_name !== 'Stop') return {};
    const sessionKey = claudeKey(input.session_id);
    const notices = handed.get(sessionKey);
    if (notices === undefined) return {};
    handed.delete(sessionKey);
    if (notices.length > 0) await store.ackNotices(sessionKey, notices);
    return {};
  }

  function claudeKey(sessionId: string): string {
    // T17: the same key the planner makes (ids encoded as keyPart does).
    return `agent:${agentId}:${keyPart(String(sessionId))}`;
  }

  const guard =
    (run: (input: HookInput) => Promise<HookJSONOutput>): HookCallback =>
    async (input) => {
      // T30: the SDK is another program; a payload that is not an object is logged, never a throw.
      if (input === null || typeof input !== 'object') return (warn(`hook input is not an object (${input === null ? 'null' : typeof input})`), {});
      try {
        return await run(input);
      } catch (error) {
        // A hook never blocks the person's prompt or the session (T9); the event is lost, not the turn.
        warn(`${String((input as { hook_event_name?: unknown }).hook_event_name)} failed`, errorDetails(error));
        return {};
      }
    };
  const handle = guard(async (input) => onEvent(input as ClaudeHookInput));
  const matcher = (callback: HookCallback): HookCallbackMatcher[] => [{ hooks: [callback] }];
  return {
    hooks: {
      SessionStart: matcher(handle),
      UserPromptSubmit: matcher(handle),
      SubagentStart: matcher(handle),
      SubagentStop: matcher(handle),
      PostCompact: matcher(handle),
      SessionEnd: matcher(handle),
      Stop: matcher(guard(onStop)),
    },
    sessionKeyOf: claudeKey,
    handedOver: (sessionKey) => handed.get(sessionKey) ?? [],
  };
}
