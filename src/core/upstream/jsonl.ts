import { LIMITS } from '../../../spec/index.js';
import type { Observation, UpstreamTurn } from './check.js';
import { classifyClaudeEntry, classifyLine, isRecord, notHuman, type ClassifyOptions, type LineClass } from './classify.js';
import { classifyCodexEntry, codexMachineDriver } from './codex.js';
import { sha256HexBytes } from './hash.js';
import type { JsonObject, JsonValue } from './link.js';
import { SkeletonParser, type SkeletonLimits, type Utf8Decode } from './skeleton.js';

/**
 * U6: local JSONL transcripts, the pure half. The adapter (src/upstream) stats and reads files;
 * everything that decides which bytes count and how lines classify is here.
 *
 * The marker is a durable byte cursor:
 *   offset  just after a newline (or the adoption baseline): bytes before it are classified
 *   epoch   counts the files this link has read (rotation, truncation, replacement, a followed
 *           resume): `<epoch>.<offset>` is unique within the link's incarnation (U5)
 *   file    identity (`dev:ino`) of the file the offset belongs to
 *   head    `{len, hash}`: SHA-256 (16 hex) of the file's first `len` bytes (len <= 4096); a file
 *           replaced under the same identity (ext4 reuses inodes) is caught by its content
 *   long    `{scanned}`: a line longer than the scan limit starts at `offset`; `scanned` of its
 *           bytes went through the long-line reader (held by the adapter, see LongLineCache)
 *   path    the file a resumed conversation continues in, when it is not the link's own path
 *   lineage session ids whose records a followed file copies as history (never new turns)
 *   last    the uuid of the last record read (how a successor file names its parent)
 */
export interface JsonlMarker {
  offset: number;
  epoch: number;
  file?: string;
  head?: { len: number; hash: string };
  long?: { scanned: number };
  path?: string;
  lineage?: string[];
  last?: string;
  /** U12: what the file's first record, read after the link, says drives the thread (then nothing in it counts). */
  machine?: string;
}

const NEWLINE = 0x0a;

/** Bytes of the file's start whose hash identifies its content (U6 replacement). */
export const HEAD_BYTES = 4096;
/** Ancestor session ids kept in a followed marker. */
const MAX_LINEAGE = 8;

/** Facts the adapter learns from fstat of the open file. */
export interface JsonlFileFacts {
  size: number;
  /** `dev:ino`; changes when the path names a different file (rotation). */
  identity: string;
  mtimeMs?: number;
}

/**
 * U6: what one check reads from a JSONL transcript: the byte range, where the current line starts, and the file's epoch and identity.
 */
export interface JsonlReadPlan {
  /** Absolute byte offset to read from. */
  from: number;
  /** Bytes to read. */
  length: number;
  /** Where the cursor's line starts (= from, unless a long line is being continued). */
  lineStart: number;
  epoch: number;
  identity: string;
  /** Why the cursor went back to 0, if it did. */
  reset?: 'rotated' | 'truncated' | 'replaced';
  /** A long line continues: `scanned` bytes of it were read before. */
  long?: { scanned: number };
}

const isOffset = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Reads a stored marker; undefined when it is not one (the check is then inconclusive). */
export function parseJsonlMarker(value: JsonValue): JsonlMarker | undefined {
  if (!isRecord(value)) return undefined;
  const { offset, epoch, file, head, long, path, lineage, last, machine } = value as Record<string, unknown>;
  if (!isOffset(offset)) return undefined;
  const marker: JsonlMarker = { offset, epoch: isOffset(epoch) ? epoch : 0 };
  if (typeof file === 'string') marker.file = file;
  if (isRecord(head) && isOffset(head['len']) && typeof head['hash'] === 'string') marker.head = { len: head['len'], hash: head['hash'] };
  if (isRecord(long) && isOffset(long['scanned'])) marker.long = { scanned: long['scanned'] };
  if (typeof path === 'string' && path.length > 0) marker.path = path;
  if (Array.isArray(lineage)) marker.lineage = lineage.filter((x): x is string => typeof x === 'string').slice(-MAX_LINEAGE);
  if (typeof last === 'string') marker.last = last;
  if (typeof machine === 'string' && machine.length > 0) marker.machine = machine;
  return marker;
}

