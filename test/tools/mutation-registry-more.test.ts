/**
 * T1, T4, T14, T15 on the registry by what a caller sees: the errors' names and messages, each
 * description saying what its tool is for, R35's fallback answers of sessions_list and
 * session_unwatch turned into StoreUnavailableError, bad arguments staying a ValidationError while
 * failures move, a null argument of a bound call, the page cursor's refusals, a listing that
 * answers no array or rows that name no session (each logged with why), the bound chunk at the
 * largest page, and a runtime's spawn tree winning over the rows' parents.
 */
import { describe, expect, it } from 'vitest';
import type { SessionStateStore } from '../../spec/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { StoreUnavailableError, UnknownToolError, createSessionTools } from '../../src/tools/index.js';

const T0 = 1_767_225_600_000;
const LEAD = 'agent:main:lead';
const WORKER = 'agent:main:worker';

const warnings = () => {
  const seen: { message: string; details?: Record<string, unknown> }[] = [];
  return { seen, logger: { warn: (message: string, details?: Record<string, unknown>) => void seen.push({ message, ...(details ? { details } : {}) }) } };
};
const cursorOf = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'latin1').toString('base64url');

/** A store whose named methods fail the way R35 says (an answer that is a fallback) and count it. */
function degraded(methods: Record<string, (...a: unknown[]) => unknown>) {
  let failures = 0;
  const store = createMemoryStore({ now: () => T0 });
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const own = methods[String(prop)];
      if (own) return (...a: unknown[]) => (failures++, own(...a));
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as SessionStateStore;
  return { store: proxy, failures: () => failures };
}

