/**
 * Warnings nobody can be told of (a background task, a listener): one line on DSH's terminal, with
 * every control, format or bidi character escaped; the same text through Cordis's logger; and a line
 * with the stack in the diagnostics log once it is up. Every sink gets the text masked (an error may
 * quote git's output: a commit subject, a path). Deliberately never throws.
 */
import type { Context } from '@deepseek-ai/cordis'
import { errorText } from '../core/errors.ts'
import { terminalText } from '../core/names.ts'

const NAME = 'dsh-bot-team'

/** One line on DSH's terminal (stderr), as is: neither logged nor kept (a pairing code). */
export function terminal(line: string): void {
  process.stderr.write(`${terminalText(line)}\n`)
}

/**
 * Warn about `what` (a short sentence), with the `error` that caused it if there is one. `kind`
 * names the diagnostics line (`delivery`, `rooms`, …).
 */
export function warn(ctx: Context, what: string, error?: unknown, kind = 'warn'): void {
  const text = masked(ctx, error === undefined ? what : `${what} (${errorText(error)})`)
  terminal(`${NAME}: ${text}`)
  ctx.logger(NAME).warn(text)
  ctx.get('botDiagnostics')?.note({ kind, level: 'warn', message: what, ...(error === undefined ? {} : { error }) })
}

/** `text` through the secrets service's masker when one is mounted (the diagnostics log masks its own line); never unmasked. */
function masked(ctx: Context, text: string): string {
  try {
    const secrets = ctx.get('botSecrets')
    return typeof secrets?.mask === 'function' ? secrets.mask(text) : text
  } catch {
    return 'a warning whose text could not be masked (see the diagnostics log)'
  }
}
