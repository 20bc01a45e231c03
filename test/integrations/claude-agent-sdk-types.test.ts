import {
  HOOK_EVENTS,
  EXIT_REASONS,
  type HookEvent,
  type HookJSONOutput,
  type Options,
  type PostCompactHookInput,
  type SessionEndHookInput,
  type SessionStartHookInput,
  type StopHookInput,
  type SubagentStartHookInput,
  type SubagentStopHookInput,
  type UserPromptSubmitHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS, MACHINE_PROMPT_SOURCES, createClaudeAgentSdkHooks } from '../../src/integrations/claude-agent-sdk/index.js';
import { createMemoryStore } from '../../src/memory/index.js';

/**
 * The shapes the kit relies on, checked against the SDK's own exported types (the dev dependency
 * is pinned). `npm run typecheck` fails here, naming the shape, when an SDK update changes one.
 */
type Expect<T extends true> = T;
type Fits<T, U> = [T] extends [U] ? true : false;

// T30, T31: every payload names its session and event.
export type SessionStartReads = Expect<Fits<SessionStartHookInput, { session_id: string; hook_event_name: 'SessionStart' }>>;
export type PromptReads = Expect<Fits<UserPromptSubmitHookInput, { session_id: string; hook_event_name: 'UserPromptSubmit'; prompt_id?: string; source?: string }>>;
// T31: the prompt sources the kit treats as machine turns are sources the SDK can send.
export type MachineSources = Expect<Fits<'system' | 'loop_wakeup' | 'schedule_wakeup' | 'poll_event', NonNullable<UserPromptSubmitHookInput['source']>>>;
// T32: a sub-agent is named by agent_id on both ends.
export type SubagentStartReads = Expect<Fits<SubagentStartHookInput, { session_id: string; hook_event_name: 'SubagentStart'; agent_id: string }>>;
export type SubagentStopReads = Expect<Fits<SubagentStopHookInput, { session_id: string; hook_event_name: 'SubagentStop'; agent_id: string }>>;
// T33, T34.
export type CompactReads = Expect<Fits<PostCompactHookInput, { session_id: string; hook_event_name: 'PostCompact'; trigger: 'manual' | 'auto' }>>;
export type EndReads = Expect<Fits<SessionEndHookInput, { session_id: string; hook_event_name: 'SessionEnd'; reason: string }>>;
export type ClearIsAReason = Expect<Fits<'clear', SessionEndHookInput['reason']>>;
export type StopReads = Expect<Fits<StopHookInput, { session_id: string; hook_event_name: 'Stop' }>>;
// T30: the outputs the kit returns are hook outputs, with additional context where it adds some.
export type ContextOutputs = Expect<
  Fits<
    | { hookSpecificOutput: { hookEventName: 'SessionStart'; additionalContext: string } }
    | { hookSpecificOutput: { hookEventName: 'UserPromptSubmit'; additionalContext: string } }
    | { hookSpecificOutput: { hookEventName: 'SubagentStart'; additionalContext: string } }
    | Record<string, never>,
    HookJSONOutput
  >
>;
// The kit's hooks object is what query() takes.
export type HooksFitQuery = Expect<Fits<ReturnType<typeof createClaudeAgentSdkHooks>['hooks'], NonNullable<Options['hooks']>>>;

describe('claude-agent-sdk types the kit relies on', () => {
  it('T30: every event the kit registers is a hook event of the pinned SDK', () => {
    const hooks = createClaudeAgentSdkHooks({ store: createMemoryStore() }).hooks;
    const registered = Object.keys(hooks) as HookEvent[];
    expect(registered.filter((e) => !(HOOK_EVENTS as readonly string[]).includes(e))).toEqual([]);
    expect(CLAUDE_HOOK_EVENTS.filter((e) => !(HOOK_EVENTS as readonly string[]).includes(e))).toEqual([]);
    expect([...CLAUDE_HOOK_EVENTS, 'Stop'].sort()).toEqual([...registered].sort());
  });
  it('T34: SessionEnd reasons include clear', () => {
    expect(EXIT_REASONS).toContain('clear');
  });
  it('T31: machine prompt sources are four', () => {
    expect([...MACHINE_PROMPT_SOURCES].sort()).toEqual(['loop_wakeup', 'poll_event', 'schedule_wakeup', 'system']);
  });
});
