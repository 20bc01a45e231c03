/**
 * BROKEN (R9): bad payload fields are reported as `payload` instead of the dotted path of the
 * offending field (`payload.outcome`, `payload.text`).
 */
import type { CreateOptions, RecordInput } from '../../spec/index.js';
import { ValidationError, isValidationError } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R9', what: 'ValidationError names the parent field, not the offending one' };

class VagueValidationField extends VariantStore {
  override record(input: RecordInput) {
    try {
      return super.record(input);
    } catch (error) {
      if (isValidationError(error) && error.field.startsWith('payload.')) throw new ValidationError('payload', error.code, error.message);
      throw error;
    }
  }
}

export const create = (options: CreateOptions) => new VagueValidationField(options);
