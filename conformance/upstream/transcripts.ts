/**
 * Upstream transcript fixtures (U4, U6): one file per transcript shape, written record by record
 * in the shapes public sources show for each client version, every record tagged by hand with
 * what it is. The expected counts come from the tags, never from the implementation.
 * `generate-vectors.ts` writes them to vectors/transcripts/; vectors.test.ts checks the files have
 * not drifted and replays each through the real source adapter.
 */

export type Tag = 'human' | 'own' | 'not';

export interface TranscriptFixture {
  name: string;
  dialect: 'claude' | 'codex';
  /** Which client and version the shapes follow, and where they come from. */
  shape: string;
  /** Messages our side sent (U4), oldest first. */
  own: (string | { text: string; images: number })[];
  /** A third element is the typed text by hand, where the record's shape has no single text field. */
  records: ([Tag, unknown] | [Tag, unknown, string])[];
  /** U10: the first record shows no person drives the thread: the monitor links nothing, so nothing counts. */
  machineDriven?: boolean;
}

export interface TranscriptExpectation {
  name: string;
  file: string;
  dialect: 'claude' | 'codex';
  shape: string;
  own: (string | { text: string; images: number })[];
  /** U10: the thread is machine-driven (a Codex sub-agent or exec session): Continue links nothing. */
  machineDriven: boolean;
  /** Turns a person typed (echoes of `own` excluded): what the monitor must count. */
  humanTurns: number;
  humanTexts: string[];
  ownEchoes: number;
  lines: number;
}

const T = (s: number) => `2026-03-01T10:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`;
const IMG = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };

function cc2(sid: string) {
  let n = 0;
  let parent: string | null = null;
  const env = () => {
    const uuid = `${sid.slice(0, 8)}-${String(++n).padStart(4, '0')}`;
    const e = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: sid, version: '2.1.30', gitBranch: 'main', uuid, timestamp: T(n) };
    parent = uuid;
    return e;
  };
  const user = (content: unknown, extra: Record<string, unknown> = {}) => ({ ...env(), type: 'user', message: { role: 'user', content }, ...extra });
  return {
    typed: (content: unknown) => user(content, { origin: { kind: 'human' }, promptSource: 'typed', permissionMode: 'default' }),
    user,
    assistant: (block: unknown) => ({ ...env(), type: 'assistant', message: { id: `msg_${n}`, role: 'assistant', model: 'claude-x', content: [block] }, requestId: `req_${n}` }),
    attachment: (attachment: unknown) => ({ ...env(), type: 'attachment', attachment }),
    side: (record: Record<string, unknown>) => ({ ...record, sessionId: sid }),
  };
}

