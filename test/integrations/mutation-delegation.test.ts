import { EventEmitter } from 'node:events';
import type { Agent, Runner, Tool } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { agentIdFromName, trackDelegations } from '../../src/integrations/openai-agents/delegation.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { memoryLogger, type Logger } from '../../src/shared/logger.js';

/**
 * T36: delegation tracking's own decisions, against a runner and agents that emit the SDK's
 * lifecycle events by name (the SDK's dispatch runs in openai-agents-e2e.test.ts): which events
 * open and close a child session, what each record says, a call heard twice, an unknown tool, a
 * listener or store that fails, and detaching.
 */
type FakeAgent = EventEmitter & { name: string; asTool: (o: unknown) => Tool<any> };
const agent = (name: string): FakeAgent => Object.assign(new EventEmitter(), { name, asTool: () => ({ type: 'function', name: `${name}-tool` }) as unknown as Tool<any> });
const ROOT_KEY = 'agent:lead:main';

function setup(o: { logger?: Logger; record?: () => never; onChildSession?: () => void } = {}) {
  const runner = new EventEmitter();
  const store = createMemoryStore();
  const root = agent('Lead');
  let n = 0;
  const logger = o.logger ?? memoryLogger();
  const tracker = trackDelegations(runner as unknown as Runner, {
    store: o.record ? { record: o.record } : store,
    root: { agent: root as unknown as Agent<any, any>, sessionKey: ROOT_KEY },
    newId: () => `id${++n}`,
    logger,
    ...(o.onChildSession ? { onChildSession: o.onChildSession } : {}),
  });
  const events = (key: string) => store.changesSince({ sessionKey: key, agentId: key.split(':')[1]!, since: 0 }).stateChanges.events;
  return { runner, store, root, tracker, logger, events };
}

describe('T36 agent ids from agent names', () => {
  it('T36 characters an agent id cannot hold become -, leading ones go, 64 at most, "agent" when nothing is left', () => {
    expect(agentIdFromName('Research Writer!')).toBe('Research-Writer-');
    expect(agentIdFromName('--_x y')).toBe('x-y');
    expect(agentIdFromName('_.ok')).toBe('ok');
    expect(agentIdFromName('é')).toBe('agent');
    expect(agentIdFromName('')).toBe('agent');
    expect(agentIdFromName('a'.repeat(70))).toBe('a'.repeat(64));
    // A run of such characters is one -.
    expect(agentIdFromName('a  &  b')).toBe('a-b');
  });
});

