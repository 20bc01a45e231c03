/**
 * T8, T10, T11, T13, T14, T15: the MCP server in process, over the SDK's in-memory transport, by
 * exact answers: the tools and their errors (unknown, forbidden, unavailable, invalid, failed), the
 * instructions bound and unbound, the notices resources (template, list by page or bound, read,
 * subscribe in any spelling, unsubscribe, close), so a mutation run can reach every decision of
 * src/mcp (the stdio tests run it as another process, which a mutant in the sandbox does not reach).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { NoticeSignal } from '../../src/feed/index.js';
import { createSessionStateMcpServer, noticeResourcesPage, RESOURCES_PAGE, type SessionStateMcpOptions } from '../../src/mcp/server.js';
import { noticesUri, watcherOfUri } from '../../src/mcp/uri.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

const T0 = 1_767_225_600_000;
const LEAD = 'agent:main:lead';
const W1 = 'agent:main:w1';

/** A feed the test fires by hand, counting who listens. */
function handFeed() {
  const listeners = new Set<(s: NoticeSignal) => void>();
  return {
    listeners,
    subscribe: (l: (s: NoticeSignal) => void) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    fire: (watcher: string) => {
      for (const l of listeners) l({ watcherSessionKey: watcher, changed: [] } as unknown as NoticeSignal);
    },
  };
}

async function connect(over: Partial<SessionStateMcpOptions> = {}, store: MemoryStore = createMemoryStore({ now: () => T0 })) {
  const logger = memoryLogger();
  const server = createSessionStateMcpServer({ store, logger, ...over });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'ssk-mcp-mutation', version: '1.0.0' });
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { client, server, store, logger, updates, close: () => client.close() };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('T8 tools over MCP', () => {
  it('lists every tool with its schema, names the server and its version, and says how to use it', async () => {
    const c = await connect({ version: '9.9.9' });
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['session_status', 'session_watch', 'session_notices']));
      for (const t of tools) expect(t.inputSchema.type).toBe('object');
      expect(c.client.getServerVersion()).toEqual({ name: 'session-state-kit', version: '9.9.9' });
      expect(c.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true } });
      expect(c.client.getInstructions()).toMatch(/^Session-state tools: a shared log of who changed which agent session\. .*session_watch \(your own session key is the watcher\)\.$/);
    } finally {
      await c.close();
    }
    const unversioned = await connect();
    try {
      expect(unversioned.client.getServerVersion()?.version).toBe('0.0.0');
    } finally {
      await unversioned.close();
    }
  });

  it('a call answers with its text and its result; a bound server says whose session it is in its instructions', async () => {
    const c = await connect({ caller: LEAD, visibility: 'tree' });
    try {
      expect(c.client.getInstructions()).toContain(`This server is bound to your session "${LEAD}": pass it as watcherSessionKey; you may look at sessions within visibility "tree".`);
      const r = await c.client.callTool({ name: 'session_notices', arguments: { watcherSessionKey: LEAD } });
      expect(r.isError).toBeUndefined();
      expect(r.content).toEqual([{ type: 'text', text: expect.any(String) }]);
      expect(r.structuredContent).toMatchObject({ notices: [] });
    } finally {
      await c.close();
    }
  });

  it('an unknown tool is a protocol error naming it; bad arguments, a scope refusal and a failure are tool errors saying which', async () => {
    const c = await connect({ caller: LEAD, visibility: 'self', listSessionsPage: () => Promise.reject(new Error('disk gone')) });
    try {
      await expect(c.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool: no_such_tool/);
      const invalid = await c.client.callTool({ name: 'session_notices', arguments: { watcherSessionKey: 'not a key\u0000' } });
      expect(invalid).toMatchObject({ isError: true, structuredContent: { error: { name: 'ValidationError', field: 'watcherSessionKey' } } });
      expect((invalid.content as { text: string }[])[0]!.text).toMatch(/^Invalid arguments: /);
      const forbidden = await c.client.callTool({ name: 'session_status', arguments: { sessionKey: W1 } });
      expect(forbidden).toMatchObject({ isError: true, structuredContent: { error: { name: 'ForbiddenError', field: 'sessionKey', code: 'forbidden', visibility: 'self' } } });
      expect((forbidden.content as { text: string }[])[0]!.text).toMatch(/^Forbidden: /);
      const failed = await c.client.callTool({ name: 'sessions_list', arguments: {} });
      expect(failed).toEqual({ isError: true, content: [{ type: 'text', text: 'sessions_list failed: disk gone' }] });
      expect(c.logger.entries).toEqual([{ level: 'error', message: 'tool call failed', details: { tool: 'sessions_list', error: 'disk gone' } }]);
    } finally {
      await c.close();
    }
  });

  it('T14 a read whose store logged a failure meanwhile is an unavailable error, not an empty answer', async () => {
    let failures = 0;
    const store = createMemoryStore({ now: () => T0 });
    // Every read of notices fails the way a store's best-effort read does: logged (counted), answered empty.
    const flaky = new Proxy(store, { get: (t, p) => (p === 'pendingNotices' || p === 'drainNotices' ? () => (failures++, []) : Reflect.get(t, p)) }) as MemoryStore;
    const c = await connect({ storeFailures: () => failures }, flaky);
    try {
      const r = await c.client.callTool({ name: 'session_notices', arguments: { watcherSessionKey: LEAD } });
      expect(r).toMatchObject({ isError: true, structuredContent: { error: { name: 'StoreUnavailableError', code: 'unavailable' } } });
      // Said in the text as well, for a model that reads only the text.
      expect(r.content).toEqual([{ type: 'text', text: expect.stringMatching(/\S/) }]);
    } finally {
      await c.close();
    }
  });
});

