/**
 * Fixed vectors for upstream monitoring (PROTOCOL.md section 9), built deterministically from
 * hand-written cases; expected values come from the models in model.ts or are written by hand
 * (classification, remote history), never from the implementation. `generate-vectors.ts` writes
 * them to vectors/*.json; vectors.test.ts checks the files have not drifted and replays them.
 */
import { chunked, modelCursor, modelEcho, modelMissStreak, modelNormalize, modelWatchGaps, userLine, type MissStep, type WatchGapResult, type WatchStep } from './model.js';
import { mulberry32 } from '../../src/shared/prng.js';
import { buildTranscripts, type TranscriptExpectation } from './transcripts.js';

export const UPSTREAM_VECTOR_FORMAT = 'session-state-kit-upstream-vectors/1';

export type CursorAction = { appendHex: string } | { check: true };

export interface UpstreamVectorFiles {
  'normalize.json': { format: string; rule: 'U4'; description: string; cases: { input: string; normal: string }[] };
  'echo.json': { format: string; rule: 'U4'; description: string; cases: { own: string[]; upstream: string[]; humanTurns: number; echoTurns: number }[] };
  'classify.json': { format: string; rule: 'U6'; description: string; cases: { line: string; human: boolean; text?: string; reason?: string }[] };
  'miss-streak.json': {
    format: string;
    rule: 'U2';
    description: string;
    cases: { steps: MissStep[]; expect: { upstreamMissing: number; linked: boolean; checks: number; missCount: number } }[];
  };
  'watch-gap.json': { format: string; rule: 'U5'; description: string; cases: { name: string; steps: WatchStep[]; expect: WatchGapResult }[] };
  'jsonl-cursor.json': {
    format: string;
    rule: 'U6';
    description: string;
    cases: { name: string; scanMaxBytes: number; actions: CursorAction[]; expect: { offset: number; humanTexts: string[]; long?: number }[] }[];
  };
  'transcripts.json': { format: string; rule: 'U6'; description: string; cases: TranscriptExpectation[] };
  'codex-classify.json': {
    format: string;
    rule: 'U10';
    description: string;
    cases: { name: string; record: unknown; human: boolean; text?: string; images?: number; reason?: string }[];
    threads: { name: string; firstRecord: unknown; machineDriven: boolean }[];
  };
  'remote-history.json': {
    format: string;
    rule: 'U7';
    description: string;
    cases: { name: string; window: number; marker: { id: string | null }; items: unknown[]; expect: { status: string; humanTexts?: string[]; nextMarker?: { id: string }; missedOlder?: boolean } }[];
  };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const assistant = (t: string) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: t }] } });
const toolResult = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'done' }] }, toolUseResult: {} });

function cursorCase(name: string, scanMaxBytes: number, lines: string[], seed: number, checkEvery: number) {
  const rand = mulberry32(seed);
  const total = new TextEncoder().encode(lines.map((l) => `${l}\n`).join('')).length;
  const cuts = Array.from({ length: Math.max(1, Math.floor(total / 23)) }, () => Math.floor(rand() * total));
  const actions: CursorAction[] = [];
  chunked(lines, cuts).forEach((c, i) => {
    actions.push({ appendHex: hex(c) });
    if (i % checkEvery === 0) actions.push({ check: true });
  });
  for (let i = 0; i < lines.length + 2; i++) actions.push({ check: true });
  const expect = modelCursor(
    actions.map((a) => ('check' in a ? a : { append: Uint8Array.from(Buffer.from(a.appendHex, 'hex')) })),
    scanMaxBytes,
  );
  return { name, scanMaxBytes, actions, expect };
}

