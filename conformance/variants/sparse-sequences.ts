/**
 * A CORRECT implementation whose sequences are sparse: it starts at 1000 and every dedupe hit and
 * every `onlyIfWatched` skip consumes a sequence (as a database sequence does under a conflicting
 * insert, or SQLite AUTOINCREMENT under ON CONFLICT DO NOTHING). R7 asks only for one strictly
 * increasing, never reused counter, so it must pass the suite, vectors included: sequences are
 * compared up to an order-preserving renaming (W6, conformance/renumber.ts).
 *
 *   session-state-kit conformance --impl conformance/variants/sparse-sequences.ts
 */
import type { CreateOptions, SessionStateStore, StateEvent } from '../../spec/index.js';
import { MemoryStore, emptyMemoryState, type MemoryState, type MemoryStoreOptions } from '../../src/memory/index.js';

class SparseSequences extends MemoryStore {
  override openHandle(options?: MemoryStoreOptions): MemoryStore {
    return new SparseSequences(options ?? {}, this.state);
  }

  override record(input: Parameters<MemoryStore['record']>[0]): StateEvent | undefined {
    const before = this.state.nextSequence;
    const event = super.record(input);
    if (this.state.nextSequence === before) this.state.nextSequence++; // nothing inserted: a value is burnt anyway
    return event;
  }
}

function sparseState(): MemoryState {
  return { ...emptyMemoryState(), nextSequence: 1000 };
}

export const create = (options: CreateOptions): MemoryStore => new SparseSequences(options, sparseState());
export const openHandle = (first: SessionStateStore, options: CreateOptions): MemoryStore => (first as MemoryStore).openHandle(options);
