// Reading a Bot Session's log for the steward: the archive's lines without handoff packages (so a
// package never nests in the next one), the messages to the Bot anchored to their part, and the
// context section of the plugin config.
import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/config.ts'
import { lastUserText, linesOf, messagesToBot } from '../../../src/context/conversation.ts'
import type { LogEvent } from '../../../src/core/log-lines.ts'
import { deliverySource, handoffSource } from '../../../src/core/sources.ts'

const user = (seq: number, text: string, source: unknown = { kind: 'user' }): LogEvent => ({
  type: 'user/message',
  seq,
  time: 1_000 * seq,
  data: { role: 'user', content: [{ type: 'text', text }], source },
})
const answer = (seq: number, text: string): LogEvent => ({
  type: 'assistant/message',
  seq,
  time: 1_000 * seq,
  data: { message: { role: 'assistant', content: [{ type: 'text', text }] } },
})

describe('conversation reading', () => {
  const events = [
    user(1, '[Handoff · part 2]\nold package with a copy of everything', handoffSource(2, false)),
    answer(2, 'Noted.'),
    user(3, 'Please rename the branch to release-9'),
    answer(4, 'Renamed.'),
    user(5, '[Message from Ada] the build is green', deliverySource({ id: 'delivery-1', from: 'bot-1', kind: 'message' }, 'Ada', { hop: 1 })),
  ]

  it('leaves handoff packages out of the lines and keeps the rest in order', () => {
    const lines = linesOf(events)
    expect(lines.map((l) => [l.seq, l.who])).toEqual([
      [2, 'you'],
      [3, 'user'],
      [4, 'you'],
      [5, 'bot'],
    ])
  })

  it("the messages to the Bot are the person's and other Bots', anchored to the part", () => {
    expect(messagesToBot(linesOf(events), 2)).toEqual([
      { part: 2, seq: 3, time: 3_000, who: 'user', text: 'Please rename the branch to release-9' },
      { part: 2, seq: 5, time: 5_000, who: 'bot', text: '[Message from Ada] the build is green' },
    ])
    expect(lastUserText(linesOf(events))).toBe('Please rename the branch to release-9')
  })

  it('the plugin config has a context section with defaults, and refuses a bad one', () => {
    expect(Config.parse({}).context).toEqual({ checkRatio: 0.8, stewardTimeoutMs: 60_000, noteTimeoutMs: 180_000 })
    expect(Config.safeParse({ context: { checkRatio: 0.99 } }).success).toBe(false)
    expect(Config.safeParse({ context: { model: 'no-slash' } }).success).toBe(false)
    expect(Config.safeParse({ context: { unknown: 1 } }).success).toBe(false)
  })
})
