/**
 * The tool registry's own decisions, each held by its observable effect: which tools are offered
 * and with which schema (T1, T13), T14's turning of a degraded answer into StoreUnavailableError
 * per tool, the bound caller filling in the watcher (T13), the page cursor's encoding (T15), the
 * keyed page's handling of rows it cannot show (T4) and of a source that repeats itself, and the
 * runtime's own spawn tree (T12).
 */
import { describe, expect, it } from 'vitest';
import type { SessionStateStore } from '../../spec/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { StoreUnavailableError, UnknownToolError, annotateSessionsList, checkCaller, createSessionTools, isForbiddenError, resolveAgentId, watchAfterSend, type ToolStore } from '../../src/tools/index.js';

const T0 = 1_767_225_600_000;
const LEAD = 'agent:main:lead';
const WORKER = 'agent:main:worker';

/** A store whose every call counts as a logged failure while `failing` is set (T14's storeFailures). */
function flaky(store: SessionStateStore) {
  const state = { failing: false, failures: 0 };
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.failing) state.failures++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy as ToolStore, state, storeFailures: () => state.failures };
}

const warnings = () => {
  const seen: { message: string; details?: Record<string, unknown> }[] = [];
  return { seen, logger: { warn: (message: string, details?: Record<string, unknown>) => void seen.push({ message, ...(details ? { details } : {}) }) } };
};

describe('T1, T13: what is offered', () => {
  it('sessions_list is offered only with a session listing, and a tool not offered is UnknownToolError naming it', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const without = createSessionTools({ store });
    expect(without.definitions.map((d) => d.name)).toEqual(['session_status', 'session_watch', 'session_unwatch', 'session_notices']);
    const error = await without.call('sessions_list', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownToolError);
    expect((error as UnknownToolError).tool).toBe('sessions_list');
    await expect(without.call('session_teleport', {})).rejects.toMatchObject({ name: 'UnknownToolError', tool: 'session_teleport' });
    for (const extra of [{ listSessions: () => [] }, { listSessionsPage: () => [] }]) {
      expect(createSessionTools({ store, ...extra }).definitions.map((d) => d.name)).toContain('sessions_list');
    }
    // Every definition carries its description and an object schema.
    for (const d of without.definitions) {
      expect(d.description.length).toBeGreaterThan(20);
      expect(d.inputSchema['type']).toBe('object');
    }
  });

  it('T13: bound, watcherSessionKey is optional and says why; unbound, it is required', () => {
    const store = createMemoryStore({ now: () => T0 });
    const unbound = createSessionTools({ store });
    const bound = createSessionTools({ store, caller: LEAD });
    expect(unbound.caller).toBeUndefined();
    expect(bound.caller).toMatchObject({ sessionKey: LEAD });
    const schemaOf = (tools: typeof bound, name: string) => tools.definitions.find((d) => d.name === name)!.inputSchema as { required?: string[]; properties: Record<string, { description?: string }> };
    expect(schemaOf(unbound, 'session_watch').required).toContain('watcherSessionKey');
    expect(schemaOf(bound, 'session_watch').required ?? []).not.toContain('watcherSessionKey');
    expect(schemaOf(bound, 'session_watch').required).toContain('targetSessionKey');
    expect(schemaOf(bound, 'session_watch').properties['watcherSessionKey']!.description).toMatch(/^Optional: this server is bound to your session/);
    // session_notices requires only the watcher: bound, nothing is required at all.
    expect(schemaOf(bound, 'session_notices').required).toBeUndefined();
    expect(schemaOf(unbound, 'session_notices').required).toEqual(['watcherSessionKey']);
  });

  it('a bad defaultAgentId is refused by name; a good one places a bare key', async () => {
    const store = createMemoryStore({ now: () => T0 });
    expect(() => createSessionTools({ store, defaultAgentId: 'Not An Id' })).toThrow(expect.objectContaining({ name: 'ValidationError', field: 'defaultAgentId' }));
    await store.record({ sessionKey: 'cron-job', agentId: 'ops', kind: 'human_direct_message', actorType: 'human', summary: 'a person wrote' });
    const tools = createSessionTools({ store, defaultAgentId: 'ops' });
    expect((await tools.call('session_status', { sessionKey: 'cron-job' })).result).toMatchObject({ agentId: 'ops', stateVersion: 1 });
    // Without it, the bare key belongs to no agent the store knows.
    await expect(createSessionTools({ store }).call('session_status', { sessionKey: 'cron-job' })).rejects.toMatchObject({ name: 'ValidationError', field: 'agentId' });
  });
});

