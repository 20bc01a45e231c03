/**
 * U6: who wrote a transcript record. Pure: records arrive parsed (or as a bounded skeleton of a
 * line too long to hold, see skeleton.ts); the dialects (Claude Code here, Codex in codex.ts)
 * share the result type, the text rules and the "not a person" markers.
 *
 * Order of evidence, strongest first (PROTOCOL.md section 9 says why):
 *  1. structure: the record kind (`type`), `isSidechain`, `isMeta`, compaction flags, tool results;
 *  2. provenance, when the record carries it: `origin.kind` (Claude Code 2.1+), then `promptSource`;
 *     a non-human provenance is never a person, whatever the text says;
 *  3. text forms no person types (client output, task notifications, runtime wrappers, the
 *     configurable not-a-person markers). They only ever *remove*: runtimes that inject text
 *     write it through the same path as a typed prompt, so provenance alone cannot see them;
 *  4. for records without provenance (older transcripts) 1 and 3 are all there is: the fallback.
 */

/** What a record is, for counting and for `upstream scan`. */
export type Verdict = 'human' | 'machine' | 'meta';

/** U10: how one transcript record was classified: a human turn (with its text and reason) or not human (with the reason). */
export type LineClass =
  | {
      human: true;
      verdict: 'human';
      /** Why it counts: `origin:human`, `queued-command`, `fallback`, `user-message` (Codex), ... */
      reason: string;
      /** The text a person typed (slash commands in `/name args` form); compared for self-echo (U4). */
      text: string;
      /** Image blocks in the turn; an image-only turn has empty text (U4 compares the pair). */
      images: number;
      occurredAt?: number;
      /** The text was cut by the long-line reader (U6); U4 then compares it as a prefix. */
      truncated?: boolean;
    }
  | { human: false; verdict: 'machine' | 'meta'; reason: string; detail?: string };

/**
 * U6: a runtime-injected text form that is not a person's turn. A string matches a text that,
 * after leading whitespace, starts with it (case kept); a RegExp is tested on the whole text.
 */
export type NotPersonMarker = string | RegExp;

/**
 * U6 defaults (documented in PROTOCOL.md section 9): text another agent sent through the runtime
 * (`[Inter-session message] ...`), and the wrapper a runtime writes when it continues a session
 * from its own transcript ("Continue this conversation using the <runtime> transcript below").
 */
export const DEFAULT_NOT_PERSON_MARKERS: readonly NotPersonMarker[] = [
  '[Inter-session message]',
  /^\s*continue this conversation using the\b[^\n]{0,80}?\btranscript below/iu,
];

/**
 * U6, U10: options of the record classifiers: the not-a-person markers and the resumed sessions whose records are old history.
 */
export interface ClassifyOptions {
  /** Replaces the defaults (pass `[...DEFAULT_NOT_PERSON_MARKERS, mine]` to extend them). */
  notPersonMarkers?: readonly NotPersonMarker[];
  /**
   * Session ids whose records are history copied into this file by a resume (U6): never new.
   * Set by the JSONL source when it followed a conversation into its successor file.
   */
  copiedFrom?: readonly string[];
}

const META_REASONS = new Set(['blank', 'not-json', 'record', 'meta', 'compact-summary', 'model-input', 'resumed-history', 'attachment']);

/** U10: a not-human LineClass for `reason` (meta reasons get verdict `meta`, the rest `machine`). */
export function notHuman(reason: string, detail?: string): LineClass {
  const out: LineClass = { human: false, verdict: META_REASONS.has(reason) ? 'meta' : 'machine', reason };
  if (detail !== undefined) out.detail = detail;
  return out;
}

/**
 * Texts a client writes on the person's behalf: slash-command and `!` shell output, the
 * local-command caveat, the interrupt marker (also written when a driving runtime aborts a run),
 * background-task completions, reminders and the compaction preamble of transcripts that predate
 * `isCompactSummary`.
 */
const CLIENT_FORMS: readonly [string, string][] = [
  ['<local-command-stdout>', 'client-output'],
  ['<local-command-stderr>', 'client-output'],
  ['<local-command-caveat>', 'client-output'],
  ['Caveat: The messages below were generated', 'client-output'],
  ['<bash-stdout>', 'client-output'],
  ['<bash-stderr>', 'client-output'],
  ['[Request interrupted by user', 'client-output'],
  ['<task-notification>', 'task-notification'],
  ['<system-reminder>', 'client-output'],
  ['This session is being continued from a previous conversation', 'compact-summary'],
];

