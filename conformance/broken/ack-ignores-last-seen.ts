/**
 * BROKEN (R27b): ackNotices acks every named pair that is pending, whatever L the caller's notice
 * quoted, so a late ack of an old notice swallows the follow-up the caller never saw.
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { isPending } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R27b', what: 'ackNotices acks a pair whose L moved on since the notice was delivered' };

class AckIgnoresLastSeen extends VariantStore {
  protected override ackable(cursor: WatchCursor | undefined): cursor is WatchCursor {
    return cursor !== undefined && isPending(cursor);
  }
}

export const create = (options: CreateOptions) => new AckIgnoresLastSeen(options);
