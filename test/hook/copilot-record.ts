import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chatTexts, startFakeChatCompletions } from '../agents/fake-chat-completions.js';
import { copilotEnv, makeSandbox, runBinary, type BinaryInfo } from '../agents/binaries.js';

/**
 * T52: what the real Copilot CLI sends its command hooks, recorded by a hook that only appends its
 * stdin to a file, in offline runs against the chat-completions stand-in: a new session, its
 * resume, a sub-agent started by the model's `task` call, and an automatic compaction (a small
 * prompt budget and two large prompts). Each payload is named by its case: the event and the field
 * that tells its kind apart (source, trigger, reason, a sub-agent's id).
 */
export const RECORDED_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SubagentStart', 'SubagentStop', 'Stop', 'SessionEnd'] as const;

export interface RecordedPayload {
  /** The event it was configured under (Copilot 1.0.102 sends SubagentStart without hook_event_name). */
  event: string;
  case: string;
  payload: Record<string, unknown>;
}

export function caseName(event: string, p: Record<string, unknown>): string {
  const kebab = event.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '-') + c.toLowerCase());
  const inSubagent = p['agent_id'] !== undefined && event !== 'SubagentStart' && event !== 'SubagentStop';
  const kind = event === 'SessionStart' ? p['source'] : event === 'PreCompact' ? p['trigger'] : event === 'SessionEnd' ? p['reason'] : inSubagent ? 'subagent' : undefined;
  return kind === undefined ? kebab : `${kebab}-${String(kind)}`;
}

/** Replaces the sandbox's path in every string, so a recorded payload reads the same on every machine. */
function normalize(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.split(root).join('/sandbox');
  if (Array.isArray(value)) return value.map((v) => normalize(v, root));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, root)]));
  return value;
}

export async function recordCopilotPayloads(copilot: BinaryInfo): Promise<{ payloads: RecordedPayload[]; version: string }> {
  const box = makeSandbox('copilot-record');
  const big = 'lorem ipsum dolor sit amet '.repeat(1500);
  const api = await startFakeChatCompletions((request) => {
    const texts = chatTexts(request).join('\n');
    const messages = (request.json?.['messages'] ?? []) as { role?: string }[];
    // The person asks for a helper: the model calls `task` once; the sub-agent and the follow-up answer in text.
    if (texts.includes('use a helper') && !texts.includes('look at the readme') && messages.at(-1)?.role !== 'tool') {
      return { toolCall: { name: 'task', arguments: { name: 'helper', prompt: 'look at the readme', agent_type: 'general-purpose', description: 'read the readme', mode: 'sync' } } };
    }
    return { text: 'ok' };
  });
  try {
    const log = join(box.root, 'payloads.jsonl');
    const recorder = box.write('record.mjs', `import { appendFileSync, readFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, JSON.stringify({ event: process.argv[2], input: readFileSync(0, 'utf8') }) + '\\n');\n`);
    const hooks = Object.fromEntries(RECORDED_EVENTS.map((e) => [e, [{ type: 'command', bash: `${JSON.stringify(process.execPath)} ${JSON.stringify(recorder)} ${e}`, timeoutSec: 30 }]]));
    box.write('home/.copilot/hooks/record.json', JSON.stringify({ version: 1, hooks }, null, 2));
    const run = async (args: string[], extra: Record<string, string> = {}) => {
      const r = await runBinary(copilot.command, ['-p', ...args], { cwd: box.project, env: copilotEnv(box, api.baseUrl, extra) });
      if (r.code !== 0) throw new Error(`copilot ${args.slice(1).join(' ')} exited ${String(r.code)}: ${r.stderr.slice(-1500)}`);
      return r;
    };
    const session = '5b0c7d1e-2f3a-4b5c-8d6e-7f8091a2b3c4';
    await run(['first prompt', '--session-id', session]);
    await run(['second prompt', '--resume', session]);
    await run(['use a helper', '--allow-all-tools']);
    const compacting = '6c1d8e2f-3a4b-4c5d-9e6f-8091a2b3c4d5';
    for (let i = 0; i < 2; i++) await run([big, '--session-id', compacting], { COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '30000' });
    const version = (await runBinary(copilot.command, ['--version'], { cwd: box.project, env: copilotEnv(box, api.baseUrl) })).stdout.match(/\d+\.\d+\.\d+/)?.[0] ?? '';
    const payloads = existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { event: string; input: string })
          .map(({ event, input }) => {
            const payload = normalize(JSON.parse(input), box.root) as Record<string, unknown>;
            // The big prompt says nothing about the shape; keep its first words.
            for (const k of ['prompt', 'initial_prompt']) if (typeof payload[k] === 'string' && (payload[k] as string).length > 80) payload[k] = `${(payload[k] as string).slice(0, 26)}…`;
            return { event, case: caseName(event, payload), payload };
          })
      : [];
    return { payloads, version };
  } finally {
    await api.close();
    box.remove();
  }
}

/** The shape of a payload: each field's type, and the value of the fields that say what kind of event it is. */
const LITERAL_FIELDS = new Set(['hook_event_name', 'source', 'trigger', 'reason', 'stop_reason', 'stop_hook_active', 'agent_type', 'agentName', 'agent_name']);
export function shape(value: unknown, key?: string): unknown {
  if (key !== undefined && LITERAL_FIELDS.has(key)) return value;
  if (Array.isArray(value)) return value.map((v) => shape(v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, shape(v, k)]));
  return value === null ? 'null' : typeof value;
}
