import type { HookCallback, HookEvent, HookInput } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { createClaudeAgentSdkHooks } from '../../src/integrations/claude-agent-sdk/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { memoryLogger, type Logger } from '../../src/shared/logger.js';

/**
 * T30-T34: the Agent SDK callbacks' own decisions, one at a time: the agent id refused by name,
 * which events answer with context and in which shape, what a session's end or clear forgets of
 * what it was handed, and a payload or store that fails. claude-agent-sdk-hooks.test.ts runs the
 * conversations.
 */
const SID = '7c1d2e3f-0000-4aaa-8bbb-cccccccccccc';
const base = { session_id: SID, transcript_path: '/tmp/t.jsonl', cwd: '/tmp' };
const LEAD = 'agent:ops:main';

function setup(o: { agentId?: string; logger?: Logger; store?: MemoryStore } = {}) {
  const store = o.store ?? createMemoryStore();
  const logger = memoryLogger();
  const kit = createClaudeAgentSdkHooks({ store, logger: o.logger ?? logger, ...(o.agentId !== undefined ? { agentId: o.agentId } : {}) });
  /** The callback registered for the payload's event (or for `via`, whatever the payload says). */
  const call = async (input: unknown, via?: HookEvent) => {
    const name = via ?? ((input as { hook_event_name?: string } | null)?.hook_event_name as HookEvent | undefined) ?? 'SessionStart';
    const [matcher] = kit.hooks[name] ?? [];
    return (matcher!.hooks[0] as HookCallback)(input as HookInput, undefined, { signal: new AbortController().signal });
  };
  return { store, logger, kit, call, key: kit.sessionKeyOf(SID) };
}

async function changeLead(store: MemoryStore, key: string): Promise<void> {
  await store.watch({ watcherSessionKey: key, targetSessionKey: LEAD, agentId: 'ops' });
  await store.record({ sessionKey: LEAD, agentId: 'ops', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
}

const prompt = (id: string) => ({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: id });

describe('T30-T34 the Agent SDK callbacks, decision by decision', () => {
  it('R1 the agent id is checked when the hooks are made, and names the session keys', () => {
    for (const bad of ['', 'bad id', '-x', 'a'.repeat(65)]) expect(() => createClaudeAgentSdkHooks({ store: createMemoryStore(), agentId: bad })).toThrow(new TypeError(`agentId must be an agent id (R1), got ${JSON.stringify(bad)}`));
    expect(setup().key).toBe(`agent:claude-code:${SID}`);
    expect(setup({ agentId: 'ops.2' }).key).toBe(`agent:ops.2:${SID}`);
    expect(setup().kit.sessionKeyOf('a:b%c')).toBe('agent:claude-code:a%3Ab%25c');
  });

  it('T30 SessionStart, UserPromptSubmit and SubagentStart answer in their own shape; the other events answer {} even with something to say', async () => {
    const { store, call, key, kit } = setup();
    expect(await call({ ...base, hook_event_name: 'SessionStart', source: 'startup' })).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: expect.stringContaining(key) } });
    await changeLead(store, key);
    const out = await call(prompt('p1'));
    expect(out).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: expect.stringContaining(`Session "${LEAD}" changed`) } });
    expect(kit.handedOver(key)).toHaveLength(1);
    const sub = await call({ ...base, hook_event_name: 'SubagentStart', agent_id: 'sub-1', agent_type: 'general' });
    expect(sub).toEqual({ hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: expect.stringContaining(`"agent:claude-code:subagent:${SID}:sub-1"`) } });
    // A compaction owes the key line again, but PostCompact takes no context: nothing is handed.
    expect(await call({ ...base, hook_event_name: 'PostCompact', trigger: 'auto', compact_summary: 's' })).toEqual({});
    expect(await call({ ...base, hook_event_name: 'SubagentStop', agent_id: 'sub-1', agent_type: 'general', agent_transcript_path: '/t', stop_hook_active: false })).toEqual({});
  });

  it('T30 Stop acks exactly what the turn was handed, once; a Stop with nothing handed or of another event acks nothing', async () => {
    const { store, call, key, kit } = setup();
    await changeLead(store, key);
    await call(prompt('p1'));
    expect(await call({ ...base, hook_event_name: 'Stop', stop_hook_active: false, session_id: 'other' })).toEqual({});
    expect(await store.pendingNotices(key)).toHaveLength(1);
    expect(await call({ ...base, hook_event_name: 'Stop', stop_hook_active: false })).toEqual({});
    expect(await store.pendingNotices(key)).toEqual([]);
    expect(kit.handedOver(key)).toEqual([]);
    const stop = kit.hooks.Stop![0]!.hooks[0] as HookCallback;
    expect(await stop({ ...base, hook_event_name: 'SessionStart', source: 'startup' } as HookInput, undefined, { signal: new AbortController().signal })).toEqual({});
  });

  it('T34 a session\'s end forgets what it was handed (the notices stay pending); a clear also ends its watches and registration', async () => {
    const { store, call, key, kit } = setup();
    await call({ ...base, hook_event_name: 'SessionStart', source: 'startup' });
    await changeLead(store, key);
    await call(prompt('p1'));
    expect(await call({ ...base, hook_event_name: 'SessionEnd', reason: 'other' })).toEqual({});
    expect(kit.handedOver(key)).toEqual([]);
    await call({ ...base, hook_event_name: 'Stop', stop_hook_active: false });
    expect(await store.pendingNotices(key)).toHaveLength(1);

    // After an end the session registers again: its next prompt records `created` (a dedupe hit) and hands over again.
    const again = await call(prompt('p2'));
    expect((again as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext).toContain(`Session "${LEAD}" changed`);
    await call({ ...base, hook_event_name: 'SessionEnd', reason: 'clear' });
    expect(kit.handedOver(key)).toEqual([]);
    // R50: the cleared session's own watches are gone, so nothing is pending for it any more.
    expect(await store.pendingNotices(key)).toEqual([]);
  });

  it('T9 a payload that is no object, or a store that fails, is logged and answered {}; a logger that throws changes nothing', async () => {
    const { call, logger } = setup();
    expect(await call(null)).toEqual({});
    expect(await call(5)).toEqual({});
    expect(await call('x')).toEqual({});
    const failing = createMemoryStore();
    (failing as { pendingNotices: unknown }).pendingNotices = () => {
      throw new Error('disk I/O error');
    };
    const broken = setup({ store: failing, logger });
    expect(await broken.call(prompt('p1'))).toEqual({});
    expect(logger.entries.map((e) => e.message)).toEqual([
      'claude-agent-sdk hook: hook input is not an object (null)',
      'claude-agent-sdk hook: hook input is not an object (number)',
      'claude-agent-sdk hook: hook input is not an object (string)',
      'claude-agent-sdk hook: UserPromptSubmit failed',
    ]);
    expect(JSON.stringify(logger.entries[3]!.details)).toContain('disk I/O error');
    const throwing: Logger = {
      warn: () => {
        throw new Error('logger down');
      },
      error: () => {
        throw new Error('logger down');
      },
    };
    expect(await setup({ logger: throwing }).call(null)).toEqual({});
    expect(await setup({ logger: throwing }).call({ ...base, hook_event_name: 'Notification', message: 'm' }, 'SessionStart')).toEqual({});
  });
});

