/**
 * BROKEN (R28): drain acks to the frozen watermark correctly but never enqueues the follow-up, so
 * interleaved work waits silently until some later change.
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { acknowledge } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R28', what: 'never enqueues the follow-up notice for interleaved work' };

class NoFollowUp extends VariantStore {
  protected override ack(c: WatchCursor, now: number) {
    return { cursor: acknowledge(c, now).cursor };
  }
}

export const create = (options: CreateOptions) => new NoFollowUp(options);