/** True for an object that is neither null nor an array (what a parsed JSON object is). */
export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A record's timestamp as epoch ms (a number, or an ISO string Date.parse reads); undefined otherwise. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * U4, U6: a slash command comes back as `<command-message>…</command-message>
 * <command-name>/review</command-name><command-args>12</command-args>` (tag order varies by
 * version): its typed form is `/review 12`, which is what our own side sent.
 */
export function typedCommandText(text: string): string | undefined {
  // The group always takes part in a match, so a match always has [1].
  const name = /<command-name>([\s\S]*?)<\/command-name>/u.exec(text)?.[1]!.trim();
  if (name === undefined || name.length === 0) return undefined;
  const args = /<command-args>([\s\S]*?)<\/command-args>/u.exec(text)?.[1]!.trim() ?? '';
  const slash = name.startsWith('/') ? name : `/${name}`;
  return args.length > 0 ? `${slash} ${args}` : slash;
}

/** U6: which client form or marker a text starts with (undefined: none). */
export function textRule(text: string, markers: readonly NotPersonMarker[]): { reason: string; detail?: string } | undefined {
  const head = text.trimStart();
  for (const [prefix, reason] of CLIENT_FORMS) if (head.startsWith(prefix)) return { reason, detail: prefix };
  for (const m of markers) {
    if (typeof m === 'string' ? m.length > 0 && head.startsWith(m) : (m.lastIndex = 0, m.test(text))) {
      return { reason: 'not-person-marker', detail: typeof m === 'string' ? m : m.source };
    }
  }
  return undefined;
}

/** Text and image count of a message content (string or blocks); `tool` when a block is a tool result. */
export function contentParts(content: unknown): { text: string; images: number; tool: boolean } | undefined {
  if (typeof content === 'string') return { text: content, images: 0, tool: false };
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  let images = 0;
  let tool = false;
  for (const block of content) {
    if (typeof block === 'string') texts.push(block);
    if (!isRecord(block)) continue;
    const t = block['type'];
    if (t === 'tool_result') tool = true;
    else if ((t === 'text' || t === 'input_text') && typeof block['text'] === 'string') texts.push(block['text']);
    else if (t === 'image' || t === 'input_image' || t === 'localImage' || t === 'local_image') images++;
  }
  return { text: texts.join('\n'), images, tool };
}

/** U6: the shared tail of every dialect: empty turns, client forms, markers, command form. */
export function humanTurn(text: string, images: number, reason: string, at: unknown, markers: readonly NotPersonMarker[]): LineClass {
  if (text.trim().length === 0 && images === 0) return notHuman('no-text');
  const rule = textRule(text, markers);
  if (rule) return notHuman(rule.reason, rule.detail);
  const out: LineClass = { human: true, verdict: 'human', reason, text: typedCommandText(text) ?? text, images };
  const ms = parseTime(at);
  if (ms !== undefined) out.occurredAt = ms;
  return out;
}

function originKind(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const k = value['kind'];
  return typeof k === 'string' ? k : '(no kind)';
}

/**
 * U6: a Claude Code transcript record (see the order of evidence above). Record shapes by
 * version are in PROTOCOL.md section 9.
 */
export function classifyClaudeEntry(entry: unknown, options: ClassifyOptions = {}): LineClass {
  const markers = options.notPersonMarkers ?? DEFAULT_NOT_PERSON_MARKERS;
  if (!isRecord(entry)) return notHuman('record');
  const type = entry['type'];
  if (type !== 'user' && type !== 'attachment') return notHuman(type === 'assistant' ? 'assistant' : 'record', typeof type === 'string' ? type : undefined);
  if (entry['isSidechain'] === true) return notHuman('sidechain');
  // A string list holds only strings: a match means sessionId is one.
  const sid = entry['sessionId'] as string;
  if (options.copiedFrom?.includes(sid)) return notHuman('resumed-history', sid);

  if (type === 'attachment') {
    const att = entry['attachment'];
    if (!isRecord(att) || att['type'] !== 'queued_command') return notHuman('attachment', isRecord(att) && typeof att['type'] === 'string' ? att['type'] : undefined);
    if (att['isMeta'] === true || entry['isMeta'] === true) return notHuman('meta', 'queued_command');
    const mode = att['commandMode'];
    const origin = originKind(att['origin'] ?? entry['origin']);
    if (origin !== undefined && origin !== 'human') return notHuman('origin', origin);
    if (mode !== undefined && mode !== 'prompt' && mode !== 'bash') return notHuman('queued-mode', String(mode));
    // Without a mode the record is a coordinator's or peer's message unless it says human.
    if (mode === undefined && origin !== 'human') return notHuman('queued-mode', '(none)');
    const parts = contentParts(att['prompt']);
    if (!parts) return notHuman('no-text');
    return humanTurn(parts.text, parts.images, 'queued-command', entry['timestamp'] ?? att['timestamp'], markers);
  }

  if (entry['isMeta'] === true) return notHuman('meta');
  if (entry['isCompactSummary'] === true || entry['isVisibleInTranscriptOnly'] === true) return notHuman('compact-summary');
  // A record the client writes alongside a turn (2.1.x); its own human-turn test excludes it too.
  if (entry['turnCompanion'] === true) return notHuman('meta', 'turnCompanion');
  if (entry['toolUseResult'] !== undefined) return notHuman('tool-result');
  const message = entry['message'];
  if (!isRecord(message)) return notHuman('no-text');
  if (message['role'] !== undefined && message['role'] !== 'user') return notHuman('assistant');
  const parts = contentParts(message['content']);
  if (!parts) return notHuman('no-text');
  if (parts.tool) return notHuman('tool-result');
  const origin = originKind(entry['origin']);
  if (origin !== undefined && origin !== 'human') return notHuman('origin', origin);
  const source = entry['promptSource'];
  if (origin === undefined && source === 'system') return notHuman('prompt-source', 'system');
  const reason = origin === 'human' ? 'origin:human' : typeof source === 'string' ? `prompt-source:${source}` : 'fallback';
  return humanTurn(parts.text, parts.images, reason, entry['timestamp'], markers);
}

/** U6: one complete line: blank and non-JSON lines are classified (not human) and passed over. */
export function classifyClaudeLine(line: string, options: ClassifyOptions = {}): LineClass {
  return classifyLine(line, (e) => classifyClaudeEntry(e, options));
}

/** U6: classifies one complete JSONL line with `classify`; blank and non-JSON lines are not human. Leading NULs are skipped. */
export function classifyLine(line: string, classify: (entry: unknown) => LineClass): LineClass {
  // Claude Code's own reader skips NUL padding before a record; so do we.
  const text = line.replace(/^\u0000+/u, '');
  if (text.trim().length === 0) return notHuman('blank');
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return notHuman('not-json');
  }
  return classify(entry);
}
