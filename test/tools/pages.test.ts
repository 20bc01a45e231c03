import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { MAX_TREE_DEPTH, createSessionTools, scopeChecker, type Caller, type SessionsPageRequest, type SessionsPageRow, type ToolStore, type Visibility } from '../../src/tools/index.js';

// T4, T12, T15: sessions_list over a keyed page read. Each page asks the source for its own rows
// after the cursor and nothing more: no full list, no read of every spawn parent.
const T0 = 1_767_225_600_000;
const LEAD = 'agent:main:lead';
const key = (i: number) => `agent:main:s${String(i).padStart(4, '0')}`;
const created = (sessionKey: string) => ({ sessionKey, agentId: 'main', kind: 'created' as const, actorType: 'system' as const, summary: 'session created' });
const spawn = (child: string, parent: string) => ({ sessionKey: child, agentId: 'main', kind: 'child_spawned' as const, actorType: 'agent' as const, actorId: parent, summary: 'child session spawned' });

/** The store's page read, recorded: every request and how many rows each answered. */
function spiedPages(store: MemoryStore) {
  const calls: { request: SessionsPageRequest; rows: number }[] = [];
  return {
    calls,
    read: (request: SessionsPageRequest): SessionsPageRow[] => {
      const rows = store.sessionsPage(request);
      calls.push({ request, rows: rows.length });
      return rows;
    },
  };
}