describe('the registry by what a caller sees', () => {
  it('T1 T14 the errors say their name and what failed', async () => {
    const e = new StoreUnavailableError('session_status', 'text');
    expect([e.name, e.message, e.code]).toEqual(['StoreUnavailableError', 'session_status: the state store could not answer', 'unavailable']);
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }) });
    await expect(tools.call('no_such_tool', {})).rejects.toThrow(new UnknownToolError('no_such_tool'));
    await expect(tools.call('no_such_tool', {})).rejects.toMatchObject({ name: 'UnknownToolError', message: 'unknown tool: no_such_tool', tool: 'no_such_tool' });
  });

  it('T1 each tool is described by what it does', () => {
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessions: () => [] });
    const said = Object.fromEntries(tools.definitions.map((d) => [d.name, d.description]));
    expect(said['session_status']).toMatch(/stateVersion.*changesSince.*historyGap/s);
    expect(said['sessions_list']).toMatch(/sessions.*stateVersion/s);
    expect(said['session_watch']).toMatch(/notice.*watcherSessionKey/s);
    expect(said['session_unwatch']).toMatch(/^Stop watching/);
    expect(said['session_notices']).toMatch(/pending.*notices.*once/s);
  });

  it('T14 R35 fallbacks of sessions_list and session_unwatch are StoreUnavailableError while failures move', async () => {
    const list = degraded({ stateVersion: () => 0 });
    const lister = createSessionTools({ store: list.store, storeFailures: list.failures, listSessions: () => [{ sessionKey: WORKER }] });
    await expect(lister.call('sessions_list', {})).rejects.toBeInstanceOf(StoreUnavailableError);
    const un = degraded({ unwatch: () => ({ unwatched: false }) });
    const unwatcher = createSessionTools({ store: un.store, storeFailures: un.failures });
    await expect(unwatcher.call('session_unwatch', { watcherSessionKey: LEAD, targetSessionKey: WORKER })).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('T1 T14 bad arguments stay a ValidationError even while the failure count moves', async () => {
    let n = 0;
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), storeFailures: () => n++ });
    await expect(tools.call('session_status', { sessionKey: WORKER, changesSince: -1 })).rejects.toMatchObject({ name: 'ValidationError', field: 'changesSince' });
  });

  it('T13 a bound call given null is a ValidationError, not a crash', async () => {
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), caller: LEAD });
    await expect(tools.call('session_watch', null)).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it('T15 a cursor that is not one of ours is refused by field and code: bad UTF-8, or not two strings', async () => {
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessionsPage: () => [] });
    for (const cursor of [cursorOf('["\xff\xfe","main"]'), cursorOf([1, 'main']), cursorOf(['agent:main:a', 2]), cursorOf(['only'])]) {
      await expect(tools.call('sessions_list', { cursor }), cursor).rejects.toMatchObject({
        name: 'ValidationError',
        field: 'cursor',
        code: 'format',
        message: 'cursor: is not a cursor sessions_list returned (pass nextCursor as it came)',
      });
    }
  });

  it('T4 a runtime listing that answers no array is logged with its type; rows that name no session are skipped, each logged with why', async () => {
    const none = warnings();
    const a = createSessionTools({ store: createMemoryStore({ now: () => T0 }), logger: none.logger, listSessions: () => 'rows' as never });
    expect((await a.call('sessions_list', {})).result).toEqual({ sessions: [] });
    expect(none.seen).toEqual([{ message: 'sessions_list: the runtime listed no rows (not an array)', details: { type: 'string' } }]);
    const bad = warnings();
    const b = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      logger: bad.logger,
      listSessions: () =>
        [
          null,
          ['agent:main:x'],
          'agent:main:y',
          { sessionKey: 'agent:main:z', agentId: 'Bad Id' },
          { sessionKey: 'agent:main:\ud800' },
          { sessionKey: 'bare', agentId: 'Bad Id' },
          { sessionKey: 'agent:main:q', agentId: 'ops' },
          { sessionKey: WORKER },
        ] as never,
    });
    expect((await b.call('sessions_list', {})).result.sessions).toEqual([{ sessionKey: WORKER }]);
    expect(bad.seen.map((w) => [w.details?.['row'], w.details?.['error']])).toEqual([
      [0, 'rows.0: must be an object'],
      [1, 'rows.1: must be an object'],
      [2, 'rows.2: must be an object'],
      [3, expect.stringMatching(/^rows\.3\.agentId: /)],
      [4, expect.stringMatching(/^rows\.4\.sessionKey: /)],
      [5, expect.stringMatching(/^rows\.5\.agentId: /)],
      [6, 'rows.6.agentId: agentId "ops" does not match the agent of session key "agent:main:q"'],
    ]);
    expect(new Set(bad.seen.map((w) => w.message))).toEqual(new Set(['sessions_list: skipped a session row that names no session']));
  });

  it('T4 T15 without a logger, the same bad answers are skipped quietly, never thrown', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const noArray = createSessionTools({ store, listSessionsPage: () => 'rows' as never });
    expect((await noArray.call('sessions_list', {})).result).toEqual({ sessions: [] });
    const badRow = createSessionTools({ store, listSessionsPage: () => [null, { sessionKey: WORKER, agentId: 'main', stateVersion: 0 }] as never });
    expect((await badRow.call('sessions_list', {})).result).toEqual({ sessions: [{ sessionKey: WORKER, agentId: 'main' }] });
    const same = Array.from({ length: 1000 }, (_, i) => ({ sessionKey: `agent:other:s${String(i).padStart(4, '0')}`, agentId: 'other', stateVersion: 0 }));
    const stuck = createSessionTools({ store, caller: LEAD, visibility: 'agent', listSessionsPage: () => same });
    expect((await stuck.call('sessions_list', {})).result).toEqual({ sessions: [] });
    const listing = createSessionTools({ store, listSessions: () => 'rows' as never });
    expect((await listing.call('sessions_list', {})).result).toEqual({ sessions: [] });
    const listingBad = createSessionTools({ store, listSessions: () => [null, { sessionKey: WORKER }] as never });
    expect((await listingBad.call('sessions_list', {})).result).toEqual({ sessions: [{ sessionKey: WORKER }] });
  });

  it('T15 bound, a page of the largest size reads one row more than it shows', async () => {
    const asked: number[] = [];
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), caller: LEAD, visibility: 'agent', listSessionsPage: (r) => (asked.push(r.limit), []) });
    await tools.call('sessions_list', { limit: 1000 });
    expect(asked).toEqual([1001]);
  });

  it('T12 a runtime spawn tree is asked instead of the parents the rows bring', async () => {
    const tools = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      caller: LEAD,
      visibility: 'tree',
      parentOf: (key) => (key === 'agent:main:child' ? LEAD : undefined),
      listSessionsPage: () => [
        { sessionKey: 'agent:main:child', agentId: 'main', stateVersion: 0, spawnParent: 'agent:main:someone-else' },
        { sessionKey: 'agent:main:stranger', agentId: 'main', stateVersion: 0, spawnParent: LEAD },
      ],
    });
    expect((await tools.call('sessions_list', {})).result.sessions.map((s) => s.sessionKey)).toEqual(['agent:main:child']);
  });
});
