import { appendFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_NOT_PERSON_MARKERS,
  classifyClaudeLine,
  classifyCodexEntry,
  isSelfEcho,
  ownEchoSet,
  planCheck,
  type JsonValue,
  type Observation,
} from '../../src/core/upstream/index.js';
import { createClaudeJsonlSource, createCodexRolloutSource, type UpstreamSource } from '../../src/upstream/index.js';
import { appendLines, line, tempDir } from './helpers.js';

const dir = tempDir('ssk-prov-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (name = `p${++n}`) => join(dir, `${name}.jsonl`);
const target = (filePath: string) => ({ hostId: 'gateway:local', threadId: 't', ref: { filePath } });

function driver(source: UpstreamSource, filePath: string) {
  let marker: JsonValue = null;
  return {
    get marker() {
      return marker as Record<string, unknown>;
    },
    async baseline() {
      marker = await source.baseline(target(filePath));
    },
    async check(): Promise<Observation> {
      const o = await source.check({ ...target(filePath), marker });
      if (o.status === 'found') marker = o.nextMarker;
      return o;
    },
  };
}
const texts = (o: Observation) => (o.status === 'found' ? o.turns.map((t) => t.text) : [o.status]);

const cc2 = (text: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ parentUuid: 'p', isSidechain: false, type: 'user', message: { role: 'user', content: text }, uuid: `u${++n}`, timestamp: '2026-01-01T00:00:00.000Z', sessionId: 's', version: '2.1.0', userType: 'external', ...extra });
const queued = (prompt: unknown, origin?: Record<string, unknown>, mode: string | null = 'prompt') =>
  JSON.stringify({ type: 'attachment', attachment: { type: 'queued_command', ...(mode !== null && { commandMode: mode }), prompt, ...(origin && { origin }) }, uuid: `q${++n}`, timestamp: '2026-01-01T00:00:01.000Z', sessionId: 's' });

