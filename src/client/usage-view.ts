/**
 * The usage screen's pure parts: the shape check of a `/usage` answer, each row's label (a Bot or
 * group id becomes its name), and the bar segments (input uncached / cached / output as fractions of the
 * largest row), so the screen draws plain inline SVG with no chart dependency.
 *
 * Deliberately narrow: no React, no I/O; sums come from the ledger (`usage-routes.ts`), never
 * recomputed here.
 */
export const USAGE_BYS = ['day', 'bot', 'group', 'model', 'purpose'] as const
export type UsageBy = (typeof USAGE_BYS)[number]

export interface UsageRowView {
  key: string | null
  requests: number
  input: number
  cached: number
  output: number
  money?: number
  unpriced?: string[]
}

/** Most rows the screen draws (the newest days or largest keys first). */
export const USAGE_ROWS_MAX = 100

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)

/** The rows of a `/usage` answer, checked and bounded; days newest first, other keys largest first. */
export function readUsage(value: unknown, by: UsageBy): { rows: UsageRowView[]; currency?: string } {
  const v = value as { rows?: unknown; currency?: unknown } | undefined
  const raw = Array.isArray(v?.rows) ? v.rows : []
  const rows: UsageRowView[] = raw
    .filter((r): r is Record<string, unknown> => !!r && typeof r === 'object')
    .map((r) => ({
      key: typeof r.key === 'string' ? r.key : null,
      requests: num(r.requests),
      input: num(r.input),
      cached: num(r.cached),
      output: num(r.output),
      ...(typeof r.money === 'number' && Number.isFinite(r.money) ? { money: r.money } : {}),
      ...(Array.isArray(r.unpriced) ? { unpriced: r.unpriced.filter((x): x is string => typeof x === 'string').slice(0, 20) } : {}),
    }))
  const total = (r: UsageRowView) => r.input + r.cached + r.output
  rows.sort(by === 'day' ? (a, b) => String(b.key).localeCompare(String(a.key)) : (a, b) => total(b) - total(a))
  return { rows: rows.slice(0, USAGE_ROWS_MAX), ...(typeof v?.currency === 'string' ? { currency: v.currency.slice(0, 10) } : {}) }
}

/**
 * A row's label: a Bot's or group's name for its id (`nameOf`), `fallback` for a missing key (by
 * group: the work outside any group — the Bots' own chats and the plugin's side calls).
 */
export function usageLabel(by: UsageBy, key: string | null, nameOf: (id: string) => string | undefined, fallback: string): string {
  if (key === null || key === '') return fallback
  return by === 'bot' || by === 'group' ? (nameOf(key) ?? key) : key
}

/** A row's three bar segments as fractions of the largest row's total (0..1 each, summing ≤ 1). */
export function barSegments(row: UsageRowView, largest: number): { input: number; cached: number; output: number } {
  if (!(largest > 0)) return { input: 0, cached: 0, output: 0 }
  return { input: row.input / largest, cached: row.cached / largest, output: row.output / largest }
}
