import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { PendingWatchersPageRequest } from '../../src/feed/index.js';
import { RESOURCES_PAGE, createSessionStateMcpServer } from '../../src/mcp/server.js';
import { noticesUri } from '../../src/mcp/uri.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { silentLogger } from '../../src/shared/logger.js';

// T8, T15: resources/list pages over the watchers with pending notices by key: each page asks the
// store for its own watchers after the cursor, never for every pending pair.
const T0 = 1_767_225_600_000;
const TARGET = 'agent:main:target';

describe('T15 resources/list read by key', () => {
  it('T15 each page asks for RESOURCES_PAGE + 1 watchers after the cursor and never lists every pending pair', async () => {
    const store = createMemoryStore({ now: () => T0 });
    const watchers = Array.from({ length: 2 * RESOURCES_PAGE + 5 }, (_, i) => `agent:main:w${String(i).padStart(5, '0')}`);
    for (const w of [...watchers].reverse()) store.watch({ watcherSessionKey: w, targetSessionKey: TARGET, agentId: 'main' });
    store.record({ sessionKey: TARGET, agentId: 'main', kind: 'goal_changed', actorType: 'human', summary: 'goal updated' });
    const requests: PendingWatchersPageRequest[] = [];
    const pending = {
      listPending: () => expect.unreachable('resources/list read every pending pair'),
      pendingWatchersPage: (r: PendingWatchersPageRequest) => (requests.push(r), store.pendingWatchersPage(r)),
    };
    const server = createSessionStateMcpServer({ store, pending, logger: silentLogger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'ssk-pages', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const uris: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor === undefined ? {} : { cursor });
        expect(page.resources.length).toBeLessThanOrEqual(RESOURCES_PAGE);
        uris.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(uris).toEqual(watchers.map(noticesUri));
      expect(requests).toEqual([
        { limit: RESOURCES_PAGE + 1 },
        { after: watchers[RESOURCES_PAGE - 1], limit: RESOURCES_PAGE + 1 },
        { after: watchers[2 * RESOURCES_PAGE - 1], limit: RESOURCES_PAGE + 1 },
      ]);
      await expect(client.listResources({ cursor: '!' })).rejects.toThrow(/cursor/);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
