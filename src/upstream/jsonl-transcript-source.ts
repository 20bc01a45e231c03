import { constants } from 'node:fs';
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LIMITS } from '../../spec/index.js';
import {
  HEAD_BYTES,
  claudeDialect,
  continuesConversation,
  followMarker,
  jsonlBaseline,
  longReaderHeld,
  observeJsonlRead,
  parseJsonlMarker,
  SkeletonParser,
  planJsonlRead,
  type JsonlFileFacts,
  type LongLineCache,
  type LongLineEntry,
  type NotPersonMarker,
  type Observation,
  type TranscriptDialect,
} from '../core/upstream/index.js';
import type { SourceTarget, UpstreamSource } from './types.js';

export interface JsonlTranscriptSourceOptions {
  /** Link kind this adapter serves. */
  kind: string;
  /** How records classify (U6): `claudeDialect`, `codexDialect`, or a third one. */
  dialect: TranscriptDialect;
  /** U6: bytes read per check; LIMITS.upstreamScanMaxBytes (1 MiB). A long line reads twice that. */
  scanMaxBytes?: number;
  /** U6: runtime-injected text forms that are not a person (default DEFAULT_NOT_PERSON_MARKERS). */
  notPersonMarkers?: readonly NotPersonMarker[];
  /** U6 resume: candidate successor files looked at per idle check (newest first). Default 8; 0 turns following off. */
  followCandidates?: number;
}

/** U6: `ref.filePath` is the transcript's absolute path. */
export function transcriptPath(target: SourceTarget): string {
  const p = target.ref['filePath'];
  if (typeof p !== 'string' || p.length === 0) throw new Error('ref.filePath must be a non-empty string');
  return p;
}

/** U6: absence is definitive only for these; every other error is inconclusive. */
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);
const codeOf = (error: unknown): string | undefined => (error as { code?: unknown } | null)?.code as string | undefined;

// O_NONBLOCK: opening a FIFO that replaced the transcript must not hang the monitor.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const decoder = new TextDecoder('utf-8');
export const utf8Decode = (bytes: Uint8Array): string => decoder.decode(bytes);
/** Bytes of a candidate successor's start that are searched for our session (U6 resume). */
const SUCCESSOR_HEAD = 64 * 1024;
/** Long-line readers held at once (each is bounded by the skeleton limits, ~256 KiB). */
const MAX_LONG_READERS = 64;
/** Directory entries stat'ed per successor search. */
const MAX_DIR_ENTRIES = 512;

async function factsOf(handle: FileHandle): Promise<JsonlFileFacts | 'not-a-file'> {
  const st = await handle.stat({ bigint: true });
  if (!st.isFile()) return 'not-a-file';
  return { size: Number(st.size), identity: `${st.dev}:${st.ino}`, mtimeMs: Number(st.mtimeMs) };
}

async function readAt(handle: FileHandle, from: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
  const buffer = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, got, length - got, from + got);
    if (bytesRead === 0) break; // the file shrank after fstat; read what is there
    got += bytesRead;
  }
  return buffer.subarray(0, got);
}

/** U10: bytes read for a file's first record; a longer first line leaves the thread undecided. */
const FIRST_RECORD_MAX = 8 * 1024 * 1024;

/** A file's first record, through the bounded long-line reader (a Codex session_meta carries the model instructions). */
async function firstRecord(handle: FileHandle, size: number, step: number, signal?: AbortSignal): Promise<unknown> {
  const parser = new SkeletonParser(utf8Decode);
  for (let at = 0; at < Math.min(size, FIRST_RECORD_MAX); at += step) {
    const chunk = await readAt(handle, at, Math.min(step, size - at), signal);
    const nl = chunk.indexOf(0x0a);
    parser.push(nl < 0 ? chunk : chunk.subarray(0, nl));
    if (nl >= 0) {
      const done = parser.end();
      return done.ok ? done.value : undefined;
    }
    if (chunk.length === 0) break;
  }
  return undefined;
}

/** The session id a Claude Code transcript file is named after (`<sessionId>.jsonl`). */
const sessionIdOf = (path: string): string => basename(path).replace(/\.jsonl$/u, '');

/**
 * U6: a local JSONL transcript source. Each check opens the file, takes its facts from the open
 * descriptor (so identity and bytes belong to one file), reads the head (content identity) and at
 * most scanMaxBytes from the cursor (twice that while a long line is read), and hands the bytes
 * to the core. Bytes are never skipped: the core moves the cursor only past lines it classified.
 */
