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
 * U6, U10: Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), the pure
 * half. Each line is an envelope `{timestamp, type, payload}`:
 *  - `session_meta` (first line: id, cwd, cli_version, originator, source, instructions),
 *    `turn_context`, `compacted`: bookkeeping;
 *  - what the person typed, in one of two shapes (a turn is written in one shape only, so
 *    nothing counts twice): the legacy `event_msg` `user_message` (`message`, `images` / `local_images`), and,
 *    in paginated rollouts, `event_msg` `item_completed` whose `item` is a `UserMessage`
 *    (`content`: `text` parts, `image` / `local_image` parts);
 *  - `response_item` `message` with `role: "user"`: the model's input copy of the same turn plus
 *    the context Codex injects. Never counted: it would count every turn twice.
 * Rollouts from before the envelope (a bare `{type: "message", role: "user", content}` per line)
 * are read by their user messages, with the injected forms filtered.
 */

/**
 * U10: context Codex writes in the user role, never a person's turn. Public sources: the
 * client's own registry of contextual user fragments and the readers that filter them. Compared
 * as the client does: after leading whitespace, ASCII case ignored.
 */
export const CODEX_INJECTED_FORMS: readonly string[] = [
  '<environment_context>', // cwd, shell, sandbox, date: at the start and whenever they change
  '<user_instructions>', // global instructions (older builds)
  '# AGENTS.md instructions', // AGENTS.md contents; ` for <dir>` only when a project file applies
  '<INSTRUCTIONS>', // an AGENTS.md body written as its own part
  '<turn_aborted>', // written when a turn is interrupted
  '<skill>', // a skill's instructions, injected after `$skill`
  '<user_shell_command>', // a `!command` and its output, written by the client
  '<user_shell_command_output>',
  '<plugins>',
  '<recommended_plugins>',
  '<subagents>',
  '<subagent_notification>', // a sub-agent's status, reported to its parent
  '<codex_internal_context', // goal continuation and other internal context (carries attributes)
  '<goal_context>', // goal continuation (older builds)
  '<permissions instructions>',
];

/** IDE clients put the open files above the person's words; the words follow this heading. */
const IDE_HEADINGS = ['# Context from my IDE setup:', '# Files mentioned by the user:'];
const IDE_REQUEST = '## My request for Codex:';

const startsWithFold = (text: string, prefix: string) => text.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase();

/** The injected form a text starts with, if any. */
export function codexInjectedForm(text: string): string | undefined {
  const head = text.trimStart();
  return CODEX_INJECTED_FORMS.find((p) => startsWithFold(head, p));
}

/**
 * U10: the person's words in a Codex user text: the text after an IDE client's context heading
 * (`## My request for Codex:`), else the text itself; undefined when it is injected context (or
 * an IDE context block without a request).
 */
export function codexPersonText(text: string): string | undefined {
  if (codexInjectedForm(text) !== undefined) return undefined;
  const head = text.trimStart();
  if (IDE_HEADINGS.some((h) => startsWithFold(head, h))) {
    const at = head.indexOf(IDE_REQUEST);
    return at < 0 ? undefined : head.slice(at + IDE_REQUEST.length).trim();
  }
  return text;
}

function codexTurn(texts: readonly string[], images: number, reason: string, at: unknown, markers: readonly NotPersonMarker[]): LineClass {
  const kept: string[] = [];
  let form: string | undefined;
  for (const t of texts) {
    const words = codexPersonText(t);
    if (words === undefined) form ??= codexInjectedForm(t) ?? 'IDE context';
    else kept.push(words);
  }
  if (kept.length === 0 && images === 0 && form !== undefined) return notHuman('injected-context', form);
  return humanTurn(kept.join('\n'), images, reason, at, markers);
}

const count = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
/** Part and item types are matched without case or separators: sources show `text` and `Text`, `local_image` and `localImage`. */
const fold = (v: unknown): string => (typeof v === 'string' ? v.replace(/[_-]/gu, '').toLowerCase() : '');

/** A paginated rollout's `UserMessage` item: its text parts and image count. */
function userMessageItem(item: Record<string, unknown>): { texts: string[]; images: number } {
  const texts: string[] = [];
  let images = 0;
  const content = item['content'];
  if (Array.isArray(content)) {
    for (const part of content) {
      if (!isRecord(part)) continue;
      const t = fold(part['type']);
      if ((t === 'text' || t === 'inputtext') && typeof part['text'] === 'string') texts.push(part['text']);
      else if (t === 'image' || t === 'localimage' || t === 'inputimage') images++;
    }
  }
  return { texts, images };
}

