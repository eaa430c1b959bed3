// The task board's data in the browser (pure): a board answer loaded, a `tasks` event moving a card,
// only the touched columns rebuilt (others keep their array), bad cards dropped, reload asked.
import { describe, expect, it } from 'vitest'
import { BoardModel, readCard, taskActions } from '../../../src/client/task-board-model.ts'

const card = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `title of ${id}`,
  status,
  column: status,
  creator: 'user',
  blockedBy: [],
  attempts: 0,
  failed: 0,
  tokens: 0,
  waiting: false,
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
})

describe('BoardModel', () => {
  it('loads a board answer into columns, oldest first, and drops what is not a card', () => {
    const m = new BoardModel()
    expect(m.load({ cards: [card('task-2', 'ready'), card('task-1', 'ready'), { id: 'x' }, card('task-3', 'nonsense')], waiting: 1, hiddenClosed: 0 })).toBe(
      true,
    )
    expect(m.column('ready').map((c) => c.id)).toEqual(['task-1', 'task-2'])
    expect(m.size).toBe(2)
    expect(m.waiting).toBe(1)
    expect(m.load({ nope: true })).toBe(false)
  })

  it('moves a changed card between columns and rebuilds only the columns it touched', () => {
    const m = new BoardModel()
    m.load({ cards: [card('task-1', 'ready'), card('task-2', 'working'), card('task-3', 'done')], waiting: 0, hiddenClosed: 0 })
    const done = m.column('done')
    expect(m.apply({ cards: [card('task-1', 'working')], waiting: 0 })).toBe('changed')
    expect(m.column('ready')).toEqual([])
    expect(m.column('working').map((c) => c.id)).toEqual(['task-1', 'task-2'])
    expect(m.column('done')).toBe(done)
    expect(m.get('task-2')).toBe(m.column('working')[1])
  })

  it('answers reload for a reload event, takes the waiting count from every event, and ignores events before the first load', () => {
    const m = new BoardModel()
    expect(m.apply({ cards: [card('task-1', 'ready')], waiting: 3 })).toBe('ignored')
    expect(m.waiting).toBe(3)
    expect(m.apply({ reload: true, waiting: 4 })).toBe('reload')
    expect(m.waiting).toBe(4)
    expect(m.apply('junk')).toBe('ignored')
  })

  it('reads a card only with a task id, a title, a status and a known column', () => {
    expect(readCard(card('task-9', 'review'))).toBeDefined()
    expect(readCard(card('nine', 'review'))).toBeUndefined()
    expect(readCard(card('task-9', 'review', { column: 'somewhere' }))).toBeUndefined()
    expect(readCard(card('task-9', 'review', { title: '' }))).toBeUndefined()
  })
})

describe('taskActions', () => {
  it('offers accept and reject in review, assign while blocked, ready or working, cancel while open, nothing once closed', () => {
    expect(taskActions({ status: 'review', assignee: { kind: 'bot', botId: 'b' } })).toEqual({ review: true, assign: false, cancel: true })
    for (const status of ['blocked', 'ready', 'working']) expect(taskActions({ status, assignee: null })).toEqual({ review: false, assign: true, cancel: true })
    for (const status of ['done', 'failed', 'cancelled']) expect(taskActions({ status })).toEqual({ review: false, assign: false, cancel: false })
    expect(taskActions(undefined)).toEqual({ review: false, assign: false, cancel: false })
  })

  it("offers an answer to an unanswered question of the person's, and allow or deny for an approval, never reassigning either", () => {
    const question = { status: 'ready', assignee: { kind: 'user' }, ask: { kind: 'question', question: 'Which name?', choices: ['Ada', 'Bea'] } }
    expect(taskActions(question)).toEqual({ review: false, assign: false, cancel: true, question: { text: 'Which name?', choices: ['Ada', 'Bea'] } })
    expect(taskActions({ ...question, ask: { ...question.ask, answer: { verdict: 'answered' } } }).question).toBeUndefined()
    const approval = {
      status: 'ready',
      assignee: { kind: 'user' },
      ask: { kind: 'approval', question: 'to publish', approval: { tool: 'bash', args: '{"command":"npm publish"}' } },
    }
    expect(taskActions(approval).approval).toEqual({ tool: 'bash', args: '{"command":"npm publish"}', why: 'to publish' })
  })
})