describe('T13: the bound caller is the watcher', () => {
  it('a call without watcherSessionKey acts for the caller; a call naming the caller acts the same', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const tools = createSessionTools({ store, caller: LEAD, visibility: 'agent' });
    await tools.call('session_watch', { targetSessionKey: WORKER });
    await store.record({ sessionKey: WORKER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person wrote' });
    expect((await store.pendingNotices(LEAD)).map((n) => n.targetSessionKey)).toEqual([WORKER]);
    const mine = await tools.call('session_notices', { watcherSessionKey: LEAD });
    expect(mine.result.notices.map((n) => n.targetSessionKey)).toEqual([WORKER]);
    await tools.call('session_unwatch', { targetSessionKey: WORKER });
    await store.record({ sessionKey: WORKER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person wrote again' });
    expect(await store.pendingNotices(LEAD)).toEqual([]);
    // Arguments that are no object are left as they are, and refused by the schema by name.
    await expect(tools.call('session_notices', [LEAD])).rejects.toMatchObject({ name: 'ValidationError' });
    await expect(tools.call('session_watch', 'agent:main:worker')).rejects.toMatchObject({ name: 'ValidationError' });
  });
});

describe('T14: a degraded answer is not the state', () => {
  async function setUp() {
    const base = createMemoryStore({ now: () => T0 });
    await base.record({ sessionKey: WORKER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person wrote' });
    const f = flaky(base);
    const tools = createSessionTools({ store: f.store, storeFailures: f.storeFailures, listSessions: () => [{ sessionKey: WORKER }] });
    return { base, ...f, tools };
  }

  it('the fallback answers fail with StoreUnavailableError (code unavailable, the tool named, a text for the model) only while failures move', async () => {
    const { state, tools } = await setUp();
    state.failing = true;
    const fallbacks: [string, unknown][] = [
      ['session_status', { sessionKey: 'agent:main:nobody' }],
      ['sessions_list', {}],
      ['session_unwatch', { watcherSessionKey: LEAD, targetSessionKey: WORKER }],
      ['session_notices', { watcherSessionKey: LEAD }],
    ];
    for (const [tool, args] of fallbacks) {
      const error = await tools.call(tool, args).catch((e: unknown) => e);
      expect(error, tool).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ code: 'unavailable', tool });
      expect((error as StoreUnavailableError).text.length).toBeGreaterThan(10);
    }
    state.failing = false;
    for (const [tool, args] of fallbacks) await expect(tools.call(tool, args), tool).resolves.toBeDefined();
  });

  it('a real answer stands although failures moved: a version, an unwatch that happened, a drained notice; session_watch is never converted', async () => {
    const { base, state, tools } = await setUp();
    await tools.call('session_watch', { watcherSessionKey: LEAD, targetSessionKey: WORKER });
    await base.record({ sessionKey: WORKER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'a person wrote again' });
    state.failing = true;
    expect((await tools.call('session_status', { sessionKey: WORKER })).result.stateVersion).toBe(2);
    expect((await tools.call('session_notices', { watcherSessionKey: LEAD })).result.notices).toHaveLength(1);
    expect((await tools.call('session_unwatch', { watcherSessionKey: LEAD, targetSessionKey: WORKER })).result.unwatched).toBe(true);
    expect((await tools.call('session_watch', { watcherSessionKey: LEAD, targetSessionKey: WORKER })).result).toBeDefined();
    expect(state.failures).toBeGreaterThan(0);
  });

  it('a store that throws: StoreUnavailableError when failures moved, the error itself when not; a ValidationError always stands', async () => {
    const base = createMemoryStore({ now: () => T0 });
    let failures = 0;
    let count = true;
    const broken = new Proxy(base as ToolStore, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return () => {
          if (count) failures++;
          throw new Error('disk on fire');
        };
      },
    });
    const tools = createSessionTools({ store: broken, storeFailures: () => failures });
    await expect(tools.call('session_status', { sessionKey: WORKER })).rejects.toBeInstanceOf(StoreUnavailableError);
    count = false;
    await expect(tools.call('session_status', { sessionKey: WORKER })).rejects.toThrow('disk on fire');
    count = true;
    await expect(tools.call('session_status', { sessionKey: WORKER, changesSince: -1 })).rejects.toMatchObject({ name: 'ValidationError' });
  });
});

describe('T15: the page cursor', () => {
  // Keys whose JSON's base64 holds '+', '/' and padding: the cursor must carry none of them.
  const keys = ['agent:main:a', 'agent:main:a?', 'agent:main:a>>', 'agent:main:\u00ff\u00fe', 'agent:main:\u{1F600}x', 'agent:main:zz~~~', 'agent:main:~?>'];
  const rows = keys.map((sessionKey) => ({ sessionKey, agentId: 'main', stateVersion: 0 }));

  for (const [how, extra] of [
    ['a keyed page read', { listSessionsPage: (r: { after?: { sessionKey: string; agentId: string }; limit: number }) => rows.filter((x) => r.after === undefined || x.sessionKey > r.after.sessionKey || (x.sessionKey === r.after.sessionKey && x.agentId > r.after.agentId)).sort((a, b) => (a.sessionKey < b.sessionKey ? -1 : 1)).slice(0, r.limit) }],
    ['a whole listing', { listSessions: () => rows }],
  ] as const) {
    it(`${how}: walked one row a page, every cursor is base64url without padding and every row comes once, in order`, async () => {
      const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), ...extra });
      const seen: string[] = [];
      const cursors: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < keys.length + 2; page++) {
        const out = (await tools.call('sessions_list', cursor === undefined ? { limit: 1 } : { limit: 1, cursor })).result;
        seen.push(...out.sessions.map((s) => s.sessionKey));
        cursor = out.nextCursor;
        if (cursor === undefined) break;
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        cursors.push(cursor);
      }
      expect(seen).toEqual([...keys].sort());
      // Some of them carry base64url's own characters, which decoding must map back.
      expect(cursors.some((c) => /[-_]/.test(c))).toBe(true);
    });

    it(`${how}: a cursor it did not make is refused by name`, async () => {
      const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), ...extra });
      const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
      for (const cursor of ['%%%', b64('[1,2]'), b64('["a"]'), b64('{"a":1}'), b64('["a","b","c"]'), Buffer.from([0xff, 0xfe]).toString('base64url')]) {
        await expect(tools.call('sessions_list', { cursor }), cursor).rejects.toMatchObject({ name: 'ValidationError', field: 'cursor' });
      }
      // A cursor made by hand in the same form is read as one of ours.
      const made = b64(JSON.stringify(['agent:main:a>>', 'main']));
      const out = (await tools.call('sessions_list', { cursor: made })).result;
      expect(out.sessions.map((s) => s.sessionKey)).toEqual([...keys].sort().filter((k) => k > 'agent:main:a>>'));
    });
  }
});

