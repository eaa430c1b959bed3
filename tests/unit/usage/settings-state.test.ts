// Team state keeps the usage settings (prices, caps, caps reported) through the store's validation.
import { describe, expect, it } from 'vitest'
import { emptyState } from '../../../src/store/index.ts'
import { KnownValid, validateState } from '../../../src/store/validate.ts'

describe('usage settings in team state', () => {
  it('a valid usage field is kept by validation; a state without one has none', () => {
    const usage = {
      currency: 'USD',
      prices: { 'mock/mock': { input: 1, cached: 0.1, output: 2 } },
      caps: { team: { tokens: 1000 }, eachBot: { money: 1 }, bots: { 'bot-1': { tokens: 5 } } },
      notified: ['2026-01-02 team'],
    }
    const got = validateState({ ...emptyState(), usage }, new KnownValid())
    expect(got.ok && got.state.usage).toEqual(usage)
    const none = validateState(emptyState(), new KnownValid())
    expect(none.ok && 'usage' in none.state).toBe(false)
  })

  it('refuses a negative price, a zero cap and unknown fields', () => {
    for (const usage of [
      { prices: { 'mock/mock': { input: -1, cached: 0, output: 0 } } },
      { caps: { team: { tokens: 0 } } },
      { caps: { team: { tokens: 5, dollars: 3 } } },
    ])
      expect(validateState({ ...emptyState(), usage }, new KnownValid()).ok).toBe(false)
  })
})
