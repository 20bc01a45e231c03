import { LIMITS } from '../../../spec/index.js';
import type { Observation, UpstreamTurn } from './check.js';
import type { JsonObject, JsonValue } from './link.js';

/**
 * U6: local Claude Code JSONL transcripts, the pure half. The adapter (src/upstream) stats and
 * reads the file; everything that decides which bytes count and how lines classify is here.
 *
 * The marker is a durable byte cursor `{offset, epoch, file}`: `offset` always sits just after a
 * newline (or at the adoption baseline), `epoch` counts rotations/truncations of this link's file,
 * `file` is the identity (`dev:ino`) of the file the offset belongs to.
 */
export interface JsonlMarker {
  offset: number;
  epoch: number;
  file?: string;
}

/** Facts the adapter learns from fstat of the open file. */
export interface JsonlFileFacts {
  size: number;
  /** `dev:ino`; changes when the path names a different file (rotation). */
  identity: string;
  mtimeMs?: number;
}

export interface JsonlReadPlan {
  /** Absolute byte offset to read from. */
  from: number;
  /** Bytes to read: min(size - from, maxBytes). */
  length: number;
  epoch: number;
  identity: string;
  /** Why the cursor went back to 0, if it did. */
  reset?: 'rotated' | 'truncated';
}

const isOffset = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Reads a stored marker; undefined when it is not one (the check is then inconclusive). */
export function parseJsonlMarker(value: JsonValue): JsonlMarker | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { offset, epoch, file } = value;
  if (!isOffset(offset)) return undefined;
  const marker: JsonlMarker = { offset, epoch: isOffset(epoch) ? epoch : 0 };
  if (typeof file === 'string') marker.file = file;
  return marker;
}

export function jsonlMarkerJson(marker: JsonlMarker): JsonObject {
  const out: JsonObject = { offset: marker.offset, epoch: marker.epoch };
  if (marker.file !== undefined) out['file'] = marker.file;
  return out;
}

/** U3: the marker of a newly linked transcript: its current end, so earlier history never counts. */
export function jsonlBaseline(facts: JsonlFileFacts): JsonObject {
  return jsonlMarkerJson({ offset: facts.size, epoch: 0, file: facts.identity });
}

/**
 * U6: where to read. A different file identity (rotation) or a file shorter than the cursor
 * (truncation) means the bytes at the path are new and were never classified: start a new epoch
 * at offset 0 rather than skip them. Otherwise continue at the cursor. At most `maxBytes`.
 */
export function planJsonlRead(marker: JsonlMarker, facts: JsonlFileFacts, maxBytes: number = LIMITS.upstreamScanMaxBytes): JsonlReadPlan {
  let from = marker.offset;
  let epoch = marker.epoch;
  let reset: JsonlReadPlan['reset'];
  if (marker.file !== undefined && marker.file !== facts.identity) reset = 'rotated';
  else if (facts.size < marker.offset) reset = 'truncated';
  if (reset) {
    from = 0;
    epoch += 1;
  }
  const plan: JsonlReadPlan = { from, length: Math.max(0, Math.min(facts.size - from, maxBytes)), epoch, identity: facts.identity };
  if (reset) plan.reset = reset;
  return plan;
}

export interface JsonlLine {
  /** Absolute offset of the line's first byte. */
  offset: number;
  /** The line's bytes without its terminating newline. */
  bytes: Uint8Array;
}

export interface JsonlChunkScan {
  /** Every complete line in the chunk, in order. */
  lines: JsonlLine[];
  /** Offset just after the last newline; `from` when the chunk holds no complete line. */
  nextOffset: number;
  /** Set when the chunk is full (maxBytes) and holds no newline: one line is over the limit. */
  blockedAt?: number;
}

const NEWLINE = 0x0a;

/**
 * U6: complete lines only. Bytes after the last newline are a line still being written: they
 * stay unread (the cursor stops before them) and the next check reads them again, whole. A
 * newline byte never occurs inside a multi-byte UTF-8 sequence, so splitting on it is safe for
 * characters split across writes. A full chunk with no newline is a line longer than maxBytes:
 * the cursor is blocked there, since skipping would drop bytes nobody classified.
 */
export function scanJsonlChunk(chunk: Uint8Array, from: number, maxBytes: number = LIMITS.upstreamScanMaxBytes): JsonlChunkScan {
  const last = chunk.lastIndexOf(NEWLINE);
  if (last < 0) {
    const scan: JsonlChunkScan = { lines: [], nextOffset: from };
    if (chunk.length >= maxBytes) scan.blockedAt = from;
    return scan;
  }
  const lines: JsonlLine[] = [];
  let start = 0;
  for (let i = 0; i <= last; i++) {
    if (chunk[i] !== NEWLINE) continue;
    lines.push({ offset: from + start, bytes: chunk.subarray(start, i) });
    start = i + 1;
  }
  return { lines, nextOffset: from + last + 1 };
}

