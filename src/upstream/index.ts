/**
 * session-state-kit upstream monitoring (PROTOCOL.md section 9): the monitor driver, its link
 * storage seam and the source adapters. The rules live in src/core/upstream.
 *
 * @module session-state-kit/upstream
 */
export * from './types.js';
export * from './memory-link-store.js';
export * from './own-texts.js';
export * from './jsonl-transcript-source.js';
export * from './claude-jsonl-source.js';
export * from './codex-rollout-source.js';
export * from './remote-history-source.js';
export * from './monitor.js';
export * from '../core/upstream/index.js';
export * from './sqlite-link-store.js';
export type { AbortSignalLike, KitAbortSignal } from '../shared/abort.js';
