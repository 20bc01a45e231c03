import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import type { StateEvent } from '../../spec/index.js';
import { parseNoticeText } from '../../src/core/index.js';
import { createClaudeAgentSdkHooks } from '../../src/integrations/claude-agent-sdk/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { startFakeAnthropic, type FakeRequest } from './fake-anthropic.js';

/**
 * The SDK's real hook dispatch, offline: `query()` spawns the Claude Code binary that ships in the
 * SDK's platform package, the binary talks to a local stand-in for the Messages API, and our hook
 * callbacks run over the SDK's control channel. The scripted model delegates to a sub-agent; a
 * person writes to the sub-agent while it works; the manager's next prompt carries exactly one notice.
 */
const require = createRequire(import.meta.url);
function hasBinary(): boolean {
  try {
    require.resolve(`@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`);
    return true;
  } catch {
    return false;
  }
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Every string in a parsed JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}
const text = (r: FakeRequest) => JSON.stringify(r.messages);
const hasAssistantToolUse = (r: FakeRequest) => r.messages.some((m) => m.role === 'assistant' && JSON.stringify(m.content).includes('"tool_use"'));

describe.skipIf(!hasBinary())('claude-agent-sdk end to end through the SDK hook dispatch (offline)', () => {
  it('T30 T31 T32: registers on the first prompt, seeds the parent on SubagentStart (R14), one notice on the next prompt, acked at Stop (R27b)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-claude-sdk-'));
    dirs.push(dir);
    const store = createMemoryStore();
    const recorded: StateEvent[] = [];
    const record = store.record.bind(store);
    store.record = (input) => {
      const event = record(input);
      if (event !== undefined) recorded.push(event);
      return event;
    };
    const kit = createClaudeAgentSdkHooks({ store });
    let childKey: string | undefined;
    const api = await startFakeAnthropic(async (r) => {
      const body = text(r);
      if (hasAssistantToolUse(r)) return { content: [{ type: 'text', text: 'delegated' }], stop: 'end_turn' };
      if (body.includes('SUBTASK')) {
        // The person writes to the worker while it works (a channel message on the worker's session).
        childKey = recorded.find((e) => e.kind === 'child_spawned')?.sessionKey;
        if (childKey !== undefined) {
          for (const n of [1, 2]) await store.record({ sessionKey: childKey, agentId: 'claude-code', kind: 'human_direct_message', actorType: 'human', summary: `human message via telegram (${n})` });
        }
        return { content: [{ type: 'text', text: 'worker done' }], stop: 'end_turn' };
      }
      if (body.includes('task-notification')) return { content: [{ type: 'text', text: 'noted' }], stop: 'end_turn' };
      if (body.includes('hello manager')) {
        return { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Task', input: { description: 'do it', prompt: 'SUBTASK do the work', subagent_type: 'general-purpose' } }], stop: 'tool_use' };
      }
      return { content: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
    });
    try {
      const messages: { type: string; subtype?: string; session_id?: string }[] = [];
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 90_000);
      for await (const m of query({
        prompt: 'hello manager',
        options: {
          hooks: kit.hooks,
          abortController: abort,
          cwd: dir,
          canUseTool: async (_name, input) => ({ behavior: 'allow', updatedInput: input }),
          env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-offline', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', CLAUDE_CONFIG_DIR: join(dir, 'config'), HOME: dir },
          maxTurns: 4,
        },
      })) {
        messages.push(m as (typeof messages)[number]);
      }
      clearTimeout(timer);
      const sessionId = messages.find((m) => m.session_id !== undefined)?.session_id;
      expect(sessionId).toBeDefined();
      const parent = kit.sessionKeyOf(sessionId!);

      // T31: the first prompt registered the session once and told the model its key.
      const events = recorded;
      expect(events.filter((e) => e.sessionKey === parent && e.kind === 'created')).toHaveLength(1);
      expect(api.requests[0]!.body).toContain(`Session-state key of this session: \\"${parent}\\"`);

      // T32: the child session, seeded for the parent (R14), ended as run_completed.
      expect(childKey).toBe(`agent:claude-code:subagent:${sessionId}:${childKey!.split(':').pop()}`);
      expect(events.filter((e) => e.sessionKey === childKey).map((e) => e.kind)).toEqual(['child_spawned', 'human_direct_message', 'human_direct_message', 'run_completed']);

      // The manager's next prompt (the SDK's task notification) carried exactly one notice (R24).
      const next = api.requests.find((r) => text(r).includes('task-notification') && r.body.includes('changed (other actor)'));
      expect(next, 'no request carried the notice').toBeDefined();
      const noticeLines = strings(JSON.parse(next!.body)).flatMap((s) => s.split('\n')).filter((line) => line.includes('changed (other actor)'));
      expect(noticeLines).toHaveLength(1);
      expect(parseNoticeText(noticeLines[0]!.slice(noticeLines[0]!.indexOf('Session "')))).toMatchObject({ targetSessionKey: childKey, lastSeenSequence: events.find((e) => e.kind === 'child_spawned')!.sequence });
      // T30: acked at that turn's Stop, after the model had it. The second message came after the
      // watermark froze, so the ack reopens exactly one follow-up quoting the first message (R28).
      const firstMessage = events.find((e) => e.kind === 'human_direct_message')!.sequence;
      expect((await store.pendingNotices(parent)).map((n) => [n.targetSessionKey, n.lastSeenSequence])).toEqual([[childKey, firstMessage]]);
      expect(kit.handedOver(parent)).toEqual([]);
    } finally {
      await api.close();
    }
  }, 120_000);
});
