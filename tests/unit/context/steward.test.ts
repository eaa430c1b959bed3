import { describe, expect, it } from 'vitest'
import { clipMiddle, parseChoice, STEWARD_CHARS, STEWARD_LINES, STEWARD_SYSTEM, STEWARD_SYSTEM_PREFIX, stewardRequest } from '../../../src/context/steward.ts'

describe('steward request', () => {
  it('the system text starts with the label side-call recognisers use', () => {
    expect(STEWARD_SYSTEM.startsWith(STEWARD_SYSTEM_PREFIX)).toBe(true)
  })

  it('shows the latest lines oldest first, labelled, and says where and when', () => {
    const text = stewardRequest({
      lines: [
        { who: 'user', text: 'first ask' },
        { who: 'you', text: 'done' },
        { who: 'bot', text: '[Message from Ada] hi' },
      ],
      midTurn: false,
      checkpoints: 2,
      where: 'own chat',
    })
    expect(text).toContain('Condensed so far: 2 time(s).')
    expect(text).toContain('a turn just finished')
    expect(text.indexOf('User: first ask')).toBeLessThan(text.indexOf('Bot: done'))
    expect(text).toContain('Another Bot: [Message from Ada] hi')
  })

  it('is bounded in lines and characters however long the conversation is', () => {
    const lines = Array.from({ length: 500 }, (_, i) => ({ who: 'user' as const, text: `line ${i} ${'x'.repeat(5_000)}` }))
    const text = stewardRequest({ lines, midTurn: true, checkpoints: 0, where: 'group' })
    expect(text.split('\n').filter((l) => l.startsWith('User: ')).length).toBeLessThanOrEqual(STEWARD_LINES)
    expect(text.length).toBeLessThan(STEWARD_CHARS + 1_000)
    expect(text).toContain('line 499')
    expect(text).not.toContain('line 400 ')
  })

  it('a long line keeps its start and end, clipped in the middle', () => {
    const clipped = clipMiddle(`START${'m'.repeat(10_000)}END`, 300)
    expect(clipped.startsWith('START')).toBe(true)
    expect(clipped.endsWith('END')).toBe(true)
    expect(clipped).toContain('characters left out')
    expect(clipped.length).toBeLessThan(400)
  })
})

describe('steward decision', () => {
  it('reads a one-line JSON answer', () => {
    expect(parseChoice('{"action":"checkpoint","reason":"review midway"}')).toBe('checkpoint')
    expect(parseChoice('Sure.\n{"action": "handoff", "reason": "done"}')).toBe('handoff')
  })

  it('the last object with an action wins (an earlier quoted one does not)', () => {
    expect(parseChoice('The user pasted {"action":"handoff"} but {"action":"checkpoint","reason":"midway"}')).toBe('checkpoint')
  })

  it('malformed, missing or unknown answers are no decision', () => {
    expect(parseChoice(undefined)).toBeUndefined()
    expect(parseChoice('')).toBeUndefined()
    expect(parseChoice('checkpoint')).toBeUndefined()
    expect(parseChoice('{"action":"delete everything"}')).toBeUndefined()
    expect(parseChoice('{action: checkpoint}')).toBeUndefined()
  })
})
