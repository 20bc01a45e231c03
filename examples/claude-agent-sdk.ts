/**
 * session-state-kit with @anthropic-ai/claude-agent-sdk: the kit's hook callbacks on a query().
 * The session registers on its first prompt, a sub-agent gets a session of its own seeded for its
 * parent, and pending notices reach the model as additional context, acked when the turn ends.
 * Run it: `npx tsx examples/claude-agent-sdk.ts "your prompt"` (uses your Claude Code login or
 * ANTHROPIC_API_KEY). The test `test/integrations/examples.test.ts` runs it offline against a local
 * stand-in for the Messages API.
 */
import { query } from '@anthropic-ai/claude-agent-sdk';
import { createClaudeAgentSdkHooks } from 'session-state-kit/claude-agent-sdk';
import { createMemoryStore } from 'session-state-kit/memory';

export async function main(options: { prompt: string; cwd?: string; env?: Record<string, string | undefined>; log?: (line: string) => void }) {
  const log = options.log ?? console.log;
  const store = createMemoryStore(); // share a SQLite file with `session-state-kit mcp --db` to give the model the session tools
  const kit = createClaudeAgentSdkHooks({ store });
  let sessionId: string | undefined;
  for await (const message of query({
    prompt: options.prompt,
    options: {
      hooks: kit.hooks,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      canUseTool: async (_tool, input) => ({ behavior: 'allow', updatedInput: input }),
      maxTurns: 4,
    },
  })) {
    sessionId ??= message.session_id;
    if (message.type === 'result') log(`result: ${message.subtype}`);
  }
  if (sessionId === undefined) throw new Error('the query produced no session');
  const sessionKey = kit.sessionKeyOf(sessionId);
  const changes = await store.changesSince({ sessionKey, agentId: 'claude-code', since: 0 });
  log(`session ${sessionKey}: stateVersion ${changes.stateVersion}, ${changes.stateChanges.events.map((e) => e.kind).join(', ')}`);
  return { store, sessionKey };
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  main({ prompt: process.argv[2] ?? 'Say hello.' }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