describe('T36 child sessions for delegated runs', () => {
  it('T36 the root session must be agent-scoped', () => {
    for (const bad of ['main', 'agent:main', '']) {
      expect(() => trackDelegations(new EventEmitter() as unknown as Runner, { store: createMemoryStore(), root: { agent: agent('x') as unknown as Agent<any, any>, sessionKey: bad } })).toThrow(new TypeError(`root.sessionKey must be an agent-scoped key (agent:<agentId>:...), got ${JSON.stringify(bad)}`));
    }
  });

  it('T36 a handoff opens a child session watched by the one that handed off; the agent\'s end closes it', async () => {
    const { runner, root, tracker, store, events } = setup();
    const writer = agent('Writer Bot');
    runner.emit('agent_handoff', {}, root, writer);
    await tracker.settled();
    const child = 'agent:Writer-Bot:subagent:id1';
    expect(tracker.sessionOf(writer as never)).toBe(child);
    expect(tracker.children()).toEqual([{ sessionKey: child, agentId: 'Writer-Bot', parentSessionKey: ROOT_KEY, agent: writer, via: 'handoff' }]);
    expect(events(child)).toMatchObject([{ kind: 'child_spawned', actorType: 'agent', actorId: ROOT_KEY, summary: 'handoff via openai-agents' }]);
    expect(events(child)[0]!.runId).toBeUndefined();
    // R14, R15: the delegating session was passed as watcher: a person's change on the child is its notice.
    store.record({ sessionKey: child, agentId: 'Writer-Bot', kind: 'human_direct_message', actorType: 'human', summary: 'a person' });
    expect(store.pendingNotices(ROOT_KEY).map((n) => n.targetSessionKey)).toEqual([child]);
    // Another agent's end closes nothing; the child's own end closes it once.
    runner.emit('agent_end', {}, agent('Other'));
    runner.emit('agent_end', {}, writer);
    runner.emit('agent_end', {}, writer);
    await tracker.settled();
    expect(events(child).map((e) => [e.kind, e.actorId, e.summary])).toEqual([
      ['child_spawned', ROOT_KEY, 'handoff via openai-agents'],
      ['human_direct_message', undefined, 'a person'],
      ['run_completed', child, 'delegated run ended via openai-agents'],
    ]);
    // A handoff from an agent with no session opens nothing.
    runner.emit('agent_handoff', {}, agent('Stranger'), agent('Nobody'));
    expect(tracker.children()).toHaveLength(1);
  });

  it('T36 a call of a marked agent tool opens a child session with the call id as its runId; its end closes it; a call heard twice opens one', async () => {
    const { runner, root, tracker, events } = setup();
    const worker = agent('Worker');
    const tool = tracker.agentTool(worker as never, {} as never);
    const details = { toolCall: { type: 'function_call', callId: 'call-1' } };
    runner.emit('agent_tool_start', {}, root, tool, details);
    // The worker's own hooks hear the same call: still one child.
    root.emit('agent_tool_start', {}, tool, details);
    runner.emit('agent_tool_start', {}, root, tool, details);
    expect(tracker.children()).toHaveLength(1);
    const child = 'agent:Worker:subagent:id1';
    runner.emit('agent_tool_end', {}, root, tool, 'result', { toolCall: { callId: 'call-other' } });
    runner.emit('agent_tool_end', {}, root, tool, 'result', details);
    runner.emit('agent_tool_end', {}, root, tool, 'result', details);
    await tracker.settled();
    expect(events(child).map((e) => [e.kind, e.summary, e.runId])).toEqual([
      ['child_spawned', 'agent tool call via openai-agents', 'call-1'],
      ['run_completed', 'delegated run ended via openai-agents', undefined],
    ]);
    // A tool that is not a marked agent tool, or a call without an id, opens nothing; the end of an unmarked tool closes nothing.
    runner.emit('agent_tool_start', {}, root, { name: 'plain' }, details);
    runner.emit('agent_tool_end', {}, root, { name: 'plain' }, 'r', details);
    expect(tracker.children()).toHaveLength(1);
    runner.emit('agent_tool_start', {}, root, tool, { toolCall: { type: 'function_call' } });
    expect(tracker.children()).toHaveLength(2);
    expect(tracker.children()[1]!.sessionKey).toBe('agent:Worker:subagent:id2');
    await tracker.settled();
    expect(events('agent:Worker:subagent:id2')[0]!.runId).toBeUndefined();
  });

  it('T36 a call id longer than a runId may be, or empty, is left out of the record', async () => {
    const { runner, root, tracker, events } = setup();
    const tool = tracker.agentTool(agent('W') as never, {} as never);
    runner.emit('agent_tool_start', {}, root, tool, { toolCall: { type: 'function_call', callId: 'x'.repeat(512) } });
    runner.emit('agent_tool_start', {}, root, tool, { toolCall: { type: 'function_call', callId: 'y'.repeat(513) } });
    runner.emit('agent_tool_start', {}, root, tool, { toolCall: { type: 'function_call', callId: '' } });
    await tracker.settled();
    expect(events('agent:W:subagent:id1')[0]!.runId).toBe('x'.repeat(512));
    expect(events('agent:W:subagent:id2')[0]!.runId).toBeUndefined();
    expect(events('agent:W:subagent:id3')[0]!.runId).toBeUndefined();
  });

  it('T36 the worker\'s own hooks open its nested calls in its child session; detach stops both', async () => {
    const { runner, root, tracker } = setup();
    const worker = agent('Worker');
    const inner = agent('Inner');
    const tool = tracker.agentTool(worker as never, {} as never);
    const innerTool = tracker.agentTool(inner as never, {} as never);
    tracker.agentTool(worker as never, {} as never); // listened to once
    expect(worker.listenerCount('agent_tool_start')).toBe(1);
    runner.emit('agent_tool_start', {}, root, tool, { toolCall: { type: 'function_call', callId: 'c1' } });
    worker.emit('agent_tool_start', {}, innerTool, { toolCall: { type: 'function_call', callId: 'c2' } });
    expect(tracker.children().map((c) => [c.sessionKey, c.parentSessionKey])).toEqual([
      ['agent:Worker:subagent:id1', ROOT_KEY],
      ['agent:Inner:subagent:id2', 'agent:Worker:subagent:id1'],
    ]);
    worker.emit('agent_tool_end', {}, innerTool, 'r', { toolCall: { callId: 'c2' } });
    await tracker.settled();
    tracker.detach();
    expect([runner.listenerCount('agent_handoff'), runner.listenerCount('agent_tool_start'), runner.listenerCount('agent_tool_end'), runner.listenerCount('agent_end'), worker.listenerCount('agent_tool_start'), worker.listenerCount('agent_tool_end')]).toEqual([0, 0, 0, 0, 0, 0]);
    runner.emit('agent_handoff', {}, root, agent('Late'));
    expect(tracker.children()).toHaveLength(2);
  });

  it('R9 a store that fails, a listener that throws, a callback that throws: logged, the run goes on', async () => {
    const logger = memoryLogger();
    const failing = setup({
      logger,
      record: () => {
        throw new Error('disk full');
      },
      onChildSession: () => {
        throw new Error('callback broke');
      },
    });
    failing.runner.emit('agent_handoff', {}, failing.root, agent('W'));
    await failing.tracker.settled();
    const badShape = {
      get toolCall(): never {
        throw new Error('not the SDK\'s shape');
      },
    };
    failing.runner.emit('agent_tool_start', {}, failing.root, failing.tracker.agentTool(agent('T') as never, {} as never), badShape);
    expect(logger.entries.map((e) => e.message)).toEqual(['openai-agents: onChildSession threw', 'openai-agents: could not record child_spawned on agent:W:subagent:id1', 'openai-agents: agent_tool_start listener failed']);
    const throwing: Logger = {
      warn: () => {
        throw new Error('logger down');
      },
      error: () => undefined,
    };
    const quiet = setup({
      logger: throwing,
      record: () => {
        throw new Error('disk full');
      },
    });
    quiet.runner.emit('agent_handoff', {}, quiet.root, agent('W'));
    quiet.runner.emit('agent_tool_start', {}, quiet.root, quiet.tracker.agentTool(agent('T') as never, {} as never), badShape);
    await expect(quiet.tracker.settled()).resolves.toBeUndefined();
  });
});

