/**
 * T4, T13, T15 pages by exact output: a result without a next page has no `nextCursor` key at all,
 * the text shows a row's stateVersion only when positive and names the agent of bare keys only, a
 * cursor past the last row is an empty page, a keyed read whose last row is malformed ends the
 * walk (one read, no crash), a bare row without agentId takes the runtime's agent, rows without a
 * spawnParent field still ask the store, an unbound listing reads no spawn parents, and the bound
 * schema marks watcherSessionKey optional only where a tool has it.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/memory/index.js';
import { createSessionTools } from '../../src/tools/index.js';
import { spied } from './spied-store.js';

const T0 = 1_767_225_600_000;
const LEAD = 'agent:main:lead';

describe('pages by exact output', () => {
  it('T15 a page with nothing after it has no nextCursor key; one with more has it', async () => {
    const rows = [{ sessionKey: 'agent:main:a' }, { sessionKey: 'agent:main:b' }];
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessions: () => rows });
    const all = (await tools.call('sessions_list', {})).result;
    expect('nextCursor' in all).toBe(false);
    const keyed = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessionsPage: () => rows.map((r) => ({ ...r, agentId: 'main', stateVersion: 0 })) });
    expect('nextCursor' in (await keyed.call('sessions_list', {})).result).toBe(false);
    expect('nextCursor' in (await keyed.call('sessions_list', { limit: 1 })).result).toBe(true);
  });

  it('T4 the text shows stateVersion only when positive and names the agent of bare keys only', async () => {
    const tools = createSessionTools({
      store: createMemoryStore({ now: () => T0 }),
      listSessionsPage: () => [
        { sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 3 },
        { sessionKey: 'agent:main:b', agentId: 'main', stateVersion: 0 },
        { sessionKey: 'agent:main:c', agentId: 'main', stateVersion: -1 },
        { sessionKey: 'bare', agentId: 'ops', stateVersion: 0 },
      ],
    });
    const out = await tools.call('sessions_list', {});
    expect(out.text.split('\n').slice(0, 5)).toEqual(['4 sessions:', '"agent:main:a" stateVersion 3', '"agent:main:b"', '"agent:main:c"', '"bare" (agent ops)']);
    expect(out.result.sessions[2]).toEqual({ sessionKey: 'agent:main:c', agentId: 'main' });
  });

  it('T15 a cursor past the last row is an empty page', async () => {
    const rows = [{ sessionKey: 'agent:main:a' }, { sessionKey: 'agent:main:b' }];
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessions: () => rows });
    const cursor = Buffer.from(JSON.stringify(['agent:main:zzz', 'main'])).toString('base64url');
    expect((await tools.call('sessions_list', { cursor })).result).toEqual({ sessions: [] });
  });

  it('T15 a keyed read whose last row is malformed ends the walk after one read, without a crash', async () => {
    for (const last of [null, { sessionKey: 5, agentId: 'main' }, { sessionKey: 'agent:main:z', agentId: 7 }]) {
      let reads = 0;
      const tools = createSessionTools({
        store: createMemoryStore({ now: () => T0 }),
        caller: LEAD,
        visibility: 'agent',
        listSessionsPage: () => (reads++, [...Array.from({ length: 999 }, (_, i) => ({ sessionKey: `agent:other:s${i}`, agentId: 'other', stateVersion: 0 })), last] as never),
      });
      expect((await tools.call('sessions_list', {})).result, JSON.stringify(last)).toEqual({ sessions: [] });
      expect(reads, JSON.stringify(last)).toBe(1);
    }
  });

  it('T15 the warning for a read that answers the same rows again names the last key', async () => {
    const same = Array.from({ length: 1000 }, (_, i) => ({ sessionKey: `agent:other:s${String(i).padStart(4, '0')}`, agentId: 'other', stateVersion: 0 }));
    const seen: { message: string; details?: Record<string, unknown> }[] = [];
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), caller: LEAD, visibility: 'agent', logger: { warn: (message, details) => void seen.push({ message, ...(details ? { details } : {}) }) }, listSessionsPage: () => same });
    await tools.call('sessions_list', {});
    expect(seen).toEqual([{ message: 'sessions_list: the page read answered the same rows again; the list ends there', details: { sessionKey: 'agent:other:s0999' } }]);
  });

  it('T2 T4 a keyed row: a bare key without agentId takes the runtime agent; a row that is a string is no object', async () => {
    const seen: { details?: Record<string, unknown> }[] = [];
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), defaultAgentId: 'ops', logger: { warn: (_m, details) => void seen.push({ ...(details ? { details } : {}) }) }, listSessionsPage: () => ['agent:main:x', { sessionKey: 'bare', stateVersion: 0 }] as never });
    expect((await tools.call('sessions_list', {})).result.sessions).toEqual([{ sessionKey: 'bare', agentId: 'ops' }]);
    expect(seen.map((w) => w.details?.['error'])).toEqual(['rows.0: must be an object']);
  });

  it('T12 bound, rows without a spawnParent field still ask the store; unbound, a listing reads no spawn parents', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.record({ sessionKey: 'agent:ops:child', agentId: 'ops', kind: 'child_spawned', actorType: 'agent', actorId: LEAD, summary: 'spawned' });
    const tools = createSessionTools({ store, caller: LEAD, visibility: 'tree', listSessionsPage: () => [{ sessionKey: 'agent:ops:child', agentId: 'ops', stateVersion: 0 }] });
    expect((await tools.call('sessions_list', {})).result.sessions.map((s) => s.sessionKey)).toEqual(['agent:ops:child']);
    const { store: watched, calls } = spied(createMemoryStore({ now: () => T0 }));
    const unbound = createSessionTools({ store: watched, listSessions: () => [{ sessionKey: 'agent:main:a' }] });
    await unbound.call('sessions_list', {});
    expect(calls.filter((c) => /[Pp]arent/.test(c))).toEqual([]);
  });

  it('T13 the bound schema marks watcherSessionKey optional, with its own description, only in the tools that have it', () => {
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), caller: LEAD });
    const schema = (name: string) => tools.definitions.find((d) => d.name === name)!.inputSchema as { properties: Record<string, { description?: string }>; required?: string[] };
    expect(Object.keys(schema('session_status').properties)).not.toContain('watcherSessionKey');
    expect(schema('session_watch').properties['watcherSessionKey']!.description).toBe('Optional: this server is bound to your session, which is the watcher.');
    // The rest of the property stays what the unbound schema says: a string key of R1's form.
    const unbound = createSessionTools({ store: createMemoryStore({ now: () => T0 }) }).definitions.find((d) => d.name === 'session_watch')!.inputSchema as { properties: Record<string, Record<string, unknown>> };
    const { description: _d, ...rest } = unbound.properties['watcherSessionKey']!;
    expect(schema('session_watch').properties['watcherSessionKey']).toMatchObject(rest);
    expect(rest['type']).toBe('string');
    expect(schema('session_watch').required).not.toContain('watcherSessionKey');
  });
});
