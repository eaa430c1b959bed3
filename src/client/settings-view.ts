/**
 * The Team settings dialog's pure helpers: read `GET /bot-team/api/limits` defensively, build the
 * `PUT` body from the form (only what changed), which limits come first, and the team's daily
 * token cap as a `PUT /usage/settings` caps body.
 *
 * Deliberately narrow: no React, no I/O (tested without a browser); the bounds are the API's.
 */

export interface LimitsAnswer {
  limits: Record<string, number>
  config: Record<string, number>
  overrides: Record<string, number>
}

export interface PauseRecordView {
  at: string
  by?: string
  reason?: string
}

/** Check `GET /limits`'s shape (pure): every entry a number, or undefined. */
export function readLimits(value: unknown): LimitsAnswer | undefined {
  const numbers = (v: unknown): v is Record<string, number> => !!v && typeof v === 'object' && Object.values(v).every((n) => typeof n === 'number')
  const r = value as Partial<LimitsAnswer> | undefined
  return r && numbers(r.limits) && numbers(r.config) && numbers(r.overrides) ? (r as LimitsAnswer) : undefined
}

/** The PUT body from the form (pure): only changed fields; a number where the text is one, else the text (the API says why not). */
export function limitsPatch(form: Readonly<Record<string, string>>, inForce: Readonly<Record<string, number>>): Record<string, number | string> {
  const out: Record<string, number | string> = {}
  for (const [key, text] of Object.entries(form)) {
    const trimmed = text.trim()
    const value = /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed
    if (value !== inForce[key]) out[key] = value
  }
  return out
}

/** The limits shown first (the rest are under "Advanced"), in this order where the API lists them. */
export const COMMON_LIMITS: readonly string[] = ['workBudget', 'botTurnsAtOnce', 'maxBots']

/**
 * The caps to send when the team's daily token cap field changed (pure): the other caps kept as
 * they are, `team.tokens` set from the text or removed when it is empty; undefined when unchanged.
 * Text that is not a whole number goes as it is, so the API says why not.
 */
export function capPatch(caps: Readonly<Record<string, unknown>>, text: string): Record<string, unknown> | undefined {
  const team = { ...((caps.team as Record<string, unknown> | undefined) ?? {}) }
  const trimmed = text.trim()
  const before = team.tokens
  if (trimmed === '') delete team.tokens
  else team.tokens = /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed
  if (team.tokens === before) return undefined
  const next: Record<string, unknown> = { ...caps, team }
  if (Object.keys(team).length === 0) delete next.team
  return next
}
