import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../spec/index.js';
import { createNoticeFeed, startDelivery, type NoticeFeed } from '../../src/feed/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

/**
 * Bad arguments to the feed and the delivery helper: a typed error whose message names what is
 * wrong, thrown before anything starts (no timer, no subscription). Each case differs from a good
 * call in one argument only, so a check that accepts it, or blames another, fails here.
 */
const store = () => createMemoryStore({ now: () => 1_767_225_600_000 });
const feedOf = (s = store()): NoticeFeed => createNoticeFeed(s, { logger: memoryLogger(), watchFiles: false });
const deliver = () => true;

describe('startDelivery refuses what it cannot work with', () => {
  it('a store without pendingNotices or ackNotices, or none', () => {
    const good = store();
    const feed = feedOf(good);
    const message = 'startDelivery: store must have pendingNotices and ackNotices';
    expect(() => startDelivery({ store: undefined as never, feed, deliver })).toThrow(new TypeError(message));
    expect(() => startDelivery({ store: { ackNotices: good.ackNotices.bind(good) } as never, feed, deliver })).toThrow(new TypeError(message));
    expect(() => startDelivery({ store: { pendingNotices: good.pendingNotices.bind(good) } as never, feed, deliver })).toThrow(new TypeError(message));
    startDelivery({ store: { pendingNotices: good.pendingNotices.bind(good), ackNotices: good.ackNotices.bind(good) }, feed, deliver }).close();
    feed.close();
  });

  it('a feed that is not one, and a deliver that is not a function', () => {
    const s = store();
    const feed = feedOf(s);
    expect(() => startDelivery({ store: s, feed: undefined as never, deliver })).toThrow(new TypeError('startDelivery: feed must be a NoticeFeed'));
    expect(() => startDelivery({ store: s, feed: {} as never, deliver })).toThrow(new TypeError('startDelivery: feed must be a NoticeFeed'));
    expect(() => startDelivery({ store: s, feed, deliver: 'yes' as never })).toThrow(new TypeError('startDelivery: deliver must be a function'));
    feed.close();
  });

  it(`retryMs a positive safe integer; pageSize from 1 to ${LIMITS.maxNoticesPerAck}, both ends included`, () => {
    const s = store();
    const feed = feedOf(s);
    for (const retryMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => startDelivery({ store: s, feed, deliver, retryMs })).toThrow(new RangeError(`retryMs must be a positive safe integer, got ${String(retryMs)}`));
    }
    for (const pageSize of [0, LIMITS.maxNoticesPerAck + 1, 2.5, Number.NaN]) {
      expect(() => startDelivery({ store: s, feed, deliver, pageSize })).toThrow(new RangeError(`pageSize must be an integer from 1 to ${LIMITS.maxNoticesPerAck}, got ${String(pageSize)}`));
    }
    for (const pageSize of [1, LIMITS.maxNoticesPerAck]) startDelivery({ store: s, feed, deliver, pageSize }).close();
    startDelivery({ store: s, feed, deliver, retryMs: 1 }).close();
    feed.close();
  });
});

describe('createNoticeFeed refuses what it cannot work with', () => {
  it('a poll interval outside 1..3,600,000 ms or not an integer; both ends accepted', () => {
    const s = store();
    for (const pollIntervalMs of [0, 3_600_001, 1.5, Number.NaN]) {
      expect(() => createNoticeFeed(s, { pollIntervalMs, watchFiles: false })).toThrow(new RangeError(`pollIntervalMs must be an integer from 1 to 3600000, got ${String(pollIntervalMs)}`));
    }
    for (const pollIntervalMs of [1, 3_600_000]) createNoticeFeed(s, { pollIntervalMs, watchFiles: false }).close();
  });

  it('a source without a read or without onLocalChange, and a file watcher that is neither a function nor false', () => {
    const s = store();
    const message = 'createNoticeFeed: source must implement PendingSource (readPending or listPending, and onLocalChange)';
    const onLocalChange = s.onLocalChange.bind(s);
    expect(() => createNoticeFeed(undefined as never)).toThrow(new TypeError(message));
    expect(() => createNoticeFeed({ onLocalChange } as never)).toThrow(new TypeError(message));
    expect(() => createNoticeFeed({ readPending: s.readPending.bind(s) } as never)).toThrow(new TypeError(message));
    // Either read will do.
    createNoticeFeed({ readPending: s.readPending.bind(s), onLocalChange }, { watchFiles: false }).close();
    createNoticeFeed({ listPending: s.listPending.bind(s), onLocalChange }, { watchFiles: false }).close();
    expect(() => createNoticeFeed(s, { watchFiles: true as never })).toThrow(new TypeError('createNoticeFeed: watchFiles must be a function or false'));
  });
});
