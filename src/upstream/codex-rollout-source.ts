import { codexDialect, type NotPersonMarker } from '../core/upstream/index.js';
import { createJsonlTranscriptSource } from './jsonl-transcript-source.js';
import type { UpstreamSource } from './types.js';

/** U6: options of createCodexRolloutSource. */
export interface CodexRolloutSourceOptions {
  /** Link kind this adapter serves; default `codex-rollout`. */
  kind?: string;
  /** U6: bytes read per check (1 MiB). */
  scanMaxBytes?: number;
  notPersonMarkers?: readonly NotPersonMarker[];
}

/**
 * U6: local Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, `ref.filePath`),
 * the same byte cursor and missing/echo rules as Claude Code, classified by codexDialect.
 */
export function createCodexRolloutSource(options: CodexRolloutSourceOptions = {}): UpstreamSource {
  return createJsonlTranscriptSource({ ...options, kind: options.kind ?? 'codex-rollout', dialect: codexDialect, followCandidates: 0 });
}
