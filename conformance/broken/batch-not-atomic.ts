/**
 * BROKEN (R9e): recordMany records input after input and stops at the first bad one, so the inputs
 * before it stay written. The error names the bad input correctly (`3.summary`); only the
 * all-or-nothing rule is broken, as a store that batches without a transaction would break it.
 */
import type { CreateOptions, RecordInput, StateEvent } from '../../spec/index.js';
import { ValidationError, isValidationError } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R9e', what: 'a batch with a bad input keeps the inputs recorded before it' };

class BatchNotAtomic extends VariantStore {
  override recordMany(inputs: readonly RecordInput[]): (StateEvent | undefined)[] {
    const out: (StateEvent | undefined)[] = [];
    for (const [i, input] of inputs.entries()) {
      try {
        out.push(this.record(input));
      } catch (error) {
        if (!isValidationError(error)) throw error;
        throw new ValidationError(error.field === '(input)' ? String(i) : `${i}.${error.field}`, error.code, error.message);
      }
    }
    return out;
  }
}

export const create = (options: CreateOptions) => new BatchNotAtomic(options);
