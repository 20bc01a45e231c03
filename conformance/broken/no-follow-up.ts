/**
 * BROKEN (R28): drain acks to the frozen watermark correctly but leaves N there too, so the pair
 * looks settled although material work arrived after the notice: it waits silently until some
 * later change.
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R28', what: 'never reopens the pair for interleaved work (no follow-up notice)' };

class NoFollowUp extends VariantStore {
  protected override ack(c: WatchCursor, now: number): WatchCursor {
    return { ...c, lastSeenSequence: c.notifiedSequence, updatedAt: now };
  }
}

export const create = (options: CreateOptions) => new NoFollowUp(options);
