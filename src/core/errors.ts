/**
 * Errors as text — the one way the plugin turns a caught value into words: an `Error`'s message,
 * anything else (a thrown string, an object) through `String`. No stack: the diagnostics log keeps
 * stacks (`botDiagnostics`), terminal lines, refusals and recorded outcomes do not.
 */

/** The message of a caught value (pure). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
