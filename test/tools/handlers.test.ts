import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/memory/index.js';
import {
  SESSIONS_LIST_BATCH,
  TOOL_NAMES,
  UnknownToolError,
  annotateSessionsList,
  createSessionTools,
  sessionNotices,
  sessionStatus,
  sessionUnwatch,
  sessionWatch,
  watchAfterSend,
  type ToolStore,
} from '../../src/tools/index.js';
import { spied } from './spied-store.js';

const T0 = 1_767_225_600_000;
const WORKER = 'agent:main:worker';
const LEAD = 'agent:main:lead';


function memory(now = T0) {
  return createMemoryStore({ now: () => now });
}

describe('T1 bad arguments reach no store method', () => {
  const bad: [string, unknown][] = [
    ['session_status', { sessionKey: WORKER, changesSince: -1 }],
    ['session_status', { sessionKey: WORKER, extra: 1 }],
    ['session_watch', { watcherSessionKey: LEAD, targetSessionKey: 'agent:main:\ud800' }],
    ['session_watch', { watcherSessionKey: LEAD, targetSessionKey: WORKER, agentId: 'ops' }],
    ['session_unwatch', { watcherSessionKey: LEAD }],
    ['session_notices', { watcherSessionKey: 42 }],
    ['session_notices', null],
  ];
  it.each(bad)('T1 %s %j is a ValidationError and calls nothing', async (tool, args) => {
    const { store, calls } = spied(memory());
    const tools = createSessionTools({ store });
    await expect(tools.call(tool, args)).rejects.toMatchObject({ name: 'ValidationError' });
    expect(calls).toEqual([]);
  });

  it('T1 an unknown tool, and sessions_list without a session source, are UnknownToolError', async () => {
    const tools = createSessionTools({ store: memory() });
    await expect(tools.call('sessions_send', {})).rejects.toBeInstanceOf(UnknownToolError);
    await expect(tools.call('sessions_list', {})).rejects.toBeInstanceOf(UnknownToolError);
    expect(tools.definitions.map((d) => d.name)).toEqual(TOOL_NAMES.filter((n) => n !== 'sessions_list'));
  });

  it('T1 listed input schemas are the committed spec/json files', () => {
    const tools = createSessionTools({ store: memory(), listSessions: () => [] });
    for (const d of tools.definitions) {
      const file = `tool-${d.name.replace(/_/g, '-')}-args.json`;
      expect(d.inputSchema, file).toEqual(JSON.parse(readFileSync(join(import.meta.dirname, '../../spec/json', file), 'utf8')));
    }
  });

  it('T1 no arguments at all count as {}', async () => {
    const tools = createSessionTools({ store: memory(), listSessions: () => [{ sessionKey: WORKER }] });
    const out = await tools.call('sessions_list', undefined);
    expect(out.text).toBe('1 session:\n"agent:main:worker"');
    expect(out.result.sessions).toEqual([{ sessionKey: WORKER }]); // typed by the tool's name
  });
});

describe('T2 the agent of a key', () => {
  it('T2 an agent-scoped key names its agent; a bare key takes the runtime default', async () => {
    const store = memory();
    store.record({ sessionKey: 'main', agentId: 'ops', kind: 'created', actorType: 'system', summary: 'session created' });
    expect((await sessionStatus({ store, defaultAgentId: 'ops' }, { sessionKey: 'main' })).result).toEqual({ sessionKey: 'main', agentId: 'ops', stateVersion: 1 });
    expect((await sessionStatus({ store, defaultAgentId: 'ops' }, { sessionKey: WORKER })).result.agentId).toBe('main');
  });
  it('T2 a mismatched agent is code mismatch, a bare key without any agent is code required', async () => {
    const store = memory();
    await expect(sessionStatus({ store }, { sessionKey: WORKER, agentId: 'ops' })).rejects.toMatchObject({ field: 'agentId', code: 'mismatch' });
    await expect(sessionStatus({ store }, { sessionKey: 'main' })).rejects.toMatchObject({ field: 'agentId', code: 'required' });
  });
  it('T2 a bad default agent is refused when the tools are created', () => {
    expect(() => createSessionTools({ store: memory(), defaultAgentId: 'no spaces' })).toThrow(expect.objectContaining({ field: 'defaultAgentId' }));
  });
});

