import { describe, expect, it } from 'vitest';
import { AGENT_CLIS, INIT_HOOK_EVENTS } from '../../src/cli/agent-config.js';
import { CLAUDE_HOOK_EVENTS } from '../../src/integrations/claude-agent-sdk/events.js';
import { CODEX_HOOK_EVENTS } from '../../src/integrations/codex/events.js';
import { COPILOT_HOOK_EVENTS } from '../../src/integrations/copilot/events.js';
import { GEMINI_HOOK_EVENTS } from '../../src/integrations/gemini/events.js';
import { QWEN_HOOK_EVENTS } from '../../src/integrations/qwen/events.js';

/**
 * T45, T40: `init` registers exactly the events each runtime's hook acts on: every one the
 * planner handles, in its order, except those that can only record nothing (Codex's and Copilot's
 * SessionEnd carry no clear, T42, T52). A handler for an event the hook ignores would run for
 * nothing; a missing one would lose what the event records.
 */
describe('T45 the hook events init registers, per CLI', () => {
  const without = (events: readonly string[], left: string) => events.filter((e) => e !== left);
  it.each([
    ['claude-code', CLAUDE_HOOK_EVENTS],
    ['codex', without(CODEX_HOOK_EVENTS, 'SessionEnd')],
    ['gemini', GEMINI_HOOK_EVENTS],
    ['qwen', QWEN_HOOK_EVENTS],
    ['copilot', without(COPILOT_HOOK_EVENTS, 'SessionEnd')],
    ['opencode', []],
  ] as const)('%s', (cli, events) => {
    expect(INIT_HOOK_EVENTS[cli]).toEqual(events);
    expect(new Set(INIT_HOOK_EVENTS[cli]).size).toBe(INIT_HOOK_EVENTS[cli].length);
  });

  it('doctor and init know the same CLIs, in doctor\'s order', () => {
    expect(AGENT_CLIS).toEqual(Object.keys(INIT_HOOK_EVENTS));
    expect(AGENT_CLIS).toEqual(['claude-code', 'codex', 'gemini', 'qwen', 'copilot', 'opencode']);
  });
});