export const FIXTURES: TranscriptFixture[] = [
  (() => {
    const c = cc2('5f1c2b7e-9a0d-4e3b-8c1f-2d6a7b8c9d01');
    return {
      name: 'claude-code-2x',
      dialect: 'claude',
      shape:
        'Claude Code 2.1.x: origin.kind and promptSource on user records, queued_command attachments with origin, task notifications as user records with origin task-notification, compaction as system compact_boundary + isCompactSummary user record',
      own: ['/review 12', 'please continue', { text: '', images: 1 }],
      records: [
        ['not', c.side({ type: 'permission-mode', permissionMode: 'default' })],
        ['not', c.side({ type: 'file-history-snapshot', messageId: 'm0', snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false })],
        ['human', c.typed('Add a retry with backoff to the fetch helper')],
        ['not', c.attachment({ type: 'date', date: '2026-03-01' })],
        ['not', c.assistant({ type: 'thinking', thinking: 'Look at fetch.ts first.', signature: 'sig' })],
        ['not', c.assistant({ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/work/app/fetch.ts' } })],
        ['not', c.user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export async function fetchJson() {}' }], { toolUseResult: { type: 'text', file: { filePath: '/work/app/fetch.ts' } }, sourceToolAssistantUUID: 'x' })],
        ['human', c.attachment({ type: 'queued_command', commandMode: 'prompt', prompt: 'also cover the timeout path', origin: { kind: 'human' } })],
        ['not', c.user('<task-notification>\n<task-id>bq2x</task-id>\n<status>completed</status>\n<summary>Background command "npm test" completed</summary>\n</task-notification>', { origin: { kind: 'task-notification' }, promptSource: 'system' })],
        ['not', c.attachment({ type: 'queued_command', commandMode: 'task-notification', prompt: '<task-notification><task-id>bq2y</task-id><status>failed</status></task-notification>' })],
        ['not', c.user([{ type: 'text', text: 'Base directory for this skill: /skills/review\n\n# Review' }], { isMeta: true })],
        ['own', c.typed('<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>12</command-args>')],
        ['not', c.user('<local-command-stdout>Review started</local-command-stdout>')],
        ['human', c.attachment({ type: 'queued_command', commandMode: 'prompt', prompt: [IMG, IMG], origin: { kind: 'human' } })],
        ['own', c.attachment({ type: 'queued_command', commandMode: 'prompt', prompt: [IMG], origin: { kind: 'human' } })],
        ['not', c.user('Can you check the deploy status?', { origin: { kind: 'peer', fromSession: 'other-session' } })],
        ['not', c.typed('[Inter-session message] from agent:main:coordinator: stop after this step')],
        ['not', c.side({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', level: 'info', compactMetadata: { trigger: 'auto', preTokens: 150000 } })],
        ['not', c.user('This session is being continued from a previous conversation that ran out of context. Summary: …', { isCompactSummary: true, isVisibleInTranscriptOnly: true })],
        ['human', c.typed([{ type: 'text', text: "what's wrong in this screenshot?" }, IMG])],
        ['own', c.typed('please   continue')],
        ['not', c.user('Your usage limit has reset. Continue the task you were working on.', { isMeta: true, origin: { kind: 'auto-continuation' }, promptSource: 'system' })],
        ['not', c.user('scheduled: nightly dependency check', { promptSource: 'system' })],
        ['not', c.user('sub-agent task: list the call sites', { isSidechain: true })],
        ['human', c.typed('ship it')],
        ['not', c.side({ type: 'system', subtype: 'turn_duration', durationMs: 1200 })],
        ['not', c.side({ type: 'summary', summary: 'Fetch helper retries', leafUuid: 'x' })],
        ['not', c.side({ type: 'last-prompt', lastPrompt: 'ship it' })],
      ],
    } satisfies TranscriptFixture;
  })(),
  (() => {
    const sid = '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';
    let n = 0;
    const base = () => ({ parentUuid: null, isSidechain: false, userType: 'external', cwd: '/work/site', sessionId: sid, version: '1.0.51', uuid: `old-${++n}`, timestamp: T(n) });
    const user = (content: unknown, extra: Record<string, unknown> = {}) => ({ ...base(), type: 'user', message: { role: 'user', content }, ...extra });
    const assistant = (text: string) => ({ ...base(), type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } });
    return {
      name: 'claude-code-1x',
      dialect: 'claude',
      shape: 'Claude Code 1.0.x: no origin, no promptSource (the fallback rules); command tags with the name first; compaction preamble without isCompactSummary in the oldest files',
      own: ['Run the tests'],
      records: [
        ['not', { type: 'summary', summary: 'Site setup', leafUuid: 'old-0' }],
        ['human', user('Set up the project with vite')],
        ['not', assistant('Setting it up.')],
        ['not', user([{ type: 'tool_result', tool_use_id: 't1', content: 'created' }], { toolUseResult: { stdout: 'created' } })],
        ['human', user('<command-name>/init</command-name>\n<command-message>init</command-message>\n<command-args></command-args>')],
        ['not', user('<local-command-stdout>Initialized CLAUDE.md</local-command-stdout>')],
        ['not', user('Caveat: The messages below were generated by the user while running local commands.', { isMeta: true })],
        ['not', user('This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: …')],
        ['not', user('<task-notification><task-id>b1</task-id><status>completed</status></task-notification>')],
        ['not', user([{ type: 'text', text: '[Request interrupted by user for tool use]' }])],
        ['not', user('Continue this conversation using the OpenClaw transcript below.\n\n<transcript>…</transcript>')],
        ['own', user('Run\nthe tests')],
        ['human', user([{ type: 'text', text: 'thanks, now deploy it' }])],
        ['not', user('explore the repo layout', { isSidechain: true })],
        ['not', ''],
        ['not', '{"type":"user","message":{"role":"user","content":"torn'],
      ],
    } satisfies TranscriptFixture;
  })(),
  (() => {
    const ts = (s: number) => T(s);
    let n = 0;
    const e = (type: string, payload: Record<string, unknown>) => ({ timestamp: ts(++n), type, payload });
    const userItem = (text: string) => e('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    return {
      name: 'codex-cli',
      dialect: 'codex',
      shape:
        'Codex CLI 0.4x-0.6x rollouts: {timestamp, type, payload} envelopes; event_msg user_message is the typed turn, response_item user messages are its model-input copy plus injected context',
      own: ['continue'],
      records: [
        ['not', e('session_meta', { id: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', timestamp: ts(0), cwd: '/work/api', originator: 'codex_cli_rs', cli_version: '0.46.0', instructions: null, source: 'cli' })],
        ['not', userItem('<user_instructions>\n\nPrefer small commits.\n\n</user_instructions>')],
        ['not', userItem('# AGENTS.md instructions for /work/api\n\n<INSTRUCTIONS>\nRun npm test before committing.\n</INSTRUCTIONS>')],
        ['not', userItem('<environment_context>\n  <cwd>/work/api</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>')],
        ['not', userItem('Refactor the request parser')],
        ['human', e('event_msg', { type: 'user_message', message: 'Refactor the request parser', kind: 'plain', images: [] })],
        ['not', e('turn_context', { cwd: '/work/api', approval_policy: 'on-request', model: 'gpt-5-codex', effort: 'medium' })],
        ['not', e('event_msg', { type: 'agent_reasoning', text: '**Reading the parser**' })],
        ['not', e('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Reading' }], encrypted_content: 'gAAA' })],
        ['not', e('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["rg","parse"]}', call_id: 'call_1' })],
        ['not', e('response_item', { type: 'function_call_output', call_id: 'call_1', output: '{"output":"src/parse.ts"}' })],
        ['not', e('event_msg', { type: 'agent_message', message: 'Done: parser split into two functions.' })],
        ['not', e('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] })],
        ['not', e('event_msg', { type: 'token_count', info: null })],
        ['not', userItem('here is the failing output')],
        ['human', e('event_msg', { type: 'user_message', message: 'here is the failing output', kind: 'plain', images: ['data:image/png;base64,iVBORw0KGgo='] })],
        ['not', userItem('continue')],
        ['own', e('event_msg', { type: 'user_message', message: 'continue', kind: 'plain' })],
      ],
    } satisfies TranscriptFixture;
  })(),
  (() => {
    let n = 0;
    const e = (type: string, payload: Record<string, unknown>) => ({ timestamp: T(++n), type, payload });
    const model = (...texts: string[]) => e('response_item', { type: 'message', role: 'user', content: texts.map((text) => ({ type: 'input_text', text })) });
    const done = (item: Record<string, unknown>) => e('event_msg', { type: 'item_completed', thread_id: '019c-person', turn_id: `turn-${n}`, item });
    const user = (content: unknown[]) => done({ type: 'UserMessage', id: `item-${n}`, content });
    const text = (t: string) => ({ type: 'text', text: t, text_elements: [] });
    return {
      name: 'codex-paginated',
      dialect: 'codex',
      shape:
        'Codex CLI 0.147+ paginated rollouts (public sources date the change to 0.147-0.149; records as in 0.150-0.155): a typed prompt is event_msg item_completed with a UserMessage item (text, image, local_image parts), never the legacy user_message event; response_item user messages are model input with injected context',
      own: ['continue'],
      records: [
        ['not', e('session_meta', { id: '019c-person', cwd: '/work/api', originator: 'codex_cli_rs', cli_version: '0.155.0', source: 'cli', base_instructions: { text: 'You are Codex.' } })],
        ['not', model('<recommended_plugins>\n- github\n</recommended_plugins>', '# AGENTS.md instructions\n\n<INSTRUCTIONS>\nRun tests.\n</INSTRUCTIONS>', '<environment_context>\n  <cwd>/work/api</cwd>\n</environment_context>')],
        ['not', e('turn_context', { cwd: '/work/api', model: 'gpt-5.4', effort: 'medium' })],
        ['not', model('Add a health endpoint')],
        ['human', user([text('Add a health endpoint')]), 'Add a health endpoint'],
        ['not', done({ type: 'Reasoning', id: 'r1', summary_text: ['Planning'] })],
        ['not', done({ type: 'CommandExecution', id: 'c1', command: 'rg health', exit_code: 1 })],
        ['not', done({ type: 'AgentMessage', id: 'a1', content: [{ type: 'Text', text: 'Added GET /health.' }], phase: 'final_answer' })],
        ['not', e('event_msg', { type: 'task_complete', turn_id: 'turn-4' })],
        ['not', model('<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>')],
        ['not', model('# Context from my IDE setup:\n\n## Active file: src/app.ts\n\n## My request for Codex:\nnow the readiness probe')],
        ['human', user([text('# Context from my IDE setup:\n\n## Active file: src/app.ts\n\n## My request for Codex:\nnow the readiness probe'), { type: 'local_image', path: '/tmp/probe.png' }]), 'now the readiness probe'],
        ['not', done({ type: 'AgentMessage', id: 'a2', content: [{ type: 'Text', text: 'Done.' }], phase: 'final_answer' })],
        ['not', model('<skill>\n<name>deploy</name>\n</skill>')],
        ['not', user([text('<skill>\n<name>deploy</name>\nSteps...\n</skill>')])],
        ['not', model('continue')],
        ['own', user([text('continue')]), 'continue'],
      ],
    } satisfies TranscriptFixture;
  })(),
  (() => {
    let n = 0;
    const e = (type: string, payload: Record<string, unknown>) => ({ timestamp: T(++n), type, payload });
    const prompt = 'Find every caller of parseRequest and report file:line';
    return {
      name: 'codex-subagent',
      dialect: 'codex',
      shape:
        'Codex CLI 0.15x sub-agent rollout: same rollout-*.jsonl name and dated folder as a person\'s session; only session_meta says source.subagent.thread_spawn (newer builds also thread_source: "subagent"); its prompt is written by the parent agent',
      own: [],
      machineDriven: true,
      records: [
        [
          'not',
          e('session_meta', {
            id: '019c-child',
            forked_from_id: '019c-person',
            cwd: '/work/api',
            originator: 'codex_cli_rs',
            cli_version: '0.155.0',
            source: { subagent: { thread_spawn: { parent_thread_id: '019c-person', depth: 1, agent_nickname: 'Curie', agent_role: 'explorer' } } },
            thread_source: 'subagent',
          }),
        ],
        ['not', e('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] })],
        ['not', e('event_msg', { type: 'item_completed', thread_id: '019c-child', turn_id: 'turn-1', item: { type: 'UserMessage', id: 'm1', content: [{ type: 'text', text: prompt }] } })],
        ['not', e('event_msg', { type: 'item_completed', thread_id: '019c-child', turn_id: 'turn-1', item: { type: 'AgentMessage', id: 'a1', content: [{ type: 'Text', text: 'src/a.ts:12' }] } })],
      ],
    } satisfies TranscriptFixture;
  })(),
];

/** The hand-tagged text a human record carries (for the expectation file). */
function taggedText(record: unknown): string {
  const r = record as Record<string, any>;
  if (r['type'] === 'event_msg') return r['payload']['message'];
  if (r['type'] === 'attachment') {
    const p = r['attachment']['prompt'];
    return typeof p === 'string' ? p : p.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n');
  }
  const c = r['message']['content'];
  const text = typeof c === 'string' ? c : c.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n');
  const name = /<command-name>(.*?)<\/command-name>/s.exec(text)?.[1];
  if (name) {
    const args = /<command-args>(.*?)<\/command-args>/s.exec(text)?.[1]?.trim() ?? '';
    return args ? `${name} ${args}` : name;
  }
  return text;
}

export function buildTranscripts(): { files: Record<string, string>; expectations: TranscriptExpectation[] } {
  const files: Record<string, string> = {};
  const expectations: TranscriptExpectation[] = [];
  for (const f of FIXTURES) {
    const file = `transcripts/${f.name}.jsonl`;
    files[file] = f.records.map(([, r]) => `${typeof r === 'string' ? r : JSON.stringify(r)}\n`).join('');
    const human = f.machineDriven ? [] : f.records.filter(([t]) => t === 'human');
    expectations.push({
      name: f.name,
      file,
      dialect: f.dialect,
      shape: f.shape,
      own: f.own,
      humanTurns: human.length,
      machineDriven: f.machineDriven === true,
      humanTexts: human.map(([, r, typed]) => typed ?? taggedText(r)),
      ownEchoes: f.machineDriven ? 0 : f.records.filter(([t]) => t === 'own').length,
      lines: f.records.length,
    });
  }
  return { files, expectations };
}
