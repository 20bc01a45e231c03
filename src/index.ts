/**
 * session-state-kit: spec, pure core and the in-memory reference store. Storage adapters and the
 * conformance suite live behind their own subpaths (`session-state-kit/sqlite`, `/conformance`).
 *
 * @module session-state-kit
 */
export * from '../spec/index.js';
export * from './core/index.js';
export * from './memory/index.js';
export * from './shared/logger.js';