export function buildUpstreamVectors(): UpstreamVectorFiles {
  const format = UPSTREAM_VECTOR_FORMAT;
  const normalizeInputs = [
    '  exact   decorated prompt ',
    'line one\nline two\r\n\tline three',
    'Cafe\u0301 au lait',
    'caf\u00e9 au lait',
    'no\u00a0break\u2003em\u3000ideographic',
    'Keep CASE',
    ' \n\t ',
    '',
    '\ufeffbom led',
    'emoji 🎉  and 日本語',
  ];
  const echoCases: [string[], string[]][] = [
    [['please continue'], ['please   continue', 'Please continue', 'please continue now']],
    [['Run the tests'], ['Run\nthe\ttests ']],
    [['café'], ['cafe\u0301']],
    [Array.from({ length: 11 }, (_, i) => `step ${i}`), ['step 0', 'step 1', 'step 10']],
    [[], ['anything']],
    [['', '   '], ['', ' ']],
    [['same', 'same'], ['same', 'same', 'other']],
  ];
  const missCases: MissStep[][] = [
    ['missing', 'missing', 'missing'],
    ['missing', 'missing', 'missing', 'missing', 'missing'],
    ['missing', 'inconclusive', 'missing', 'error', 'missing'],
    ['missing', 'missing', 'found', 'missing', 'missing'],
    ['missing', 'missing', 'continue', 'missing', 'missing'],
    ['missing', 'missing', 'continue', 'missing', 'missing', 'missing'],
    ['missing', 'missing', 'missing', 'continue', 'found', 'missing', 'missing', 'missing'],
    ['inconclusive', 'error', 'inconclusive'],
    ['found', 'missing', 'found', 'missing', 'found'],
  ];
  const watchCases: [string, WatchStep[]][] = [
    ['activity before the watch, read before it: never notifies (the reviewer repro)', ['turn', 'tick', 'watch', 'tick']],
    ['activity after the watch notifies once', ['turn', 'tick', 'watch', 'turn', 'tick', 'tick']],
    ['limit: written before the watch but first read after it is reported', ['turn', 'watch', 'tick']],
    ['watched turns coalesce into one pending notice quoting the seed', ['watch', 'turn', 'tick', 'turn', 'turn', 'tick']],
    ['a watch that ended before the read: passed over, not replayed to the next watcher', ['watch', 'turn', 'unwatch', 'tick', 'watch', 'tick']],
    ['a later watcher is seeded after earlier events', ['watch', 'turn', 'tick', 'unwatch', 'turn', 'tick', 'watch', 'turn', 'tick']],
    ['two watchers with different seeds', ['watch', 'turn', 'tick', 'watch', 'turn', 'tick']],
    ['nobody ever watches: nothing recorded', ['turn', 'turn', 'tick', 'turn', 'tick', 'tick']],
  ];
  const mixed = [
    userLine('привет 👋 мир'),
    assistant('ok'),
    toolResult,
    userLine('second: 日本語テキスト'),
    '{"type":"user", broken',
    userLine('third ✅ done'),
    JSON.stringify({ type: 'user', isMeta: true, message: { role: 'user', content: 'meta' } }),
    userLine('fourth'),
  ];
  return {
    'normalize.json': {
      format,
      rule: 'U4',
      description: 'normalizeUserText: NFC, whitespace runs (ECMAScript \\s) to one space, trim; case kept.',
      cases: normalizeInputs.map((input) => ({ input, normal: modelNormalize(input) })),
    },
    'echo.json': {
      format,
      rule: 'U4',
      description: 'One check finds `upstream` turns; `own` are the user messages we sent (oldest first). Expect human and echo turn counts (one event iff humanTurns > 0).',
      cases: echoCases.map(([own, upstream]) => ({ own, upstream, ...renameEcho(modelEcho(own, upstream)) })),
    },
    'classify.json': {
      format,
      rule: 'U6',
      description: 'classifyClaudeLine on one complete transcript line.',
      cases: [
        { line: userLine('fix the tests'), human: true, text: 'fix the tests' },
        { line: JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } }), human: true, text: 'a\nb' },
        { line: JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'image', source: {} }] } }), human: true, text: '' },
        { line: toolResult, human: false, reason: 'tool-result' },
        { line: JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x' }] } }), human: false, reason: 'tool-result' },
        { line: JSON.stringify({ type: 'user', isMeta: true, message: { role: 'user', content: 'x' } }), human: false, reason: 'meta' },
        { line: JSON.stringify({ type: 'user', isSidechain: true, message: { role: 'user', content: 'x' } }), human: false, reason: 'sidechain' },
        { line: JSON.stringify({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'summary' } }), human: false, reason: 'compact-summary' },
        { line: userLine('<local-command-stdout>ok</local-command-stdout>'), human: false, reason: 'client-output' },
        { line: userLine('[Request interrupted by user]'), human: false, reason: 'client-output' },
        { line: userLine('   '), human: false, reason: 'no-text' },
        { line: assistant('hello'), human: false, reason: 'assistant' },
        { line: JSON.stringify({ type: 'summary', summary: 's' }), human: false, reason: 'record' },
        // Claude Code 2.1+ provenance: origin.kind decides who; promptSource when origin is absent.
        { line: cc2User('typed', { origin: { kind: 'human' }, promptSource: 'typed' }), human: true, text: 'typed' },
        { line: cc2User('<task-notification><task-id>b1</task-id><status>completed</status></task-notification>', { origin: { kind: 'task-notification' }, promptSource: 'system' }), human: false, reason: 'origin' },
        { line: cc2User('hello from another session', { origin: { kind: 'peer' } }), human: false, reason: 'origin' },
        { line: cc2User('scheduled', { promptSource: 'system' }), human: false, reason: 'prompt-source' },
        { line: cc2User('<task-notification><status>completed</status></task-notification>', {}), human: false, reason: 'task-notification' },
        { line: cc2User('[Inter-session message] from agent:main:other: status?', { origin: { kind: 'human' } }), human: false, reason: 'not-person-marker' },
        { line: cc2User('Continue this conversation using the OpenClaw transcript below.\n...', {}), human: false, reason: 'not-person-marker' },
        { line: cc2User('<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>12</command-args>', { origin: { kind: 'human' } }), human: true, text: '/review 12' },
        { line: queued('typed while busy', { kind: 'human' }), human: true, text: 'typed while busy' },
        { line: queued([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }], { kind: 'human' }), human: true, text: '' },
        { line: queued('a peer said this', { kind: 'peer' }), human: false, reason: 'origin' },
        { line: JSON.stringify({ type: 'attachment', attachment: { type: 'queued_command', commandMode: 'task-notification', prompt: '<task-notification/>' } }), human: false, reason: 'queued-mode' },
        { line: JSON.stringify({ type: 'attachment', attachment: { type: 'date', date: '2026-01-01' } }), human: false, reason: 'attachment' },
        { line: '{"type":"user"', human: false, reason: 'not-json' },
        { line: '   ', human: false, reason: 'blank' },
      ],
    },
    'miss-streak.json': {
      format,
      rule: 'U2',
      description: 'A linked session; each step is one check outcome (error = the source threw) or a same-source Continue. Expect upstream_missing events, whether a link remains, checks made, final miss count.',
      cases: missCases.map((steps) => ({ steps, expect: modelMissStreak(steps) })),
    },
    'watch-gap.json': {
      format,
      rule: 'U5',
      description:
        'One adopted session; turn = a person types upstream, watch = a new watcher registers, unwatch = every current watcher is reset (R50), tick = one check. Expect human turns per recorded event and, per watcher in creation order, the changesSince L of its pending notice (null = none).',
      cases: watchCases.map(([name, steps]) => ({ name, steps, expect: modelWatchGaps(steps) })),
    },
    'jsonl-cursor.json': {
      format,
      rule: 'U6',
      description: 'An empty transcript is linked, then bytes are appended (hex, cut anywhere, including inside UTF-8 characters) and checked. Expect per check: cursor offset, human texts, blocked offset.',
      cases: [
        cursorCase('mixed lines, small scan limit', 160, mixed, 1, 2),
        cursorCase('mixed lines, check after every write', 400, mixed, 2, 1),
        cursorCase('multi-byte heavy', 200, [userLine('🎉🎉🎉 ✅✅ 日本語 ø'), userLine('ÿÿÿÿ'), assistant('🎉')], 3, 1),
        cursorCase('line over the limit is read across checks', 140, [userLine('before'), userLine('x'.repeat(200)), userLine('after')], 4, 1),
      ],
    },
    'transcripts.json': {
      format,
      rule: 'U6',
      description:
        'Whole transcripts (files under transcripts/) read from offset 0 by the source adapter of their dialect; `own` are the messages our side sent. Expect the human turns a person typed (in order) and the own echoes, tagged by hand per record.',
      cases: buildTranscripts().expectations,
    },
    'codex-classify.json': {
      format,
      rule: 'U10',
      description:
        'One Codex rollout record each (`cases`), classified by the Codex dialect: expect whether a person typed it, and its text and image count, or the reason it is not. `threads`: a rollout\'s first record, and whether it shows that no person drives the thread (a sub-agent or exec session: Continue links nothing).',
      cases: codexCases(),
      threads: codexThreads(),
    },
    'remote-history.json': {
      format,
      rule: 'U7',
      description: 'One check of a paired-node thread: `items` newest first as the whole history; the call answers pages of `window` items (`before`: older than that id); up to 4 pages per check.',
      cases: [
        {
          name: 'new items after the marker',
          window: 50,
          marker: { id: 'a1' },
          items: [remoteUser('u3', 'second'), remoteAssistant('a2'), remoteUser('u2', 'first'), remoteAssistant('a1'), remoteUser('u1', 'old')],
          expect: { status: 'found', humanTexts: ['first', 'second'], nextMarker: { id: 'u3' }, missedOlder: false },
        },
        {
          name: 'marker beyond the first page: paged back, nothing missed',
          window: 2,
          marker: { id: 'a1' },
          items: [remoteUser('u3', 'c'), remoteUser('u2', 'b'), remoteUser('u1', 'a'), remoteAssistant('a1')],
          expect: { status: 'found', humanTexts: ['a', 'b', 'c'], nextMarker: { id: 'u3' }, missedOlder: false },
        },
        {
          name: 'marker deleted upstream: read back to the thread start, noted',
          window: 2,
          marker: { id: 'gone' },
          items: [remoteUser('u3', 'c'), remoteUser('u2', 'b'), remoteUser('u1', 'a')],
          expect: { status: 'found', humanTexts: ['a', 'b', 'c'], nextMarker: { id: 'u3' }, missedOlder: true },
        },
        { name: 'nothing new', window: 50, marker: { id: 'u1' }, items: [remoteUser('u1', 'x')], expect: { status: 'found', humanTexts: [], nextMarker: { id: 'u1' }, missedOlder: false } },
        { name: 'empty answer is inconclusive, never missing', window: 50, marker: { id: 'u1' }, items: [], expect: { status: 'inconclusive' } },
        { name: 'newest item without id', window: 50, marker: { id: 'u1' }, items: [{ type: 'user', message: { role: 'user', content: 'x' } }], expect: { status: 'inconclusive' } },
      ],
    },
  };
}