describe('U6 provenance first, fallback for older transcripts', () => {
  it('U10 origin.kind decides who wrote a user record; promptSource decides when origin is absent', () => {
    expect(classifyClaudeLine(cc2('hi', { origin: { kind: 'human' }, promptSource: 'typed' }))).toMatchObject({ human: true, reason: 'origin:human' });
    // A non-human origin is never a person, whatever the text or promptSource says.
    for (const kind of ['task-notification', 'peer', 'cron', 'loop', 'auto-continuation', 'coordinator']) {
      expect(classifyClaudeLine(cc2('looks typed', { origin: { kind }, promptSource: 'typed' }))).toMatchObject({ human: false, verdict: 'machine', reason: 'origin', detail: kind });
    }
    expect(classifyClaudeLine(cc2('scheduled prompt', { promptSource: 'system' }))).toMatchObject({ human: false, reason: 'prompt-source' });
    expect(classifyClaudeLine(cc2('sdk prompt', { promptSource: 'sdk' }))).toMatchObject({ human: true, reason: 'prompt-source:sdk' });
    // origin wins over promptSource
    expect(classifyClaudeLine(cc2('typed on mobile', { origin: { kind: 'human' }, promptSource: 'system' }))).toMatchObject({ human: true });
    // userType names the build's user class, not the writer: it does not decide
    expect(classifyClaudeLine(cc2('x', { userType: 'internal' }))).toMatchObject({ human: true, reason: 'fallback' });
  });

  it('U10 structure beats provenance: meta, compaction, sidechain, tool results are never a person', () => {
    const human = { origin: { kind: 'human' } };
    expect(classifyClaudeLine(cc2('skill body', { ...human, isMeta: true }))).toMatchObject({ human: false, verdict: 'meta', reason: 'meta' });
    expect(classifyClaudeLine(cc2('summary', { ...human, isCompactSummary: true, isVisibleInTranscriptOnly: true }))).toMatchObject({ human: false, reason: 'compact-summary' });
    expect(classifyClaudeLine(cc2('sub', { ...human, isSidechain: true }))).toMatchObject({ human: false, reason: 'sidechain' });
    expect(classifyClaudeLine(cc2('companion', { ...human, turnCompanion: true }))).toMatchObject({ human: false, verdict: 'meta' });
    expect(classifyClaudeLine(cc2([{ type: 'tool_result', tool_use_id: 't', content: 'x' }], human))).toMatchObject({ human: false, reason: 'tool-result' });
  });

  it('U10 fallback (no origin, no promptSource): task notifications, client output, compaction preamble are not a person', () => {
    expect(classifyClaudeLine(line.human('<task-notification><task-id>b</task-id><status>completed</status></task-notification>'))).toMatchObject({ human: false, reason: 'task-notification' });
    expect(classifyClaudeLine(line.human('This session is being continued from a previous conversation that ran out of context.'))).toMatchObject({ human: false, reason: 'compact-summary' });
    expect(classifyClaudeLine(line.human('<system-reminder>x</system-reminder>'))).toMatchObject({ human: false, reason: 'client-output' });
    expect(classifyClaudeLine(line.human('fix the build'))).toMatchObject({ human: true, reason: 'fallback' });
  });

  it('U10 queued_command attachments (typed while the agent is busy) count: text and image forms; other origins and modes do not', () => {
    expect(classifyClaudeLine(queued('also run the linter', { kind: 'human' }))).toMatchObject({ human: true, reason: 'queued-command', text: 'also run the linter', images: 0 });
    expect(classifyClaudeLine(queued([{ type: 'text', text: 'see this' }, { type: 'image', source: { type: 'base64', data: 'AA' } }], { kind: 'human' }))).toMatchObject({ human: true, text: 'see this', images: 1 });
    expect(classifyClaudeLine(queued([{ type: 'image', source: { type: 'base64', data: 'AA' } }], { kind: 'human' }))).toMatchObject({ human: true, text: '', images: 1 });
    expect(classifyClaudeLine(queued('older shape without origin'))).toMatchObject({ human: true }); // mode prompt, no origin: fallback
    expect(classifyClaudeLine(queued('from a peer', { kind: 'peer' }))).toMatchObject({ human: false, reason: 'origin', detail: 'peer' });
    expect(classifyClaudeLine(queued('<task-notification/>', undefined, 'task-notification'))).toMatchObject({ human: false, reason: 'queued-mode' });
    expect(classifyClaudeLine(queued('coordinator says', undefined, null))).toMatchObject({ human: false, reason: 'queued-mode' });
    expect(classifyClaudeLine(JSON.stringify({ type: 'attachment', attachment: { type: 'queued_command', commandMode: 'prompt', prompt: 'x', isMeta: true } }))).toMatchObject({ human: false, reason: 'meta' });
  });

  it('U10 not-a-person markers: defaults catch inter-session messages and continue wrappers even under origin human; configurable', () => {
    const inter = cc2('[Inter-session message] from agent:main:coordinator: please stop', { origin: { kind: 'human' } });
    const wrapper = cc2('Continue this conversation using the OpenClaw transcript below.\n\n<transcript>…</transcript>');
    const plain = cc2('continue this conversation using the transcript below', {});
    expect(classifyClaudeLine(inter)).toMatchObject({ human: false, reason: 'not-person-marker' });
    expect(classifyClaudeLine(wrapper)).toMatchObject({ human: false, reason: 'not-person-marker' });
    expect(classifyClaudeLine(plain)).toMatchObject({ human: false, reason: 'not-person-marker' });
    expect(classifyClaudeLine(queued('  [Inter-session message] hello', { kind: 'human' }))).toMatchObject({ human: false, reason: 'not-person-marker' });
    // Configurable: replacing the defaults, and adding one.
    expect(classifyClaudeLine(inter, { notPersonMarkers: [] })).toMatchObject({ human: true });
    const mine = cc2('<<relay>> forwarded by the bridge');
    expect(classifyClaudeLine(mine)).toMatchObject({ human: true });
    expect(classifyClaudeLine(mine, { notPersonMarkers: [...DEFAULT_NOT_PERSON_MARKERS, '<<relay>>'] })).toMatchObject({ human: false, reason: 'not-person-marker', detail: '<<relay>>' });
    expect(classifyClaudeLine(mine, { notPersonMarkers: [/forwarded by the bridge$/u] })).toMatchObject({ human: false });
  });
});