describe('T36 quiet paths: nothing to log', () => {
  it('a handoff without onChildSession, a plain tool, and an agent tool announced without details log nothing', async () => {
    const logger = memoryLogger();
    const { runner, root, tracker } = setup({ logger });
    runner.emit('agent_handoff', {}, root, agent('Writer'));
    const plain = { type: 'function', name: 'search' };
    runner.emit('agent_tool_start', {}, root, plain, { toolCall: { type: 'function_call', callId: 'c1' } });
    runner.emit('agent_tool_end', {}, root, plain, 'done', { toolCall: { callId: 'c1' } });
    const worker = agent('Worker');
    const tool = tracker.agentTool(worker as never, {} as never);
    runner.emit('agent_tool_start', {}, root, tool, {});
    runner.emit('agent_tool_end', {}, root, tool, 'done', {});
    await tracker.settled();
    expect(logger.entries).toEqual([]);
    expect(tracker.children().map((c) => [c.agentId, c.via])).toEqual([
      ['Writer', 'handoff'],
      ['Worker', 'agent-tool'],
    ]);
  });

  it('events announced without details log nothing either, at the runner and at the worker', async () => {
    const logger = memoryLogger();
    const { runner, root, tracker } = setup({ logger });
    const worker = agent('Worker');
    const tool = tracker.agentTool(worker as never, {} as never);
    runner.emit('agent_tool_start', {}, root, tool, undefined);
    runner.emit('agent_tool_end', {}, root, tool, 'done', undefined);
    worker.emit('agent_tool_start', {}, tool, undefined);
    worker.emit('agent_tool_end', {}, tool, 'done', undefined);
    await tracker.settled();
    expect(logger.entries).toEqual([]);
  });
});

describe('T36 R9 a listener that fails is named in the log line', () => {
  it('each of the runner\'s and the worker\'s listeners, by its event', async () => {
    const logger = memoryLogger();
    const { runner, root, tracker } = setup({ logger });
    const worker = agent('Worker');
    const tool = tracker.agentTool(worker as never, {} as never);
    const broken = {
      get toolCall(): never {
        throw new Error('details unreadable');
      },
    };
    runner.emit('agent_tool_start', {}, root, tool, broken);
    runner.emit('agent_tool_end', {}, root, tool, 'done', broken);
    worker.emit('agent_tool_start', {}, tool, broken);
    worker.emit('agent_tool_end', {}, tool, 'done', broken);
    // A handoff whose agent id cannot be made (agentIdOf throws).
    const other = new EventEmitter();
    const failing = trackDelegations(other as unknown as Runner, {
      store: createMemoryStore(),
      root: { agent: root as never, sessionKey: ROOT_KEY },
      agentIdOf: () => {
        throw new Error('no id');
      },
      logger,
    });
    other.emit('agent_handoff', {}, root, agent('Writer'));
    await tracker.settled();
    await failing.settled();
    expect(logger.entries.map((e) => e.message)).toEqual([
      'openai-agents: agent_tool_start listener failed',
      'openai-agents: agent_tool_end listener failed',
      'openai-agents: agent_tool_start listener failed',
      'openai-agents: agent_tool_end listener failed',
      'openai-agents: agent_handoff listener failed',
    ]);
    failing.detach();
  });
});
