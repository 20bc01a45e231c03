import { describe, expect, it } from 'vitest';
import type { Notice, NoticeAck } from '../../spec/index.js';
import { agentsTool } from '../../src/integrations/openai-agents/tools.js';
import { noticesEveryTurn, noticesItem, runWithNotices, withPendingNotices, type NoticeStore } from '../../src/integrations/openai-agents/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { NOTICES_PREAMBLE, noticesText } from '../../src/tools/text.js';

/**
 * T35, T37, T38: the OpenAI Agents helpers decision by decision, without the SDK's runtime (a
 * runner and agents of the test's own): what goes into a run's input and when, exactly which
 * notices are acked, what a failing store or logger does, and the message for a missing peer.
 */
const MANAGER = 'agent:main:manager';
const CHILD = 'agent:main:child';
const T0 = 1_767_225_600_000;

/** A memory store with one pending notice for `watcher` (about CHILD), and a log of its ack calls. */
function storeWithNotices(watcher = MANAGER, count = 1) {
  let t = T0;
  const memory = createMemoryStore({ now: () => t++ });
  memory.watch({ watcherSessionKey: watcher, targetSessionKey: CHILD, agentId: 'main' });
  for (let i = 0; i < count; i++) {
    const target = i === 0 ? CHILD : `${CHILD}-${i}`;
    if (i > 0) memory.watch({ watcherSessionKey: watcher, targetSessionKey: target, agentId: 'main' });
    memory.record({ sessionKey: target, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person typed' });
  }
  const acks: { key: string; notices: readonly NoticeAck[] }[] = [];
  const reads: string[] = [];
  const store: NoticeStore = {
    pendingNotices: (key) => (reads.push(key), memory.pendingNotices(key)),
    ackNotices: (key, notices) => (acks.push({ key, notices }), memory.ackNotices(key, notices)),
  };
  return { memory, store, acks, reads, touch: (summary: string) => memory.record({ sessionKey: CHILD, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary }) };
}

describe('T37 withPendingNotices', () => {
  it('no notices: the input as given, an ack that calls nothing', async () => {
    const s = storeWithNotices('agent:main:nobody-watches-here', 0);
    const array = [{ role: 'user' as const, content: 'a' }];
    const r = await withPendingNotices(s.store, MANAGER, array);
    expect(r.input).toBe(array);
    expect(r.notices).toEqual([]);
    expect(await r.ack()).toEqual([]);
    expect(s.acks).toEqual([]);
    expect((await withPendingNotices(s.store, MANAGER, 'go on')).input).toBe('go on');
  });

  it('notices go first as one item; a string input becomes a user message, an array is copied, not changed', async () => {
    const s = storeWithNotices();
    const pending = s.memory.pendingNotices(MANAGER);
    const fromString = await withPendingNotices(s.store, MANAGER, 'go on');
    expect(fromString.input).toEqual([noticesItem(pending), { role: 'user', content: 'go on' }]);
    const array = [{ role: 'user' as const, content: 'a' }, { role: 'user' as const, content: 'b' }];
    const fromArray = await withPendingNotices(s.store, MANAGER, array);
    expect(fromArray.input).toEqual([noticesItem(pending), ...array]);
    expect(array).toHaveLength(2);
    expect(fromArray.notices).toEqual(pending);
    // Reading acked nothing; ack() acks exactly what was put in.
    expect(s.acks).toEqual([]);
    expect(await fromArray.ack()).toEqual(pending);
    expect(s.acks).toEqual([{ key: MANAGER, notices: pending }]);
    expect(s.memory.pendingNotices(MANAGER)).toEqual([]);
  });

  it('refuses a session key that is not one, before reading', async () => {
    const s = storeWithNotices();
    await expect(withPendingNotices(s.store, '', 'x')).rejects.toThrow(/sessionKey/);
    expect(s.reads).toEqual([]);
  });

  it('noticesItem is a user message: the preamble line, then the T7 text', () => {
    const s = storeWithNotices();
    const pending = s.memory.pendingNotices(MANAGER);
    expect(noticesItem(pending)).toEqual({ role: 'user', content: `${NOTICES_PREAMBLE}\n${noticesText(pending)}` });
  });
});

describe('T37 runWithNotices', () => {
  it('runs once with the notices in front and the caller\'s options (never streamed), then acks them', async () => {
    const s = storeWithNotices();
    const pending = s.memory.pendingNotices(MANAGER);
    const calls: unknown[][] = [];
    const runner = { run: async (...args: unknown[]) => (calls.push(args), { finalOutput: 'done' }) };
    const agent = { name: 'manager' };
    const r = await runWithNotices(runner as never, agent as never, 'go', { store: s.store, sessionKey: MANAGER, runOptions: { maxTurns: 3, stream: true } });
    expect(calls).toEqual([[agent, [noticesItem(pending), { role: 'user', content: 'go' }], { maxTurns: 3, stream: false }]]);
    expect(r).toEqual({ result: { finalOutput: 'done' }, notices: pending, acked: pending });
    const again = await runWithNotices(runner as never, agent as never, 'more', { store: s.store, sessionKey: MANAGER });
    expect(calls[1]).toEqual([agent, 'more', { stream: false }]);
    expect(again).toEqual({ result: { finalOutput: 'done' }, notices: [], acked: [] });
  });

  it('a run that throws acks nothing', async () => {
    const s = storeWithNotices();
    const runner = { run: async () => Promise.reject(new Error('model down')) };
    await expect(runWithNotices(runner as never, {} as never, 'go', { store: s.store, sessionKey: MANAGER })).rejects.toThrow('model down');
    expect(s.acks).toEqual([]);
    expect(s.memory.pendingNotices(MANAGER)).toHaveLength(1);
  });
});

describe('T38 noticesEveryTurn', () => {
  const modelData = (content: string) => ({ input: [{ role: 'user' as const, content }], instructions: 'be brief' });
  const call = (turns: ReturnType<typeof noticesEveryTurn>, agent: object, data = modelData('hi')) => turns.callModelInputFilter({ modelData: data, agent, context: undefined } as never);

  it('an agent with no session passes through untouched, and nothing is read', async () => {
    const s = storeWithNotices();
    const turns = noticesEveryTurn({ store: s.store, sessionKeyOf: () => undefined });
    const data = modelData('hi');
    expect(await call(turns, {}, data)).toBe(data);
    expect(s.reads).toEqual([]);
    expect(await turns.settle()).toEqual([]);
  });

  it('appends the pending notices to each call, acks what a call was handed at the next call and at settle, once', async () => {
    const s = storeWithNotices();
    const first = s.memory.pendingNotices(MANAGER);
    const manager = { name: 'm' };
    const turns = noticesEveryTurn({ store: s.store, sessionKeyOf: (a) => (a === manager ? MANAGER : undefined) });
    const data = modelData('hi');
    const out1 = (await call(turns, manager, data)) as typeof data;
    expect(out1).toEqual({ ...data, input: [...data.input, noticesItem(first)] });
    expect(data.input).toHaveLength(1);
    expect(s.acks).toEqual([]);
    // The next call: the first call's notices are acked before the next read; a new one is handed.
    s.touch('again');
    const second = s.memory.pendingNotices(MANAGER);
    expect(second).toHaveLength(1);
    const out2 = (await call(turns, manager)) as typeof data;
    expect(s.acks).toEqual([{ key: MANAGER, notices: first }]);
    expect(out2.input.at(-1)).toEqual(noticesItem(s.memory.pendingNotices(MANAGER)));
    // Nothing new: the call goes out as it came, and what was handed is acked.
    const handed = s.memory.pendingNotices(MANAGER);
    const out3 = await call(turns, manager, data);
    expect(out3).toBe(data);
    expect(s.acks.at(-1)).toEqual({ key: MANAGER, notices: handed });
    expect(await turns.settle()).toEqual([]);
    expect(s.acks).toHaveLength(2);
  });

  it('settle acks what each session was last handed, and only once', async () => {
    const a = storeWithNotices();
    a.memory.watch({ watcherSessionKey: 'agent:main:second', targetSessionKey: CHILD, agentId: 'main' });
    a.touch('for both');
    const one = { name: 'one' };
    const two = { name: 'two' };
    const turns = noticesEveryTurn({ store: a.store, sessionKeyOf: (x) => (x === one ? MANAGER : x === two ? 'agent:main:second' : undefined) });
    await call(turns, one);
    await call(turns, two);
    const acked = await turns.settle();
    expect(acked).toHaveLength(2);
    expect(a.acks.map((x) => x.key)).toEqual([MANAGER, 'agent:main:second']);
    // The second session's notice is drained (MANAGER's reopens: work interleaved before its ack, R28).
    expect(a.memory.pendingNotices('agent:main:second')).toEqual([]);
    expect(await turns.settle()).toEqual([]);
    expect(a.acks).toHaveLength(2);
  });

  it('a failing store never fails the call: it goes out as it came, and the failure is logged once', async () => {
    const logs: [string, unknown][] = [];
    const failing: NoticeStore = {
      pendingNotices: () => Promise.reject(new Error('disk I/O error')),
      ackNotices: () => [],
    };
    const turns = noticesEveryTurn({ store: failing, sessionKeyOf: () => MANAGER, logger: { warn: (m: string, d?: unknown) => void logs.push([m, d]), error: () => undefined } as never });
    const data = modelData('hi');
    expect(await call(turns, {}, data)).toBe(data);
    expect(logs).toHaveLength(1);
    expect(logs[0]![0]).toBe(`openai-agents: notices for ${MANAGER} were not added`);
    expect(JSON.stringify(logs[0]![1])).toContain('disk I/O error');
    // A logger that throws is the runtime's code: the call still goes out.
    const throwing = noticesEveryTurn({ store: failing, sessionKeyOf: () => MANAGER, logger: { warn: () => { throw new Error('logger down'); }, error: () => undefined } as never });
    expect(await call(throwing, {}, data)).toBe(data);
    // No logger: silent.
    expect(await call(noticesEveryTurn({ store: failing, sessionKeyOf: () => MANAGER }), {}, data)).toBe(data);
  });
});

describe('T35 the peer package', () => {
  const missing = (code: string) => () => {
    throw Object.assign(new Error(`Cannot find module '@openai/agents'`), { code });
  };
  it.each(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'])('%s: says what to install, with the loader\'s error as the cause', (code) => {
    let thrown: unknown;
    try {
      agentsTool(missing(code));
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toBe('session-state-kit/openai-agents needs its peer @openai/agents: npm install @openai/agents@^0.20.0 (it needs Node 22 or later)');
    expect(((thrown as Error).cause as { code: string }).code).toBe(code);
  });

  it('any other failure of the loader passes through as it is', () => {
    const other = Object.assign(new Error('syntax error in the peer'), { code: 'ERR_REQUIRE_ESM' });
    expect(() => agentsTool(() => {
      throw other;
    })).toThrow(other);
    expect(() => agentsTool(() => {
      throw new Error('no code');
    })).toThrow('no code');
  });

  it('takes the peer\'s tool function; the default loader finds the installed peer', () => {
    const tool = () => 'made';
    expect(agentsTool(() => ({ tool }))).toBe(tool);
    expect(typeof agentsTool()).toBe('function');
  });
});
