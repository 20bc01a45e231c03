import {
  DEFAULT_NOT_PERSON_MARKERS,
  contentParts,
  humanTurn,
  isRecord,
  notHuman,
  type ClassifyOptions,
  type LineClass,
  type NotPersonMarker,
} from './classify.js';

/**
 * U6: Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), the pure
 * half. Each line is an envelope `{timestamp, type, payload}`:
 *  - `session_meta` (first line: id, cwd, cli_version, originator, instructions), `turn_context`,
 *    `compacted`: bookkeeping;
 *  - `event_msg` with `payload.type: "user_message"`: what the person typed (`message`, and
 *    `images` / `local_images` when they attached some). This is what counts;
 *  - `response_item` with `payload.type: "message"`, `role: "user"`: the model's input copy of the
 *    same turn, plus the context Codex injects (`<environment_context>`, `<user_instructions>`,
 *    AGENTS.md contents). Never counted: counting it too would count every turn twice.
 * Rollouts from before the envelope (a bare `{type: "message", role: "user", content}` per line)
 * are read by their user messages, with the injected forms filtered.
 */

/** Context Codex writes as user-role text; never a person's turn. */
const CODEX_INJECTED = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions for', '<INSTRUCTIONS>', '<turn_aborted>'];

function injected(text: string): string | undefined {
  const head = text.trimStart();
  return CODEX_INJECTED.find((p) => head.startsWith(p));
}

function codexTurn(text: string, images: number, reason: string, at: unknown, markers: readonly NotPersonMarker[]): LineClass {
  const form = injected(text);
  if (form !== undefined) return notHuman('injected-context', form);
  return humanTurn(text, images, reason, at, markers);
}

const count = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

export function classifyCodexEntry(entry: unknown, options: ClassifyOptions = {}): LineClass {
  const markers = options.notPersonMarkers ?? DEFAULT_NOT_PERSON_MARKERS;
  if (!isRecord(entry)) return notHuman('record');
  const type = entry['type'];
  const payload = entry['payload'];
  if (isRecord(payload)) {
    const inner = payload['type'];
    if (type === 'event_msg') {
      if (inner !== 'user_message') return notHuman(inner === 'agent_message' || inner === 'agent_reasoning' ? 'assistant' : 'record', String(inner));
      // Some versions tag the injected context they also emit as user messages.
      const kind = payload['kind'];
      if (typeof kind === 'string' && kind !== 'plain') return notHuman('injected-context', `kind ${kind}`);
      const text = typeof payload['message'] === 'string' ? payload['message'] : '';
      return codexTurn(text, count(payload['images']) + count(payload['local_images']), 'user-message', entry['timestamp'], markers);
    }
    if (type === 'response_item') {
      if (inner === 'message' && payload['role'] === 'user') return notHuman('model-input', 'response_item user message (counted from event_msg user_message)');
      if (inner === 'message') return notHuman('assistant');
      return notHuman(inner === 'function_call_output' || inner === 'custom_tool_call_output' ? 'tool-result' : 'assistant', String(inner));
    }
    return notHuman('record', typeof type === 'string' ? type : undefined);
  }
  // Pre-envelope rollouts: one response item per line.
  if (type === 'message' && entry['role'] === 'user') {
    const parts = contentParts(entry['content']);
    if (!parts) return notHuman('no-text');
    return codexTurn(parts.text, parts.images, 'legacy-message', entry['timestamp'], markers);
  }
  if (type === 'message') return notHuman('assistant');
  return notHuman(type === 'function_call_output' ? 'tool-result' : 'record', typeof type === 'string' ? type : undefined);
}
