import { describe, expect, it } from 'vitest'
import { describeRule, fromWallClock, nextDue, ruleInput, toRule, validTimeZone } from '../../../src/operations/schedules/rules.ts'
import { toCreateInput } from '../../../src/operations/schedules/tools.ts'

const t = (iso: string) => Date.parse(iso)
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString())

describe('schedule rules (pure)', () => {
  it('daily: the next 09:00 in the zone, today if still ahead, else tomorrow', () => {
    const rule = { kind: 'daily', time: '09:00', timeZone: 'Europe/Berlin' } as const
    expect(iso(nextDue(rule, t('2026-01-10T07:00:00Z'), 0))).toBe('2026-01-10T08:00:00.000Z') // 09:00 CET
    expect(iso(nextDue(rule, t('2026-01-10T08:00:00Z'), 0))).toBe('2026-01-11T08:00:00.000Z') // strictly after
    expect(iso(nextDue(rule, t('2026-07-10T08:00:00Z'), 0))).toBe('2026-07-11T07:00:00.000Z') // 09:00 CEST
  })

  it('daily across a daylight-saving change keeps the wall time', () => {
    const rule = { kind: 'daily', time: '09:00', timeZone: 'America/New_York' } as const
    // 2026-03-08: US clocks go forward at 02:00.
    expect(iso(nextDue(rule, t('2026-03-07T14:00:01Z'), 0))).toBe('2026-03-08T13:00:00.000Z')
    expect(iso(nextDue(rule, t('2026-03-06T14:00:01Z'), 0))).toBe('2026-03-07T14:00:00.000Z')
  })

  it('a skipped wall time fires one hour later; a repeated one fires once, at the first', () => {
    // Europe/Berlin 2026-03-29 02:30 does not exist; 2026-10-25 02:30 exists twice.
    expect(iso(fromWallClock(2026, 3, 29, 2, 30, 'Europe/Berlin'))).toBe('2026-03-29T01:30:00.000Z')
    expect(iso(fromWallClock(2026, 10, 25, 2, 30, 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z')
    const rule = { kind: 'daily', time: '02:30', timeZone: 'Europe/Berlin' } as const
    expect(iso(nextDue(rule, t('2026-10-25T00:30:00Z'), 0))).toBe('2026-10-26T01:30:00.000Z')
  })

  it('weekly: the next listed weekday in the zone', () => {
    const rule = { kind: 'weekly' as const, days: [1, 5], time: '18:30', timeZone: 'Asia/Shanghai' }
    // 2026-01-07 is a Wednesday; the next listed day is Friday 2026-01-09 18:30 +08:00.
    expect(iso(nextDue(rule, t('2026-01-07T00:00:00Z'), 0))).toBe('2026-01-09T10:30:00.000Z')
    expect(iso(nextDue(rule, t('2026-01-09T10:30:00Z'), 0))).toBe('2026-01-12T10:30:00.000Z')
  })

  it('every N minutes counts from the creation; after downtime the next is one step ahead of now (no backlog)', () => {
    const rule = { kind: 'every', minutes: 30 } as const
    const anchor = t('2026-01-01T00:00:00Z')
    expect(iso(nextDue(rule, anchor, anchor))).toBe('2026-01-01T00:30:00.000Z')
    expect(iso(nextDue(rule, t('2026-01-01T05:10:00Z'), anchor))).toBe('2026-01-01T05:30:00.000Z')
  })

  it('at: due once, then never again', () => {
    const rule = { kind: 'at', at: '2026-02-01T10:00:00.000Z' } as const
    expect(iso(nextDue(rule, t('2026-01-01T00:00:00Z'), 0))).toBe('2026-02-01T10:00:00.000Z')
    expect(nextDue(rule, t('2026-02-01T10:00:00Z'), 0)).toBeUndefined()
  })

  it('input: exactly one rule, a known zone, at least 5 minutes, a future time', () => {
    const now = new Date('2026-01-01T00:00:00Z')
    const parse = (v: unknown) => {
      const p = ruleInput.safeParse(v)
      return p.success ? toRule(p.data, now) : { ok: false as const, reason: p.error.issues[0]!.message }
    }
    expect(parse({ every_minutes: 4 })).toMatchObject({ ok: false, reason: 'at least 5 minutes' })
    expect(parse({ daily: { time: '9:00', time_zone: 'Mars/Olympus' } })).toMatchObject({ ok: false })
    expect(parse({ daily: { time: '25:00', time_zone: 'UTC' } })).toMatchObject({ ok: false })
    expect(parse({ every_minutes: 10, daily: { time: '09:00', time_zone: 'UTC' } })).toMatchObject({
      ok: false,
      reason: 'give exactly one of: at, daily, weekly, every_minutes',
    })
    expect(parse({ at: '2025-12-31T23:00:00Z' })).toMatchObject({ ok: false })
    expect(parse({ daily: { time: '9:05', time_zone: 'Europe/Berlin' } })).toEqual({
      ok: true,
      rule: { kind: 'daily', time: '09:05', timeZone: 'Europe/Berlin' },
    })
    expect(parse({ weekly: { days: ['Friday', 'mon', 'fri'], time: '08:00', time_zone: 'UTC' } })).toEqual({
      ok: true,
      rule: { kind: 'weekly', days: [1, 5], time: '08:00', timeZone: 'UTC' },
    })
    expect(validTimeZone('Europe/Berlin')).toBe(true)
    expect(describeRule({ kind: 'weekly', days: [1, 5], time: '08:00', timeZone: 'UTC' })).toBe('weekly on mon, fri at 08:00 (UTC)')
  })
})

describe('schedule_task arguments (pure)', () => {
  it('time alone is daily, time with days is weekly, in the given or the local zone', () => {
    expect(toCreateInput({ prompt: 'p', time: '09:00', time_zone: 'Europe/Berlin' })).toEqual({
      prompt: 'p',
      daily: { time: '09:00', time_zone: 'Europe/Berlin' },
    })
    expect(toCreateInput({ prompt: 'p', time: '09:00', days: 'mon, fri', time_zone: 'UTC' })).toEqual({
      prompt: 'p',
      weekly: { days: ['mon', 'fri'], time: '09:00', time_zone: 'UTC' },
    })
    expect(toCreateInput({ prompt: 'p', time: '09:00' })).toMatchObject({ daily: { time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone } })
    expect(toCreateInput({ prompt: 'p', bot: 'Ada', every_minutes: 15, at: '' })).toEqual({ prompt: 'p', bot: 'Ada', every_minutes: 15 })
  })
})