describe('T4, T15: a keyed page read that answers badly', () => {
  it('rows that name no session are skipped and each logged with its index; versions that are no positive integer are left out', async () => {
    const { seen, logger } = warnings();
    const tools = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      logger,
      listSessionsPage: () =>
        [
          { sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 3 },
          null,
          ['agent:main:b'],
          { sessionKey: 'agent:main:\ud800' },
          { sessionKey: 'agent:main:c', agentId: 'ops' },
          { sessionKey: 'bare', agentId: 'Bad Agent' },
          { sessionKey: 'agent:main:d', stateVersion: 0 },
          { sessionKey: 'agent:main:e', stateVersion: 2.5 },
          { sessionKey: 'bare', agentId: 'ops', stateVersion: 7 },
        ] as never,
    });
    const out = await tools.call('sessions_list', {});
    expect(out.result.sessions).toEqual([
      { sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 3 },
      { sessionKey: 'agent:main:d', agentId: 'main' },
      { sessionKey: 'agent:main:e', agentId: 'main' },
      { sessionKey: 'bare', agentId: 'ops', stateVersion: 7 },
    ]);
    expect(seen.map((w) => w.details?.['row'])).toEqual([1, 2, 3, 4, 5]);
    expect(seen.every((w) => w.message === 'sessions_list: skipped a session row that names no session')).toBe(true);
    // Each says why, naming the row's field.
    const why = seen.map((w) => String(w.details?.['error']));
    expect(why[0]).toBe('rows.1: must be an object');
    expect(why[1]).toBe('rows.2: must be an object');
    expect(why[2]).toMatch(/^rows\.3\.sessionKey: /);
    expect(why[3]).toBe('rows.4.agentId: agentId "ops" does not match the agent of session key "agent:main:c"');
    expect(why[4]).toMatch(/^rows\.5\.agentId: /);
    // The text names the agent of the bare key only.
    expect(out.text).toContain('bare');
    expect(out.text).toContain('ops');
  });

  it('a read that answers no array ends the page with a warning; one that ignores `after` ends at the first repeat', async () => {
    const { seen, logger } = warnings();
    const none = createSessionTools({ store: createMemoryStore({ now: () => T0 }), logger, listSessionsPage: () => 'rows' as never });
    expect((await none.call('sessions_list', {})).result).toEqual({ sessions: [] });
    expect(seen[0]).toMatchObject({ message: 'sessions_list: the page read answered no rows (not an array)', details: { type: 'string' } });

    // Bound, the page reads in chunks until it has its rows; a source that ignores `after` answers the same chunk again.
    const same = Array.from({ length: 1000 }, (_, i) => ({ sessionKey: `agent:other:s${String(i).padStart(4, '0')}`, agentId: 'other', stateVersion: 0 }));
    let reads = 0;
    const stuck = warnings();
    const bound = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      caller: LEAD,
      visibility: 'agent',
      logger: stuck.logger,
      listSessionsPage: () => (reads++, same),
    });
    const out = await bound.call('sessions_list', {});
    expect(out.result.sessions).toEqual([]);
    expect(reads).toBe(2);
    expect(stuck.seen.map((w) => w.message)).toEqual(['sessions_list: the page read answered the same rows again; the list ends there']);
  });

  it('unbound, a page reads limit + 1 rows once; bound, it reads on past rows out of scope until it has limit + 1 in scope', async () => {
    const rows = [...Array.from({ length: 1500 }, (_, i) => ({ sessionKey: `agent:other:s${String(i).padStart(4, '0')}`, agentId: 'other', stateVersion: 0 })), ...Array.from({ length: 5 }, (_, i) => ({ sessionKey: `agent:main:z${i}`, agentId: 'main', stateVersion: 0 }))];
    const asked: number[] = [];
    const read = (r: { after?: { sessionKey: string }; limit: number }) => {
      asked.push(r.limit);
      const from = r.after === undefined ? 0 : rows.findIndex((x) => x.sessionKey === r.after!.sessionKey) + 1;
      return rows.slice(from, from + r.limit);
    };
    const unbound = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessionsPage: read });
    const page = (await unbound.call('sessions_list', { limit: 3 })).result;
    expect(page.sessions).toHaveLength(3);
    expect(page.nextCursor).toBeDefined();
    expect(asked).toEqual([4]);
    asked.length = 0;
    const bound = createSessionTools({ store: createMemoryStore({ now: () => T0 }), caller: 'agent:main:boss', visibility: 'agent', listSessionsPage: read });
    const mine = (await bound.call('sessions_list', { limit: 3 })).result;
    expect(mine.sessions.map((s) => s.sessionKey)).toEqual(['agent:main:z0', 'agent:main:z1', 'agent:main:z2']);
    expect(mine.nextCursor).toBeDefined();
    expect(asked).toEqual([1000, 1000]);
    const rest = (await bound.call('sessions_list', { limit: 3, cursor: mine.nextCursor })).result;
    expect(rest).toEqual({ sessions: [{ sessionKey: 'agent:main:z3', agentId: 'main' }, { sessionKey: 'agent:main:z4', agentId: 'main' }] });
  });
});