describe('U4 self-echo of slash commands and image-only prompts', () => {
  it('U4 a slash command we sent comes back wrapped in command tags and is our echo; someone else\'s command counts', () => {
    const wrapped = cc2('<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>12</command-args>', { origin: { kind: 'human' } });
    const c = classifyClaudeLine(wrapped);
    expect(c).toMatchObject({ human: true, text: '/review 12' });
    const older = classifyClaudeLine(line.human('<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>'));
    expect(older).toMatchObject({ human: true, text: '/compact' });
    const set = ownEchoSet(['/review 12']);
    expect(c.human && isSelfEcho(c, set)).toBe(true);
    expect(older.human && isSelfEcho(older, set)).toBe(false);
  });

  it('U4 an image-only prompt we sent is our echo (compared by its image count); an image-only prompt nobody sent counts', () => {
    const img = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
    const one = classifyClaudeLine(cc2([img], { origin: { kind: 'human' } }));
    const two = classifyClaudeLine(cc2([img, img], { origin: { kind: 'human' } }));
    expect(one).toMatchObject({ human: true, text: '', images: 1 });
    const own = ownEchoSet([{ text: '', images: 1 }]);
    expect(one.human && isSelfEcho(one, own)).toBe(true);
    expect(two.human && isSelfEcho(two, own)).toBe(false);
    expect(one.human && isSelfEcho(one, ownEchoSet(['some text']))).toBe(false);
    // through planCheck: an image-only echo advances with no record
    const link = { sessionKey: 'k', agentId: 'a', catalogId: 'claude', hostId: 'h', threadId: 't', upstreamKind: 'x', ref: {}, marker: {}, serial: 1, generation: 1, revision: 1, missCount: 0, status: 'ok' as const, createdAt: 0, updatedAt: 0 };
    const plan = planCheck(link, { status: 'found', turns: [{ text: '', images: 1 }], nextMarker: {}, position: 'p' }, { now: 1, ownTexts: [{ text: '', images: 1 }] });
    expect(plan).toMatchObject({ action: 'write', echoTurns: 1, humanTurns: 0 });
  });

  it('U4 a text cut by the long-line reader is compared as a prefix of our own long message', () => {
    const long = 'p'.repeat(5000);
    expect(isSelfEcho({ text: long.slice(0, 2000), truncated: true }, ownEchoSet([long]))).toBe(true);
    expect(isSelfEcho({ text: long.slice(0, 2000) }, ownEchoSet([long]))).toBe(false);
    expect(isSelfEcho({ text: 'p'.repeat(10), truncated: true }, ownEchoSet([long]))).toBe(false); // too short to tell
  });
});

describe('U6 replacement by content, resume following (real files)', () => {
  it('U6 a file replaced in place (same inode, regrown past the cursor) is caught by its first bytes: a new epoch from 0', async () => {
    const p = fresh();
    writeFileSync(p, `${line.assistant('old conversation')}\n${line.human('old turn')}\n`);
    const d = driver(createClaudeJsonlSource(), p);
    await d.baseline();
    const offset = d.marker['offset'] as number;
    // Same file (identity kept), new content, longer than the cursor: size and identity cannot tell.
    truncateSync(p, 0);
    writeFileSync(p, `${line.human('first turn of the new file')}\n${line.assistant('x'.repeat(offset))}\n${line.human('second')}\n`);
    const o = await d.check();
    expect(texts(o)).toEqual(['first turn of the new file', 'second']);
    expect(o.status === 'found' && o.note).toBe('file replaced; reading from offset 0 (epoch 1)');
    expect(d.marker).toMatchObject({ epoch: 1 });
    // appending to it afterwards is no replacement
    appendLines(p, [line.human('third')]);
    expect(texts(await d.check())).toEqual(['third']);
  });

  it('U6 claude --resume continuing in a new file: the monitor follows it; copied history does not count, new turns do', async () => {
    const oldId = 'aaaaaaaa-0000-4000-8000-000000000001';
    const newId = 'bbbbbbbb-0000-4000-8000-000000000002';
    const oldPath = fresh(oldId);
    const rec = (sid: string, type: string, text: string, uuid: string, parentUuid: string | null) =>
      JSON.stringify({ parentUuid, isSidechain: false, type, message: { role: type, content: text }, uuid, timestamp: '2026-01-01T00:00:00.000Z', sessionId: sid });
    writeFileSync(oldPath, `${rec(oldId, 'user', 'first question', 'o1', null)}\n${rec(oldId, 'assistant', 'answer', 'o2', 'o1')}\n`);
    const d = driver(createClaudeJsonlSource(), oldPath);
    await d.baseline();
    appendLines(oldPath, [rec(oldId, 'user', 'one more in the old file', 'o3', 'o2')]);
    expect(texts(await d.check())).toEqual(['one more in the old file']);
    // The resume writes a new file: the history copied (old session id), then new turns.
    const newPath = fresh(newId);
    writeFileSync(newPath, [rec(oldId, 'user', 'first question', 'o1', null), rec(oldId, 'assistant', 'answer', 'o2', 'o1'), rec(oldId, 'user', 'one more in the old file', 'o3', 'o2')].map((l) => `${l}\n`).join(''));
    const follow = await d.check();
    expect(follow).toMatchObject({ status: 'found', turns: [], note: `conversation resumed in ${newId}.jsonl; following it` });
    expect(d.marker).toMatchObject({ offset: 0, epoch: 1, path: newPath, lineage: [oldId] });
    appendLines(newPath, [rec(newId, 'assistant', 'welcome back', 'n1', 'o3'), rec(newId, 'user', 'typed after the resume', 'n2', 'n1')]);
    expect(texts(await d.check())).toEqual(['typed after the resume']);
    expect(texts(await d.check())).toEqual([]);
  });

  it('U6 a sub-agent transcript carrying our session id is not a continuation', async () => {
    const sid = 'eeeeeeee-0000-4000-8000-000000000005';
    const main = fresh(sid);
    writeFileSync(main, `${JSON.stringify({ type: 'user', sessionId: sid, uuid: 'e1', message: { role: 'user', content: 'x' } })}\n`);
    const d = driver(createClaudeJsonlSource(), main);
    await d.baseline();
    writeFileSync(join(dir, 'agent-a1b2c3.jsonl'), `${JSON.stringify({ type: 'user', isSidechain: true, sessionId: sid, uuid: 's1', parentUuid: null, message: { role: 'user', content: 'sub task' } })}\n`);
    writeFileSync(fresh('ffffffff-0000-4000-8000-000000000006'), `${JSON.stringify({ type: 'user', isSidechain: true, sessionId: sid, uuid: 's2', message: { role: 'user', content: 'inline sidechain' } })}\n`);
    await d.check();
    expect(d.marker['path']).toBeUndefined();
  });

  it('U6 an unrelated newer file in the directory is not followed', async () => {
    const a = fresh('cccccccc-0000-4000-8000-000000000003');
    writeFileSync(a, `${JSON.stringify({ type: 'user', sessionId: 'cccccccc-0000-4000-8000-000000000003', uuid: 'c1', message: { role: 'user', content: 'x' } })}\n`);
    const d = driver(createClaudeJsonlSource(), a);
    await d.baseline();
    writeFileSync(fresh('dddddddd-0000-4000-8000-000000000004'), `${JSON.stringify({ type: 'user', sessionId: 'dddddddd-0000-4000-8000-000000000004', uuid: 'd1', parentUuid: null, message: { role: 'user', content: 'other' } })}\n`);
    const o = await d.check();
    expect(o.status === 'found' && o.note).toBeUndefined();
    expect(d.marker['path']).toBeUndefined();
  });
});

