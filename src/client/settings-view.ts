/**
 * The Team settings dialog's pure helpers: read `GET /bot-team/api/limits` defensively, and build
 * the `PUT` body from the form (only what changed).
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
