/**
 * session-state-kit with @openai/agents: a manager hands work to a worker (an agent used as a
 * tool), a person writes to the worker, and the manager's next run gets one notice and reconciles
 * with session_status. Run it: `npx tsx examples/openai-agents.ts` (uses OPENAI_API_KEY and the
 * SDK's default model). The test `test/integrations/examples.test.ts` runs it offline with a
 * scripted model provider.
 */
import { Agent, Runner, type ModelProvider } from '@openai/agents';
import { createMemoryStore } from 'session-state-kit/memory';
import { runWithNotices, sessionFunctionTools, trackDelegations } from 'session-state-kit/openai-agents';

export async function main(options: { modelProvider?: ModelProvider; models?: { manager: string; worker: string }; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  const store = createMemoryStore(); // or createSqliteStore({ path }) / createPostgresStore(...)
  const runner = new Runner(options.modelProvider ? { modelProvider: options.modelProvider, tracingDisabled: true } : {});

  const worker = new Agent({ name: 'worker', instructions: 'Do the task you are given and report in one line.', ...(options.models ? { model: options.models.worker } : {}) });
  const manager = new Agent({
    name: 'manager',
    instructions: 'Delegate work to the worker. When a notice says a session changed, call session_status with its changesSince before acting.',
    ...(options.models ? { model: options.models.manager } : {}),
  });
  const managerKey = 'agent:manager:main';
  // Each delegated run gets its own session; the manager's cursor on it is seeded at the spawn (R14).
  const tracker = trackDelegations(runner, { store, root: { agent: manager, sessionKey: managerKey } });
  manager.tools = [
    tracker.agentTool(worker, { toolName: 'delegate_to_worker', toolDescription: 'Hand a task to the worker.' }),
    ...sessionFunctionTools({ store, only: ['session_status', 'session_watch', 'session_notices'] }),
  ];

  const first = await runner.run(manager, 'Ask the worker to draft the release notes.');
  log(`run 1: ${String(first.finalOutput)}`);
  await tracker.settled();

  // A person writes to the worker's session through your channel: record it (metadata only, R3).
  const child = tracker.children()[0];
  if (child === undefined) throw new Error('the manager did not delegate');
  await store.record({ sessionKey: child.sessionKey, agentId: child.agentId, kind: 'human_direct_message', actorType: 'human', summary: 'human message via web chat', payload: { channel: 'web' } });

  // The manager's next run starts with its pending notice; acked once the run took it (R27b).
  const { result, notices } = await runWithNotices(runner, manager, 'Anything new before we publish?', { store, sessionKey: managerKey });
  log(`run 2 got ${notices.length} notice(s): ${notices.map((n) => n.text).join(' | ')}`);
  log(`run 2: ${String(result.finalOutput)}`);
  return { store, child, notices, output: String(result.finalOutput) };
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
