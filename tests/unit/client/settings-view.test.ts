import { describe, expect, it } from 'vitest'
import { capPatch, limitsPatch, readLimits } from '../../../src/client/settings-view.ts'

describe('settings dialog helpers', () => {
  it('the PUT body holds only the changed fields, numbers as numbers', () => {
    expect(limitsPatch({ hopLimit: '3', sendsPerTurn: '5', workBudget: ' 40 ' }, { hopLimit: 6, sendsPerTurn: 5, workBudget: 40 })).toEqual({ hopLimit: 3 })
    expect(limitsPatch({ hopLimit: '6' }, { hopLimit: 6 })).toEqual({})
  })

  it('text that is not a number goes as text, so the API names the field and says why', () => {
    expect(limitsPatch({ hopLimit: '', workBudget: 'ten', sendsPerTurn: '2.5' }, { hopLimit: 6, workBudget: 40, sendsPerTurn: 5 })).toEqual({
      hopLimit: '',
      workBudget: 'ten',
      sendsPerTurn: 2.5,
    })
  })

  it('reads GET /limits only when every entry is a number', () => {
    const ok = { limits: { hopLimit: 2 }, config: { hopLimit: 6 }, overrides: { hopLimit: 2 } }
    expect(readLimits(ok)).toEqual(ok)
    expect(readLimits({ ...ok, limits: { hopLimit: '2' } })).toBeUndefined()
    expect(readLimits({ limits: {}, config: {} })).toBeUndefined()
    expect(readLimits(null)).toBeUndefined()
  })

  it("the team's daily token cap: set, changed or removed, the other caps kept; unchanged sends nothing", () => {
    const caps = { eachBot: { tokens: 500 }, team: { money: 5 } }
    expect(capPatch(caps, '1000000')).toEqual({ eachBot: { tokens: 500 }, team: { money: 5, tokens: 1_000_000 } })
    expect(capPatch({ team: { tokens: 7 } }, ' ')).toEqual({})
    expect(capPatch({ team: { tokens: 7, money: 1 } }, '')).toEqual({ team: { money: 1 } })
    expect(capPatch({ team: { tokens: 7 } }, '7')).toBeUndefined()
    expect(capPatch({}, '')).toBeUndefined()
    expect(capPatch({}, 'lots')).toEqual({ team: { tokens: 'lots' } })
  })
})
