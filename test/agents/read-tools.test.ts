import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBuiltCli } from '../cli/helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../integrations/fake-anthropic.js';
import { binaryOrSkip, claudeEnv, codexEnv, codexProviderArgs, findClaude, findCodex, makeSandbox, runBinary, type BinaryInfo, type Sandbox, CODEX_KIT_SERVER_STARTUP } from './binaries.js';
import { startFakeResponses, type FakeResponses, type ResponsesRequest } from './fake-responses.js';

/**
 * T49 with the real binaries, offline: a non-interactive run (`codex exec`, `claude -p`) has nobody
 * to ask, so a tool call that needs approval is refused. After `init --allow-read-tools` the model's
 * call of a read-only tool (session_status) is answered by the kit's server; without the flag, or
 * for a tool that writes (session_watch), it is not. The stand-in model makes each call; what came
 * back is read off the next request the binary sends it.
 */
const codex = binaryOrSkip(findCodex(), 'init --allow-read-tools with the real Codex');
const claude = binaryOrSkip(findClaude(), 'init --allow-read-tools with the real Claude Code');

const TARGET = 'agent:worker:read-tools';
/** The answer of session_status for a session nothing was recorded for (T3). */
const ANSWERED = /"stateVersion"\s*:\s*0/;

/** The outputs Codex sent back for the model's function calls. */
function codexCallOutputs(request: ResponsesRequest): string[] {
  const input = request.json?.['input'];
  if (!Array.isArray(input)) return [];
  return (input as { type?: string; output?: unknown }[])
    .filter((item) => item.type === 'function_call_output')
    .map((item) => (typeof item.output === 'string' ? item.output : JSON.stringify(item.output)));
}