describe('T8, T13, T15 the notices resources', () => {
  it('one template; an unbound list pages the watchers with pending notices; a bound list is the caller alone', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.watch({ watcherSessionKey: LEAD, targetSessionKey: W1, agentId: 'main' });
    await store.record({ sessionKey: W1, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal' });
    const c = await connect({ pending: store }, store);
    try {
      expect((await c.client.listResourceTemplates()).resourceTemplates).toEqual([
        { uriTemplate: 'session-state://notices/{watcherSessionKey}', name: 'notices', title: 'Pending session-state notices', description: "A watcher's pending stale-state notices, one line each (reading does not take them; session_notices does).", mimeType: 'text/plain' },
      ]);
      expect(await c.client.listResources()).toEqual({ resources: [{ uri: noticesUri(LEAD), name: `notices for ${LEAD}`, mimeType: 'text/plain' }] });
      await expect(c.client.listResources({ cursor: '!!' })).rejects.toThrow('cursor: not a cursor resources/list returned (pass nextCursor as it came)');
      const read = await c.client.readResource({ uri: noticesUri(LEAD) });
      expect(read.contents).toEqual([{ uri: noticesUri(LEAD), mimeType: 'text/plain', text: expect.stringContaining(W1) }]);
      // Reading peeks: the notice is still pending.
      expect(await store.pendingNotices(LEAD)).toHaveLength(1);
      await expect(c.client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/not a notices resource: file:\/\/\/etc\/passwd \(expected /);
    } finally {
      await c.close();
    }
    const bound = await connect({ pending: store, caller: LEAD }, store);
    try {
      expect((await bound.client.listResources()).resources.map((r) => r.uri)).toEqual([noticesUri(LEAD)]);
      await expect(bound.client.readResource({ uri: noticesUri(W1) })).rejects.toThrow(`forbidden: this server is bound to session "${LEAD}"; the notices of "${W1}" are not its own`);
    } finally {
      await bound.close();
    }
  });

  it('without a page read the pending pairs are listed whole, in key order, after the cursor; without either, nothing', async () => {
    const pairs = ['agent:main:c', 'agent:main:a', 'agent:main:b', 'agent:main:a'].map((w) => ({ watcherSessionKey: w, targetSessionKey: W1, targetAgentId: 'main', lastSeenSequence: 0, wake: 'immediate' as const }));
    const whole = { listPending: () => pairs };
    expect((await noticeResourcesPage(whole, undefined)).resources.map((r) => watcherOfUri(r.uri))).toEqual(['agent:main:a', 'agent:main:b', 'agent:main:c']);
    expect(await noticeResourcesPage(undefined, undefined)).toEqual({ resources: [] });
    expect(await noticeResourcesPage({} as never, undefined)).toEqual({ resources: [] });
    // A page read that says more follow: the cursor resumes after the page's last watcher.
    const keys = Array.from({ length: RESOURCES_PAGE + 2 }, (_, i) => `agent:main:w${String(i).padStart(5, '0')}`);
    const paged = { pendingWatchersPage: ({ after, limit }: { after?: string; limit: number }) => keys.filter((k) => after === undefined || k > after).slice(0, limit) };
    const first = await noticeResourcesPage(paged, undefined);
    expect(first.resources).toHaveLength(RESOURCES_PAGE);
    const second = await noticeResourcesPage(paged, first.nextCursor);
    expect(second.resources.map((r) => watcherOfUri(r.uri))).toEqual(keys.slice(RESOURCES_PAGE));
    expect('nextCursor' in second).toBe(false);
  });

  it('a subscription hears its watcher in the spelling it used; unsubscribing in another spelling ends it; the feed is held only while someone listens', async () => {
    const feed = handFeed();
    const c = await connect({ feed });
    try {
      const bare = `session-state://notices/${LEAD}`;
      const spelled = noticesUri(LEAD);
      expect(watcherOfUri(bare)).toBe(LEAD);
      await c.client.subscribeResource({ uri: bare });
      await c.client.subscribeResource({ uri: spelled });
      expect(feed.listeners.size).toBe(1);
      feed.fire(W1); // nobody subscribed to w1
      feed.fire(LEAD);
      await settle();
      expect(c.updates.sort()).toEqual([bare, spelled].sort());
      await c.client.unsubscribeResource({ uri: spelled });
      expect(feed.listeners.size).toBe(0);
      feed.fire(LEAD);
      await settle();
      expect(c.updates).toHaveLength(2);
      await c.client.subscribeResource({ uri: spelled });
      expect(feed.listeners.size).toBe(1);
    } finally {
      await c.close();
    }
    await settle();
    expect(feed.listeners.size).toBe(0);
  });
});

describe('T15 the resources/list cursor', () => {
  /** Watchers served by key after `after`, recording each request as asked. */
  function paged(keys: readonly unknown[]) {
    const requests: unknown[] = [];
    return {
      requests,
      pendingWatchersPage: (r: { after?: string; limit: number }) => {
        requests.push(r);
        return keys.filter((k) => typeof k !== 'string' || r.after === undefined || k > r.after).slice(0, r.limit) as string[];
      },
    };
  }

  it('round-trips keys whose UTF-8 encodes to `+`, `/` and padding, as base64url without `=`', async () => {
    // '>>>' is "Pj4+", '???' is "Pz8/", and a length that needs "==".
    for (const last of ['agent:main:>>>', 'agent:main:???', 'agent:main:x', 'agent:main:xy', 'agent:main:é?']) {
      const keys = [...Array.from({ length: RESOURCES_PAGE - 1 }, (_, i) => `agent:main:${String(i).padStart(5, '0')}`), last, 'agent:main:~after'].sort();
      const source = paged(keys);
      const first = await noticeResourcesPage(source, undefined);
      const lastOfPage = keys[RESOURCES_PAGE - 1]!;
      expect(first.nextCursor, last).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(first.nextCursor).toBe(Buffer.from(lastOfPage).toString('base64url'));
      await noticeResourcesPage(source, first.nextCursor);
      expect(source.requests).toStrictEqual([{ limit: RESOURCES_PAGE + 1 }, { after: lastOfPage, limit: RESOURCES_PAGE + 1 }]);
    }
  });

  it('a page of exactly RESOURCES_PAGE has no next cursor; entries that are not keys are dropped', async () => {
    const keys = Array.from({ length: RESOURCES_PAGE }, (_, i) => `agent:main:${String(i).padStart(5, '0')}`);
    expect('nextCursor' in (await noticeResourcesPage(paged(keys), undefined))).toBe(false);
    const odd = await noticeResourcesPage(paged([42, null, 'agent:main:a']), undefined);
    expect(odd.resources.map((r) => watcherOfUri(r.uri))).toEqual(['agent:main:a']);
  });

  it('refuses a cursor of another shape: other characters at either end, too long, or not UTF-8', async () => {
    const source = paged(['agent:main:a']);
    const good = Buffer.from('agent:main:a').toString('base64url');
    // atob skips spaces, and 4100 'A's decode (to NULs): only the shape check refuses these.
    for (const bad of [`!${good}`, ` ${good}`, `${good} `, 'A'.repeat(4100), Buffer.from([0xff, 0xfe, 0xfd]).toString('base64url')]) {
      await expect(noticeResourcesPage(source, bad), bad.slice(0, 20)).rejects.toThrow('cursor: not a cursor resources/list returned (pass nextCursor as it came)');
    }
    expect(source.requests).toEqual([]);
  });

  it('a source with only listPending: the watchers after the cursor', async () => {
    const pairs = ['agent:main:c', 'agent:main:a', 'agent:main:b'].map((w) => ({ watcherSessionKey: w, targetSessionKey: W1, targetAgentId: 'main', lastSeenSequence: 0, wake: 'immediate' as const }));
    const after = await noticeResourcesPage({ listPending: () => pairs }, Buffer.from('agent:main:a').toString('base64url'));
    expect(after.resources.map((r) => watcherOfUri(r.uri))).toEqual(['agent:main:b', 'agent:main:c']);
  });
});

describe('T8 notices URIs', () => {
  it('only this scheme, only a decodable and valid key', () => {
    expect(watcherOfUri(noticesUri(LEAD))).toBe(LEAD);
    expect(watcherOfUri(`session-statX://notices/${LEAD}`)).toBeUndefined();
    expect(watcherOfUri('session-state://notices/%E0%A4%A')).toBeUndefined();
    expect(watcherOfUri(noticesUri('bad key\u0000'))).toBeUndefined();
  });
});

describe('T2, T4, T8, T13, T14 the options reach the tools and the resources', () => {
  it('defaultAgentId fills the agent of a key that names none; listSessions offers sessions_list', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await store.record({ sessionKey: 'team-room', agentId: 'ops', kind: 'goal_changed', actorType: 'human', summary: 'goal' });
    const withDefault = await connect({ defaultAgentId: 'ops', listSessions: () => [] }, store);
    try {
      const status = await withDefault.client.callTool({ name: 'session_status', arguments: { sessionKey: 'team-room' } });
      expect(status.structuredContent).toMatchObject({ agentId: 'ops', stateVersion: 1 });
      expect((await withDefault.client.listTools()).tools.map((t) => t.name)).toContain('sessions_list');
    } finally {
      await withDefault.close();
    }
    const without = await connect({}, store);
    try {
      expect((await without.client.listTools()).tools.map((t) => t.name)).not.toContain('sessions_list');
    } finally {
      await without.close();
    }
  });

  it('bound: the list is the caller alone whoever else has notices, and its own notices read', async () => {
    const store = createMemoryStore({ now: () => T0 });
    for (const w of ['agent:main:aaa', LEAD]) await store.watch({ watcherSessionKey: w, targetSessionKey: W1, agentId: 'main' });
    await store.record({ sessionKey: W1, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal' });
    const c = await connect({ pending: store, caller: LEAD }, store);
    try {
      expect(await c.client.listResources()).toEqual({ resources: [{ uri: noticesUri(LEAD), name: `notices for ${LEAD}`, mimeType: 'text/plain' }] });
      expect((await c.client.readResource({ uri: noticesUri(LEAD) })).contents[0]).toMatchObject({ uri: noticesUri(LEAD), text: expect.stringContaining(W1) });
    } finally {
      await c.close();
    }
  });
});

describe('T8 resource updates, continued', () => {
  it('an update that cannot be sent is a warning naming the URI', async () => {
    const feed = handFeed();
    const c = await connect({ feed });
    try {
      await c.client.subscribeResource({ uri: noticesUri(LEAD) });
      c.server.sendResourceUpdated = () => Promise.reject(new Error('transport gone'));
      feed.fire(LEAD);
      await settle();
      expect(c.logger.entries).toEqual([{ level: 'warn', message: 'resources/updated not sent', details: { uri: noticesUri(LEAD), error: 'Error: transport gone' } }]);
    } finally {
      await c.close();
    }
  });

  it('unsubscribing one watcher leaves the others heard; unsubscribing with nothing subscribed is fine', async () => {
    const feed = handFeed();
    const c = await connect({ feed });
    try {
      await c.client.unsubscribeResource({ uri: noticesUri(LEAD) });
      await c.client.subscribeResource({ uri: noticesUri(LEAD) });
      await c.client.subscribeResource({ uri: noticesUri(W1) });
      await c.client.unsubscribeResource({ uri: noticesUri(LEAD) });
      expect(feed.listeners.size).toBe(1);
      feed.fire(W1);
      await settle();
      expect(c.updates).toEqual([noticesUri(W1)]);
    } finally {
      await c.close();
    }
  });
});
