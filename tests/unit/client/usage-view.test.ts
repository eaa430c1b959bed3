import { describe, expect, it } from 'vitest'
import { barSegments, readUsage, usageLabel, USAGE_ROWS_MAX } from '../../../src/client/usage-view.ts'

describe('usage view helpers', () => {
  it('read rows defensively: bad numbers become 0, days newest first, other keys largest first, bounded', () => {
    const answer = {
      currency: 'USD',
      rows: [
        { key: '2026-11-29', requests: 1, input: 10, cached: 0, output: 1 },
        { key: '2026-11-30', requests: 'x', input: -5, cached: NaN, output: 2, money: 0.5 },
        null,
      ],
    }
    const byDay = readUsage(answer, 'day')
    expect(byDay.currency).toBe('USD')
    expect(byDay.rows.map((r) => [r.key, r.requests, r.input, r.cached, r.output, r.money])).toEqual([
      ['2026-11-30', 0, 0, 0, 2, 0.5],
      ['2026-11-29', 1, 10, 0, 1, undefined],
    ])
    expect(readUsage(answer, 'bot').rows.map((r) => r.key)).toEqual(['2026-11-29', '2026-11-30'])
    expect(readUsage({ rows: Array.from({ length: 150 }, (_, i) => ({ key: `k${i}`, input: i })) }, 'model').rows).toHaveLength(USAGE_ROWS_MAX)
    expect(readUsage('nonsense', 'day')).toEqual({ rows: [] })
  })

  it("label a Bot row by the Bot's name and a missing key by the fallback", () => {
    const names = (id: string) => (id === 'b1' ? 'Writer' : undefined)
    expect(usageLabel('bot', 'b1', names, '(none)')).toBe('Writer')
    expect(usageLabel('bot', 'gone', names, '(none)')).toBe('gone')
    expect(usageLabel('model', 'deepseek/chat', names, '(none)')).toBe('deepseek/chat')
    expect(usageLabel('purpose', null, names, '(none)')).toBe('(none)')
  })

  it("label a group row by the group's name, and the row without a group by the fallback", () => {
    const names = (id: string) => (id === 'group-1' ? 'Desk' : undefined)
    expect(usageLabel('group', 'group-1', names, '(own chats)')).toBe('Desk')
    expect(usageLabel('group', null, names, '(own chats)')).toBe('(own chats)')
  })

  it('scale bar segments to the largest row', () => {
    expect(barSegments({ key: 'a', requests: 1, input: 50, cached: 25, output: 25 }, 200)).toEqual({ input: 0.25, cached: 0.125, output: 0.125 })
    expect(barSegments({ key: 'a', requests: 1, input: 5, cached: 0, output: 0 }, 0)).toEqual({ input: 0, cached: 0, output: 0 })
  })
})