/** U6: the JSON form of a JSONL byte-cursor marker, for persisting. */
export function jsonlMarkerJson(marker: JsonlMarker): JsonObject {
  const out: JsonObject = { offset: marker.offset, epoch: marker.epoch };
  if (marker.file !== undefined) out['file'] = marker.file;
  if (marker.head !== undefined) out['head'] = { len: marker.head.len, hash: marker.head.hash };
  if (marker.long !== undefined) out['long'] = { scanned: marker.long.scanned };
  if (marker.path !== undefined) out['path'] = marker.path;
  if (marker.lineage !== undefined && marker.lineage.length > 0) out['lineage'] = [...marker.lineage];
  if (marker.last !== undefined) out['last'] = marker.last;
  if (marker.machine !== undefined) out['machine'] = marker.machine;
  return out;
}

/** U6: the content identity of a file start: `{len, hash}` over its first min(size, 4096) bytes. */
export function headToken(headBytes: Uint8Array): { len: number; hash: string } {
  const bytes = headBytes.subarray(0, HEAD_BYTES);
  return { len: bytes.length, hash: sha256HexBytes(bytes).slice(0, 16) };
}

/**
 * U3: the marker of a newly linked transcript: its current end, so earlier history never counts.
 * With `tailBytes` (the file's last bytes), the end is the last newline: a line still being
 * written at adoption is read once it is complete, not cut in half.
 */
export function jsonlBaseline(facts: JsonlFileFacts, headBytes?: Uint8Array, tailBytes?: Uint8Array): JsonObject {
  let offset = facts.size;
  if (tailBytes !== undefined && tailBytes.length <= facts.size) {
    const nl = tailBytes.lastIndexOf(NEWLINE);
    if (nl >= 0) offset = facts.size - tailBytes.length + nl + 1;
    else if (tailBytes.length === facts.size) offset = 0;
  }
  const marker: JsonlMarker = { offset, epoch: 0, file: facts.identity };
  if (headBytes !== undefined && headBytes.length > 0) marker.head = headToken(headBytes);
  return jsonlMarkerJson(marker);
}

/** U6: options of planJsonlRead: the read budget, the file's head bytes, and whether the long-line reader is still held. */
export interface PlanOptions {
  /** U6: the normal read per check (1 MiB). */
  maxBytes?: number;
  /** The file's first min(size, 4096) bytes now, for the content check (omitted: identity and size only). */
  headBytes?: Uint8Array;
  /** Whether the adapter still holds the long-line reader for `marker.long` (false after a restart). */
  longReaderHeld?: boolean;
}

/**
 * U6: where to read. A different file identity (rotation), a file shorter than the cursor
 * (truncation) or a different first-bytes hash (replacement under a reused inode) means the bytes
 * at the path are new and were never classified: a new epoch at offset 0, never a skip. A long
 * line continues where its reader stopped, or starts over if the reader was lost. At most
 * `maxBytes` (normal) or `2 * maxBytes` (long line) bytes: ~2 MiB per link per check.
 */
export function planJsonlRead(marker: JsonlMarker, facts: JsonlFileFacts, options: PlanOptions = {}): JsonlReadPlan {
  const maxBytes = options.maxBytes ?? LIMITS.upstreamScanMaxBytes;
  let reset: JsonlReadPlan['reset'];
  if (marker.file !== undefined && marker.file !== facts.identity) reset = 'rotated';
  else if (facts.size < marker.offset) reset = 'truncated';
  else if (marker.head !== undefined && options.headBytes !== undefined) {
    const now = options.headBytes.subarray(0, marker.head.len);
    if (now.length < marker.head.len || headToken(now).hash !== marker.head.hash) reset = 'replaced';
  }
  if (reset) {
    return { from: 0, length: Math.max(0, Math.min(facts.size, maxBytes)), lineStart: 0, epoch: marker.epoch + 1, identity: facts.identity, reset };
  }
  if (marker.long && options.longReaderHeld) {
    const from = marker.offset + marker.long.scanned;
    return { from, length: Math.max(0, Math.min(facts.size - from, 2 * maxBytes)), lineStart: marker.offset, epoch: marker.epoch, identity: facts.identity, long: { scanned: marker.long.scanned } };
  }
  // A long line whose reader was lost (a restart) is read again from its start.
  const from = marker.offset;
  return { from, length: Math.max(0, Math.min(facts.size - from, maxBytes)), lineStart: from, epoch: marker.epoch, identity: facts.identity };
}

