import type {
  HookCallback,
  HookEvent,
  HookInput,
  PostCompactHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  UserPromptSubmitHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { createClaudeAgentSdkHooks } from '../../src/integrations/claude-agent-sdk/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

/**
 * The hook callbacks with payloads typed by the SDK (`satisfies` the SDK's input types), called as
 * the SDK's dispatch calls them. The offline run through the real dispatch is
 * claude-agent-sdk-e2e.test.ts; these cover the events that run does not reach.
 */
const SID = '5b0c6f0e-1111-4222-8333-944445555666';
const KEY = `agent:claude-code:${SID}`;
const WATCHER = 'agent:ops:main';
const base = { session_id: SID, transcript_path: '/tmp/t.jsonl', cwd: '/tmp' };

function setup() {
  const store = createMemoryStore();
  const logger = memoryLogger();
  const kit = createClaudeAgentSdkHooks({ store, logger });
  const call = async (input: HookInput) => {
    const matchers = kit.hooks[input.hook_event_name as HookEvent] ?? [];
    const outputs = [];
    for (const m of matchers) for (const h of m.hooks as HookCallback[]) outputs.push(await h(input, undefined, { signal: new AbortController().signal }));
    return outputs[0];
  };
  return { store, logger, kit, call };
}
const stop = { ...base, hook_event_name: 'Stop', stop_hook_active: false } satisfies StopHookInput;
const context = (out: unknown) => (out as { hookSpecificOutput?: { additionalContext?: string } } | undefined)?.hookSpecificOutput?.additionalContext;

async function pendingOn(store: ReturnType<typeof createMemoryStore>, watcher: string, target: string, agentId: string) {
  await store.watch({ watcherSessionKey: watcher, targetSessionKey: target, agentId });
  await store.record({ sessionKey: target, agentId, kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
}

describe('claude-agent-sdk hook callbacks (SDK-typed payloads)', () => {
  it('T30 T51: SessionStart registers once (T9 dedupe) and introduces the key; the prompt hands over the notices, acked only at Stop; a resume says nothing again', async () => {
    const { store, kit, call } = setup();
    await pendingOn(store, KEY, 'agent:ops:main', 'ops');
    const start = { ...base, hook_event_name: 'SessionStart', source: 'startup' } satisfies SessionStartHookInput;
    const out = await call(start);
    expect(out).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: `Session-state key of this session: "${KEY}". Pass it as watcherSessionKey to the session-state tools.` } });
    // T51: the notices wait for the prompt of this turn, so the model gets each once.
    expect(kit.handedOver(KEY)).toHaveLength(0);
    const prompt = { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: 'p1' } satisfies UserPromptSubmitHookInput;
    expect(context(await call(prompt))).toBe('Session "agent:ops:main" changed (other actor). Reconcile before acting: session_status sessionKey "agent:ops:main" changesSince 0.');
    // Handed over, not acked: a turn that never ends delivers them again.
    expect(await store.pendingNotices(KEY)).toHaveLength(1);
    expect(kit.handedOver(KEY)).toHaveLength(1);
    await call(stop);
    expect(await store.pendingNotices(KEY)).toEqual([]);
    // A resume of a session the store knows: registered already (one created), nothing to say.
    expect(await call({ ...start, source: 'resume' })).toEqual({});
    expect((await store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 })).stateChanges.events.map((e) => e.kind)).toEqual(['created']);
  });

  it('T30: without Stop (a failed turn) the notices stay pending and the next prompt carries them again', async () => {
    const { store, call } = setup();
    await pendingOn(store, KEY, 'agent:ops:main', 'ops');
    const prompt = { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: 'p1' } satisfies UserPromptSubmitHookInput;
    expect(context(await call(prompt))).toContain('changed (other actor)');
    expect(context(await call({ ...prompt, prompt_id: 'p2' }))).toContain('changed (other actor)');
    expect(await store.pendingNotices(KEY)).toHaveLength(1);
  });

  it('T31: a person\'s prompt is recorded (R9b only if watched); a machine prompt is not, but still gets the notices', async () => {
    const { store, call } = setup();
    await store.watch({ watcherSessionKey: WATCHER, targetSessionKey: KEY, agentId: 'claude-code' });
    const prompt = { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: 'p1' } satisfies UserPromptSubmitHookInput;
    const first = await call(prompt);
    expect(context(first)).toBe(`Session-state key of this session: "${KEY}". Pass it as watcherSessionKey to the session-state tools.`);
    await call({ ...prompt, prompt_id: 'p2', source: 'schedule_wakeup' });
    await call({ ...prompt, prompt_id: 'p3', source: 'user' });
    const events = (await store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 })).stateChanges.events;
    expect(events.map((e) => [e.kind, e.dedupeKey])).toEqual([
      ['created', `claude-code:created:${SID}`],
      ['human_direct_message', `claude-code:prompt:${SID}:p1`],
      ['human_direct_message', `claude-code:prompt:${SID}:p3`],
    ]);
    expect(events[1]).toMatchObject({ actorType: 'human', summary: 'human message via claude-agent-sdk', payload: { channel: 'claude-agent-sdk' } });
    expect(await store.pendingNotices(WATCHER)).toHaveLength(1);
  });

  it('T32: SubagentStart opens the child session seeded for the parent (R14); SubagentStop records run_completed, which the parent does not hear of (R16)', async () => {
    const { store, call } = setup();
    const child = `agent:claude-code:subagent:${SID}:a1b2c3`;
    const out = await call({ ...base, hook_event_name: 'SubagentStart', agent_id: 'a1b2c3', agent_type: 'general-purpose' } satisfies SubagentStartHookInput);
    expect(out).toEqual({ hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: `Session-state key of this session: "${child}". Pass it as watcherSessionKey to the session-state tools.` } });
    const [spawn] = (await store.changesSince({ sessionKey: child, agentId: 'claude-code', since: 0 })).stateChanges.events;
    expect(spawn).toMatchObject({ kind: 'child_spawned', actorType: 'agent', actorId: KEY });
    await store.record({ sessionKey: child, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    expect((await store.pendingNotices(KEY)).map((n) => [n.targetSessionKey, n.lastSeenSequence, n.wake])).toEqual([[child, spawn!.sequence, 'immediate']]);
    await store.drainNotices(KEY);
    await call({ ...base, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: 'a1b2c3', agent_transcript_path: '/tmp/a.jsonl', agent_type: 'general-purpose' } satisfies SubagentStopHookInput);
    const kinds = (await store.changesSince({ sessionKey: child, agentId: 'claude-code', since: 0 })).stateChanges.events.map((e) => e.kind);
    expect(kinds).toEqual(['child_spawned', 'human_direct_message', 'run_completed']);
    expect(await store.pendingNotices(KEY)).toEqual([]);
  });

  it('T33: PostCompact records compacted, log-only: no watcher is notified (R17)', async () => {
    const { store, call } = setup();
    await store.watch({ watcherSessionKey: WATCHER, targetSessionKey: KEY, agentId: 'claude-code' });
    await call({ ...base, hook_event_name: 'PostCompact', trigger: 'auto', compact_summary: 'text that is never stored' } satisfies PostCompactHookInput);
    const events = (await store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 })).stateChanges.events;
    expect(events.map((e) => [e.kind, e.summary])).toEqual([['compacted', 'context compacted (auto) via claude-agent-sdk']]);
    expect(JSON.stringify(events)).not.toContain('never stored');
    expect(await store.pendingNotices(WATCHER)).toEqual([]);
  });

  it('T34: SessionEnd with reason clear records session_reset (watchers reconcile) and ends the session\'s own watches (R50); other reasons record nothing', async () => {
    const { store, call } = setup();
    await store.watch({ watcherSessionKey: WATCHER, targetSessionKey: KEY, agentId: 'claude-code' });
    await pendingOn(store, KEY, 'agent:ops:other', 'ops');
    await call({ ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' } satisfies SessionEndHookInput);
    expect(await store.stateVersion(KEY, 'claude-code')).toBe(0);
    expect(await store.pendingNotices(KEY)).toHaveLength(1);
    await call({ ...base, hook_event_name: 'SessionEnd', reason: 'clear' } satisfies SessionEndHookInput);
    expect((await store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 })).stateChanges.events.map((e) => e.kind)).toEqual(['session_reset']);
    expect(await store.pendingNotices(WATCHER)).toHaveLength(1);
    expect(await store.pendingNotices(KEY)).toEqual([]);
  });

  it('T30: a failing store or an unusable session id never fails the hook: {} and one log line, nothing written', async () => {
    const { store, logger, call } = setup();
    let writes = 0;
    const record = store.record.bind(store);
    store.record = (input) => (writes++, record(input));
    const bad = await call({ ...base, session_id: 'has "quotes"', hook_event_name: 'UserPromptSubmit', prompt: 'x' } satisfies UserPromptSubmitHookInput);
    expect(bad).toEqual({});
    expect(writes).toBe(0);
    store.record = () => {
      throw new Error('disk full');
    };
    expect(await call({ ...base, hook_event_name: 'SessionStart', source: 'startup' } satisfies SessionStartHookInput)).toEqual({});
    expect(logger.entries.map((e) => e.message)).toEqual([expect.stringMatching(/session_id "has .*quotes.*" does not make a session key \(R1\): ignored, nothing written/), 'claude-agent-sdk hook: SessionStart failed']);
  });

  it('T31: after SessionStart the first prompt neither registers again nor repeats the key line', async () => {
    const { store, call } = setup();
    await call({ ...base, hook_event_name: 'SessionStart', source: 'startup' } satisfies SessionStartHookInput);
    await call(stop);
    const out = await call({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: 'p1' } satisfies UserPromptSubmitHookInput);
    expect(out).toEqual({});
    expect((await store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 })).stateChanges.events.map((e) => e.kind)).toEqual(['created']);
  });
});

