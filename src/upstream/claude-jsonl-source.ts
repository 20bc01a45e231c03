import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { LIMITS } from '../../spec/index.js';
import {
  jsonlBaseline,
  observeJsonlRead,
  parseJsonlMarker,
  planJsonlRead,
  type JsonlFileFacts,
  type Observation,
} from '../core/upstream/index.js';
import type { SourceTarget, UpstreamSource } from './types.js';

export interface ClaudeJsonlSourceOptions {
  /** Link kind this adapter serves; default `claude-jsonl`. */
  kind?: string;
  /** U6: bytes read per check; LIMITS.upstreamScanMaxBytes (1 MiB). Tests lower it. */
  scanMaxBytes?: number;
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
const decode = (bytes: Uint8Array): string => decoder.decode(bytes);

async function facts(handle: FileHandle): Promise<JsonlFileFacts | 'not-a-file'> {
  const st = await handle.stat({ bigint: true });
  if (!st.isFile()) return 'not-a-file';
  return { size: Number(st.size), identity: `${st.dev}:${st.ino}`, mtimeMs: Number(st.mtimeMs) };
}

/**
 * U6: local Claude Code JSONL transcripts. Each check opens the file, takes its facts from the
 * open descriptor (so identity and bytes belong to one file), reads at most scanMaxBytes from the
 * cursor, and hands the bytes to the core. Bytes are never skipped: the core moves the cursor
 * only past complete lines it classified.
 */
export function createClaudeJsonlSource(options: ClaudeJsonlSourceOptions = {}): UpstreamSource {
  const kind = options.kind ?? 'claude-jsonl';
  const maxBytes = options.scanMaxBytes ?? LIMITS.upstreamScanMaxBytes;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError('scanMaxBytes must be a positive integer');

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
      const f = await facts(handle);
      if (f === 'not-a-file') return onMissing('not a regular file');
      return await body(handle, f);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  return {
    kind,
    async baseline(target) {
      return withFile(
        transcriptPath(target),
        (detail) => {
          throw new Error(`upstream transcript not found (${detail})`);
        },
        async (_handle, f) => jsonlBaseline(f),
      );
    },
    async check(target, signal): Promise<Observation> {
      const marker = parseJsonlMarker(target.marker);
      if (!marker) return { status: 'inconclusive', detail: 'stored marker is not a JSONL byte cursor' };
      return withFile<Observation>(
        transcriptPath(target),
        (detail) => ({ status: 'missing', detail }),
        async (handle, f) => {
          const plan = planJsonlRead(marker, f, maxBytes);
          const buffer = Buffer.alloc(plan.length);
          let got = 0;
          while (got < plan.length) {
            signal?.throwIfAborted();
            const { bytesRead } = await handle.read(buffer, got, plan.length - got, plan.from + got);
            if (bytesRead === 0) break; // the file shrank after fstat; read what is there
            got += bytesRead;
          }
          return observeJsonlRead(plan, buffer.subarray(0, got), f, decode, maxBytes);
        },
      );
    },
  };
}