describe('T3 session_status over an async store', () => {
  it('T3 awaits a store whose methods return promises', async () => {
    const inner = memory();
    inner.record({ sessionKey: WORKER, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const store = new Proxy(inner, {
      get: (t, p, r) => {
        const v = Reflect.get(t, p, r) as unknown;
        return typeof v === 'function' ? (...a: unknown[]) => Promise.resolve((v as (...x: unknown[]) => unknown).apply(t, a)) : v;
      },
    });
    const out = await sessionStatus({ store }, { sessionKey: WORKER, changesSince: 0 });
    expect(out.text).toBe('Session "agent:main:worker": stateVersion 1.\n1 change since 0:\n#1 goal_changed by human: goal updated');
  });
});

describe('T4 sessions_list', () => {
  it('T4 heads are read in bounded concurrent batches, rows keep their order', async () => {
    let inFlight = 0;
    let peak = 0;
    const store = {
      stateVersion: async (key: string) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return Number(key.split(':')[2]) % 3; // 0 for every third row
      },
    } as unknown as ToolStore;
    const rows = Array.from({ length: 200 }, (_, i) => ({ sessionKey: `agent:main:${i}`, n: i }));
    const { result } = await annotateSessionsList({ store }, rows);
    expect(peak).toBe(SESSIONS_LIST_BATCH);
    expect(result.sessions.map((r) => r.n)).toEqual(rows.map((r) => r.n));
    expect(result.sessions[3]).toEqual({ sessionKey: 'agent:main:3', n: 3 });
    expect(result.sessions[4]).toEqual({ sessionKey: 'agent:main:4', n: 4, stateVersion: 1 });
  });
  it('T4 a stale stateVersion on an input row, whatever its value, is dropped when the head is 0', async () => {
    const rows = [{ sessionKey: WORKER, stateVersion: 7 }, { sessionKey: LEAD, stateVersion: 0 }, { sessionKey: 'agent:main:x', stateVersion: 'old' }];
    const { result, text } = await annotateSessionsList({ store: memory() }, rows);
    expect(result.sessions).toEqual([{ sessionKey: WORKER }, { sessionKey: LEAD }, { sessionKey: 'agent:main:x' }]);
    expect(text).toBe('3 sessions:\n"agent:main:worker"\n"agent:main:lead"\n"agent:main:x"');
  });
  it('T4 a row that names no session is a ValidationError on that row', async () => {
    await expect(annotateSessionsList({ store: memory() }, [{ sessionKey: WORKER }, null as never])).rejects.toMatchObject({ field: 'rows.1' });
    await expect(annotateSessionsList({ store: memory() }, [{ sessionKey: 'main', agentId: 'a b' }])).rejects.toMatchObject({ field: 'rows.0.agentId' });
  });
});

describe('T5 session_watch and watchAfterSend', () => {
  it('T5 without watch: true nothing is registered and no watched field is added', async () => {
    const { store, calls } = spied(memory());
    expect(await watchAfterSend({ store }, { dispatched: true, watcherSessionKey: LEAD, targetSessionKey: WORKER })).toBeUndefined();
    expect(await watchAfterSend({ store }, { watch: false, dispatched: true, watcherSessionKey: LEAD, targetSessionKey: WORKER })).toBeUndefined();
    expect(calls).toEqual([]);
  });
  it('T5 an undelivered message registers nothing and says so', async () => {
    const { store, calls } = spied(memory());
    const out = await watchAfterSend({ store }, { watch: true, dispatched: false, watcherSessionKey: LEAD, targetSessionKey: WORKER });
    expect(out).toEqual({ result: { watched: false, reason: 'not-dispatched' }, text: 'Not watching "agent:main:worker": the message was not delivered.' });
    expect(calls).toEqual([]);
  });
  it('T5 a delivered message registers the sender on the receiving session', async () => {
    const store = memory();
    const out = await watchAfterSend({ store }, { watch: true, dispatched: true, watcherSessionKey: LEAD, targetSessionKey: WORKER });
    expect(out?.result).toEqual({ watched: true, stateVersion: 0 });
    store.record({ sessionKey: WORKER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via web' });
    expect(store.pendingNotices(LEAD)).toHaveLength(1);
  });
  it('T5 bad arguments to watchAfterSend are ValidationErrors, even without watch', async () => {
    await expect(watchAfterSend({ store: memory() }, { watch: 'yes' as never, dispatched: true, watcherSessionKey: LEAD, targetSessionKey: WORKER })).rejects.toMatchObject({ field: 'watch' });
    await expect(watchAfterSend({ store: memory() }, { watch: true, dispatched: false, watcherSessionKey: LEAD, targetSessionKey: '' })).rejects.toMatchObject({ field: 'targetSessionKey' });
  });
  it('T5 a store that answers watched: false is reported as unavailable', async () => {
    const store = memory();
    const failing = Object.assign(Object.create(store) as ToolStore, { watch: () => ({ watched: false }) });
    const out = await sessionWatch({ store: failing }, { watcherSessionKey: LEAD, targetSessionKey: WORKER });
    expect(out.result).toEqual({ watched: false, reason: 'unavailable' });
    expect(out.text).toBe('Not watching "agent:main:worker": the state store is unavailable; try again later.');
  });
});

describe('T6 session_unwatch', () => {
  it('T6 calls the store unwatch with the derived agent and renders both answers', async () => {
    const seen: unknown[] = [];
    const store = Object.assign(Object.create(memory()) as ToolStore, {
      unwatch: (r: unknown) => (seen.push(r), { unwatched: seen.length === 1 }),
    });
    expect((await sessionUnwatch({ store }, { watcherSessionKey: LEAD, targetSessionKey: WORKER })).text).toBe('Stopped watching "agent:main:worker".');
    expect((await sessionUnwatch({ store }, { watcherSessionKey: LEAD, targetSessionKey: 'global', agentId: 'ops' })).text).toBe('Not watching "global" (agent ops): nothing to stop.');
    expect(seen).toEqual([
      { watcherSessionKey: LEAD, targetSessionKey: WORKER, agentId: 'main' },
      { watcherSessionKey: LEAD, targetSessionKey: 'global', agentId: 'ops' },
    ]);
  });
  it('T6 on a real store, the pending notice goes with the watch', async () => {
    const store = memory();
    await sessionWatch({ store }, { watcherSessionKey: LEAD, targetSessionKey: WORKER });
    await store.record({ sessionKey: WORKER, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    expect((await sessionUnwatch({ store }, { watcherSessionKey: LEAD, targetSessionKey: WORKER })).result).toEqual({ unwatched: true });
    expect((await sessionNotices({ store }, { watcherSessionKey: LEAD })).text).toBe('No pending notices.');
    expect((await sessionUnwatch({ store }, { watcherSessionKey: LEAD, targetSessionKey: WORKER })).result).toEqual({ unwatched: false });
  });
});

describe('T7 session_notices', () => {
  it('T7 drains: the notice is delivered once', async () => {
    const store = memory();
    store.watch({ watcherSessionKey: LEAD, targetSessionKey: WORKER, agentId: 'main' });
    store.record({ sessionKey: WORKER, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const first = await sessionNotices({ store }, { watcherSessionKey: LEAD });
    expect(first.result.notices).toHaveLength(1);
    expect(first.text).toBe('Session "agent:main:worker" changed (other actor). Reconcile before acting: session_status sessionKey "agent:main:worker" changesSince 0.');
    expect((await sessionNotices({ store }, { watcherSessionKey: LEAD })).text).toBe('No pending notices.');
  });
});
