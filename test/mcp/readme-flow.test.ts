import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { tempDir, useBuiltCli } from '../cli/helpers.js';
import { runHook } from '../hook/run-hook.js';

// README "Use it from an agent", steps 4-7, with real processes: two sessions' hooks and the MCP
// server (as terminal A's model would use it) on one SQLite file. The texts are the README's.
const cli = useBuiltCli();
const dir = tempDir('readme');

describe('README two-terminal flow (T5, T8, T9)', () => {
  it('T9 a person writing in B reaches A as a notice, and A reconciles through the MCP server (T8)', async () => {
    const db = join(dir, 'team-state.db');
    const A = 'agent:claude-code:A';
    const B = 'agent:claude-code:B';
    const hook = (event: string, id: string) => runHook(cli.path(), ['claude-code', '--db', db], { hook_event_name: event, session_id: id, ...(event === 'SessionStart' ? { source: 'startup' } : { prompt: '...' }) });

    // Step 4: both sessions start; each model is told its key.
    const startA = await hook('SessionStart', 'A');
    expect(JSON.parse(startA.stdout).hookSpecificOutput.additionalContext).toBe(`Session-state key of this session: "${A}". Pass it as watcherSessionKey to the session-state tools.`);
    await hook('SessionStart', 'B');

    const transport = new StdioClientTransport({ command: process.execPath, args: [cli.path(), 'mcp', '--db', db], stderr: 'pipe' });
    const client = new Client({ name: 'terminal-a', version: '1.0.0' });
    await client.connect(transport);
    try {
      const text = async (name: string, args: Record<string, unknown>) => ((await client.callTool({ name, arguments: args })).content as { text: string }[])[0]!.text;
      // Step 5: A watches B.
      expect(await text('session_watch', { watcherSessionKey: A, targetSessionKey: B })).toBe(`Watching "${B}" from stateVersion 2: one notice when another actor changes it.`);
      // Step 6: the person writes in B.
      expect((await hook('UserPromptSubmit', 'B')).stdout).toBe('');
      // Step 7: A's next prompt carries the notice; A reconciles.
      const notice = `Session "${B}" changed (other actor). Reconcile before acting: session_status sessionKey "${B}" changesSince 2.`;
      expect(JSON.parse((await hook('UserPromptSubmit', 'A')).stdout).hookSpecificOutput).toEqual({ hookEventName: 'UserPromptSubmit', additionalContext: notice });
      expect(await text('session_status', { sessionKey: B, changesSince: 2 })).toBe(`Session "${B}": stateVersion 3.\n1 change since 2:\n#3 human_direct_message by human: human message via claude-code [channel=claude-code]`);
      // Shown once.
      expect((await hook('UserPromptSubmit', 'A')).stdout).toBe('');
    } finally {
      await client.close();
    }
  });
});