function cc2User(text: string, provenance: Record<string, unknown>): string {
  return JSON.stringify({ parentUuid: 'p', isSidechain: false, type: 'user', message: { role: 'user', content: text }, uuid: 'u', timestamp: '2026-01-01T00:00:00.000Z', ...provenance, userType: 'external', sessionId: 's', version: '2.1.0' });
}

function queued(prompt: unknown, origin: Record<string, unknown>): string {
  return JSON.stringify({ type: 'attachment', attachment: { type: 'queued_command', commandMode: 'prompt', prompt, origin }, uuid: 'q', timestamp: '2026-01-01T00:00:00.000Z', sessionId: 's', version: '2.1.0' });
}

function renameEcho(m: { human: number; echo: number }) {
  return { humanTurns: m.human, echoTurns: m.echo };
}

const CT = '2026-09-01T10:00:00.000Z';
const codexEvent = (payload: Record<string, unknown>) => ({ timestamp: CT, type: 'event_msg', payload });
const codexUserItem = (content: unknown[], inner = 'item_completed') => codexEvent({ type: inner, thread_id: 't', turn_id: 'u', item: { type: 'UserMessage', id: 'm', content } });
const codexText = (text: string) => ({ type: 'text', text, text_elements: [] });

/** U10 Codex records, each tagged by hand (the expectations are written here, never computed). */
function codexCases(): UpstreamVectorFiles['codex-classify.json']['cases'] {
  const injected = (name: string, text: string) => ({ name: `injected ${name}`, record: codexUserItem([codexText(text)]), human: false, reason: 'injected-context' });
  return [
    { name: 'legacy user_message', record: codexEvent({ type: 'user_message', message: 'fix the build', kind: 'plain', images: [] }), human: true, text: 'fix the build', images: 0 },
    { name: 'legacy user_message with images', record: codexEvent({ type: 'user_message', message: 'see this', images: ['data:image/png;base64,AA'], local_images: ['/tmp/a.png'] }), human: true, text: 'see this', images: 2 },
    { name: 'legacy user_message tagged as context', record: codexEvent({ type: 'user_message', message: '<environment_context></environment_context>', kind: 'environment_context' }), human: false, reason: 'injected-context' },
    { name: 'paginated UserMessage', record: codexUserItem([codexText('add a health endpoint')]), human: true, text: 'add a health endpoint', images: 0 },
    { name: 'paginated UserMessage with images', record: codexUserItem([codexText('what is wrong'), { type: 'image', image_url: 'data:image/png;base64,AA' }, { type: 'local_image', path: '/tmp/b.png' }]), human: true, text: 'what is wrong', images: 2 },
    { name: 'paginated UserMessage, two text parts', record: codexUserItem([codexText('first'), codexText('second')]), human: true, text: 'first\nsecond', images: 0 },
    { name: 'paginated UserMessage started (the turn in flight)', record: codexUserItem([codexText('add a health endpoint')], 'item_started'), human: false, reason: 'record' },
    { name: 'paginated AgentMessage', record: codexEvent({ type: 'item_completed', item: { type: 'AgentMessage', content: [{ type: 'Text', text: 'done' }] } }), human: false, reason: 'assistant' },
    { name: 'model input copy', record: { timestamp: CT, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'add a health endpoint' }] } }, human: false, reason: 'model-input' },
    injected('environment', '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'),
    injected('AGENTS.md without a directory', '# AGENTS.md instructions\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>'),
    injected('AGENTS.md for a directory', '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>'),
    injected('user instructions', '<user_instructions>\nbe brief\n</user_instructions>'),
    injected('turn aborted, any case', '<TURN_ABORTED>\ninterrupted\n</TURN_ABORTED>'),
    injected('skill', '<skill>\n<name>deploy</name>\n</skill>'),
    injected('user shell command', '<user_shell_command>\nls\n</user_shell_command>'),
    injected('subagent notification', '<subagent_notification>\n{"agent_id":"a"}\n</subagent_notification>'),
    injected('goal continuation', '<codex_internal_context source="goal">\nContinue working\n</codex_internal_context>'),
    injected('IDE context without a request', '# Context from my IDE setup:\n\n## Active file: a.ts\n'),
    { name: 'IDE context with a request', record: codexUserItem([codexText('# Context from my IDE setup:\n\n## Active file: a.ts\n\n## My request for Codex:\nrename it')]), human: true, text: 'rename it', images: 0 },
    { name: 'injected part next to a typed part', record: codexUserItem([codexText('<skill>\n<name>x</name>\n</skill>'), codexText('run it')]), human: true, text: 'run it', images: 0 },
    { name: 'a form quoted later is typed', record: codexUserItem([codexText('why does <environment_context> repeat?')]), human: true, text: 'why does <environment_context> repeat?', images: 0 },
    { name: 'pre-envelope user message', record: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old prompt' }] }, human: true, text: 'old prompt', images: 0 },
    { name: 'pre-envelope AGENTS.md and environment in one message', record: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>' }, { type: 'input_text', text: '<environment_context>\n</environment_context>' }] }, human: false, reason: 'injected-context' },
  ];
}

