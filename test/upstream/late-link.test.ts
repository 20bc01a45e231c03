import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { createCodexRolloutSource, createMemoryLinkStore, createUpstreamMonitor } from '../../src/upstream/index.js';
import { A, COORD, T0, TARGET, continueInput, fakeClock, tempDir } from './helpers.js';

/** U10, U12: a link made before a thread's first record exists still honours U10 once it arrives. */
const dir = tempDir('ssk-late-link-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = (s: number, type: string, payload: Record<string, unknown>) => `${JSON.stringify({ timestamp: new Date(T0 + s * 1000).toISOString(), type, payload })}\n`;
const meta = (source: unknown) => env(0, 'session_meta', { id: '019a-late', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.171.0', source });
const typed = (s: number, text: string) => env(s, 'event_msg', { type: 'item_completed', thread_id: 't', turn_id: `turn-${s}`, item: { type: 'UserMessage', id: `m${s}`, content: [{ type: 'text', text, text_elements: [] }] } });

function setup() {
  const clock = fakeClock();
  const store = createMemoryStore({ now: clock.now });
  const monitor = createUpstreamMonitor({ store, links: createMemoryLinkStore(), now: clock.now, logger: memoryLogger(), sources: [createCodexRolloutSource()] });
  const human = () => store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events.filter((e) => e.kind === 'human_direct_message');
  return { clock, store, monitor, human };
}

describe('U12 a thread linked while its file is empty', () => {
  it.each([
    ['a sub-agent thread', { subagent: { thread_spawn: { parent_thread_id: '019a-parent', depth: 1 } } }],
    ['an exec thread', 'exec'],
  ])('U12 %s: its parent\'s prompt, written after the link, is never a person\'s turn', async (_name, source) => {
    const s = setup();
    const p = join(dir, `rollout-2026-09-01T10-00-00-${_name.replace(/ /g, '-')}.jsonl`);
    writeFileSync(p, '');
    expect(await s.monitor.continueSession(continueInput(p, { upstreamKind: 'codex-rollout' }))).toMatchObject({ linked: true });
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    appendFileSync(p, meta(source) + typed(1, 'Investigate the failing test and report back'));
    s.clock.advance(60_000);
    await s.monitor.tick();
    appendFileSync(p, typed(2, 'Also check the parser'));
    s.clock.advance(60_000);
    await s.monitor.tick();
    expect(s.human()).toEqual([]);
    expect(s.store.pendingNotices(COORD)).toEqual([]);
  });

  it('U12 a thread a person types into, linked while empty, still counts every typed prompt', async () => {
    const s = setup();
    const p = join(dir, 'rollout-2026-09-01T10-00-00-person.jsonl');
    writeFileSync(p, '');
    expect(await s.monitor.continueSession(continueInput(p, { upstreamKind: 'codex-rollout' }))).toMatchObject({ linked: true });
    s.store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    appendFileSync(p, meta('cli') + typed(1, 'first'));
    s.clock.advance(60_000);
    await s.monitor.tick();
    appendFileSync(p, typed(2, 'second'));
    s.clock.advance(60_000);
    await s.monitor.tick();
    expect(s.human().reduce((n, e) => n + Number((e.payload as { turns?: number } | undefined)?.turns ?? 1), 0)).toBe(2);
  });
});
