import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QWEN_OFFLINE_SETTINGS, makeSandbox, qwenEnv, runBinary, QWEN_AUTH_ARGS, type BinaryInfo } from '../agents/binaries.js';
import { chatTexts, startFakeChatCompletions, type ChatRequest, type ChatReply } from '../agents/fake-chat-completions.js';
import { runQwenSession } from '../agents/qwen-run.js';

/**
 * What the pinned Qwen Code sends its command hooks (T56), recorded, not written by hand: the
 * binary runs offline against the chat-completions stand-in with one hook under every event that
 * appends its stdin to a file. The script is fixed, so each case below appears: a start, a prompt,
 * a delegation to a sub-agent (whose tool result continues the turn as an empty prompt), a manual
 * compaction, a /clear, and a resume of the first session in a second process.
 */
export const QWEN_RECORD_SCRIPT = [
  'process 1 (stream-json, --yolo): "start on the parser"',
  '"delegate: look around" (the model calls the agent tool, general-purpose, in the foreground)',
  'two long prompts, then "/compress" (a manual compaction)',
  '"/clear" (a new session id), then "after the clear" (Qwen fires the SessionEnd of a clear without waiting for it: a process that ended at once could cut it short)',
  'process 2: -p "carry on" --resume <the first session id>',
];

/** The events recorded: those the kit handles and the two it answers with "no opinion". */
export const QWEN_RECORDED_EVENTS = ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'PreCompact', 'PostCompact', 'SessionEnd', 'Stop'];

const LONG = 'lorem ipsum dolor sit amet '.repeat(400);

/** The stand-in model: a summary when Qwen compacts, the agent tool when asked to delegate, text otherwise. */
export function qwenModel(request: ChatRequest): ChatReply {
  const messages = (request.json?.['messages'] ?? []) as { role?: string }[];
  const last = chatTexts({ ...request, json: { messages: messages.slice(-1) } }).join('\n');
  if (/summarizes a conversation|produce the <state_snapshot>/.test(last)) return { text: '<analysis>short</analysis>\n<state_snapshot>The person works on the parser.</state_snapshot>' };
  if (messages.at(-1)?.role === 'user' && last.includes('delegate: look around')) {
    return { toolCall: { name: 'agent', arguments: { description: 'look around', prompt: 'list the files', subagent_type: 'general-purpose', run_in_background: false } } };
  }
  return { text: 'Noted.' };
}

/** A fixture's name for a payload: its event and the field that tells its case apart. */
export function qwenCase(p: Record<string, unknown>): string {
  const event = String(p['hook_event_name']).replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '-') + c.toLowerCase());
  if (p['hook_event_name'] === 'SessionStart') return `${event}-${String(p['source'])}`;
  if (p['hook_event_name'] === 'SessionEnd') return `${event}-${String(p['reason'])}`;
  if (p['hook_event_name'] === 'UserPromptSubmit' && typeof p['prompt'] === 'string' && p['prompt'].trim() === '') return `${event}-tool-result`;
  return event;
}

export interface QwenRecording {
  version: string;
  /** Every payload, in the order the hooks ran. */
  payloads: Record<string, unknown>[];
  ms: number;
}

export async function recordQwenPayloads(qwen: BinaryInfo): Promise<QwenRecording> {
  const box = makeSandbox('qwen-record');
  const api = await startFakeChatCompletions(qwenModel);
  const started = Date.now();
  try {
    const captured = join(box.root, 'payloads.jsonl');
    const capture = box.write('capture.mjs', `import { appendFileSync, readFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(captured)}, readFileSync(0, 'utf8').trim() + '\\n');\n`);
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(capture)}`;
    box.write('home/.qwen/settings.json', JSON.stringify({ ...QWEN_OFFLINE_SETTINGS, hooks: Object.fromEntries(QWEN_RECORDED_EVENTS.map((e) => [e, [{ hooks: [{ type: 'command', command }] }]])) }));
    const session = await runQwenSession(qwen, ['start on the parser', 'delegate: look around', `first ${LONG}`, `second ${LONG}`, '/compress', '/clear', 'after the clear'], { cwd: box.project, env: qwenEnv(box, api.baseUrl), args: ['--yolo'] });
    if (session.code !== 0 || session.results.some((r) => r.subtype !== 'success')) throw new Error(`Qwen Code did not run the script: ${JSON.stringify(session.results)} ${session.stderr.slice(-1500)}`);
    const first = session.results[0]!.session_id;
    const resumed = await runBinary(qwen.command, [...QWEN_AUTH_ARGS, '-p', 'carry on', '--resume', first], { cwd: box.project, env: qwenEnv(box, api.baseUrl) });
    if (resumed.code !== 0) throw new Error(`qwen --resume failed: ${resumed.stderr.slice(-1500)}`);
    const payloads = readFileSync(captured, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    return { version: qwen.packageVersion, payloads, ms: Date.now() - started };
  } finally {
    await api.close();
    box.remove();
  }
}