describe.skipIf(codex === undefined)('T49 Codex: init --allow-read-tools approves exactly the tools that read', () => {
  const cli = useBuiltCli();
  const boxes: Sandbox[] = [];
  let responses: FakeResponses;
  let call: { name: string; arguments: Record<string, unknown> } = { name: 'session_status', arguments: { sessionKey: TARGET } };

  beforeAll(async () => {
    // Each first turn calls the tool (Codex names an MCP server's tools by a namespace); the turn
    // after the call's output ends the run.
    responses = await startFakeResponses((request) => {
      const answered = codexCallOutputs(request).length > 0;
      return answered ? [{ type: 'message', text: 'done' }] : [{ type: 'function_call', name: call.name, namespace: 'mcp__session_state_kit', arguments: call.arguments }];
    });
  });
  afterAll(async () => {
    await responses?.close();
    for (const box of boxes) box.remove();
  });

  const runWith = async (initArgs: string[]): Promise<string[]> => {
    const box = makeSandbox('read-tools-codex');
    boxes.push(box);
    const init = await runBinary([process.execPath, cli.path()], ['init', 'codex', '--user', '--trust', '--db', join(box.root, 'team.db'), ...initArgs], { cwd: box.project, env: { HOME: box.home, CODEX_HOME: box.codexHome } });
    expect(init.code, init.stderr).toBe(0);
    const before = responses.turns().length;
    const r = await runBinary((codex as BinaryInfo).command, ['exec', '--skip-git-repo-check', ...codexProviderArgs(responses.baseUrl), ...CODEX_KIT_SERVER_STARTUP, 'what is the state of the worker?'], { cwd: box.project, env: codexEnv(box) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    return responses.turns().slice(before).flatMap(codexCallOutputs);
  };

  it('T49 with the flag, the model\'s session_status call is answered by the kit', async () => {
    call = { name: 'session_status', arguments: { sessionKey: TARGET } };
    const outputs = await runWith(['--allow-read-tools']);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toMatch(ANSWERED);
  }, 240_000);

  it('T49 without it, the same call is refused (nobody to approve it in exec)', async () => {
    call = { name: 'session_status', arguments: { sessionKey: TARGET } };
    const outputs = await runWith([]);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toContain('MCP tool call requires approval');
  }, 240_000);

  it('T49 with it, a tool that writes (session_watch) still asks, so exec refuses it', async () => {
    call = { name: 'session_watch', arguments: { watcherSessionKey: 'agent:lead:x', targetSessionKey: TARGET } };
    const outputs = await runWith(['--allow-read-tools']);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toContain('MCP tool call requires approval');
  }, 240_000);
});

describe.skipIf(claude === undefined)('T49 Claude Code: init --allow-read-tools allows exactly the tools that read', () => {
  const cli = useBuiltCli();
  const boxes: Sandbox[] = [];
  let anthropic: FakeAnthropic;
  // T19: Claude Code names the calling session to the server; T60: init lets it read its peers.
  const session = '0b7c2d4e-5f60-4718-8a9b-0c1d2e3f4a5b';
  let call: { name: string; input: Record<string, unknown> } = { name: 'session_status', input: { sessionKey: TARGET } };

  /** The tool_result blocks Claude Code sent back, with whether it marked them an error. */
  const results = (from: number) =>
    anthropic.requests.slice(from).flatMap((q) =>
      q.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type?: string; content?: unknown; is_error?: boolean }[]) : []).filter((b) => b.type === 'tool_result').map((b) => ({ text: JSON.stringify(b.content), error: b.is_error === true }))),
    );

  beforeAll(async () => {
    anthropic = await startFakeAnthropic(async (request) => {
      const last = request.messages.at(-1);
      const answered = Array.isArray(last?.content) && (last.content as { type?: string }[]).some((b) => b.type === 'tool_result');
      if (answered) return { content: [{ type: 'text', text: 'done' }], stop: 'end_turn' };
      // Claude Code also asks the model for side things (titles and the like); only a turn that
      // offers the kit's tools gets the call.
      if (!request.body.includes(`mcp__session-state-kit__${call.name}`)) return { content: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
      return { content: [{ type: 'tool_use', id: `toolu_${anthropic.requests.length}`, name: `mcp__session-state-kit__${call.name}`, input: call.input }], stop: 'tool_use' };
    });
  });
  afterAll(async () => {
    await anthropic?.close();
    for (const box of boxes) box.remove();
  });

  const runWith = async (initArgs: string[]) => {
    const box = makeSandbox('read-tools-claude');
    boxes.push(box);
    const init = await runBinary([process.execPath, cli.path()], ['init', 'claude-code', '--user', '--db', join(box.root, 'team.db'), ...initArgs], { cwd: box.project, env: { HOME: box.home } });
    expect(init.code, init.stderr).toBe(0);
    const before = anthropic.requests.length;
    const r = await runBinary((claude as BinaryInfo).command, ['-p', 'what is the state of this session?', '--session-id', session, '--output-format', 'json'], { cwd: box.project, env: claudeEnv(box, anthropic.url) });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    return results(before);
  };

  it('T49 T60 with the flag, the model\'s session_status call on a peer is answered by the kit', async () => {
    call = { name: 'session_status', input: { sessionKey: TARGET } };
    const got = await runWith(['--allow-read-tools']);
    expect(got).toHaveLength(1);
    expect(got[0]!.error, got[0]!.text).toBe(false);
    expect(got[0]!.text).toMatch(/\\"stateVersion\\"\s*:\s*0/);
  }, 240_000);

  it('T60 init --visibility tree: the same call on a peer is the server\'s own refusal', async () => {
    call = { name: 'session_status', input: { sessionKey: TARGET } };
    const got = await runWith(['--allow-read-tools', '--visibility', 'tree']);
    expect(got).toHaveLength(1);
    expect(got[0]!.error).toBe(true);
    expect(got[0]!.text).toContain(`Forbidden: sessionKey: session \\"${TARGET}\\" is outside this caller's visibility \\"tree\\"`);
  }, 240_000);

  it('T49 without it, the same call is refused', async () => {
    call = { name: 'session_status', input: { sessionKey: TARGET } };
    const got = await runWith([]);
    expect(got).toHaveLength(1);
    expect(got[0]!.error).toBe(true);
    // Claude Code's own refusal (the kit's server never saw the call).
    expect(got[0]!.text).toContain('requested permissions to use mcp__session-state-kit__session_status');
  }, 240_000);

  it('T49 with it, a tool that writes (session_watch) is still refused', async () => {
    call = { name: 'session_watch', input: { targetSessionKey: TARGET } };
    const got = await runWith(['--allow-read-tools']);
    expect(got).toHaveLength(1);
    expect(got[0]!.error).toBe(true);
    expect(got[0]!.text).toContain('requested permissions to use mcp__session-state-kit__session_watch');
  }, 240_000);
});