/** The store, with the whole-table reads a page must not make turned into failures, and the keyed parent lookups counted. */
function guarded(store: MemoryStore): { store: ToolStore; parentLookups: string[] } {
  const parentLookups: string[] = [];
  const wrapped = new Proxy(store, {
    get: (target, p) => {
      if (p === 'spawnParents' || p === 'listPending') return () => expect.unreachable(`a page read ${String(p)}() (every row of a table)`);
      if (p === 'spawnParent') return (k: string, a: string) => (parentLookups.push(k), target.spawnParent(k, a));
      const v: unknown = Reflect.get(target, p, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, parentLookups };
}

async function walk(tools: ReturnType<typeof createSessionTools>, limit: number) {
  const shown: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const out = await tools.call('sessions_list', cursor === undefined ? { limit } : { limit, cursor });
    pages++;
    expect(out.result.sessions.length).toBeLessThanOrEqual(limit);
    shown.push(...out.result.sessions.map((r) => r.sessionKey));
    cursor = out.result.nextCursor;
  } while (cursor !== undefined && pages < 10_000);
  return { shown, pages };
}

describe('T15 sessions_list pages read by key', () => {
  it('T15 unbound, each page asks for limit + 1 rows after the cursor and nothing else: a walk reads every session about once', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    const keys = Array.from({ length: 250 }, (_, i) => key(i));
    memory.recordMany([...keys].reverse().map(created));
    const pages = spiedPages(memory);
    const { store } = guarded(memory);
    const tools = createSessionTools({ store, listSessions: () => expect.unreachable('the full list was read'), listSessionsPage: pages.read });
    const first = await tools.call('sessions_list', { limit: 100 });
    expect(first.result.sessions[0]).toEqual({ sessionKey: key(0), agentId: 'main', stateVersion: 250 });
    const { shown, pages: count } = await walk(tools, 100);
    expect(shown).toEqual(keys);
    expect(count).toBe(3);
    expect(pages.calls.slice(1).map((c) => c.request)).toEqual([
      { limit: 101 },
      { after: { sessionKey: key(99), agentId: 'main' }, limit: 101 },
      { after: { sessionKey: key(199), agentId: 'main' }, limit: 101 },
    ]);
    // 101 + 101 + 50: one row more per page, never the list.
    expect(pages.calls.slice(1).reduce((n, c) => n + c.rows, 0)).toBe(252);
  });

  it('T12, T15 bound with the tree scope: the rows bring their spawn parents, an ancestor off the page is asked once, and no page reads every spawn parent', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    memory.record(created(LEAD));
    // 2,000 sessions; every 100th a child of the lead, and a chain of grandchildren under the first child.
    const inputs = Array.from({ length: 2000 }, (_, i) => (i % 100 === 0 ? spawn(key(i), LEAD) : i % 100 === 1 && i < 500 ? spawn(key(i), key(i - 1)) : created(key(i))));
    memory.recordMany(inputs.slice(0, 1000));
    memory.recordMany(inputs.slice(1000));
    const pages = spiedPages(memory);
    const { store, parentLookups } = guarded(memory);
    const tools = createSessionTools({ store, caller: LEAD, listSessionsPage: pages.read });
    const expected = [LEAD, ...Array.from({ length: 2000 }, (_, i) => i).filter((i) => i % 100 === 0 || (i % 100 === 1 && i < 500)).map(key)].sort();
    const { shown, pages: count } = await walk(tools, 10);
    expect(shown).toEqual(expected);
    expect(count).toBe(Math.ceil(expected.length / 10));
    // The parents come with the rows; only a grandchild whose parent was shown by the page before
    // (so is not a row of this page's read) asks for it, by key.
    expect(parentLookups).toEqual(['agent:main:s0400']);
    // Each page reads on from its cursor in chunks; over the walk no row is read more than twice
    // (once by the page that found one more, once by the next).
    expect(pages.calls.reduce((n, c) => n + c.rows, 0)).toBeLessThanOrEqual(2 * 2001 + count);
  });

  it('T12 an ancestor that is not a row of the page read is looked up by key, once per page', async () => {
    const memory = createMemoryStore({ now: () => T0 });
    // The lead's child sorts after the grandchildren, so the chunk the first page reads (1,000 rows)
    // holds 1,000 grandchildren and not their parent.
    memory.record(spawn('agent:main:zz-child', LEAD));
    const grandchildren = Array.from({ length: 1500 }, (_, i) => `agent:main:a-grandchild-${String(i).padStart(4, '0')}`);
    memory.recordMany(grandchildren.slice(0, 1000).map((g) => spawn(g, 'agent:main:zz-child')));
    memory.recordMany(grandchildren.slice(1000).map((g) => spawn(g, 'agent:main:zz-child')));
    const { store, parentLookups } = guarded(memory);
    const tools = createSessionTools({ store, caller: LEAD, listSessionsPage: (r) => memory.sessionsPage(r) });
    const out = await tools.call('sessions_list', {});
    expect(out.result.sessions.map((s) => s.sessionKey)).toEqual(grandchildren.slice(0, 100));
    expect(parentLookups).toEqual(['agent:main:zz-child']);
    const { shown } = await walk(tools, 1000);
    expect(shown).toEqual([...grandchildren, 'agent:main:zz-child']);
  });

  it('T4 a page row that names no session is skipped and logged, and a source that ignores the cursor ends the walk instead of looping', async () => {
    const logger = memoryLogger();
    const rows: SessionsPageRow[] = [
      { sessionKey: 'agent:main:a', agentId: 'main', stateVersion: 3 },
      { sessionKey: 'agent:main:"bad', agentId: 'main', stateVersion: 1 },
      { sessionKey: 'agent:main:b', agentId: 'main', stateVersion: 0 },
    ];
    let reads = 0;
    // Three rows for a page of two: the source claims more follow, and answers the same three again.
    const tools = createSessionTools({ store: createMemoryStore({ now: () => T0 }), listSessionsPage: () => (reads++, rows), logger });
    const out = await tools.call('sessions_list', { limit: 2 });
    expect(out.text).toBe('2 sessions:\n"agent:main:a" stateVersion 3\n"agent:main:b"');
    expect(out.result.nextCursor).toBeUndefined();
    expect(reads).toBe(2);
    expect(logger.entries.map((e) => e.message)).toEqual([
      'sessions_list: skipped a session row that names no session',
      'sessions_list: the page read answered the same rows again; the list ends there',
    ]);
  });

  it('T15 the memory store pages in code point order (as SQLite and PostgreSQL compare UTF-8), with sessions created and deleted between pages', () => {
    const store = createMemoryStore({ now: () => T0 });
    // U+FF21 sorts before U+1F600 by code point, after it by UTF-16 code unit.
    const wide = 'agent:main:\uff21';
    const astral = 'agent:main:\u{1f600}';
    store.recordMany([astral, wide, 'agent:main:b', 'agent:main:d'].map(created));
    const first = store.sessionsPage({ limit: 2 });
    expect(first.map((r) => r.sessionKey)).toEqual(['agent:main:b', 'agent:main:d']);
    store.record(created('agent:main:c'));
    store.record(created('agent:main:e'));
    store.deleteSession(wide, 'main');
    store.record(created(wide)); // created again: listed once
    store.deleteSession('agent:main:d', 'main');
    expect(store.sessionsPage({ after: { sessionKey: 'agent:main:b', agentId: 'main' }, limit: 10 }).map((r) => r.sessionKey)).toEqual(['agent:main:c', 'agent:main:e', wide, astral]);
    expect(store.sessionsPage({ after: { sessionKey: wide, agentId: 'main' }, limit: 10 })).toEqual([{ sessionKey: astral, agentId: 'main', stateVersion: 1, spawnParent: null }]);
    expect(() => store.sessionsPage({ limit: 0 })).toThrow(RangeError);
  });

  it('T15 the memory store lists the watchers with a pending notice one page at a time, each once, in code point order', () => {
    const store = createMemoryStore({ now: () => T0 });
    const watchers = ['agent:main:w-\u{1f600}', 'agent:main:w-\uff21', 'agent:main:w1', 'agent:main:w2'];
    for (const w of watchers) for (const t of ['agent:main:t1', 'agent:main:t2']) store.watch({ watcherSessionKey: w, targetSessionKey: t, agentId: 'main' });
    store.watch({ watcherSessionKey: 'agent:main:idle', targetSessionKey: 'agent:main:quiet', agentId: 'main' });
    store.recordMany(['agent:main:t1', 'agent:main:t2'].map((t) => ({ ...created(t), kind: 'goal_changed' as const, actorType: 'human' as const })));
    const order = ['agent:main:w1', 'agent:main:w2', 'agent:main:w-\uff21', 'agent:main:w-\u{1f600}'].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(store.pendingWatchersPage({ limit: 3 })).toEqual(order.slice(0, 3));
    expect(store.pendingWatchersPage({ after: order[2]!, limit: 3 })).toEqual(order.slice(3));
    store.drainNotices('agent:main:w1');
    expect(store.pendingWatchersPage({ limit: 10 })).toEqual(order.filter((w) => w !== 'agent:main:w1'));
  });
});

