import { describe, expect, it } from 'vitest'
import { DEFAULT_WINDOW, linesFor, pressure } from '../../../src/context/thresholds.ts'

describe('context lines', () => {
  it('usable is the window minus the reply reserve, check 80 % and hard 95 % of it', () => {
    const l = linesFor({ window: 100_000, reserve: 10_000 })
    expect(l).toEqual({ window: 100_000, reserve: 10_000, usable: 90_000, check: 72_000, hard: 85_500 })
  })

  it('a reserve larger than half the window leaves half the window usable (DSH Web route maxTokens)', () => {
    const l = linesFor({ window: 8_000, reserve: 393_216 })
    expect(l.usable).toBe(4_000)
    expect(l.check).toBe(3_200)
    expect(l.hard).toBe(3_800)
  })

  it('a configured check ratio moves the check line; an invalid one falls back to 80 %', () => {
    expect(linesFor({ window: 10_000, checkRatio: 0.5 }).check).toBe(5_000)
    expect(linesFor({ window: 10_000, checkRatio: 2 }).check).toBe(8_000)
    expect(linesFor({ window: 10_000, checkRatio: -1 }).check).toBe(8_000)
  })

  it('a missing or absurd window takes the default', () => {
    expect(linesFor({}).window).toBe(DEFAULT_WINDOW)
    expect(linesFor({ window: Number.NaN }).window).toBe(DEFAULT_WINDOW)
    expect(linesFor({ window: -5 }).window).toBe(DEFAULT_WINDOW)
  })

  it('below the check line nothing happens; at it the steward is asked; at the hard line the part moves', () => {
    const l = linesFor({ window: 10_000 })
    expect(pressure(l.check - 1, l)).toBe('none')
    expect(pressure(l.check, l)).toBe('check')
    expect(pressure(l.hard, l)).toBe('hard')
  })

  it('hysteresis: after making room at a size past the check line, the part acts again only after growing a quarter of the check line', () => {
    const l = linesFor({ window: 10_000, checkRatio: 0.5 })
    const base = l.check + 100
    expect(pressure(base + 10, l, base)).toBe('none')
    expect(pressure(base + Math.floor(l.check / 4) - 1, l, base)).toBe('none')
    expect(pressure(base + Math.floor(l.check / 4), l, base)).toBe('check')
  })

  it('past the hard line any growth since the base acts, none does not', () => {
    const l = linesFor({ window: 10_000 })
    expect(pressure(l.hard + 5, l, l.hard + 5)).toBe('none')
    expect(pressure(l.hard + 6, l, l.hard + 5)).toBe('hard')
  })
})
