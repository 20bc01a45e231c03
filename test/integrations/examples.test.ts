import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as claudeExample } from '../../examples/claude-agent-sdk.js';
import { main as openaiExample } from '../../examples/openai-agents.js';
import { parseNoticeText } from '../../src/core/index.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { ScriptedModel, ScriptedProvider, callTool, inputTexts, lastToolOutput, say } from './scripted-model.js';

/** The runnable examples under examples/, run offline so CI keeps them working. */
describe('examples', () => {
  it('T36 T37: examples/openai-agents.ts runs with a scripted model provider', async () => {
    const worker = new ScriptedModel(() => [say('release notes drafted')]);
    const manager = new ScriptedModel((request) => {
      const status = lastToolOutput(request, 'session_status');
      if (status !== undefined) return [say(status)];
      const notice = inputTexts(request).flatMap((t) => t.split('\n')).map(parseNoticeText).find((n) => n !== undefined);
      if (notice !== undefined) return [callTool('c2', 'session_status', { sessionKey: notice.targetSessionKey, changesSince: notice.lastSeenSequence })];
      if (lastToolOutput(request, 'delegate_to_worker') !== undefined) return [say('asked the worker')];
      return [callTool('c1', 'delegate_to_worker', { input: 'draft the release notes' })];
    });
    const lines: string[] = [];
    const { child, notices, output } = await openaiExample({ modelProvider: new ScriptedProvider({ manager, worker }), models: { manager: 'manager', worker: 'worker' }, log: (l) => lines.push(l) });
    expect(notices).toHaveLength(1);
    expect(output).toContain(`human_direct_message by human: human message via web chat [channel=web]`);
    expect(child.sessionKey).toMatch(/^agent:worker:subagent:/);
    expect(lines[1]).toMatch(/^run 2 got 1 notice\(s\): Session "agent:worker:subagent:/);
  });
});

const require = createRequire(import.meta.url);
const hasBinary = (() => {
  try {
    require.resolve(`@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasBinary)('examples (Claude Code binary, offline)', () => {
  it('T31: examples/claude-agent-sdk.ts runs against a local stand-in for the Messages API', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ssk-claude-example-'));
    const api = await startFakeAnthropic(async () => ({ content: [{ type: 'text', text: 'hello' }], stop: 'end_turn' }));
    try {
      const lines: string[] = [];
      const { sessionKey } = await claudeExample({
        prompt: 'Say hello.',
        cwd: dir,
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-offline', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', CLAUDE_CONFIG_DIR: join(dir, 'config'), HOME: dir },
        log: (l) => lines.push(l),
      });
      expect(lines).toEqual(['result: success', `session ${sessionKey}: stateVersion 1, created`]);
      expect(api.requests[0]!.body).toContain(`Session-state key of this session: \\"${sessionKey}\\"`);
    } finally {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
