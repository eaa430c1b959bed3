// Anchors as a Bot reads and quotes them: own-chat parts, task Sessions (part -N for task N),
// rooms and group Sessions; what a Bot quotes back is parsed to the same place.
import { describe, expect, it } from 'vitest'
import { anchor, parseAnchor } from '../../../src/core/anchors.ts'

const m = { seq: 42, time: Date.UTC(2026, 2, 1, 9, 5) }

describe('anchors', () => {
  it('names a line by where it was logged', () => {
    expect(anchor(m, 3)).toBe('[part 3 #42 · 2026-03-01 09:05]')
    expect(anchor(m, -7)).toBe('[task-7 #42 · 2026-03-01 09:05]')
    expect(anchor(m, 'room')).toBe('[room #42 · 2026-03-01 09:05]')
    expect(anchor(m)).toBe('[#42 · 2026-03-01 09:05]')
  })

  it('reads back what a Bot quotes: a part, a task Session, or the current part; anything else is not an anchor', () => {
    expect(parseAnchor('part 3 #42')).toEqual({ part: 3, seq: 42 })
    expect(parseAnchor(' task-7 #42 ')).toEqual({ part: -7, seq: 42 })
    expect(parseAnchor('TASK-7#42')).toEqual({ part: -7, seq: 42 })
    expect(parseAnchor('#42')).toEqual({ seq: 42 })
    expect(parseAnchor('task 7 #42')).toBeUndefined()
    expect(parseAnchor('room #42')).toBeUndefined()
  })
})
