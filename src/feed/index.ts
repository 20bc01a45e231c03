/**
 * session-state-kit/feed: notices across processes (R60-R72). A change feed over any
 * store that implements `PendingSource`, and a delivery helper that wires store, feed and the
 * wake policy (src/core/wake) to a runtime's callbacks.
 *
 * @module session-state-kit/feed
 */
export type { FeedPosition, PairChange, PendingPair, PendingRead, PendingReadRequest, PendingSource, PendingWatchersPageRequest, StorePendingSource, WakeInterest, WakeNews } from './types.js';
export { createNoticeFeed, DEFAULT_NEWS_CONFIRM_MS, DEFAULT_POLL_INTERVAL_MS } from './feed.js';
export type { FileWatcher, NoticeFeed, NoticeFeedOptions, NoticeSignal } from './types.js';
export type { AbortSignalLike, KitAbortSignal } from '../shared/abort.js';
export { startDelivery, type Delivery, type DeliveryOptions, type DeliveryStore } from './delivery.js';
export {
  WAKE_COALESCE_MS,
  WakeScheduler,
  defaultLaneOf,
  isWakeable,
  mainKeyLaneClassifier,
  type Lane,
  type LaneClassifier,
  type WakeDecision,
  type WakePolicyOptions,
} from '../core/wake.js';
