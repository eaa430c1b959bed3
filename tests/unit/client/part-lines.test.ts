// An ended part drawn read-only (pure): the lines of a Session's history as DSH's /api returns it.
import { describe, expect, it } from 'vitest'
import { LINE_MAX, PART_LINES_MAX, partLines } from '../../../src/client/part-lines.ts'
import { bootstrapSource, deliverySource, handoffSource, taskSource } from '../../../src/core/sources.ts'

const text = (t: string) => [{ type: 'text', text: t }]
const user = (t: string, source: unknown = { kind: 'user' }) => ({ event: { type: 'user/message', data: { id: 'm', source, content: text(t) } } })
const bot = (t: string) => ({ type: 'assistant/message', data: { message: { role: 'assistant', content: text(t) } } })

describe('partLines', () => {
  it("draws the person's messages, relayed messages with their sender and the Bot's answers, in order", () => {
    const events = [
      user('Remember MARMALADE'),
      bot('noted'),
      user('draft it', deliverySource({ id: 'delivery-1', from: 'bot-1', kind: 'message' }, 'Main', { hop: 1 })),
      bot('done'),
      { type: 'tool/call', data: {} },
    ]
    expect(partLines(events)).toEqual([
      { who: 'person', text: 'Remember MARMALADE' },
      { who: 'bot', text: 'noted' },
      { who: 'relay', from: 'Main', text: 'draft it' },
      { who: 'bot', text: 'done' },
    ])
  })

  it("leaves out the plugin's internal turns (bootstrap, handoff package), DSH's runtime-context snapshot and empty messages", () => {
    const events = [
      user('Ada joined the team.', bootstrapSource('Ada joined the team.')),
      user('# Handoff …', handoffSource(2, false)),
      user('  '),
      user('Current runtime context. This snapshot supersedes earlier runtime-context snapshots.', {
        kind: 'plugin',
        plugin: '@deepseek-ai/dsh-system-prompt',
      }),
      bot(''),
      user('hi'),
    ]
    expect(partLines(events)).toEqual([{ who: 'person', text: 'hi' }])
  })

  it("draws a task Session's attempt brief as the task's line", () => {
    const events = [user('Task task-1: Outline', taskSource({ taskId: 'task-1', attempt: 1, intentId: '3.0', byPerson: true }, { hop: 0 })), bot('handed in')]
    expect(partLines(events)).toEqual([
      { who: 'task', text: 'Task task-1: Outline' },
      { who: 'bot', text: 'handed in' },
    ])
  })

  it('is bounded and survives malformed input', () => {
    expect(partLines(undefined)).toEqual([])
    expect(partLines([null, 3, { type: 'user/message' }, { event: null }])).toEqual([])
    const many = Array.from({ length: PART_LINES_MAX + 10 }, (_, i) => bot(`line ${i}`))
    const lines = partLines(many)
    expect(lines).toHaveLength(PART_LINES_MAX)
    expect(lines.at(-1)!.text).toBe(`line ${PART_LINES_MAX + 9}`)
    expect(partLines([bot('x'.repeat(LINE_MAX + 50))])[0]!.text).toHaveLength(LINE_MAX)
  })
})
