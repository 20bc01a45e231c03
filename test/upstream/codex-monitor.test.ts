import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { createLink } from '../../src/core/upstream/index.js';
import { createCodexRolloutSource, createMemoryLinkStore, createUpstreamMonitor } from '../../src/upstream/index.js';
import { A, COORD, T0, TARGET, continueInput, fakeClock, tempDir } from './helpers.js';

const dir = tempDir('ssk-codex-monitor-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ts = (s: number) => new Date(T0 + s * 1000).toISOString();
const env = (s: number, type: string, payload: Record<string, unknown>) => `${JSON.stringify({ timestamp: ts(s), type, payload })}\n`;
const meta = (source: unknown, extra: Record<string, unknown> = {}) =>
  // The instructions make the first line long, as real session_meta records are.
  env(0, 'session_meta', { id: '019a-child', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.155.0', base_instructions: { text: 'x'.repeat(300_000) }, source, ...extra });
const typed = (s: number, text: string) =>
  env(s, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }) +
  env(s, 'event_msg', { type: 'item_completed', thread_id: 't', turn_id: `turn-${s}`, item: { type: 'UserMessage', id: `m${s}`, content: [{ type: 'text', text, text_elements: [] }] } });

function setup() {
  const clock = fakeClock();
  const store = createMemoryStore({ now: clock.now });
  const links = createMemoryLinkStore();
  const monitor = createUpstreamMonitor({ store, links, now: clock.now, logger: memoryLogger(), sources: [createCodexRolloutSource()] });
  const events = () => store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events;
  return { clock, store, links, monitor, events };
}

describe('upstream monitor on Codex rollouts (U10)', () => {
  it('U5 U10 a paginated Codex session: each typed prompt (item_completed UserMessage) is one human turn, its response_item copy none', async () => {
    const s = setup();
    const p = join(dir, 'rollout-2026-09-01T10-00-00-person.jsonl');
    writeFileSync(p, meta('cli') + typed(1, 'first prompt'));
    expect(await s.monitor.continueSession(continueInput(p, { upstreamKind: 'codex-rollout' }))).toMatchObject({ linked: true });
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    appendFileSync(p, typed(2, 'second prompt') + env(3, 'event_msg', { type: 'item_completed', item: { type: 'AgentMessage', content: [{ type: 'Text', text: 'ok' }] } }) + typed(4, 'third prompt'));
    s.clock.advance(60_000);
    await s.monitor.tick();
    const human = s.events().filter((e) => e.kind === 'human_direct_message');
    expect(human).toHaveLength(1);
    expect(human[0]!.payload).toEqual({ turns: 2 });
  });

  it('U10 a Codex sub-agent thread is machine-driven: Continue links nothing (machine-thread) and its parent-written prompts never count', async () => {
    for (const [name, first] of [
      ['spawn', meta({ subagent: { thread_spawn: { parent_thread_id: '019a-parent', depth: 1 } } })],
      ['thread-source', meta('cli', { thread_source: 'subagent', forked_from_id: '019a-parent' })],
      ['exec', meta('exec')],
    ] as const) {
      const s = setup();
      const p = join(dir, `rollout-2026-09-01T10-00-00-${name}.jsonl`);
      writeFileSync(p, first + typed(1, 'Investigate the failing test and report back'));
      const r = await s.monitor.continueSession(continueInput(p, { upstreamKind: 'codex-rollout' }));
      expect(r, name).toMatchObject({ linked: false, reason: 'machine-thread' });
      expect(await s.monitor.status(), name).toEqual([]);
    }
  });

  it('U10 a link to a sub-agent thread made before the check existed is removed at the next Continue', async () => {
    const s = setup();
    const p = join(dir, 'rollout-2026-09-01T10-00-00-old-link.jsonl');
    writeFileSync(p, meta({ subagent: { thread_spawn: { parent_thread_id: 'p' } } }) + typed(1, 'do the subtask'));
    const input = continueInput(p, { upstreamKind: 'codex-rollout' });
    expect(await s.links.compareAndSet(TARGET, A, undefined, createLink(input, { offset: 0, epoch: 0 }, await s.links.nextSerial(), T0))).toBe(true);
    expect(await s.monitor.continueSession(input)).toMatchObject({ linked: false, reason: 'machine-thread' });
    expect(await s.links.get(TARGET, A)).toBeUndefined();
  });

  it('U10 the source reads the first record through the long-line reader: a session_meta over the 1 MiB read is still judged; no file or no complete first line is undecided', async () => {
    const source = createCodexRolloutSource();
    const target = (filePath: string) => ({ hostId: 'gateway:local', threadId: 't', ref: { filePath } });
    const long = join(dir, 'rollout-2026-09-01T10-00-00-long-meta.jsonl');
    writeFileSync(long, env(0, 'session_meta', { id: 'c', base_instructions: { text: 'x'.repeat(3 * 1024 * 1024) }, source: { subagent: { thread_spawn: { parent_thread_id: 'p' } } } }) + typed(1, 'sub task'));
    expect(await source.machineDriven!(target(long))).toBe('sub-agent thread (session_meta.source.subagent: thread_spawn)');
    const open = join(dir, 'rollout-2026-09-01T10-00-00-open.jsonl');
    writeFileSync(open, env(0, 'session_meta', { id: 'c', source: 'exec' }).trimEnd());
    expect(await source.machineDriven!(target(open))).toBeUndefined();
    expect(await source.machineDriven!(target(join(dir, 'missing.jsonl')))).toBeUndefined();
  });

  it('U10 a person\'s Codex fork (forked_from_id, interactive source) is linked', async () => {
    const s = setup();
    const p = join(dir, 'rollout-2026-09-01T10-00-00-fork.jsonl');
    writeFileSync(p, meta('cli', { forked_from_id: '019a-parent' }) + typed(1, 'try the other approach'));
    expect(await s.monitor.continueSession(continueInput(p, { upstreamKind: 'codex-rollout' }))).toMatchObject({ linked: true });
  });
});
