// The review's request and the validation of its answer (pure).
import { describe, expect, it } from 'vitest'
import { LINES_CHARS_MAX, parseReview, pickEntries, ReviewConfig, reviewPrompt } from '../../../src/memory/review.ts'
import { purposeOfSystem } from '../../../scripts/scripted-model/format.ts'

describe('parseReview', () => {
  it('accepts the answer shape, also inside a json code fence', () => {
    const raw = '```json\n{"changes":[{"op":"add","text":"prefers tabs"},{"op":"edit","entry":2,"text":"uses pnpm"},{"op":"remove","entry":1}]}\n```'
    expect(parseReview(raw, 2, 4)).toEqual({
      ok: true,
      changes: [
        { op: 'add', text: 'prefers tabs' },
        { op: 'edit', entry: 2, text: 'uses pnpm' },
        { op: 'remove', entry: 1 },
      ],
    })
    expect(parseReview('{"changes":[]}', 0, 4)).toEqual({ ok: true, changes: [] })
  })

  it.each([
    ['not JSON', 'Sure! I will remember that.'],
    ['not the answer shape', '{"changes":[{"op":"shout","text":"x"}]}'],
    ['not the answer shape', '{"changes":[{"op":"add","text":"x","extra":1}]}'],
    ['more than 2 changes', '{"changes":[{"op":"add","text":"a"},{"op":"add","text":"b"},{"op":"add","text":"c"}]}'],
    ['add without text', '{"changes":[{"op":"add"}]}'],
    ['edit of an unknown entry', '{"changes":[{"op":"edit","entry":5,"text":"x"}]}'],
    ['remove of an unknown entry', '{"changes":[{"op":"remove"}]}'],
  ])('rejects the whole answer: %s', (error, raw) => {
    expect(parseReview(raw, 3, 2)).toEqual({ ok: false, error })
  })
})

describe('reviewPrompt', () => {
  it('numbers the entries with their scope and topic and shows only the user lines, newest kept within the budget', () => {
    const { system, user } = reviewPrompt(
      [
        { team: false, text: 'likes tea' },
        { team: true, topic: 'deploy', text: 'deploys on Fridays' },
      ],
      ['x'.repeat(LINES_CHARS_MAX), 'I prefer tabs'],
      4,
    )
    expect(system).toMatch(/at most 4 changes/)
    expect(user).toContain('1. likes tea\n2. [team] [topic deploy] deploys on Fridays')
    expect(user).toContain('User: I prefer tabs')
    expect(user.length).toBeLessThan(LINES_CHARS_MAX + 300)
  })
})

describe('pickEntries', () => {
  it('shows the entries sharing a word with the new lines, then the newest, in file order, at most max', () => {
    const entries = Array.from({ length: 30 }, (_, i) => ({ team: false, text: i === 3 ? 'deploys go out on Thursdays' : `fact ${i}` }))
    const picked = pickEntries(entries, ['move deploys to Fridays'], 8)
    expect(picked.map((e) => e.text)).toEqual(['deploys go out on Thursdays', 'fact 25', 'fact 26', 'fact 27', 'fact 28', 'fact 29'])
  })
})

describe('review defaults and the scripted model', () => {
  it('is on by default', () => {
    expect(ReviewConfig.parse({}).enabled).toBe(true)
  })

  it("the review's system prompt is the one the scripted model recognises as the memory-review side call", () => {
    expect(purposeOfSystem(reviewPrompt([], ['hi'], 4).system)).toBe('memory-review')
  })
})