/** `1 MiB`, `64 KiB`, `100 bytes`: how the block status names the limit. */
export function formatBytes(n: number): string {
  if (n > 0 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n > 0 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** U6, U9: the operator-visible status of a blocked cursor. */
export function blockedDetail(offset: number, maxBytes: number = LIMITS.upstreamScanMaxBytes): string {
  return `blocked: line exceeds ${formatBytes(maxBytes)} at offset ${offset}`;
}

/** Why a transcript line is, or is not, a person's turn (U6). */
export type ClaudeLineClass =
  | { human: true; text: string; occurredAt?: number }
  | {
      human: false;
      reason: 'blank' | 'not-json' | 'not-user' | 'sidechain' | 'meta' | 'compact-summary' | 'tool-result' | 'client-output' | 'no-text';
    };

/**
 * Texts Claude Code writes as `user` lines on the person's behalf: slash-command and `!` shell
 * output, the local-command caveat, and the interrupt marker (also written when a driving
 * runtime aborts a run, so it is not evidence of a person).
 */
const CLIENT_OUTPUT_PREFIXES = [
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-stdout>',
  '<bash-stderr>',
  '[Request interrupted by user',
];

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * U6: a Claude Code transcript entry is a person's turn iff
 *  - `type` is `"user"`, and it is not `isSidechain` (a sub-agent's conversation), not `isMeta`
 *    (client-injected context), not `isCompactSummary` / `isVisibleInTranscriptOnly` (compaction
 *    summaries), and has no `toolUseResult`;
 *  - `message.content` is either a string, or an array of blocks with no `tool_result` block and
 *    at least one `text` or `image` block (the text is the text blocks joined by newlines; an
 *    image-only turn has empty text, which is never an echo, so it counts as human);
 *  - the text does not start with a client-output prefix (CLIENT_OUTPUT_PREFIXES);
 *  - a string content is not blank.
 * Everything else (assistant, system, summary and snapshot lines, tool results) is classified as
 * not human. `timestamp` (ISO 8601) becomes occurredAt when it parses.
 */
export function classifyClaudeEntry(entry: unknown): ClaudeLineClass {
  if (!isRecord(entry) || entry['type'] !== 'user') return { human: false, reason: 'not-user' };
  if (entry['isSidechain'] === true) return { human: false, reason: 'sidechain' };
  if (entry['isMeta'] === true) return { human: false, reason: 'meta' };
  if (entry['isCompactSummary'] === true || entry['isVisibleInTranscriptOnly'] === true) return { human: false, reason: 'compact-summary' };
  if (entry['toolUseResult'] !== undefined) return { human: false, reason: 'tool-result' };
  const message = entry['message'];
  if (!isRecord(message)) return { human: false, reason: 'no-text' };
  if (message['role'] !== undefined && message['role'] !== 'user') return { human: false, reason: 'not-user' };
  const content = message['content'];
  let text: string;
  if (typeof content === 'string') {
    if (content.trim().length === 0) return { human: false, reason: 'no-text' };
    text = content;
  } else if (Array.isArray(content)) {
    const texts: string[] = [];
    let image = false;
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block['type'] === 'tool_result') return { human: false, reason: 'tool-result' };
      if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
      else if (block['type'] === 'image') image = true;
    }
    if (texts.length === 0 && !image) return { human: false, reason: 'no-text' };
    text = texts.join('\n');
  } else {
    return { human: false, reason: 'no-text' };
  }
  const head = text.trimStart();
  if (CLIENT_OUTPUT_PREFIXES.some((p) => head.startsWith(p))) return { human: false, reason: 'client-output' };
  const out: ClaudeLineClass = { human: true, text };
  const at = parseTime(entry['timestamp']);
  if (at !== undefined) out.occurredAt = at;
  return out;
}

/**
 * U6: one complete line. A blank line or one that is not JSON is *classified* (as not human) and
 * passed over: "unclassified" means bytes not yet read as a complete line, and those are never
 * skipped. A garbage line cannot be a person's turn we could report anyway.
 */
export function classifyClaudeLine(line: string): ClaudeLineClass {
  if (line.trim().length === 0) return { human: false, reason: 'blank' };
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return { human: false, reason: 'not-json' };
  }
  return classifyClaudeEntry(entry);
}

/** Decodes a line's bytes; the adapter passes the host's UTF-8 decoder (the core has none). */
export type Utf8Decode = (bytes: Uint8Array) => string;

/**
 * U6: turns one read into an observation. `chunk` is what the adapter read at `plan.from`
 * (possibly shorter than planned if the file shrank meanwhile).
 */
export function observeJsonlRead(
  plan: JsonlReadPlan,
  chunk: Uint8Array,
  facts: JsonlFileFacts,
  decode: Utf8Decode,
  maxBytes: number = LIMITS.upstreamScanMaxBytes,
): Observation {
  const scan = scanJsonlChunk(chunk, plan.from, maxBytes);
  const turns: UpstreamTurn[] = [];
  for (const line of scan.lines) {
    const c = classifyClaudeLine(decode(line.bytes));
    if (!c.human) continue;
    turns.push(c.occurredAt === undefined ? { text: c.text } : { text: c.text, occurredAt: c.occurredAt });
  }
  const nextMarker = jsonlMarkerJson({ offset: scan.nextOffset, epoch: plan.epoch, file: plan.identity });
  const obs: Observation = { status: 'found', turns, nextMarker, position: `${plan.epoch}.${scan.nextOffset}` };
  if (facts.mtimeMs !== undefined) obs.sourceTime = facts.mtimeMs;
  if (scan.blockedAt !== undefined) obs.blocked = blockedDetail(scan.blockedAt, maxBytes);
  else if (plan.reset) obs.note = `file ${plan.reset}; reading from offset 0 (epoch ${plan.epoch})`;
  return obs;
}
