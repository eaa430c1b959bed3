// Which Session events become archive lines, and their text.
import { describe, expect, it } from 'vitest'
import { lineOf, TOOL_LINE_CHARS } from '../../../src/core/log-lines.ts'
import { handoffSource } from '../../../src/core/sources.ts'

const at = { seq: 4, time: 1_000 }
const user = (text: string, source: Record<string, unknown> = { kind: 'user' }, extra: Record<string, unknown> = {}) => ({
  ...at,
  type: 'user/message',
  data: { message: { content: [{ type: 'text', text }], source }, ...extra },
})
const call = (name: string, args: unknown, callId = 'c1') => ({ ...at, type: 'tool/call', data: { callId, name, arguments: JSON.stringify(args) } })
const result = (text: string, callId = 'c1') => ({
  ...at,
  type: 'tool/result',
  data: { message: { content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }] }] } },
})

describe('archive lines', () => {
  it("keeps user messages and Bot relays with their header; drops runtime context, handoff packages and other plugins' messages", () => {
    const calls = new Map()
    expect(lineOf(user('hello'), calls)).toEqual({ ...at, who: 'user', text: 'hello' })
    expect(lineOf(user('[Message from Bot Main]\n\nhi', { kind: 'plugin', plugin: 'bot-team', form: 'relay', fromName: 'Main' }), calls)).toMatchObject({
      who: 'bot',
      text: '[Message from Bot Main]\n\nhi',
    })
    expect(lineOf(user('Current runtime context: cwd …'), calls)).toBeUndefined()
    expect(lineOf(user('x', { kind: 'plugin', plugin: 'bot-team-bootstrap' }), calls)).toBeUndefined()
    expect(lineOf(user('[Handoff · part 2]\nnote and copies', { ...handoffSource(2, false) }), calls)).toBeUndefined()
    expect(lineOf(user('summary of earlier', { kind: 'user' }, { surfaceOp: { op: 'replace', start: 0, end: 3 } }), calls)).toMatchObject({ who: 'summary' })
  })

  it('writes tool calls and results as one short line, question cards and answers whole, and no echo of read_own_chat', () => {
    const calls = new Map()
    const long = 'y'.repeat(5000)
    expect(lineOf(call('bash', { command: long }), calls)!.text.length).toBeLessThan(TOOL_LINE_CHARS + 30)
    const r = lineOf(result(long), calls)!
    expect(r.text.startsWith('[tool result] bash: yyy')).toBe(true)
    expect(r.text.length).toBeLessThan(TOOL_LINE_CHARS + 30)
    expect(
      lineOf(call('ask_user_question', { questions: [{ id: 'q', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }] }, 'c2'), calls),
    ).toMatchObject({ who: 'card', text: '[Question card] Ship it?\nOptions: Yes / No' })
    expect(lineOf(result('q: Yes', 'c2'), calls)).toMatchObject({ who: 'answer', text: '[Answer to question card] q: Yes' })
    lineOf(call('read_own_chat', { query: 'heron' }, 'c3'), calls)
    expect(lineOf(result('3 line(s) … heron …', 'c3'), calls)).toMatchObject({ text: '[tool result] read_own_chat' })
  })

  it("in a room keeps posts: the user's, Bots' entered posts and the room's own text", () => {
    const calls = new Map()
    expect(lineOf(user('plan?'), calls, true)).toMatchObject({ who: 'user', text: 'plan?' })
    expect(lineOf(user('x', { kind: 'plugin', plugin: 'bot-team', delivery: 'room-post', fromName: 'Ada' }), calls, true)).toMatchObject({
      who: 'room',
      text: 'Ada: x',
    })
    expect(lineOf({ ...at, type: 'assistant/message', data: { message: { content: [{ type: 'text', text: '**Bob:** fine' }] } } }, calls, true)).toMatchObject({
      who: 'room',
      text: '**Bob:** fine',
    })
    expect(lineOf(call('bash', {}), calls, true)).toBeUndefined()
  })
})