/** U6: one complete line of a chunk, by absolute offset. */
export interface JsonlLine {
  /** Absolute offset of the line's first byte. */
  offset: number;
  /** The line's bytes without its terminating newline. */
  bytes: Uint8Array;
}

/** U6: what scanJsonlChunk found in a chunk: its complete lines and where the next read starts. */
export interface JsonlChunkScan {
  /** Every complete line in the chunk, in order. */
  lines: JsonlLine[];
  /** Offset just after the last newline; `from` when the chunk holds no complete line. */
  nextOffset: number;
  /** Set when the chunk is full (maxBytes) and holds no newline: one line is over the limit. */
  blockedAt?: number;
}


/**
 * U6: complete lines only. Bytes after the last newline are a line still being written: they
 * stay unread (the cursor stops before them) and the next check reads them again, whole. A
 * newline byte never occurs inside a multi-byte UTF-8 sequence, so splitting on it is safe for
 * characters split across writes. A full chunk with no newline is a line longer than maxBytes:
 * the caller hands it to the long-line reader.
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
  for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) {
    lines.push({ offset: from + start, bytes: chunk.subarray(start, i) });
    start = i + 1;
  }
  return { lines, nextOffset: from + last + 1 };
}

/** `1 MiB`, `64 KiB`, `100 bytes`. */
export function formatBytes(n: number): string {
  if (n > 0 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n > 0 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

// The decoder type is the skeleton parser's, which decodes only the lines it keeps.
export type { Utf8Decode } from './skeleton.js';

/**
 * U6: a transcript format. A new local JSONL source (Gemini CLI, OpenCode, ...) is one dialect
 * and one `createJsonlTranscriptSource` call.
 */
export interface TranscriptDialect {
  readonly name: string;
  /** U10: classifies one parsed record of this format. */
  classify(entry: unknown, options: ClassifyOptions): LineClass;
  /** Whether a resumed conversation may continue in a new file of the same directory (U6). */
  readonly followsResume: boolean;
  /** U10: from the file's first record, what shows that a program drives the thread (undefined: a person may). */
  machineDriven?(firstRecord: unknown): string | undefined;
}

/** U6: the Claude Code transcript format (a resumed conversation may continue in a new file). */
export const claudeDialect: TranscriptDialect = { name: 'claude', classify: classifyClaudeEntry, followsResume: true };
/** U6: the Codex rollout format (no resume into a new file; exec and sub-agent threads are machine-driven, U10). */
export const codexDialect: TranscriptDialect = { name: 'codex', classify: classifyCodexEntry, followsResume: false, machineDriven: codexMachineDriver };

/**
 * The adapter's memory for long lines (U6): one reader per file identity. Lost on restart; the
 * marker then restarts the line (planJsonlRead), so nothing is skipped.
 */
export interface LongLineCache {
  /** The reader held for a file identity, if any. */
  get(identity: string): LongLineEntry | undefined;
  /** Holds the reader for a file identity. */
  set(identity: string, entry: LongLineEntry): void;
  /** Drops the reader for a file identity. */
  delete(identity: string): void;
}
/** U6: a long line being read on: where it starts (epoch, offset), how far it was scanned, and its parser. */
export interface LongLineEntry {
  epoch: number;
  offset: number;
  scanned: number;
  parser: SkeletonParser;
}

/** Whether the cache holds the reader the marker's long line needs. */
export function longReaderHeld(cache: LongLineCache | undefined, marker: JsonlMarker, identity: string): boolean {
  if (!marker.long || !cache) return false;
  const e = cache.get(identity);
  return e !== undefined && e.epoch === marker.epoch && e.offset === marker.offset && e.scanned === marker.long.scanned;
}

/** One classified line, for `upstream scan` and the monitor alike. */
export interface ClassifiedLine {
  offset: number;
  length: number;
  result: LineClass;
  uuid?: string;
}

/** U6: options of observeJsonlRead: the dialect, classifier options, read budget, long-line cache and a per-line callback. */
export interface ObserveOptions {
  dialect?: TranscriptDialect;
  classify?: ClassifyOptions;
  maxBytes?: number;
  /** The file's first min(size, 4096) bytes, for the next marker's head. */
  headBytes?: Uint8Array;
  longLines?: LongLineCache;
  skeletonLimits?: SkeletonLimits;
  /** Receives every classified line (the scan command). */
  onLine?: (line: ClassifiedLine) => void;
}

function entryUuid(entry: unknown): string | undefined {
  if (!isRecord(entry)) return undefined;
  const u = entry['uuid'];
  return typeof u === 'string' && u.length > 0 && u.length <= 128 ? u : undefined;
}

/** Classifies one complete line's text with a dialect, noting its uuid. */
export function classifyDialectLine(text: string, dialect: TranscriptDialect, options: ClassifyOptions): { result: LineClass; uuid?: string } {
  let uuid: string | undefined;
  const result = classifyLine(text, (entry) => {
    uuid = entryUuid(entry);
    return dialect.classify(entry, options);
  });
  return uuid === undefined ? { result } : { result, uuid };
}

function toTurn(c: LineClass): UpstreamTurn | undefined {
  if (!c.human) return undefined;
  const t: UpstreamTurn = { text: c.text };
  if (c.images > 0) t.images = c.images;
  if (c.occurredAt !== undefined) t.occurredAt = c.occurredAt;
  if (c.truncated) t.truncated = true;
  return t;
}

/**
 * U6: turns one read into an observation. `chunk` is what the adapter read at `plan.from`
 * (possibly shorter than planned if the file shrank meanwhile).
 */
export function observeJsonlRead(plan: JsonlReadPlan, chunk: Uint8Array, facts: JsonlFileFacts, decode: Utf8Decode, previous: JsonlMarker, options: ObserveOptions = {}): Observation {
  const maxBytes = options.maxBytes ?? LIMITS.upstreamScanMaxBytes;
  const dialect = options.dialect ?? claudeDialect;
  const classifyOptions: ClassifyOptions = { ...options.classify };
  const lineage = previous.lineage ?? [];
  const copiedFrom = options.classify?.copiedFrom;
  classifyOptions.copiedFrom = copiedFrom ? [...copiedFrom, ...lineage] : lineage;
  const turns: UpstreamTurn[] = [];
  let last = plan.reset ? undefined : previous.last;
  // U12: Continue judged the thread from its first record (U10); a file still empty then is
  // judged here, when that record arrives, and the verdict travels in the marker.
  let machine = plan.reset ? undefined : previous.machine;
  const judgeFirst = (offset: number, entry: () => unknown) => {
    if (offset !== 0 || dialect.machineDriven === undefined || machine !== undefined) return;
    let first: unknown;
    try {
      first = entry();
    } catch {
      return;
    }
    machine = dialect.machineDriven(first);
  };
  const take = (offset: number, length: number, result: LineClass, uuid?: string) => {
    const t = machine === undefined ? toTurn(result) : undefined;
    if (t) turns.push(t);
    if (uuid !== undefined) last = uuid;
    options.onLine?.(uuid === undefined ? { offset, length, result } : { offset, length, result, uuid });
  };

  let rest = chunk;
  let restFrom = plan.from;
  let long: { scanned: number } | undefined;
  const cache = options.longLines;

  if (plan.long) {
    // Continue the long line: feed its reader until the newline.
    const entry = cache?.get(plan.identity);
    const nl = chunk.indexOf(NEWLINE);
    if (entry === undefined) throw new Error('long-line reader missing (planJsonlRead was told it is held)');
    if (nl < 0) {
      // Still inside the line: nothing else is read (`long` skips the scan below).
      entry.parser.push(chunk);
      entry.scanned += chunk.length;
      long = { scanned: entry.scanned };
    } else {
      entry.parser.push(chunk.subarray(0, nl));
      cache!.delete(plan.identity);
      const done = entry.parser.end();
      const length = entry.scanned + nl;
      if (done.ok) judgeFirst(plan.lineStart, () => done.value);
      take(plan.lineStart, length, ...skeletonClass(done, dialect, classifyOptions));
      rest = chunk.subarray(nl + 1);
      restFrom = plan.from + nl + 1;
    }
  }

  let nextOffset = long ? plan.lineStart : restFrom;
  let blocked: string | undefined;
  if (!long) {
    const scan = scanJsonlChunk(rest, restFrom, rest === chunk ? maxBytes : Number.MAX_SAFE_INTEGER);
    for (const line of scan.lines) {
      if (line.bytes.length > maxBytes) {
        // A line over the limit that ends in this read (one that follows a long line finished
        // here): the same bounded reader, so its strings are cut as for every long line.
        const parser = new SkeletonParser(decode, options.skeletonLimits);
        parser.push(line.bytes);
        const done = parser.end();
        if (done.ok) judgeFirst(line.offset, () => done.value);
        take(line.offset, line.bytes.length, ...skeletonClass(done, dialect, classifyOptions));
        continue;
      }
      const text = decode(line.bytes);
      judgeFirst(line.offset, () => JSON.parse(text));
      const { result, uuid } = classifyDialectLine(text, dialect, classifyOptions);
      take(line.offset, line.bytes.length, result, uuid);
    }
    nextOffset = scan.nextOffset;
    if (scan.blockedAt !== undefined && cache) {
      // A full read without a newline: a line over the limit starts here. Read it across checks.
      const parser = new SkeletonParser(decode, options.skeletonLimits);
      parser.push(rest);
      cache.set(plan.identity, { epoch: plan.epoch, offset: scan.blockedAt, scanned: rest.length, parser });
      long = { scanned: rest.length };
      nextOffset = scan.blockedAt;
    } else if (scan.blockedAt !== undefined) {
      // No reader to hand it to (a caller without a cache): the v1 behaviour, never a skip.
      blocked = `blocked: line exceeds ${formatBytes(maxBytes)} at offset ${scan.blockedAt}`;
    }
  }

  const next: JsonlMarker = { offset: nextOffset, epoch: plan.epoch, file: plan.identity };
  if (options.headBytes !== undefined && options.headBytes.length > 0) next.head = headToken(options.headBytes);
  else if (!plan.reset && previous.head) next.head = previous.head;
  if (long) next.long = long;
  if (previous.path !== undefined) next.path = previous.path;
  if (lineage.length > 0) next.lineage = lineage;
  if (last !== undefined) next.last = last;
  if (machine !== undefined) next.machine = machine;
  const obs: Observation = { status: 'found', turns, nextMarker: jsonlMarkerJson(next), position: `${plan.epoch}.${nextOffset}` };
  if (facts.mtimeMs !== undefined) obs.sourceTime = facts.mtimeMs;
  if (blocked !== undefined) obs.blocked = blocked;
  else if (long) obs.note = `reading a line longer than ${formatBytes(maxBytes)} at offset ${nextOffset}: ${long.scanned} bytes so far`;
  else if (plan.reset) obs.note = `file ${plan.reset}; reading from offset 0 (epoch ${plan.epoch})`;
  return obs;
}

/** A finished long line: its skeleton classified like a whole record (a cut text is marked). */
function skeletonClass(done: { ok: boolean; value?: unknown; truncated: boolean }, dialect: TranscriptDialect, options: ClassifyOptions): [LineClass, string | undefined] {
  if (!done.ok) return [notHuman('not-json', 'long line'), undefined];
  const result = dialect.classify(done.value, options);
  if (result.human && done.truncated) result.truncated = true;
  return [result, entryUuid(done.value)];
}

/**
 * U6 resume: does a candidate file continue this conversation? Its first records copy the
 * conversation's history (records carrying our session id) or name our last record as parent.
 */
export function continuesConversation(candidateHead: Uint8Array, decode: Utf8Decode, sessionId: string, lastUuid: string | undefined): boolean {
  const end = candidateHead.lastIndexOf(NEWLINE);
  if (end < 0) return false;
  for (const text of decode(candidateHead.subarray(0, end)).split('\n')) {
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      continue;
    }
    // A sub-agent's file carries the parent's session id too (older layouts keep it in the same
    // directory): it is not a continuation.
    if (!isRecord(entry) || entry['isSidechain'] === true) continue;
    if (entry['sessionId'] === sessionId) return true;
    if (lastUuid !== undefined && (entry['parentUuid'] === lastUuid || entry['leafUuid'] === lastUuid)) return true;
  }
  return false;
}

/** U6 resume: the marker that follows a conversation into `path` (a new epoch at offset 0). */
export function followMarker(previous: JsonlMarker, path: string, identity: string, ownSessionId: string): JsonObject {
  const lineage = [...(previous.lineage ?? []), ownSessionId].slice(-MAX_LINEAGE);
  const next: JsonlMarker = { offset: 0, epoch: previous.epoch + 1, file: identity, path, lineage };
  if (previous.last !== undefined) next.last = previous.last;
  return jsonlMarkerJson(next);
}