describe('claude-agent-sdk hook callbacks: dedupe keys name the agent (T17, T30)', () => {
  it('T30: one Claude Code session under two agents registers and records for both; the default agent keeps the plain claude-code keys the command hook writes', async () => {
    const store = createMemoryStore();
    const logger = memoryLogger();
    const run = async (agentId: string | undefined, input: HookInput) => {
      const kit = createClaudeAgentSdkHooks({ store, logger, ...(agentId === undefined ? {} : { agentId }) });
      for (const m of kit.hooks[input.hook_event_name as HookEvent] ?? []) for (const h of m.hooks as HookCallback[]) await h(input, undefined, { signal: new AbortController().signal });
    };
    const start = { ...base, hook_event_name: 'SessionStart', source: 'startup' } satisfies SessionStartHookInput;
    await run(undefined, start);
    await run('ops', start);
    const defaultCreated = store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 }).stateChanges.events;
    const opsCreated = store.changesSince({ sessionKey: `agent:ops:${SID}`, agentId: 'ops', since: 0 }).stateChanges.events;
    expect(defaultCreated.map((e) => [e.kind, e.dedupeKey])).toEqual([['created', `claude-code:created:${SID}`]]);
    expect(opsCreated.map((e) => [e.kind, e.dedupeKey])).toEqual([['created', `claude-code@ops:created:${SID}`]]);
    expect(logger.entries).toEqual([]);
  });
});

describe('T30 hook callbacks on input the SDK should never send', () => {
  it.each([null, undefined, 42, 'text', [], {}, { hook_event_name: 'UserPromptSubmit' }, { hook_event_name: 'Stop', session_id: null }])('T30 %j: every callback answers {} and logs, never throws', async (input) => {
    const store = createMemoryStore();
    const logger = memoryLogger();
    const { hooks } = createClaudeAgentSdkHooks({ store, logger });
    for (const [event, matchers] of Object.entries(hooks)) {
      for (const callback of matchers!.flatMap((m) => m.hooks)) {
        await expect(callback(input as unknown as HookInput, undefined, { signal: new AbortController().signal }), event).resolves.toEqual({});
      }
    }
    expect(store.changesSince({ sessionKey: KEY, agentId: 'claude-code', since: 0 }).stateChanges.events).toEqual([]);
  });
});
