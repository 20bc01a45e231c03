/**
 * BROKEN (R6): clamps `occurredAt` against the clock reading as read, not floored, and its integer
 * column then refuses the fractional result, so the event is dropped: `record` answers undefined
 * (as for a storage failure) and writes nothing. This happens whenever the clock reads a fraction
 * of a millisecond and the event's time is absent, in the future or more than a day old: time
 * values R6 allows. One production system dropped events on fractional times this way.
 */
import type { CreateOptions, StateEvent } from '../../spec/index.js';
import { LIMITS } from '../../spec/index.js';
import { prepareRecord } from '../../src/core/index.js';
import { MemoryStore } from '../../src/memory/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R6', what: 'clamps occurredAt to the unfloored clock, so on a fractional reading the event is dropped' };

class FractionalClockDrops extends VariantStore {
  override record(input: Parameters<MemoryStore['record']>[0]): StateEvent | undefined {
    const raw = this.internals.options.now();
    const now = this.clock(); // R6: a refused reading is still a ClockError
    const { event } = prepareRecord(input, now); // bad input is still a ValidationError
    const given = (input as { occurredAt?: unknown }).occurredAt;
    const clamped = typeof given === 'number' ? Math.min(raw, Math.max(raw - LIMITS.occurredAtSkewMs, given)) : raw;
    if (!Number.isInteger(clamped) && (event.dedupeKey === undefined || !this.state.dedupe.has(event.dedupeKey))) return undefined;
    return super.record(input);
  }
}

export const create = (options: CreateOptions) => new FractionalClockDrops(options);
