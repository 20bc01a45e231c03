/**
 * BROKEN (R44, via R27): a drain acks to the frozen watermark correctly but keeps the cursor's old
 * `updatedAt`, so a watcher that reads its notices still has its watch expire as if it were idle.
 */
import type { CreateOptions, WatchCursor } from '../../spec/index.js';
import { acknowledge } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R44', what: 'a drain (ack) does not refresh updatedAt (R27/R44)' };

class AckNoRefresh extends VariantStore {
  protected override ack(c: WatchCursor, now: number): WatchCursor {
    return { ...acknowledge(c, now).cursor, updatedAt: c.updatedAt };
  }
}

export const create = (options: CreateOptions) => new AckNoRefresh(options);