describe('T15: one key under several agents', () => {
  it('a whole listing orders by key, then agent, and its cursor steps between agents of one key', async () => {
    const tools = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      listSessions: () => [
        { sessionKey: 'global', agentId: 'zeta' },
        { sessionKey: 'global', agentId: 'alpha' },
        { sessionKey: 'agent:main:b' },
        { sessionKey: 'global', agentId: 'mid' },
        { sessionKey: 'agent:main:a' },
      ],
    });
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const out = (await tools.call('sessions_list', cursor === undefined ? { limit: 2 } : { limit: 2, cursor })).result;
      walked.push(...out.sessions.map((r) => `${r.sessionKey}/${r.agentId ?? '-'}`));
      cursor = out.nextCursor;
    } while (cursor !== undefined);
    expect(walked).toEqual(['agent:main:a/-', 'agent:main:b/-', 'global/alpha', 'global/mid', 'global/zeta']);
  });
});

describe("T12: the runtime's own spawn tree", () => {
  it('with parentOf, a whole listing asks each session once and shows the caller its children, whatever the store logged', async () => {
    const asked: string[] = [];
    const tree: Record<string, string> = { 'agent:main:child': LEAD, 'agent:main:grandchild': 'agent:main:child' };
    const tools = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      caller: LEAD,
      listSessions: () => ['agent:main:child', 'agent:main:grandchild', 'agent:main:stranger', 'agent:main:child'].map((sessionKey) => ({ sessionKey })),
      parentOf: (sessionKey) => (asked.push(sessionKey), tree[sessionKey]),
    });
    const out = (await tools.call('sessions_list', {})).result;
    expect(out.sessions.map((s) => s.sessionKey)).toEqual(['agent:main:child', 'agent:main:child', 'agent:main:grandchild']);
    expect(asked.filter((k) => k === 'agent:main:child')).toHaveLength(1);
    expect(asked.filter((k) => k === 'agent:main:stranger')).toHaveLength(1);
    // The same runtime tree decides what the bound caller may watch.
    await expect(tools.call('session_watch', { targetSessionKey: 'agent:main:grandchild' })).resolves.toBeDefined();
    await expect(tools.call('session_watch', { targetSessionKey: 'agent:main:stranger' })).rejects.toMatchObject({ name: 'ForbiddenError' });
  });

  it('without parentOf, a whole listing reads a store that lists its spawn parents once', async () => {
    const base = createMemoryStore({ now: () => T0 });
    await base.record({ sessionKey: 'agent:main:child', agentId: 'main', kind: 'child_spawned', actorType: 'agent', actorId: LEAD, summary: 'child session spawned' });
    let lists = 0;
    let single = 0;
    const store = new Proxy(base as ToolStore, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'spawnParents' && typeof value === 'function') return (...a: unknown[]) => (lists++, (value as (...x: unknown[]) => unknown).apply(target, a));
        if (prop === 'spawnParent' && typeof value === 'function') return (...a: unknown[]) => (single++, (value as (...x: unknown[]) => unknown).apply(target, a));
        return value;
      },
    });
    const tools = createSessionTools({ store, caller: LEAD, listSessions: () => ['agent:main:child', 'agent:main:other', 'agent:main:third'].map((sessionKey) => ({ sessionKey })) });
    const out = (await tools.call('sessions_list', {})).result;
    expect(out.sessions.map((s) => s.sessionKey)).toEqual(['agent:main:child']);
    expect(lists).toBe(1);
    expect(single).toBe(0);
  });
});

