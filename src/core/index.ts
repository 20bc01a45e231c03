/**
 * session-state-kit/core: the pure protocol core. No I/O, no clock, no randomness, no storage:
 * every function takes what it needs (including `now`) and returns what to write.
 *
 * @module session-state-kit/core
 */
export * from './errors.js';
export * from './clock.js';
export * from './keys.js';
export * from './spawn.js';
export * from './pages.js';
export * from './notice.js';
// Named, not `*`: validate.ts also exports a probe of its fast path for tests, which is not API.
export {
  assertObjectInOrder,
  assertSchema,
  checkRecordInputInOrder,
  snapshotInput,
  validateChangesSinceRequest,
  validateIdentity,
  validateNoticeAcks,
  validateRecordFields,
  validateRecordInput,
  validateSessionKey,
  validateUnwatchRequest,
  validateVersion,
  validateWatchRequest,
} from './validate.js';
export * from './cursor.js';
export * from './record.js';
export * from './set-notifications.js';
export * from './changes-since.js';
export * from './prune.js';
export * from './feed-diff.js';
export * from './wake.js';
export * from './routing.js';
