// Memory caps: each cap refuses with a message that says what to do; shrinking is always allowed.
import { describe, expect, it } from 'vitest'
import { capProblem, MemoryLimits } from '../../../src/memory/caps.ts'
import { topicName } from '../../../src/memory/topic.ts'

const limits = MemoryLimits.parse({ entry: 50, memoryFile: 300, topicFile: 400, topics: 2, scopeTotal: 900 })
const sizes = { memory: 250, topics: { a: 300, b: 100 } }

describe('capProblem', () => {
  it('refuses a too-long entry and says to use a topic', () => {
    expect(capProblem(limits, sizes, { after: 260, entry: 'x'.repeat(51) }, 'your memory')).toMatch(/51 characters.*at most 50.*topic/)
    expect(capProblem(limits, sizes, { after: 260, entry: 'x'.repeat(50) }, 'your memory')).toBeUndefined()
  })

  it('refuses growing MEMORY.md past its cap and says to move details into a topic', () => {
    expect(capProblem(limits, sizes, { after: 301, entry: 'x' }, 'your memory')).toMatch(/MEMORY\.md would be 301.*at most 300.*Make room first.*topic/)
  })

  it('refuses growing a topic past its cap', () => {
    expect(capProblem(limits, sizes, { topic: 'a', after: 401, entry: 'x' }, 'your memory')).toMatch(/topic "a" would be 401.*at most 400/)
  })

  it('refuses a new topic past the topic count and names the existing ones', () => {
    expect(capProblem(limits, sizes, { topic: 'c', after: 20, entry: 'x' }, 'team memory')).toMatch(/team memory already has 2 topics.*a, b/)
    expect(capProblem(limits, sizes, { topic: 'b', after: 120, entry: 'x' }, 'team memory')).toBeUndefined()
  })

  it('refuses growing the scope past its total even when every file fits', () => {
    const full = { memory: 280, topics: { a: 390, b: 220 } }
    expect(capProblem(limits, full, { topic: 'b', after: 240, entry: 'x' }, 'your memory')).toMatch(
      /would hold 910 characters in all.*at most 900.*Forget something first/,
    )
  })

  it('lets a file already over its cap shrink', () => {
    expect(capProblem(limits, { memory: 500, topics: {} }, { after: 450 }, 'your memory')).toBeUndefined()
  })
})

describe('topicName', () => {
  it('accepts letters of any script, digits, "-" and "_", normalising case and spaces', () => {
    expect(topicName('Build Notes')).toEqual({ ok: true, name: 'build-notes' })
    expect(topicName('部署_2')).toEqual({ ok: true, name: '部署_2' })
  })

  it.each(['../x', '..', 'a/b', 'a\\b', '.hidden', 'x.md', '', '-lead', 'x'.repeat(49)])('refuses %j', (raw) => {
    const result = topicName(raw)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.problem).toMatch(/not a usable topic name/)
  })
})
