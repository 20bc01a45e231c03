import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/postgres/index.js';
import { useBuiltCli } from '../cli/helpers.js';
import { usePostgres } from '../postgres/server.js';
import { noticesUri } from '../../src/mcp/uri.js';

// T8 on PostgreSQL: `session-state-kit mcp --pg <url>` in a child process; this test process is the
// other writer, and the notice reaches the subscribed client through LISTEN/NOTIFY.
const cli = useBuiltCli();
const pg = usePostgres();
const LEAD = 'agent:main:lead';
const WORKER = 'agent:main:worker';

describe('T8 MCP server on PostgreSQL (real child process)', () => {
  it('T8 serves the tools and turns another process\'s notice into a resource update', async () => {
    const schema = pg.schema();
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli.path(), 'mcp', '--pg', pg.url(), '--schema', schema], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const client = new Client({ name: 'ssk-test', version: '1.0.0' });
    await client.connect(transport).catch((e: unknown) => {
      throw new Error(`${String(e)}; server stderr: ${stderr}`);
    });
    const writer = await createPostgresStore({ connectionString: pg.url(), schema, now: Date.now, logger: pg.log });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['session_notices', 'session_status', 'session_unwatch', 'session_watch', 'sessions_list']);
      const watched = await client.callTool({ name: 'session_watch', arguments: { watcherSessionKey: LEAD, targetSessionKey: WORKER } });
      expect(watched.structuredContent).toEqual({ watched: true, stateVersion: 0 });
      const uri = noticesUri(LEAD);
      const updated = new Promise<void>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => (n.params.uri === uri ? resolve() : undefined)));
      await client.subscribeResource({ uri });
      await writer.record({ sessionKey: WORKER, agentId: 'main', kind: 'human_direct_message', actorType: 'human', summary: 'human message via web' });
      const timeout = new Promise<void>((_, reject) => setTimeout(() => reject(new Error('no resources/updated within 20 s')), 20_000).unref());
      await Promise.race([updated, timeout]);
      const read = await client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ text: `Session "${WORKER}" changed (other actor). Reconcile before acting: session_status sessionKey "${WORKER}" changesSince 0.` });
      // T4, T15: both lists read by key from the schema.
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([uri]);
      const list = await client.callTool({ name: 'sessions_list', arguments: {} });
      expect(list.structuredContent).toEqual({ sessions: [{ sessionKey: WORKER, agentId: 'main', stateVersion: 1 }] });
    } finally {
      await client.close();
      await writer.close();
    }
    expect(pg.log.entries).toEqual([]);
  });
});