describe('T31 which sessions the callbacks count as registered', () => {
  /** Hooks over a store that counts the `created` records it is asked for (deduplicated or not). */
  function counting() {
    const memory = createMemoryStore();
    const created: string[] = [];
    const store = new Proxy(memory, {
      get(target, prop, receiver) {
        if (prop === 'record') return (input: { kind: string; sessionKey: string }) => (input.kind === 'created' && created.push(input.sessionKey), target.record(input as never));
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const kit = createClaudeAgentSdkHooks({ store });
    const call = (input: Record<string, unknown>) => (kit.hooks[input['hook_event_name'] as HookEvent]![0]!.hooks[0] as HookCallback)(input as unknown as HookInput, undefined, { signal: new AbortController().signal });
    return { created, call, key: (sid: string) => kit.sessionKeyOf(sid) };
  }
  const start = (sid: string) => ({ session_id: sid, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'SessionStart', source: 'startup' });
  const ask = (sid: string, id: string) => ({ session_id: sid, transcript_path: '/tmp/t.jsonl', cwd: '/tmp', hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: id });

  it('a start registers its session, and so does a first prompt: no second created is asked for', async () => {
    const c = counting();
    await c.call(start('s-a'));
    await c.call(ask('s-a', 'p1'));
    expect(c.created).toEqual([c.key('s-a')]);
    await c.call(ask('s-b', 'p1'));
    await c.call(ask('s-b', 'p2'));
    expect(c.created).toEqual([c.key('s-a'), c.key('s-b')]);
  });

  it('at 4,096 sessions the memory of them starts over: a session from before asks for created again', async () => {
    const c = counting();
    for (let i = 0; i < 4096; i++) await c.call(start(`s-${i}`));
    expect(c.created).toHaveLength(4096);
    await c.call(ask('s-0', 'p'));
    expect(c.created).toHaveLength(4096);
    await c.call(start('s-4096'));
    expect(c.created).toHaveLength(4097);
    await c.call(ask('s-1', 'p'));
    expect(c.created).toHaveLength(4098);
    expect(c.created.at(-1)).toBe(c.key('s-1'));
  });
});
