/**
 * session-state-kit/spec: the single source of truth. TypeBox schemas (values and static types),
 * the limits, the kind table and the implementation contract. PROTOCOL.md states the rules.
 *
 * @module session-state-kit/spec
 */
export * from './schemas/limits.js';
export * from './schemas/primitives.js';
export * from './schemas/actors.js';
export * from './schemas/kinds.js';
export * from './schemas/event.js';
export * from './schemas/cursor.js';
export * from './schemas/notice.js';
export * from './schemas/changes-since.js';
export * from './schemas/wire.js';
export * from './schemas/vectors.js';
export * from './schemas/tools.js';
export type * from './schemas/contract.js';
export type * from './schemas/feed-source.js';
