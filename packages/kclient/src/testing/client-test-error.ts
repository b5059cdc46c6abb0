/**
 * A failed clienttest assertion or write: awaiting the helper rejects the test with it. Its
 * `cause` is the original error (e.g. an `InvalidError` with field causes).
 */
export class ClientTestError extends Error {
  /** Creates the error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClientTestError';
  }
}
