/**
 * Store errors — the one error type every refused team-state write throws.
 *
 * Owns: `StoreError` with a stable `code` and a message that says why the write was refused and
 * what the user can do. Deliberately narrow: no logging, no UI text beyond the message.
 * Composes: `service.ts` throws these from `update()`; tools and routes of later issues turn
 * `code` into answers (a refusal the model reads) or HTTP statuses.
 */

export type StoreErrorCode =
  /** Ownership of bot/state.lock was lost after it was acquired; nothing was written. */
  | 'ELOCKLOST'
  /** The team is open read-only (unreadable file, newer version, failed backup copy, …). */
  | 'EREADONLY'
  /** Another process is the writer; this one follows the file. */
  | 'EFOLLOWER'
  /** The transaction produced a state that fails the schema; nothing was written. */
  | 'EINVALID'

export class StoreError extends Error {
  override name = 'StoreError'
  readonly code: StoreErrorCode

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code)
}
