/**
 * Warnings — how the plugin says that something went wrong where no caller can be told (a
 * background task, a start-up step, a listener): one line `dsh-bot-team: <what> (<error>)` on
 * DSH's terminal, no stack trace; the same text through Cordis's logger
 * (`ctx.logger('dsh-bot-team').warn`); and, once `botDiagnostics` is up, a line in the plugin's
 * diagnostics log with the error's stack (scrubbed there).
 *
 * The terminal line is written to stderr directly as well: the `dsh` CLI registers no console
 * exporter for the Cordis logger (only its in-memory buffer), Cordis exports a `warn` only to an
 * exporter whose level is `LoggerLevel.WARN` (2) or more (the default is INFO, 1), and a line such
 * as a broken better-sqlite3 build is what a person needs to see to repair the install.
 *
 * Every control, format or bidi character of a line is written escaped (`terminalText`): a name
 * or an error text cannot move the terminal's cursor or turn a line around.
 *
 * Deliberately narrow: never throws (it runs in catch handlers), keeps nothing itself.
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
  const text = error === undefined ? what : `${what} (${errorText(error)})`
  terminal(`${NAME}: ${text}`)
  ctx.logger(NAME).warn(text)
  ctx.get('botDiagnostics')?.note({ kind, level: 'warn', message: what, ...(error === undefined ? {} : { error }) })
}
