import type { VectorSpec } from './dsl.js';
import { LOG_VECTORS } from './log.js';
import { NOTICES_VECTORS } from './notices.js';
import { RECONCILIATION_VECTORS } from './reconciliation.js';
import { RETENTION_VECTORS } from './retention.js';
import { WATCHES_VECTORS } from './watches.js';
import { LIFECYCLE_VECTORS } from './lifecycle.js';

export type { VectorSpec } from './dsl.js';
export { HARDENING_VECTORS } from './hardening.js';
export { RANDOM_SEEDS, randomSpecs } from './random.js';

/** The hand-written vectors, rule family by rule family, in rule order. */
export const HAND_WRITTEN: VectorSpec[] = [...LOG_VECTORS, ...NOTICES_VECTORS, ...RECONCILIATION_VECTORS, ...RETENTION_VECTORS, ...WATCHES_VECTORS, ...LIFECYCLE_VECTORS];