describe('T1, T2, T5, T10: refusals name their field and say why', () => {
  it('watchAfterSend: watch and dispatched must be booleans; without watch: true it does nothing', async () => {
    const ctx = { store: createMemoryStore({ now: () => T0 }) };
    const base = { watcherSessionKey: LEAD, targetSessionKey: WORKER };
    await expect(watchAfterSend(ctx, { ...base, watch: 'yes' as never, dispatched: true })).rejects.toMatchObject({ name: 'ValidationError', field: 'watch', code: 'type', message: 'watch: must be a boolean' });
    await expect(watchAfterSend(ctx, { ...base, watch: true, dispatched: 1 as never })).rejects.toMatchObject({ name: 'ValidationError', field: 'dispatched', code: 'type', message: 'dispatched: must be a boolean' });
    expect(await watchAfterSend(ctx, { ...base, dispatched: true })).toBeUndefined();
    expect((await watchAfterSend(ctx, { ...base, watch: true, dispatched: false }))!.result).toEqual({ watched: false, reason: 'not-dispatched' });
  });

  it('annotateSessionsList: rows must be an array of objects, each refusal naming the row', async () => {
    const ctx = { store: createMemoryStore({ now: () => T0 }) };
    await expect(annotateSessionsList(ctx, 'rows' as never)).rejects.toMatchObject({ name: 'ValidationError', field: 'rows', code: 'type', message: 'rows: must be an array of rows' });
    await expect(annotateSessionsList(ctx, [{ sessionKey: WORKER }, 7] as never)).rejects.toMatchObject({ name: 'ValidationError', field: 'rows.1', code: 'type', message: 'rows.1: must be an object' });
  });

  it('session_unwatch on a store without unwatch says so', async () => {
    const base = createMemoryStore({ now: () => T0 });
    const noUnwatch = new Proxy(base as ToolStore, { get: (t, p, r) => (p === 'unwatch' ? undefined : Reflect.get(t, p, r)) });
    await expect(createSessionTools({ store: noUnwatch }).call('session_unwatch', { watcherSessionKey: LEAD, targetSessionKey: WORKER })).rejects.toThrow(
      'this store does not implement unwatch (session-state-kit contract with durable notices)',
    );
  });

  it('the caller and its visibility: each refusal names its field and code', () => {
    expect(() => checkCaller(undefined, 'tree')).toThrow(expect.objectContaining({ field: 'visibility', code: 'not-allowed' }));
    expect(() => checkCaller('global', undefined)).toThrow(expect.objectContaining({ field: 'caller', code: 'format' }));
    expect(() => checkCaller('agent:main:\ud800', undefined)).toThrow(expect.objectContaining({ field: 'caller' }));
    expect(() => checkCaller(LEAD, 'everyone' as never)).toThrow(expect.objectContaining({ field: 'visibility', code: 'type' }));
    expect(() => checkCaller(LEAD, 7 as never)).toThrow(expect.objectContaining({ field: 'visibility', code: 'type' }));
    expect(checkCaller(LEAD, undefined)).toMatchObject({ sessionKey: LEAD, visibility: 'tree' });
    expect(checkCaller(undefined, undefined)).toBeUndefined();
  });

  it('isForbiddenError: ours, another copy of it (name and field), and nothing else', async () => {
    const ours = await createSessionTools({ store: createMemoryStore({ now: () => T0 }), caller: LEAD, visibility: 'self' })
      .call('session_watch', { targetSessionKey: WORKER })
      .catch((e: unknown) => e);
    expect(isForbiddenError(ours)).toBe(true);
    expect(isForbiddenError(Object.assign(new Error('x'), { name: 'ForbiddenError', field: 'targetSessionKey' }))).toBe(true);
    expect(isForbiddenError(Object.assign(new Error('x'), { name: 'ForbiddenError' }))).toBe(false);
    expect(isForbiddenError(Object.assign(new Error('x'), { field: 'targetSessionKey' }))).toBe(false);
    expect(isForbiddenError({ name: 'ForbiddenError', field: 'x' })).toBe(false);
    expect(isForbiddenError(undefined)).toBe(false);
  });

  it('T2: a mismatched or missing agent says which key and why', () => {
    expect(() => resolveAgentId(WORKER, 'ops', undefined)).toThrow(expect.objectContaining({ field: 'agentId', code: 'mismatch', message: `agentId: agentId "ops" does not match the agent of session key "${WORKER}"` }));
    expect(() => resolveAgentId('global', undefined, undefined, 'rows.3.agentId')).toThrow(
      expect.objectContaining({ field: 'rows.3.agentId', code: 'required', message: 'rows.3.agentId: session key "global" is not agent-scoped (agent:<agentId>:...), so agentId is required' }),
    );
    expect(resolveAgentId('global', undefined, 'ops')).toBe('ops');
    expect(resolveAgentId('global', 'main', 'ops')).toBe('main');
  });
});
