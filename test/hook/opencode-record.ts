import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeChatCompletions } from '../agents/fake-chat-completions.js';
import { makeSandbox, opencodeConfigDir, opencodeEnv, opencodeUserConfig, runBinary, seedOpencodeConfigDir, traceConnects, type BinaryInfo } from '../agents/binaries.js';

/**
 * T61: what the real OpenCode hands a plugin, recorded by a plugin that only appends what it gets
 * to a file (and, as the kit's does, adds a text part to the person's message), in offline runs
 * against the chat-completions stand-in: a new session, its resume, a sub-agent started by the
 * model's `task` call, and an automatic compaction (a small context limit and a large prompt).
 * Each payload is named by its case: the hook or event, and what tells its kind apart.
 */

/** The bus events the kit reads (T61), and the hook. Deltas, statuses and the like are left out. */
export const RECORDED_EVENTS = ['session.created', 'session.compacted', 'session.idle', 'message.updated', 'message.part.updated'] as const;

export interface RecordedPayload {
  case: string;
  /** The hook's argument(s): `{event}` for `event`, `{input, output}` for `chat.message`. */
  payload: Record<string, unknown>;
}

/** The recording plugin: plain JavaScript, loaded by OpenCode from the user's plugins folder. */
const RECORDER = (log: string) => `import { appendFileSync } from 'node:fs';
const note = (hook, data) => appendFileSync(${JSON.stringify(log)}, JSON.stringify({ hook, data }) + '\\n');
const wanted = new Set(${JSON.stringify(RECORDED_EVENTS)});
let counter = 0;
export const Recorder = async () => ({
  event: async ({ event }) => { if (wanted.has(event.type)) note('event', { event }); },
  'chat.message': async (input, output) => {
    note('chat.message', { input, output: structuredClone(output) });
    // A part added as the kit adds one, with an id after the person's, so its storing is recorded too.
    const last = output.parts.map((p) => p.id).filter((id) => /^prt_[0-9a-f]{12}/.test(id)).sort().at(-1);
    const stamp = last ? BigInt('0x' + last.slice(4, 16)) + 1n : BigInt(Date.now()) * 4096n;
    output.parts.push({ id: 'prt_' + stamp.toString(16).padStart(12, '0') + 'Recorder' + String(++counter).padStart(6, '0'), sessionID: input.sessionID, messageID: output.message.id, type: 'text', text: 'recorded', metadata: { recorder: true } });
  },
});
`;

export function caseName(hook: string, data: Record<string, unknown>, spawned: ReadonlySet<string>): string {
  if (hook === 'chat.message') {
    const input = data['input'] as { sessionID?: string };
    return spawned.has(input.sessionID ?? '') ? 'chat-message-subagent' : 'chat-message';
  }
  const event = data['event'] as { type: string; properties: Record<string, unknown> };
  const kebab = event.type.replace(/\./g, '-');
  const p = event.properties;
  if (event.type === 'session.created') return (p['info'] as { parentID?: string }).parentID ? `${kebab}-subagent` : kebab;
  if (event.type === 'message.updated') return `${kebab}-${String((p['info'] as { role?: string }).role)}`;
  if (event.type === 'message.part.updated') {
    const part = p['part'] as { type?: string; metadata?: { recorder?: boolean } };
    return part.metadata?.recorder ? `${kebab}-plugin-text` : `${kebab}-${String(part.type)}`;
  }
  return kebab;
}

/** Replaces the sandbox's path in every string (OpenCode also names it without its leading slash). */
function normalize(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.split(root).join('/sandbox').split(root.slice(1)).join('sandbox');
  if (Array.isArray(value)) return value.map((v) => normalize(v, root));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, root)]));
  return value;
}

/** Long texts (the compaction's large prompt) say nothing about the shape: their first words are kept. */
function shorten(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 40)}…` : value;
  if (Array.isArray(value)) return value.map(shorten);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  return value;
}

export async function recordOpencodePayloads(opencode: BinaryInfo): Promise<{ payloads: RecordedPayload[]; version: string; peers: string[] | undefined }> {
  const box = makeSandbox('opencode-record');
  const api = await startFakeChatCompletions((request) => {
    const json = request.json ?? {};
    const messages = (json['messages'] ?? []) as { role?: string }[];
    const texts = JSON.stringify(messages);
    // The person asks for a helper: the model calls `task` once; the sub-agent and the follow-up answer in text (title requests carry no tools).
    if (Array.isArray(json['tools']) && texts.includes('use a helper') && !texts.includes('look at the readme') && messages.at(-1)?.role !== 'tool') {
      return { toolCall: { name: 'task', arguments: { description: 'read the readme', prompt: 'look at the readme', subagent_type: 'general' } } };
    }
    return { text: 'ok' };
  });
  const trace = traceConnects(join(box.root, 'strace'));
  try {
    const log = join(box.root, 'payloads.jsonl');
    const config = opencodeConfigDir(box);
    seedOpencodeConfigDir(config);
    box.write('home/.config/opencode/opencode.json', JSON.stringify(opencodeUserConfig(api.baseUrl, { context: 20_000, output: 4_000 }), null, 2));
    box.write('home/.config/opencode/plugins/record.js', RECORDER(log));
    const run = async (args: string[]) => {
      const r = await runBinary(trace?.wrap(opencode.command) ?? opencode.command, ['run', ...args], { cwd: box.project, env: opencodeEnv(box) });
      if (r.code !== 0) throw new Error(`opencode run ${args.join(' ').slice(0, 80)} exited ${String(r.code)}: ${r.stderr.slice(-1500)}`);
      return r;
    };
    const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { hook: string; data: Record<string, unknown> }) : []);
    await run(['first prompt']);
    const created = lines().find((l) => l.hook === 'event' && (l.data['event'] as { type: string }).type === 'session.created');
    const session = ((created?.data['event'] as { properties: { sessionID: string } } | undefined)?.properties.sessionID) ?? '';
    await run(['--session', session, 'second prompt']);
    await run(['--auto', 'use a helper']);
    await run(['lorem ipsum dolor sit amet '.repeat(2_300)]);
    const version = (await runBinary(opencode.command, ['--version'], { cwd: box.project, env: opencodeEnv(box) })).stdout.trim();
    const recorded = lines();
    const spawned = new Set(
      recorded
        .filter((l) => l.hook === 'event' && (l.data['event'] as { type: string }).type === 'session.created')
        .map((l) => (l.data['event'] as { properties: { info: { id: string; parentID?: string } } }).properties.info)
        .filter((info) => info.parentID !== undefined)
        .map((info) => info.id),
    );
    const payloads = recorded.map(({ hook, data }) => ({ case: caseName(hook, data, spawned), payload: shorten(normalize(data, box.root)) as Record<string, unknown> }));
    return { payloads, version, peers: trace?.peers() };
  } finally {
    await api.close();
    box.remove();
  }
}

/** The shape of a payload: each field's type, and the value of the fields that say what kind of event or part it is. */
const LITERAL_FIELDS = new Set(['type', 'role', 'auto', 'overflow', 'synthetic']);
export function shape(value: unknown, key?: string): unknown {
  if (key !== undefined && LITERAL_FIELDS.has(key)) return value;
  if (Array.isArray(value)) return value.map((v) => shape(v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, shape(v, k)]));
  return value === null ? 'null' : typeof value;
}
