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
import { NOTICES_URI_TEMPLATE, noticesUri, watcherOfUri } from '../../src/mcp/uri.js';
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
        { uriTemplate: NOTICES_URI_TEMPLATE, name: 'notices', title: 'Pending session-state notices', description: "A watcher's pending stale-state notices, one line each (reading does not take them; session_notices does).", mimeType: 'text/plain' },
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
