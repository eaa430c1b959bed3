/**
 * A Bot Session's lines (pure): window, reply reserve, usable = max(window − reserve, window / 2),
 * the check line (`checkRatio` of usable) and the hard line (95 %), with the hysteresis that keeps a
 * part that just made room from acting again at once. Deliberately does not measure or decide.
 */

/** A window the model does not advertise is taken as this (DSH's own default for unknown models). */
export const DEFAULT_WINDOW = 128_000
export const DEFAULT_CHECK_RATIO = 0.8
export const HARD_RATIO = 0.95

export interface Lines {
  window: number
  reserve: number
  usable: number
  /** At or past it, a finished turn asks the steward. */
  check: number
  /** At or past it, a step does not start in this part: the Bot moves on at once. */
  hard: number
}

const positive = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined)

/** The lines for a model (pure). A missing or absurd input takes its default. */
export function linesFor(input: { window?: number | undefined; reserve?: number | undefined; checkRatio?: number | undefined }): Lines {
  const window = positive(input.window) ?? DEFAULT_WINDOW
  const reserve = Math.min(positive(input.reserve) ?? 0, window)
  const ratio = input.checkRatio !== undefined && input.checkRatio > 0 && input.checkRatio <= HARD_RATIO ? input.checkRatio : DEFAULT_CHECK_RATIO
  const usable = Math.max(window - reserve, Math.floor(window / 2))
  const hard = Math.floor(HARD_RATIO * usable)
  return { window, reserve, usable, check: Math.min(Math.floor(ratio * usable), hard), hard }
}

/** Tokens of a text, estimated as the benches and the scripted model do (chars / 4). */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4)

/** Most tokens of messages to the Bot kept word for word (a checkpoint, a handoff package). */
export const VERBATIM_MAX_TOKENS = 16_384

/** The verbatim budget for a check line: min(VERBATIM_MAX_TOKENS, check / 4) tokens. */
export function verbatimBudget(check: number): number {
  return Math.max(0, Math.min(VERBATIM_MAX_TOKENS, Math.floor(check / 4)))
}

export type Pressure = 'none' | 'check' | 'hard'

/**
 * How pressing a Session's size is (pure). `base` is the size the part last made room at (its
 * start, a checkpoint, a failed attempt): below the hard line a part acts again only once it grew
 * by a quarter of the check line past it, so a checkpoint that left the Session just above the
 * line does not run again on the next turn. Past the hard line any growth acts.
 */
export function pressure(tokens: number, lines: Lines, base = 0): Pressure {
  if (tokens >= lines.hard && tokens > base) return 'hard'
  if (tokens >= lines.check && tokens >= base + Math.floor(lines.check / 4)) return 'check'
  return 'none'
}
