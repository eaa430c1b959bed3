// The task record: history bounding (the last 50 entries kept, older ones counted), attempts
// bounding, the disk schema's limits, and the board's indexes.
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { reassign } from '../../../src/tasks/policy.ts'
import { type Attempt, TASK_LIMITS, appendAttempt, appendHistory, taskSchema } from '../../../src/tasks/record.ts'
import { BOTS, MAIN, at, claimAs, planOne, run, taskIn } from '../../support/task-builders.ts'

describe('history', () => {
  it('keeps the last 50 entries of a task and counts the older ones', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    for (let i = 0; i < 60; i++) run(board, reassign(board, id, { now: at(i), actor: MAIN, to: i % 2 ? 'bot-2' : 'bot-3', bots: BOTS }))
    const t = board.get(id)!
    expect(t.history).toHaveLength(50)
    expect(t.historyDropped).toBe(11)
    expect(t.history[0]).toMatchObject({ what: 'reassigned', at: at(10) })
    expect(t.history.at(-1)).toMatchObject({ what: 'reassigned', at: at(59) })
    expect(taskSchema.safeParse(t).success).toBe(true)
  })

  it('appendHistory is the one bounding: the entry goes last, the count only grows', () => {
    const entry = { at: at(), actor: MAIN, what: 'x', from: null, to: 'ready' as const }
    const full = { history: Array.from({ length: 50 }, () => entry), historyDropped: 7 }
    const next = appendHistory(full, { ...entry, what: 'y' })
    expect(next.history).toHaveLength(50)
    expect(next.history.at(-1)!.what).toBe('y')
    expect(next.historyDropped).toBe(8)
    expect(appendHistory({ history: [], historyDropped: 0 }, entry)).toEqual({ history: [entry], historyDropped: 0 })
  })
})

describe('attempts', () => {
  const a = (n: number, outcome: Attempt['outcome']): Attempt => ({ n, sessionId: 's', startedAt: at(), endedAt: at(), outcome, reason: null })
  it('at the limit the oldest withdrawn attempt makes room, so unsuccessful ones are never forgotten', () => {
    const attempts = [a(1, 'crash'), a(2, 'withdrawn'), ...Array.from({ length: TASK_LIMITS.attempts - 2 }, (_, i) => a(i + 3, 'withdrawn'))]
    const next = appendAttempt(attempts, a(99, null))
    expect(next).toHaveLength(TASK_LIMITS.attempts)
    expect(next.map((x) => x.n).slice(0, 3)).toEqual([1, 3, 4])
    expect(next.at(-1)!.n).toBe(99)
  })
})

describe('the disk schema', () => {
  it('accepts what the policy writes in every status and refuses records past its limits', () => {
    const board = new TaskBoard()
    for (const s of ['blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled'] as const)
      expect(taskSchema.safeParse(taskIn(board, s)).success).toBe(true)
    const t = board.get('task-1')!
    expect(taskSchema.safeParse({ ...t, title: 'x'.repeat(241) }).success).toBe(false)
    expect(taskSchema.safeParse({ ...t, id: 'task-0' }).success).toBe(false)
    expect(taskSchema.safeParse({ ...t, status: 'waiting' }).success).toBe(false)
    expect(taskSchema.safeParse({ ...t, history: Array.from({ length: 51 }, () => t.history[0]) }).success).toBe(false)
    expect(taskSchema.safeParse({ ...t, worktree: { project: 'p', branch: 'b', merge: 'pending' } }).success).toBe(true)
  })
})

describe('the board', () => {
  it('indexes dependents, open tasks per Bot, running tasks and the open count as tasks move', () => {
    const board = new TaskBoard()
    const a = planOne(board)
    const b = planOne(board, { blockedBy: [a], assignee: 'bot-3' })
    expect(board.dependents(a).map((t) => t.id)).toEqual([b])
    expect(board.openOf('bot-2').map((t) => t.id)).toEqual([a])
    expect(board.openCount).toBe(2)
    run(board, claimAs(board, a))
    expect(board.running('bot-2')?.id).toBe(a)
    expect(board.working().map((t) => t.id)).toEqual([a])
    run(board, reassign(board, a, { now: at(), actor: MAIN, to: 'bot-3', bots: BOTS }))
    expect(board.running('bot-2')).toBeUndefined()
    expect(board.openOf('bot-2')).toEqual([])
    expect(board.openOf('bot-3').map((t) => t.id)).toEqual([a, b])
    expect(board.nextId).toBe(3)
    expect(Object.isFrozen(board.get(a)!.history)).toBe(true)
  })
})
