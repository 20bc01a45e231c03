/**
 * The feed's source contract, as `session-state-kit/feed` has always exported it; it is declared
 * once, beside the store contract (spec/schemas/feed-source.ts), so the stores implement it
 * without importing the feed.
 */
export type { FeedPosition, PairChange, PendingPair, PendingRead, PendingReadRequest, PendingSource, PendingWatchersPageRequest, StorePendingSource } from '../../spec/index.js';
