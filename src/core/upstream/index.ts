/**
 * Upstream monitoring of adopted catalog sessions (PROTOCOL.md section 9, U1-U9), the pure
 * half: links, the check state machine, self-echo, and the byte/history classification of the
 * sources. Adapters and the driver live in src/upstream.
 */
export * from './hash.js';
export * from './echo.js';
export * from './link.js';
export * from './check.js';
export * from './jsonl.js';
export * from './classify.js';
export * from './codex.js';
export * from './skeleton.js';
export * from './remote.js';
export * from './config.js';
