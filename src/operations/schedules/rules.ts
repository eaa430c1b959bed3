/**
 * Schedule rules (pure): once, daily, weekly (wall-clock in an IANA zone: a skipped time fires an hour
 * later, a doubled one once) or every N minutes from creation; validation and `nextDue`. Catch-up is
 * a consequence: a past due time runs once and the next is computed from now. Deliberately no clock.
 */
import { z } from 'zod'
import type { ScheduleRule } from '../../store/index.ts'

export const MIN_EVERY_MINUTES = 5
export const MAX_EVERY_MINUTES = 525_600
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const

/** True when the runtime knows the IANA time zone. */
export function validTimeZone(tz: string): boolean {
  if (!tz || tz.length > 100) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

const clock = z
  .string()
  .trim()
  .regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'a time of day as HH:MM (24 h), e.g. 09:30')
const zone = z.string().trim().min(1).max(100).refine(validTimeZone, 'an IANA time zone this system knows, e.g. Europe/Berlin or America/New_York')
const day = z
  .string()
  .trim()
  .toLowerCase()
  .transform((d) => d.slice(0, 3))
  .pipe(z.enum(DAY_NAMES, { error: 'a weekday: mon, tue, wed, thu, fri, sat or sun' }))

/** What a person (HTTP) or a Bot (tool) gives: exactly one rule. */
export const ruleInput = z.strictObject({
  /** An ISO-8601 time with an offset (e.g. 2026-05-01T09:00:00+02:00). */
  at: z.iso.datetime({ offset: true, error: 'an ISO-8601 time with an offset, e.g. 2026-05-01T09:00:00+02:00' }).optional(),
  daily: z.strictObject({ time: clock, time_zone: zone }).optional(),
  weekly: z.strictObject({ days: z.array(day).min(1).max(7), time: clock, time_zone: zone }).optional(),
  every_minutes: z.int().min(MIN_EVERY_MINUTES, `at least ${MIN_EVERY_MINUTES} minutes`).max(MAX_EVERY_MINUTES).optional(),
})

const pad = (n: number) => String(n).padStart(2, '0')
const normalClock = (t: string) => {
  const [h, m] = t.split(':')
  return `${pad(Number(h))}:${m}`
}

/** The stored rule for a validated input, or the reason it is refused (pure). */
export function toRule(input: z.output<typeof ruleInput>, now: Date): { ok: true; rule: ScheduleRule } | { ok: false; reason: string } {
  const given = (['at', 'daily', 'weekly', 'every_minutes'] as const).filter((k) => input[k] !== undefined)
  if (given.length !== 1) return { ok: false, reason: 'give exactly one of: at, daily, weekly, every_minutes' }
  if (input.at !== undefined) {
    const at = new Date(input.at)
    if (at.getTime() <= now.getTime()) return { ok: false, reason: `the time ${input.at} has already passed` }
    return { ok: true, rule: { kind: 'at', at: at.toISOString() } }
  }
  if (input.daily) return { ok: true, rule: { kind: 'daily', time: normalClock(input.daily.time), timeZone: input.daily.time_zone } }
  if (input.weekly) {
    const days = [...new Set(input.weekly.days.map((d) => DAY_NAMES.indexOf(d)))].sort((a, b) => a - b)
    return { ok: true, rule: { kind: 'weekly', days, time: normalClock(input.weekly.time), timeZone: input.weekly.time_zone } }
  }
  return { ok: true, rule: { kind: 'every', minutes: input.every_minutes! } }
}

// ── wall-clock time in a zone ───────────────────────────────────────────────────────────────────

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    })
    formatters.set(tz, f)
  }
  return f
}

interface Wall {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  weekday: number
}

/** The wall-clock reading of an instant in a zone. */
export function wallClock(instant: number, tz: string): Wall {
  const parts: Record<string, string> = {}
  for (const p of formatter(tz).formatToParts(new Date(instant))) parts[p.type] = p.value
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: DAY_NAMES.indexOf(String(parts.weekday).toLowerCase().slice(0, 3) as (typeof DAY_NAMES)[number]),
  }
}

/** The zone's offset from UTC at an instant, in ms (wall − UTC). */
function offsetAt(instant: number, tz: string): number {
  const w = wallClock(instant, tz)
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000
}

/** The instant a wall-clock time in a zone names (the first, if it occurs twice; shifted forward over a gap). */
export function fromWallClock(y: number, mo: number, d: number, h: number, mi: number, tz: string): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi)
  // The offset one day either side covers any DST change near the time; take the earliest instant that reads right.
  const candidates = [offsetAt(guess - 86_400_000, tz), offsetAt(guess, tz), offsetAt(guess + 86_400_000, tz)].map((o) => guess - o)
  const exact = candidates.filter((t) => {
    const w = wallClock(t, tz)
    return w.year === y && w.month === mo && w.day === d && w.hour === h && w.minute === mi
  })
  if (exact.length) return Math.min(...exact)
  // A skipped wall time: the instant after the gap (earlier offset applied).
  return Math.max(...candidates)
}

// ── next due time ───────────────────────────────────────────────────────────────────────────────

/**
 * The first due time strictly after `after` (ms since epoch), or undefined when the rule will never
 * be due again (a one-off time already passed). `anchor` is the task's creation (every-N rules).
 */
export function nextDue(rule: ScheduleRule, after: number, anchor: number): number | undefined {
  switch (rule.kind) {
    case 'at': {
      const at = Date.parse(rule.at)
      return at > after ? at : undefined
    }
    case 'every': {
      const step = rule.minutes * 60_000
      if (after < anchor) return anchor + step
      return anchor + (Math.floor((after - anchor) / step) + 1) * step
    }
    case 'daily':
    case 'weekly': {
      const [h, m] = rule.time.split(':').map(Number) as [number, number]
      const today = wallClock(after, rule.timeZone)
      // Walk forward day by day in the zone's calendar (8 days covers every weekly rule).
      for (let i = 0; i <= 8; i++) {
        const date = new Date(Date.UTC(today.year, today.month - 1, today.day + i))
        const weekday = date.getUTCDay()
        if (rule.kind === 'weekly' && !rule.days.includes(weekday)) continue
        const t = fromWallClock(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), h, m, rule.timeZone)
        if (t > after) return t
      }
      return undefined
    }
  }
}

/** The rule in words ("daily at 09:00 (Europe/Berlin)"). */
export function describeRule(rule: ScheduleRule): string {
  switch (rule.kind) {
    case 'at':
      return `once at ${rule.at}`
    case 'every':
      return `every ${rule.minutes} minutes`
    case 'daily':
      return `daily at ${rule.time} (${rule.timeZone})`
    case 'weekly':
      return `weekly on ${rule.days.map((d) => DAY_NAMES[d]).join(', ')} at ${rule.time} (${rule.timeZone})`
  }
}