function codexThreads(): UpstreamVectorFiles['codex-classify.json']['threads'] {
  const meta = (payload: Record<string, unknown>) => ({ timestamp: CT, type: 'session_meta', payload: { id: 'c', cwd: '/w', cli_version: '0.155.0', ...payload } });
  return [
    { name: 'interactive cli session', firstRecord: meta({ source: 'cli' }), machineDriven: false },
    { name: 'IDE session', firstRecord: meta({ source: 'vscode' }), machineDriven: false },
    { name: 'a person\'s fork', firstRecord: meta({ source: 'cli', forked_from_id: 'p' }), machineDriven: false },
    { name: 'spawned sub-agent', firstRecord: meta({ source: { subagent: { thread_spawn: { parent_thread_id: 'p', depth: 1 } } } }), machineDriven: true },
    { name: 'review sub-agent', firstRecord: meta({ source: { subagent: 'review' } }), machineDriven: true },
    { name: 'newer builds: thread_source', firstRecord: meta({ source: 'cli', thread_source: 'subagent' }), machineDriven: true },
    { name: 'exec session', firstRecord: meta({ source: 'exec' }), machineDriven: true },
    { name: 'pre-envelope header', firstRecord: { id: 'c', timestamp: CT, instructions: null }, machineDriven: false },
  ];
}

function remoteUser(uuid: string, text: string) {
  return { uuid, type: 'user', message: { role: 'user', content: text } };
}

function remoteAssistant(uuid: string) {
  return { uuid, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } };
}

/** Serialized exactly as the files hold them (stable key order from construction, 2-space indent). */
export function serializeVectors(files: UpstreamVectorFiles): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([name, body]) => [name, `${JSON.stringify(body, null, 2)}\n`]));
}
