// The task board's cards (pure): a card per task with its column, assignee, blockers, attempts and
// tokens; what waits for the person; the board's cut (every open task, then the newest closed).
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { plan } from '../../../src/tasks/policy.ts'
import type { Task } from '../../../src/tasks/record.ts'
import { waitsForPerson } from '../../../src/tasks/record.ts'
import { boardView, taskCard, waitingCount } from '../../../src/web/task-cards.ts'
import { at, BOTS, planOne, run, taskIn, USER } from '../../support/task-builders.ts'

describe('task cards', () => {
  it("puts each task in its status's column with its assignee, blockers, attempts and summed tokens", () => {
    const board = new TaskBoard()
    for (const s of ['blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled'] as const) {
      const task = taskIn(board, s)
      expect(taskCard(task).column).toBe(s)
    }
    const failed = [...board.all()].find((t) => t.status === 'failed')!
    expect(taskCard(failed)).toMatchObject({ attempts: 3, failed: 3 })
    const blocked = [...board.all()].find((t) => t.status === 'blocked')!
    const card = taskCard({ ...blocked, tokens: { input: 100, cached: 20, output: 3 } }, 'waits for task-1')
    expect(card).toMatchObject({ assignee: 'bot-2', creator: 'bot-1', blockedBy: blocked.blockedBy, tokens: 123, waitsFor: 'waits for task-1', waiting: false })
  })

  it("shows a worktree's branch, check and merge state (merged or conflict only), and puts a status without a column of its own in Blocked", () => {
    const board = new TaskBoard()
    const task = taskIn(board, 'working')
    expect(taskCard({ ...task, worktree: { branch: 'task/7', check: { ok: false, at: at() } } })).toMatchObject({ branch: 'task/7', check: 'failed' })
    expect(taskCard({ ...task, worktree: { branch: 'task/7', merge: 'conflict' } }).merge).toBe('conflict')
    expect(taskCard({ ...task, worktree: { branch: 'task/7', merge: 'merged' } }).merge).toBe('merged')
    expect(taskCard({ ...task, worktree: { branch: 'task/7', merge: 'none' } }).merge).toBeUndefined()
    expect(taskCard({ ...task, status: 'waiting' } as unknown as Task).column).toBe('blocked')
  })

  it('counts as waiting for the person a task assigned to them and a task in review they planned or review, never a closed one', () => {
    const board = new TaskBoard()
    const review = taskIn(board, 'review')
    expect(waitsForPerson(review)).toBe(false)
    const theirs: Task = { ...review, creator: USER }
    expect(waitsForPerson(theirs)).toBe(true)
    const inbox = { ...taskIn(board, 'ready'), assignee: { kind: 'user' } } as unknown as Task
    expect(taskCard(inbox)).toMatchObject({ column: 'inbox', assignee: 'user', waiting: true })
    expect(waitsForPerson({ ...inbox, status: 'done' })).toBe(false)
    expect(taskCard({ ...inbox, status: 'done' }).column).toBe('done')
    expect(waitingCount([review, theirs, inbox])).toBe(2)
    expect(waitsForPerson({ ...review, reviewer: 'user' } as unknown as Task)).toBe(true)
  })

  it('shows every open task and then the newest closed ones up to the limit, oldest first, and counts the rest', () => {
    const board = new TaskBoard()
    const r = run(
      board,
      plan(
        board,
        { tasks: Array.from({ length: 6 }, (_, i) => ({ title: `t${i}`, brief: 'b', assignee: 'bot-2' })) },
        { now: at(), creator: USER, chain: { hop: 0 }, bots: BOTS },
      ),
    )
    const closed = [...board.all()].slice(0, 4).map((t) => ({ ...t, status: 'done' as const }))
    for (const t of closed) board.put(t)
    planOne(board)
    const view = boardView(board.all(), () => undefined, 5)
    // open: task-5, task-6, task-7; closed newest first: task-4, task-3 fit; task-1, task-2 do not.
    expect(view.cards.map((c) => c.id)).toEqual(['task-3', 'task-4', 'task-5', 'task-6', 'task-7'])
    expect(view.hiddenClosed).toBe(2)
    expect(r.ids).toHaveLength(6)
  })
})
