import { Agent, Runner } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import type { StateEvent } from '../../spec/index.js';
import { parseNoticeText } from '../../src/core/index.js';
import { noticesEveryTurn, runWithNotices, sessionFunctionTools, trackDelegations } from '../../src/integrations/openai-agents/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { ScriptedModel, ScriptedProvider, callTool, inputTexts, lastToolOutput, say } from './scripted-model.js';

/**
 * The SDK's real Runner with scripted models, offline: a manager hands work to a worker (an agent
 * used as a tool), a person writes to the worker while it works, and the manager's next run gets
 * exactly one notice, calls session_status with changesSince through the SDK's tool-call path, and
 * reads the person's message as a typed event.
 */
const MANAGER = 'agent:manager:main';

function scenario() {
  const store = createMemoryStore();
  const recorded: StateEvent[] = [];
  const record = store.record.bind(store);
  store.record = (input) => {
    const event = record(input);
    if (event !== undefined) recorded.push(event);
    return event;
  };
  let n = 0;
  const provider = new ScriptedProvider();
  const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
  const worker = new Agent({ name: 'worker', instructions: 'Do the work.', model: 'worker-model' });
  const manager = new Agent({ name: 'manager', instructions: 'Delegate.', model: 'manager-model' });
  const tracker = trackDelegations(runner, { store, root: { agent: manager, sessionKey: MANAGER }, newId: () => `run-${++n}` });
  manager.tools = [tracker.agentTool(worker, { toolName: 'delegate_to_worker', toolDescription: 'Hand the work to the worker.' }), ...sessionFunctionTools({ store, defaultAgentId: 'manager' })];
  return { store, recorded, provider, runner, worker, manager, tracker };
}