function classifyEvent(payload: Record<string, unknown>, at: unknown, markers: readonly NotPersonMarker[]): LineClass {
  const inner = payload['type'];
  if (inner === 'user_message') {
    // Some versions tag the injected context they also emit as user messages.
    const kind = payload['kind'];
    if (typeof kind === 'string' && kind !== 'plain') return notHuman('injected-context', `kind ${kind}`);
    const text = typeof payload['message'] === 'string' ? payload['message'] : '';
    return codexTurn([text], count(payload['images']) + count(payload['local_images']), 'user-message', at, markers);
  }
  if (inner === 'item_completed' || inner === 'item_started' || inner === 'item_updated') {
    const item = payload['item'];
    const itemType = isRecord(item) ? item['type'] : undefined;
    if (fold(itemType) === 'usermessage' && isRecord(item)) {
      // Only the completed item is the turn; a started or updated one is the same turn in flight.
      if (inner !== 'item_completed') return notHuman('record', `${inner} UserMessage (counted when completed)`);
      const { texts, images } = userMessageItem(item);
      return codexTurn(texts, images, 'user-message-item', at, markers);
    }
    return notHuman(fold(itemType) === 'agentmessage' || fold(itemType) === 'reasoning' ? 'assistant' : 'tool-result', `${inner} ${String(itemType)}`);
  }
  return notHuman(inner === 'agent_message' || inner === 'agent_reasoning' ? 'assistant' : 'record', String(inner));
}

export function classifyCodexEntry(entry: unknown, options: ClassifyOptions = {}): LineClass {
  const markers = options.notPersonMarkers ?? DEFAULT_NOT_PERSON_MARKERS;
  if (!isRecord(entry)) return notHuman('record');
  const type = entry['type'];
  const payload = entry['payload'];
  if (isRecord(payload)) {
    const inner = payload['type'];
    if (type === 'event_msg') return classifyEvent(payload, entry['timestamp'], markers);
    if (type === 'response_item') {
      if (inner === 'message' && payload['role'] === 'user') return notHuman('model-input', 'response_item user message (the typed turn is its event_msg)');
      if (inner === 'message') return notHuman('assistant');
      return notHuman(inner === 'function_call_output' || inner === 'custom_tool_call_output' ? 'tool-result' : 'assistant', String(inner));
    }
    return notHuman('record', typeof type === 'string' ? type : undefined);
  }
  // Pre-envelope rollouts: one response item per line.
  if (type === 'message' && entry['role'] === 'user') {
    const content = entry['content'];
    const parts = contentParts(content);
    if (!parts) return notHuman('no-text');
    // Each part is judged on its own: one message may carry AGENTS.md and the environment together.
    const texts = Array.isArray(content)
      ? content.filter((b): b is Record<string, unknown> => isRecord(b) && (b['type'] === 'text' || b['type'] === 'input_text') && typeof b['text'] === 'string').map((b) => b['text'] as string)
      : [parts.text];
    return codexTurn(texts, parts.images, 'legacy-message', entry['timestamp'], markers);
  }
  if (type === 'message') return notHuman('assistant');
  return notHuman(type === 'function_call_output' ? 'tool-result' : 'record', typeof type === 'string' ? type : undefined);
}

/**
 * U10: whether a Codex thread is driven by a program, from its first record (`session_meta`).
 * A spawned sub-agent (`source: {subagent: ...}`, e.g. `{subagent: {thread_spawn: {parent_thread_id}}}`,
 * or, in newer builds, `thread_source: "subagent"`) is prompted by its parent agent; an `exec`
 * session (`source: "exec"`) runs one scripted prompt and is not offered by the interactive
 * resume picker. Returns what says so, or undefined for a thread a person may type into
 * (`cli`, `vscode`, `mcp`, other sources, a person's `/fork`: `forked_from_id` alone, and
 * pre-envelope files, which carry no source).
 */
export function codexMachineDriver(firstRecord: unknown): string | undefined {
  if (!isRecord(firstRecord) || firstRecord['type'] !== 'session_meta' || !isRecord(firstRecord['payload'])) return undefined;
  const meta = firstRecord['payload'];
  const source = meta['source'];
  if (source === 'exec') return 'exec session (session_meta.source "exec")';
  if (isRecord(source) && 'subagent' in source) {
    const sub = source['subagent'];
    const how = typeof sub === 'string' ? sub : isRecord(sub) ? (Object.keys(sub)[0] ?? 'subagent') : 'subagent';
    return `sub-agent thread (session_meta.source.subagent: ${how})`;
  }
  if (meta['thread_source'] === 'subagent') return 'sub-agent thread (session_meta.thread_source "subagent")';
  return undefined;
}