describe('T12 one scope check per page', () => {
  /** inScope's walk as T12 states it, step by step, with no memory between targets: the reference. */
  function reference(caller: Caller, parentOf: (k: string) => string | undefined, sessionKey: string, agentId: string): boolean {
    if (caller.visibility === 'all' || sessionKey === caller.sessionKey) return true;
    if (caller.visibility === 'self') return false;
    if (caller.visibility === 'agent' && agentId === caller.agentId) return true;
    const seen = new Set([sessionKey]);
    let key = sessionKey;
    for (let depth = 0; depth < MAX_TREE_DEPTH; depth++) {
      const parent = parentOf(key);
      if (parent === undefined) return false;
      if (parent === caller.sessionKey) return true;
      if (!parent.startsWith('agent:') || seen.has(parent)) return false;
      seen.add(parent);
      key = parent;
    }
    return false;
  }

  it('T12 sessions of one spawn chain share their walks: a 1k chain checked in key order asks each parent once, and answers as the walk of each alone', () => {
    const caller: Caller = { sessionKey: LEAD, agentId: 'main', visibility: 'tree' };
    const chain = Array.from({ length: 1000 }, (_, i) => key(i));
    const parent = (k: string) => (k === chain[0] ? LEAD : chain[chain.indexOf(k) - 1]);
    let asked = 0;
    const check = scopeChecker(caller, (k) => (asked++, parent(k)));
    const answers = chain.map((k) => check(k, 'main'));
    expect(answers).toEqual(chain.map((k) => reference(caller, parent, k, 'main')));
    expect(answers.filter((a) => a === true)).toHaveLength(MAX_TREE_DEPTH);
    expect(asked).toBe(1000);
  });

  it('T12 property: over any parent graph (cycles, bare or missing parents, long chains) and any order of targets, a shared checker answers as each walk alone', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `agent:main:k${i}`);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(undefined), fc.constant('global'), fc.constant(LEAD), fc.constantFrom(...keys)), { minLength: keys.length, maxLength: keys.length }),
        fc.array(fc.constantFrom(...keys, LEAD), { maxLength: 30 }),
        fc.constantFrom<Visibility>('self', 'tree', 'agent', 'all'),
        fc.integer({ min: 0, max: 40 }),
        (parents, targets, visibility, stretch) => {
          // A chain of `stretch` extra sessions before k0, to cross the depth cap from either side.
          const extra = Array.from({ length: stretch }, (_, i) => `agent:main:x${i}`);
          const parentOf = (k: string): string | undefined => {
            const e = extra.indexOf(k);
            if (e >= 0) return e === 0 ? keys[0] : extra[e - 1];
            const i = keys.indexOf(k);
            return i >= 0 ? parents[i] : undefined;
          };
          const caller: Caller = { sessionKey: LEAD, agentId: 'main', visibility };
          const check = scopeChecker(caller, parentOf);
          for (const t of [...targets, ...extra.reverse(), ...extra]) expect(check(t, 'main'), t).toBe(reference(caller, parentOf, t, 'main'));
        },
      ),
      { numRuns: 300 },
    );
  });
});