describe('U6 Codex CLI rollouts', () => {
  const env = (type: string, payload: Record<string, unknown>, ts = '2026-01-01T00:00:00.000Z') => JSON.stringify({ timestamp: ts, type, payload });

  it('U10 Codex: event_msg user_message counts; the response_item copy and injected context never do', () => {
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'user_message', message: 'fix the flaky test', kind: 'plain' })))).toMatchObject({ human: true, text: 'fix the flaky test', reason: 'user-message' });
    expect(classifyCodexEntry(JSON.parse(env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the flaky test' }] })))).toMatchObject({ human: false, reason: 'model-input' });
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'user_message', message: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' })))).toMatchObject({ human: false, reason: 'injected-context' });
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'user_message', message: '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>…' })))).toMatchObject({ human: false, reason: 'injected-context' });
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'user_message', message: '', images: ['data:image/png;base64,AA'] })))).toMatchObject({ human: true, text: '', images: 1 });
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'user_message', message: 'be concise', kind: 'user_instructions' })))).toMatchObject({ human: false, reason: 'injected-context' });
    expect(classifyCodexEntry(JSON.parse(env('session_meta', { id: 'x', cwd: '/w', cli_version: '0.46.0' })))).toMatchObject({ human: false, verdict: 'meta' });
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'agent_message', message: 'done' })))).toMatchObject({ human: false, reason: 'assistant' });
    // pre-envelope rollouts
    expect(classifyCodexEntry({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'legacy prompt' }] })).toMatchObject({ human: true, reason: 'legacy-message' });
    expect(classifyCodexEntry({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<user_instructions>be nice</user_instructions>' }] })).toMatchObject({ human: false, reason: 'injected-context' });
    expect(classifyCodexEntry(JSON.parse(env('event_msg', { type: 'user_message', message: '[Inter-session message] hi' })))).toMatchObject({ human: false, reason: 'not-person-marker' });
  });

  it('U6 Codex rollout source: same byte cursor, missing and echo rules', async () => {
    const p = join(dir, 'rollout-2026-01-01T00-00-00-0199.jsonl');
    writeFileSync(p, `${env('session_meta', { id: '0199', cwd: '/w', cli_version: '0.46.0' })}\n`);
    const d = driver(createCodexRolloutSource(), p);
    await d.baseline();
    appendFileSync(p, [env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>…</environment_context>' }] }), env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello codex' }] }), env('event_msg', { type: 'user_message', message: 'hello codex', kind: 'plain' }), env('event_msg', { type: 'agent_message', message: 'hi' })].map((l) => `${l}\n`).join(''));
    expect(texts(await d.check())).toEqual(['hello codex']);
    rmSync(p);
    expect(await d.check()).toMatchObject({ status: 'missing' });
  });
});

