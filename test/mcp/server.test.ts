import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from '../hook/run-hook.js';
import { noticesUri } from '../../src/mcp/uri.js';

// T8 end to end: the SDK's own client spawns `session-state-kit mcp` as a child process over
// stdio; a notice raised by another OS process (the Claude Code hook, recording a person's turn on
// the same SQLite file) must reach the subscribed client as notifications/resources/updated.
const cli = useBuiltCli();
const dir = tempDir('mcp');
const LEAD = 'agent:claude-code:lead-session';
const WORKER = 'agent:claude-code:worker-session';

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

async function connect(db: string): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli.path(), 'mcp', '--db', db, '--poll-ms', '25'], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'ssk-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return { client, transport, stderr: () => stderr };
}

type TextContent = { type: 'text'; text: string };
const textOf = (r: unknown) => (r as { content: TextContent[] }).content.map((c) => c.text).join('\n');

describe('T8 MCP server over stdio (real child process)', () => {
  it('T8 lists the tools with their JSON Schemas', async () => {
    const { client } = await connect(join(dir, 'list.db'));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['session_notices', 'session_status', 'session_unwatch', 'session_watch', 'sessions_list']);
    for (const t of tools) {
      const file = join(import.meta.dirname, '../../spec/json', `tool-${t.name.replace(/_/g, '-')}-args.json`);
      expect(t.inputSchema, t.name).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['session-state://notices/{watcherSessionKey}']);
  });

  it('T8 answers calls with text and structured content, and rejects bad arguments naming the field', async () => {
    const { client } = await connect(join(dir, 'calls.db'));
    const watched = await client.callTool({ name: 'session_watch', arguments: { watcherSessionKey: LEAD, targetSessionKey: WORKER } });
    expect(watched.isError).toBeFalsy();
    expect(textOf(watched)).toBe('Watching "agent:claude-code:worker-session" from stateVersion 0: one notice when another actor changes it.');
    expect(watched.structuredContent).toEqual({ watched: true, stateVersion: 0 });

    const bad = await client.callTool({ name: 'session_status', arguments: { sessionKey: WORKER, changesSince: -1 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments: changesSince: /);
    expect(bad.structuredContent).toEqual({ error: { name: 'ValidationError', field: 'changesSince', code: 'range' } });

    const mismatch = await client.callTool({ name: 'session_unwatch', arguments: { watcherSessionKey: LEAD, targetSessionKey: WORKER, agentId: 'other' } });
    expect(mismatch.structuredContent).toEqual({ error: { name: 'ValidationError', field: 'agentId', code: 'mismatch' } });
    // The refused unwatch wrote nothing: the watch is still there.
    const unwatch = await client.callTool({ name: 'session_unwatch', arguments: { watcherSessionKey: LEAD, targetSessionKey: WORKER } });
    expect(textOf(unwatch)).toBe('Stopped watching "agent:claude-code:worker-session".');

    await expect(client.callTool({ name: 'sessions_send', arguments: {} })).rejects.toThrow(/unknown tool/);
    await expect(client.readResource({ uri: 'session-state://elsewhere/x' })).rejects.toThrow(/not a notices resource/);
  });

  it('T8 a notice raised by another process arrives as a resource update', async () => {
    const db = join(dir, 'cross.db');
    const { client } = await connect(db);
    await client.callTool({ name: 'session_watch', arguments: { watcherSessionKey: LEAD, targetSessionKey: WORKER } });
    const uri = noticesUri(LEAD);
    const updated = new Promise<string>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        if (n.params.uri === uri) resolve(n.params.uri);
      });
    });
    await client.subscribeResource({ uri });
    expect((await client.readResource({ uri })).contents).toEqual([{ uri, mimeType: 'text/plain', text: 'No pending notices.' }]);

    // Another OS process: the Claude Code hook records the person's turn in the worker session.
    const hook = await runHook(cli.path(), ['claude-code', '--db', db], { hook_event_name: 'UserPromptSubmit', session_id: 'worker-session', prompt: 'switch to plan B', cwd: '/tmp', transcript_path: '/tmp/t.jsonl' });
    expect(hook.code).toBe(0);

    const timeout = new Promise<string>((_, reject) => setTimeout(() => reject(new Error('no resources/updated within 20 s')), 20_000).unref());
    await expect(Promise.race([updated, timeout])).resolves.toBe(uri);
    const line = 'Session "agent:claude-code:worker-session" changed (other actor). Reconcile before acting: session_status sessionKey "agent:claude-code:worker-session" changesSince 0.';
    const read = await client.readResource({ uri });
    expect(read.contents).toEqual([{ uri, mimeType: 'text/plain', text: line }]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([uri]);
    // Reading peeks; the tool takes.
    expect(textOf(await client.callTool({ name: 'session_notices', arguments: { watcherSessionKey: LEAD } }))).toBe(line);
    expect((await client.readResource({ uri })).contents[0]).toMatchObject({ text: 'No pending notices.' });
    expect((await client.listResources()).resources).toEqual([]);

    const status = await client.callTool({ name: 'session_status', arguments: { sessionKey: WORKER, changesSince: 0 } });
    expect(textOf(status)).toBe('Session "agent:claude-code:worker-session": stateVersion 1.\n1 change since 0:\n#1 human_direct_message by human: human message via claude-code [channel=claude-code]');
    const list = await client.callTool({ name: 'sessions_list', arguments: {} });
    expect(textOf(list)).toBe('1 session:\n"agent:claude-code:worker-session" stateVersion 1');
  });

  it('T8 a subscription in another spelling of the same watcher URI (bare colons) gets its updates under that spelling', async () => {
    const db = join(dir, 'spelling.db');
    const { client } = await connect(db);
    await client.callTool({ name: 'session_watch', arguments: { watcherSessionKey: LEAD, targetSessionKey: WORKER } });
    const uri = `session-state://notices/${LEAD}`; // not percent-encoded; decodes to the same watcher
    expect(uri).not.toBe(noticesUri(LEAD));
    const updated = new Promise<string>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
    });
    await client.subscribeResource({ uri });
    const hook = await runHook(cli.path(), ['claude-code', '--db', db], { hook_event_name: 'UserPromptSubmit', session_id: 'worker-session', prompt: 'go', cwd: '/tmp', transcript_path: '/tmp/t.jsonl' });
    expect(hook.code).toBe(0);
    const timeout = new Promise<string>((_, reject) => setTimeout(() => reject(new Error('no resources/updated within 20 s')), 20_000).unref());
    await expect(Promise.race([updated, timeout])).resolves.toBe(uri);
  });

  it('T8 exits when the client goes away', async () => {
    const { client, transport } = await connect(join(dir, 'exit.db'));
    const pid = transport.pid;
    expect(pid).toBeTypeOf('number');
    await client.close();
    open.splice(open.indexOf(client), 1);
    const alive = () => {
      try {
        process.kill(pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
  });
});
