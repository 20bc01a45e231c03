import { claudeDialect, type NotPersonMarker } from '../core/upstream/index.js';
import { createJsonlTranscriptSource } from './jsonl-transcript-source.js';
import type { UpstreamSource } from './types.js';

/** U6: options of createClaudeJsonlSource. */
export interface ClaudeJsonlSourceOptions {
  /** Link kind this adapter serves; default `claude-jsonl`. */
  kind?: string;
  /** U6: bytes read per check; LIMITS.upstreamScanMaxBytes (1 MiB). Tests lower it. */
  scanMaxBytes?: number;
  /** U6: runtime-injected text forms that are not a person (default DEFAULT_NOT_PERSON_MARKERS). */
  notPersonMarkers?: readonly NotPersonMarker[];
  /** U6 resume: successor files looked at per idle check (default 8; 0: do not follow). */
  followCandidates?: number;
}

/** U6: local Claude Code transcripts (`~/.claude/projects/<project>/<sessionId>.jsonl`). */
export function createClaudeJsonlSource(options: ClaudeJsonlSourceOptions = {}): UpstreamSource {
  return createJsonlTranscriptSource({ ...options, kind: options.kind ?? 'claude-jsonl', dialect: claudeDialect });
}