export function createJsonlTranscriptSource(options: JsonlTranscriptSourceOptions): UpstreamSource {
  const { kind, dialect } = options;
  const maxBytes = options.scanMaxBytes ?? LIMITS.upstreamScanMaxBytes;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError('scanMaxBytes must be a positive integer');
  const followCandidates = options.followCandidates ?? 8;
  const classify = options.notPersonMarkers ? { notPersonMarkers: options.notPersonMarkers } : {};
  const longLines = new Map<string, LongLineEntry>();
  const cache: LongLineCache = {
    get: (k) => longLines.get(k),
    set: (k, v) => {
      longLines.set(k, v);
      // Bounded: a reader whose link went away is dropped first (a kept marker restarts its line).
      while (longLines.size > MAX_LONG_READERS) longLines.delete(longLines.keys().next().value!);
    },
    delete: (k) => void longLines.delete(k),
  };

  async function withFile<T>(path: string, onMissing: (detail: string) => T, body: (handle: FileHandle, f: JsonlFileFacts) => Promise<T>): Promise<T> {
    let handle: FileHandle;
    try {
      // stat first: a path that is no longer a regular file is missing without opening it.
      if (!(await stat(path)).isFile()) return onMissing('not a regular file');
      handle = await open(path, OPEN_FLAGS);
    } catch (error) {
      const code = codeOf(error);
      if (code !== undefined && MISSING_CODES.has(code)) return onMissing(code);
      throw error;
    }
    try {
      const f = await factsOf(handle);
      if (f === 'not-a-file') return onMissing('not a regular file');
      return await body(handle, f);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** U6 resume: a newer file in the same directory that continues this conversation. */
  async function findSuccessor(path: string, facts: JsonlFileFacts, last: string | undefined, signal?: AbortSignal): Promise<{ path: string; identity: string } | undefined> {
    const dir = dirname(path);
    const own = basename(path);
    // `agent-*.jsonl`: sub-agent transcripts (they carry the parent's session id), never a continuation.
    const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl') && n !== own && !n.startsWith('agent-')).slice(0, MAX_DIR_ENTRIES);
    const fresh: { path: string; mtime: number }[] = [];
    for (const name of names) {
      signal?.throwIfAborted();
      const st = await stat(join(dir, name)).catch(() => undefined);
      if (st?.isFile() && st.mtimeMs >= (facts.mtimeMs ?? 0)) fresh.push({ path: join(dir, name), mtime: st.mtimeMs });
    }
    fresh.sort((a, b) => b.mtime - a.mtime);
    for (const c of fresh.slice(0, followCandidates)) {
      const hit = await withFile(c.path, () => undefined, async (handle, f) => {
        const head = await readAt(handle, 0, Math.min(f.size, SUCCESSOR_HEAD), signal);
        return continuesConversation(head, utf8Decode, sessionIdOf(path), last) ? { path: c.path, identity: f.identity } : undefined;
      }).catch(() => undefined);
      if (hit) return hit;
    }
    return undefined;
  }

  return {
    kind,
    async baseline(target) {
      return withFile(
        transcriptPath(target),
        (detail) => {
          throw new Error(`upstream transcript not found (${detail})`);
        },
        async (handle, f) => {
          const tail = Math.min(f.size, maxBytes);
          return jsonlBaseline(f, await readAt(handle, 0, Math.min(f.size, HEAD_BYTES)), await readAt(handle, f.size - tail, tail));
        },
      );
    },
    ...(dialect.machineDriven
      ? {
          async machineDriven(target: SourceTarget, signal?: AbortSignal): Promise<string | undefined> {
            const first = await withFile(transcriptPath(target), () => undefined, async (handle, f) => firstRecord(handle, f.size, maxBytes, signal));
            return first === undefined ? undefined : dialect.machineDriven!(first);
          },
        }
      : {}),
    async check(target, signal): Promise<Observation> {
      const marker = parseJsonlMarker(target.marker);
      if (!marker) return { status: 'inconclusive', detail: 'stored marker is not a JSONL byte cursor' };
      const path = marker.path ?? transcriptPath(target);
      return withFile<Observation>(
        path,
        (detail) => ({ status: 'missing', detail }),
        async (handle, f) => {
          const headBytes = await readAt(handle, 0, Math.min(f.size, HEAD_BYTES), signal);
          const plan = planJsonlRead(marker, f, { maxBytes, headBytes, longReaderHeld: longReaderHeld(cache, marker, f.identity) });
          if (!plan.long) cache.delete(f.identity); // a stale reader of this file is never resumed
          const chunk = await readAt(handle, plan.from, plan.length, signal);
          const obs = observeJsonlRead(plan, chunk, f, utf8Decode, marker, { dialect, classify, maxBytes, headBytes, longLines: cache });
          // U6 resume: an idle file may have been continued in a new one; follow it.
          const idle = obs.status === 'found' && obs.turns.length === 0 && !plan.reset && !plan.long && plan.length === 0;
          if (idle && dialect.followsResume && followCandidates > 0) {
            const next = await findSuccessor(path, f, marker.last, signal);
            if (next) {
              return {
                status: 'found',
                turns: [],
                nextMarker: followMarker(marker, next.path, next.identity, sessionIdOf(path)),
                position: `${marker.epoch + 1}.0`,
                note: `conversation resumed in ${basename(next.path)}; following it`,
              };
            }
          }
          return obs;
        },
      );
    },
  };
}
