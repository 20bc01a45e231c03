import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  EXIT_REASONS,
  HOOK_EVENTS,
  type PostCompactHookInput,
  type SessionEndHookInput,
  type SessionStartHookInput,
  type StopHookInput,
  type SubagentStartHookInput,
  type SubagentStopHookInput,
  type UserPromptSubmitHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import postCompact from './payloads/post-compact.json' with { type: 'json' };
import sessionEndClear from './payloads/session-end-clear.json' with { type: 'json' };
import sessionEndExit from './payloads/session-end-exit.json' with { type: 'json' };
import sessionStartResume from './payloads/session-start-resume.json' with { type: 'json' };
import sessionStartStartup from './payloads/session-start-startup.json' with { type: 'json' };
import stop from './payloads/stop.json' with { type: 'json' };
import subagentStart from './payloads/subagent-start.json' with { type: 'json' };
import subagentStop from './payloads/subagent-stop.json' with { type: 'json' };
import userPromptSubmitSystem from './payloads/user-prompt-submit-system.json' with { type: 'json' };
import userPromptSubmitWithPromptId from './payloads/user-prompt-submit-with-prompt-id.json' with { type: 'json' };
import userPromptSubmit from './payloads/user-prompt-submit.json' with { type: 'json' };

/**
 * T9: the command hook's payload fixtures are the pinned Claude Agent SDK's hook input types.
 * `npm run typecheck` fails here, naming the fixture, when the SDK adds a required field, drops or
 * renames one a fixture carries, or changes a field's type. A JSON import types every string as
 * `string`, so the string-literal fields (event name, source, trigger, reason) are checked below
 * at run time against value lists that must equal the SDK's unions.
 */
type Expect<T extends true> = T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The SDK type as a JSON import sees it: string literals widened, the same fields. */
type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer U)[]
        ? Widen<U>[]
        : T extends object
          ? { [K in keyof T]: Widen<T[K]> }
          : T;
/** The fixture fits the SDK input (every required field, right types) and carries no field the SDK type lacks. */
type IsInput<J, I> = [J] extends [Widen<I>] ? ([Exclude<keyof J, keyof I>] extends [never] ? true : false) : false;

export type Fixtures = [
  Expect<IsInput<typeof sessionStartStartup, SessionStartHookInput>>,
  Expect<IsInput<typeof sessionStartResume, SessionStartHookInput>>,
  Expect<IsInput<typeof userPromptSubmit, UserPromptSubmitHookInput>>,
  Expect<IsInput<typeof userPromptSubmitWithPromptId, UserPromptSubmitHookInput>>,
  Expect<IsInput<typeof userPromptSubmitSystem, UserPromptSubmitHookInput>>,
  Expect<IsInput<typeof subagentStart, SubagentStartHookInput>>,
  Expect<IsInput<typeof subagentStop, SubagentStopHookInput>>,
  Expect<IsInput<typeof postCompact, PostCompactHookInput>>,
  Expect<IsInput<typeof sessionEndClear, SessionEndHookInput>>,
  Expect<IsInput<typeof sessionEndExit, SessionEndHookInput>>,
  Expect<IsInput<typeof stop, StopHookInput>>,
];

// The literal unions, value by value: a value the SDK adds or drops fails the typecheck here.
const SESSION_START_SOURCES = ['startup', 'resume', 'clear', 'compact', 'fork'] as const;
const PROMPT_SOURCES = ['user', 'sdk', 'system', 'loop_wakeup', 'schedule_wakeup', 'poll_event'] as const;
const COMPACT_TRIGGERS = ['manual', 'auto'] as const;
export type Literals = [
  Expect<Same<(typeof SESSION_START_SOURCES)[number], SessionStartHookInput['source']>>,
  Expect<Same<(typeof PROMPT_SOURCES)[number], NonNullable<UserPromptSubmitHookInput['source']>>>,
  Expect<Same<(typeof COMPACT_TRIGGERS)[number], PostCompactHookInput['trigger']>>,
  Expect<Same<(typeof EXIT_REASONS)[number], SessionEndHookInput['reason']>>,
];

/** Each fixture file, the event it is, and its literal fields with the values the SDK allows. */
const FIXTURES: [string, Record<string, unknown>, string, Record<string, readonly string[]>][] = [
  ['session-start-startup', sessionStartStartup, 'SessionStart', { source: SESSION_START_SOURCES }],
  ['session-start-resume', sessionStartResume, 'SessionStart', { source: SESSION_START_SOURCES }],
  ['user-prompt-submit', userPromptSubmit, 'UserPromptSubmit', { source: PROMPT_SOURCES }],
  ['user-prompt-submit-with-prompt-id', userPromptSubmitWithPromptId, 'UserPromptSubmit', { source: PROMPT_SOURCES }],
  ['user-prompt-submit-system', userPromptSubmitSystem, 'UserPromptSubmit', { source: PROMPT_SOURCES }],
  ['subagent-start', subagentStart, 'SubagentStart', {}],
  ['subagent-stop', subagentStop, 'SubagentStop', {}],
  ['post-compact', postCompact, 'PostCompact', { trigger: COMPACT_TRIGGERS }],
  ['session-end-clear', sessionEndClear, 'SessionEnd', { reason: EXIT_REASONS }],
  ['session-end-exit', sessionEndExit, 'SessionEnd', { reason: EXIT_REASONS }],
  ['stop', stop, 'Stop', {}],
];

describe('T9 hook payload fixtures are SDK hook inputs', () => {
  it('T9 every fixture file in payloads/ is checked here', () => {
    const files = readdirSync(join(import.meta.dirname, 'payloads')).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual(FIXTURES.map(([name]) => name).sort());
  });

  it.each(FIXTURES)('T9 %s names its event and holds literal values of the SDK unions', (_name, json, event, literals) => {
    expect(HOOK_EVENTS).toContain(event);
    expect(json['hook_event_name']).toBe(event);
    for (const [field, allowed] of Object.entries(literals)) {
      if (json[field] !== undefined) expect(allowed).toContain(json[field]);
    }
  });
});
