/**
 * BROKEN (R27, R28): drain acks to the head (L := M) instead of the frozen watermark, so an event
 * that arrived between the notice and the drain is never announced.
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R28', what: 'acks to the head and loses the interleaved event' };

class AcksToHead extends VariantStore {
  protected override ack(c: WatchCursor, now: number): WatchCursor {
    return { ...c, lastSeenSequence: c.materialSequence, notifiedSequence: c.materialSequence, updatedAt: now };
  }
}

export const create = (options: CreateOptions) => new AcksToHead(options);