describe('U3 U6 baseline at adoption', () => {
  it('U3 U6 a line still being written at adoption is read once complete, not cut in half', async () => {
    const p = fresh();
    const typed = line.human('typed while we adopted');
    writeFileSync(p, `${line.assistant('before')}\n${typed.slice(0, 20)}`);
    const d = driver(createClaudeJsonlSource(), p);
    await d.baseline();
    expect(d.marker['offset']).toBe(Buffer.byteLength(`${line.assistant('before')}\n`));
    appendFileSync(p, `${typed.slice(20)}\n`);
    expect(texts(await d.check())).toEqual(['typed while we adopted']);
  });
});

describe('U5 U10 end to end through the monitor', () => {
  it('U10 background-task notifications, peers and injected wrappers never notify; a queued prompt does, our command echo does not', async () => {
    const { createMemoryStore } = await import('../../src/memory/index.js');
    const { createUpstreamMonitor } = await import('../../src/upstream/index.js');
    const { memoryLogger } = await import('../../src/index.js');
    const { A, COORD, TARGET, continueInput, fakeClock } = await import('./helpers.js');
    const p = fresh();
    writeFileSync(p, `${cc2('adopted here', { origin: { kind: 'human' } })}\n`);
    const clock = fakeClock();
    const store = createMemoryStore({ now: clock.now });
    const monitor = createUpstreamMonitor({ store, now: clock.now, logger: memoryLogger(), sources: [createClaudeJsonlSource()] });
    await monitor.continueSession(continueInput(p));
    store.watch({ watcherSessionKey: COORD, targetSessionKey: TARGET, agentId: A });
    monitor.noteOwnUserMessage(TARGET, A, '/review 12');
    const events = () => store.changesSince({ sessionKey: TARGET, agentId: A, since: 0 }).stateChanges.events;
    appendLines(p, [
      cc2('<task-notification><status>completed</status></task-notification>', { origin: { kind: 'task-notification' }, promptSource: 'system' }),
      cc2('status?', { origin: { kind: 'peer' } }),
      cc2('[Inter-session message] from agent:main:coordinator: pause', { origin: { kind: 'human' } }),
      cc2('<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>12</command-args>', { origin: { kind: 'human' } }),
    ]);
    clock.advance(60_000);
    expect(await monitor.tick()).toMatchObject({ recorded: [], echoes: 1 });
    expect(events()).toEqual([]);
    appendLines(p, [queued('and bump the version', { kind: 'human' }), queued([{ type: 'image', source: { type: 'base64', data: 'AA' } }], { kind: 'human' })]);
    clock.advance(60_000);
    await monitor.tick();
    expect(events()).toMatchObject([{ kind: 'human_direct_message', actorType: 'human', summary: 'human message via claude', payload: { turns: 2 } }]);
    expect(store.pendingNotices(COORD)).toHaveLength(1);
  });
});

describe('U10 a third transcript format is one dialect', () => {
  it('U10 createJsonlTranscriptSource with a small dialect object reads a new format with the same cursor rules', async () => {
    const { createJsonlTranscriptSource } = await import('../../src/upstream/index.js');
    const { humanTurn, notHuman } = await import('../../src/core/upstream/index.js');
    // e.g. a chat log `{role, text, at}` per line
    const dialect = {
      name: 'toy',
      followsResume: false,
      classify: (e: unknown) => {
        const r = e as { role?: string; text?: string; at?: string };
        return r.role === 'person' && typeof r.text === 'string' ? humanTurn(r.text, 0, 'toy-person', r.at, DEFAULT_NOT_PERSON_MARKERS) : notHuman('record');
      },
    };
    const p = fresh();
    writeFileSync(p, '');
    const d = driver(createJsonlTranscriptSource({ kind: 'toy', dialect }), p);
    await d.baseline();
    appendFileSync(p, `${JSON.stringify({ role: 'bot', text: 'hi' })}\n${JSON.stringify({ role: 'person', text: 'hello', at: '2026-01-01T00:00:00Z' })}\n${JSON.stringify({ role: 'person', text: '[Inter-session message] x' })}\n`);
    expect(texts(await d.check())).toEqual(['hello']);
  });
});