describe('openai-agents end to end with the SDK Runner and a scripted model (offline)', () => {
  it('T35 T36 T37: the worker run is a child session (R14); a person writes to it; the next manager run gets one notice and reconciles through session_status', async () => {
    const { store, recorded, provider, runner, worker, manager, tracker } = scenario();
    const workerModel = new ScriptedModel(async () => {
      // The person writes to the worker mid-task, twice: still one notice for the manager (R24).
      const key = tracker.sessionOf(worker)!;
      await tracker.settled();
      for (const n of [1, 2]) await store.record({ sessionKey: key, agentId: 'worker', kind: 'human_direct_message', actorType: 'human', summary: `human message via telegram (${n})`, payload: { channel: 'telegram' } });
      return [say('worker done')];
    });
    let noticeSeen: { targetSessionKey: string; lastSeenSequence: number } | undefined;
    const managerModel = new ScriptedModel((request) => {
      const status = lastToolOutput(request, 'session_status');
      if (status !== undefined) return [say(`reconciled:\n${status}`)];
      const notices = inputTexts(request).flatMap((t) => t.split('\n')).flatMap((line) => parseNoticeText(line) ?? []);
      if (notices.length > 0) {
        expect(notices).toHaveLength(1);
        noticeSeen = notices[0]!;
        return [callTool('call_status', 'session_status', { sessionKey: noticeSeen.targetSessionKey, changesSince: noticeSeen.lastSeenSequence })];
      }
      if (lastToolOutput(request, 'delegate_to_worker') !== undefined) return [say('delegated')];
      return [callTool('call_worker', 'delegate_to_worker', { input: 'do the work' })];
    });
    Object.assign(provider.models, { 'manager-model': managerModel, 'worker-model': workerModel });

    // Run 1: the manager delegates; the worker runs in its own session.
    const first = await runner.run(manager, 'start the job');
    expect(first.finalOutput).toBe('delegated');
    await tracker.settled();
    const [child] = tracker.children();
    expect(child).toMatchObject({ sessionKey: 'agent:worker:subagent:run-1', agentId: 'worker', parentSessionKey: MANAGER, via: 'agent-tool' });
    expect(recorded.filter((e) => e.sessionKey === child!.sessionKey).map((e) => [e.kind, e.actorType])).toEqual([
      ['child_spawned', 'agent'],
      ['human_direct_message', 'human'],
      ['human_direct_message', 'human'],
      ['run_completed', 'agent'],
    ]);
    const spawn = recorded.find((e) => e.kind === 'child_spawned')!;
    expect(spawn).toMatchObject({ actorId: MANAGER, runId: 'call_worker' });

    // Run 2: the manager's next turn gets exactly one notice, quoting the spawn (R14 seed).
    const { result, notices, acked } = await runWithNotices(runner, manager, 'any news?', { store, sessionKey: MANAGER });
    expect(notices.map((x) => [x.targetSessionKey, x.lastSeenSequence])).toEqual([[child!.sessionKey, spawn.sequence]]);
    expect(noticeSeen).toEqual({ targetSessionKey: child!.sessionKey, lastSeenSequence: spawn.sequence });
    expect(acked).toHaveLength(1);
    // session_status ran through the SDK's tool-call path; the person's message is a typed event (T3).
    const messages = recorded.filter((e) => e.kind === 'human_direct_message');
    expect(result.finalOutput).toBe(
      [
        'reconciled:',
        `Session "${child!.sessionKey}": stateVersion ${messages[1]!.sequence + 1}.`,
        `3 changes since ${spawn.sequence}:`,
        `#${messages[0]!.sequence} human_direct_message by human: human message via telegram (1) [channel=telegram]`,
        `#${messages[1]!.sequence} human_direct_message by human: human message via telegram (2) [channel=telegram]`,
        `#${messages[1]!.sequence + 1} run_completed by agent "${child!.sessionKey}": delegated run ended via openai-agents`,
      ].join('\n'),
    );
    // R28: the second message came after the watermark froze: one follow-up, quoting the first.
    expect((await store.pendingNotices(MANAGER)).map((x) => x.lastSeenSequence)).toEqual([messages[0]!.sequence]);
  });

  it('T37: a run that throws acks nothing; the notices stay pending for the next run', async () => {
    const { store, provider, runner, manager } = scenario();
    await store.record({ sessionKey: 'agent:worker:subagent:x', agentId: 'worker', kind: 'child_spawned', actorType: 'agent', actorId: MANAGER, summary: 'spawned', watchers: [MANAGER] });
    await store.record({ sessionKey: 'agent:worker:subagent:x', agentId: 'worker', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
    const failing = new ScriptedModel(() => {
      throw new Error('model down');
    });
    provider.models['manager-model'] = failing;
    await expect(runWithNotices(runner, manager, 'hi', { store, sessionKey: MANAGER })).rejects.toThrow('model down');
    expect(inputTexts(failing.requests[0]!).some((t) => t.includes('changed (other actor)'))).toBe(true);
    expect(await store.pendingNotices(MANAGER)).toHaveLength(1);
  });

  it('T35: bad arguments come back to the model as "Invalid arguments" naming the field (T1)', async () => {
    const { provider, runner, manager } = scenario();
    const model = new ScriptedModel((request, call) => (call === 1 ? [callTool('c1', 'session_status', { sessionKey: 'agent:x:y', changesSince: -1 })] : [say(lastToolOutput(request, 'session_status') ?? '')]));
    provider.models['manager-model'] = model;
    const result = await runner.run(manager, 'check');
    expect(result.finalOutput).toMatch(/^Invalid arguments: changesSince: /);
  });

  it('T36: a handoff opens a child session for the agent handed to, seeded for the delegating session (R14), ended as run_completed when that agent ends', async () => {
    const store = createMemoryStore();
    const provider = new ScriptedProvider();
    const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
    const worker = new Agent({ name: 'worker bee', instructions: 'Work.', model: 'worker-model' });
    const manager = new Agent({ name: 'manager', instructions: 'Hand off.', model: 'manager-model', handoffs: [worker] });
    const tracker = trackDelegations(runner, { store, root: { agent: manager, sessionKey: MANAGER }, newId: () => 'h1' });
    provider.models['manager-model'] = new ScriptedModel((request) => [callTool('call_h', request.handoffs[0]!.toolName, {})]);
    provider.models['worker-model'] = new ScriptedModel(async () => {
      await tracker.settled();
      await store.record({ sessionKey: tracker.sessionOf(worker)!, agentId: 'worker-bee', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
      return [say('done by the worker')];
    });
    const result = await runner.run(manager, 'go');
    expect(result.finalOutput).toBe('done by the worker');
    await tracker.settled();
    expect(tracker.children().map((c) => [c.sessionKey, c.agentId, c.parentSessionKey, c.via])).toEqual([['agent:worker-bee:subagent:h1', 'worker-bee', MANAGER, 'handoff']]);
    const events = (await store.changesSince({ sessionKey: 'agent:worker-bee:subagent:h1', agentId: 'worker-bee', since: 0 })).stateChanges.events;
    expect(events.map((e) => e.kind)).toEqual(['child_spawned', 'goal_changed', 'run_completed']);
    expect((await store.pendingNotices(MANAGER)).map((n) => [n.targetSessionKey, n.lastSeenSequence])).toEqual([['agent:worker-bee:subagent:h1', events[0]!.sequence]]);
    tracker.detach();
  });

  it('T36: an agent tool called inside a delegated agent-tool run (a Runner of its own) opens a child of the worker\'s session, not of the manager\'s', async () => {
    const store = createMemoryStore();
    const provider = new ScriptedProvider();
    const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
    const helper = new Agent({ name: 'helper', instructions: 'Help.', model: 'helper-model' });
    const worker = new Agent({ name: 'worker', instructions: 'Work.', model: 'worker-model' });
    const manager = new Agent({ name: 'manager', instructions: 'Delegate.', model: 'manager-model' });
    let n = 0;
    const tracker = trackDelegations(runner, { store, root: { agent: manager, sessionKey: MANAGER }, newId: () => `r${++n}` });
    manager.tools = [tracker.agentTool(worker, { toolName: 'to_worker', toolDescription: 'worker' })];
    worker.tools = [tracker.agentTool(helper, { toolName: 'to_helper', toolDescription: 'helper' })];
    const delegateThenSay = (tool: string, text: string) => new ScriptedModel((request) => (lastToolOutput(request, tool) === undefined ? [callTool(`call_${tool}`, tool, { input: 'go' })] : [say(text)]));
    provider.models['manager-model'] = delegateThenSay('to_worker', 'manager done');
    provider.models['worker-model'] = delegateThenSay('to_helper', 'worker done');
    provider.models['helper-model'] = new ScriptedModel(async () => {
      await tracker.settled();
      await store.record({ sessionKey: tracker.sessionOf(helper)!, agentId: 'helper', kind: 'human_direct_message', actorType: 'human', summary: 'human message via chat' });
      return [say('helper done')];
    });
    expect((await runner.run(manager, 'go')).finalOutput).toBe('manager done');
    await tracker.settled();
    expect(tracker.children().map((c) => [c.sessionKey, c.parentSessionKey])).toEqual([
      ['agent:worker:subagent:r1', MANAGER],
      ['agent:helper:subagent:r2', 'agent:worker:subagent:r1'],
    ]);
    const helperEvents = (await store.changesSince({ sessionKey: 'agent:helper:subagent:r2', agentId: 'helper', since: 0 })).stateChanges.events;
    expect(helperEvents.map((e) => e.kind)).toEqual(['child_spawned', 'human_direct_message', 'run_completed']);
    // The worker (a sub-agent session: wake next-turn, R25) hears of it; the manager does not.
    expect((await store.pendingNotices('agent:worker:subagent:r1')).map((x) => [x.targetSessionKey, x.wake])).toEqual([['agent:helper:subagent:r2', 'next-turn']]);
    expect(await store.pendingNotices(MANAGER)).toEqual([]);
    tracker.detach();
  });

  it('T38: within one run, the manager\'s next model call after the worker returned carries exactly one notice; it reconciles, and the notice is acked by the following call', async () => {
    const { store, recorded, provider, runner, worker, manager, tracker } = scenario();
    const turns = noticesEveryTurn({ store, sessionKeyOf: tracker.sessionOf });
    provider.models['worker-model'] = new ScriptedModel(async () => {
      await tracker.settled();
      await store.record({ sessionKey: tracker.sessionOf(worker)!, agentId: 'worker', kind: 'human_direct_message', actorType: 'human', summary: 'human message via telegram' });
      return [say('worker done')];
    });
    const noticesPerCall: number[] = [];
    provider.models['manager-model'] = new ScriptedModel((request) => {
      const notices = inputTexts(request).flatMap((t) => t.split('\n')).flatMap((line) => parseNoticeText(line) ?? []);
      noticesPerCall.push(notices.length);
      const status = lastToolOutput(request, 'session_status');
      if (status !== undefined) return [say(status)];
      if (notices.length > 0) return [callTool('call_status', 'session_status', { sessionKey: notices[0]!.targetSessionKey, changesSince: notices[0]!.lastSeenSequence })];
      return [callTool('call_worker', 'delegate_to_worker', { input: 'do the work' })];
    });
    const result = await runner.run(manager, 'start the job', { callModelInputFilter: turns.callModelInputFilter });
    // Call 1 delegates; call 2 (the next turn, same run) has the notice; call 3 has none: call 2's was acked.
    expect(noticesPerCall).toEqual([0, 1, 0]);
    const message = recorded.find((e) => e.kind === 'human_direct_message')!;
    expect(String(result.finalOutput)).toContain(`#${message.sequence} human_direct_message by human: human message via telegram`);
    expect(await store.pendingNotices(MANAGER)).toEqual([]);
    expect(await turns.settle()).toEqual([]);
  });

  it('T38: a store that fails while notices are read does not fail the run; the call goes out without notices', async () => {
    const { store, provider, runner, manager, tracker } = scenario();
    store.pendingNotices = () => {
      throw new Error('store down');
    };
    const turns = noticesEveryTurn({ store, sessionKeyOf: tracker.sessionOf });
    provider.models['manager-model'] = new ScriptedModel(() => [say('fine')]);
    expect((await runner.run(manager, 'hi', { callModelInputFilter: turns.callModelInputFilter })).finalOutput).toBe('fine');
  });
});
