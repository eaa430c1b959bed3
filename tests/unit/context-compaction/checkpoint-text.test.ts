import { describe, expect, it } from 'vitest'
import { checkpointText, MESSAGE_MAX_CHARS, checkpointMessages, OLDER_LINE, type CheckpointMessage } from '../../../src/context/compaction/checkpoint-text.ts'
import { anchor } from '../../../src/core/anchors.ts'
import { estimateTokens, verbatimBudget } from '../../../src/context/thresholds.ts'
import { bootstrapSource, deliverySource, roomNoticeSource, roomPostSource, roomTurnSource } from '../../../src/core/sources.ts'

const T0 = Date.UTC(2026, 10, 30, 18, 22)
const userMessage = (seq: number, text: string, source?: unknown, extra: object = {}) => ({
  type: 'user/message',
  seq,
  time: T0 + seq * 60_000,
  data: { role: 'user', content: [{ type: 'text', text }], ...(source === undefined ? {} : { source }) },
  surfaceOp: { op: 'append' },
  ...extra,
})

describe('checkpointMessages', () => {
  it("keeps the user prompts and other Bots' messages and group posts, and nothing else", () => {
    const events = [
      userMessage(1, 'please fix /srv/app/main.ts', { kind: 'user' }),
      userMessage(2, 'Current runtime context: cwd=/x', { kind: 'user' }),
      { type: 'assistant/message', seq: 3, time: T0, data: { role: 'assistant', content: [{ type: 'text', text: 'on it' }] } },
      userMessage(4, '[Message from Ada] the build is red', deliverySource({ id: 'd1', from: 'ada', kind: 'message' }, 'Ada', { hop: 1 })),
      userMessage(
        5,
        'Grace: ship it',
        roomPostSource({ groupId: 'g', groupName: 'Design', postId: 'p', said: 'ship it', from: { id: 'grace', name: 'Grace' } }, { hop: 1 }),
      ),
      userMessage(6, 'notice', roomNoticeSource({ groupId: 'g', groupName: 'Design' }, 'Grace joined')),
      userMessage(7, 'hello', bootstrapSource('Ada')),
      userMessage(8, 'condensed', { kind: 'plugin', plugin: 'compact', compactionId: 'c' }, { surfaceOp: { op: 'replace', start: 0, end: 7 } }),
      userMessage(11, 'a user-sourced replacement', { kind: 'user' }, { surfaceOp: { op: 'replace', start: 0, end: 7 } }),
      userMessage(9, 'from another plugin', { kind: 'plugin', plugin: 'someone-else' }),
      userMessage(10, 'no source at all'),
      userMessage(12, '[Group "Design" · you speak 1 of 2]\nUser: ship the parser', roomTurnSource({ groupId: 'g', groupName: 'Design' }, { hop: 1 })),
    ]
    expect(checkpointMessages(events).map((m) => [m.seq, m.from])).toEqual([
      [1, 'the user'],
      [4, 'Ada'],
      [5, 'Grace in group Design'],
      [10, 'the user'],
      [12, 'group Design'],
    ])
  })
})

describe('checkpointText', () => {
  const msgs = (n: number, size = 40): CheckpointMessage[] =>
    Array.from({ length: n }, (_, i) => ({ seq: 10 + i, time: T0 + i * 60_000, from: 'the user', text: `message ${i} ${'x'.repeat(size)}` }))

  it('keeps the newest messages within the budget, shows them oldest first, anchored, with the read_own_chat line', () => {
    const out = checkpointText({ number: 2, summary: 'We are porting the parser.', messages: msgs(10, 200), part: 3, budgetTokens: 200, capTokens: 10_000 })
    expect(out.shown).toBeGreaterThan(0)
    expect(out.shown).toBeLessThan(10)
    expect(out.shown + out.left).toBe(10)
    expect(out.text.startsWith('[Checkpoint 2]\nWe are porting the parser.')).toBe(true)
    expect(out.text).toContain(OLDER_LINE)
    const shownSeqs = [...out.text.matchAll(/\[part 3 #(\d+) · /g)].map((m) => Number(m[1]))
    expect(shownSeqs).toEqual(Array.from({ length: out.shown }, (_, i) => 20 - out.shown + i))
    expect(out.text).toContain(`[part 3 #19 · 2026-11-30 18:31] From the user:\nmessage 9 ${'x'.repeat(200)}`)
  })

  it('stays under its cap, dropping the oldest messages first and then clipping the summary', () => {
    const fits = checkpointText({ number: 1, summary: 'short', messages: msgs(10, 400), part: 1, budgetTokens: 10_000, capTokens: 400 })
    expect(estimateTokens(fits.text)).toBeLessThan(400)
    expect(fits.left).toBeGreaterThan(0)
    expect(fits.text).toContain('message 9 ')
    const clipped = checkpointText({ number: 1, summary: 's'.repeat(8_000), messages: msgs(2), part: 1, budgetTokens: 10_000, capTokens: 500 })
    expect(estimateTokens(clipped.text)).toBeLessThan(500)
    expect(clipped.shown).toBe(0)
    expect(clipped.text).toContain('characters left out from this summary')
  })

  it('clips a single very long message in the middle and says read_own_chat has it whole', () => {
    const long = `${'a'.repeat(5_000)}${'z'.repeat(5_000)}`
    const out = checkpointText({
      number: 1,
      summary: 's',
      messages: [{ seq: 5, time: T0, from: 'the user', text: long }],
      part: 1,
      budgetTokens: 16_000,
      capTokens: 100_000,
    })
    expect(out.text).toContain('read_own_chat has the whole message')
    expect(out.text.length).toBeLessThan(MESSAGE_MAX_CHARS + 1_000)
    expect(out.text).toContain('aaaa')
    expect(out.text).toContain('zzzz')
  })
})

it('verbatimBudget is min(16384, check/4) and anchors name the part only in an own chat', () => {
  expect(verbatimBudget(6_400)).toBe(1_600)
  expect(verbatimBudget(1_000_000)).toBe(16_384)
  expect(anchor({ seq: 7, time: T0 }, 2)).toBe('[part 2 #7 · 2026-11-30 18:22]')
  expect(anchor({ seq: 7, time: T0 }, undefined)).toBe('[#7 · 2026-11-30 18:22]')
})
