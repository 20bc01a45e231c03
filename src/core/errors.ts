/**
 * R9: bad input is rejected with a typed error that names the field; nothing is written.
 * `field` is a dotted path into the input (e.g. `payload.outcome`, `watchers.3`).
 */
export type ValidationCode =
  | 'required'
  | 'type'
  | 'format'
  | 'range'
  | 'unknown-field'
  | 'not-allowed'
  | 'mismatch';

/** R9: bad input; `field` names the offending field (a dotted path) and `code` says what is wrong. Nothing was written. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly field: string,
    readonly code: ValidationCode,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** R9: true for a ValidationError, also one from another copy of the module (same name and a `field`). */
export function isValidationError(error: unknown): error is ValidationError {
  return error instanceof ValidationError || (error instanceof Error && error.name === 'ValidationError' && 'field' in error);
}
