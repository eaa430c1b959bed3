// What a restored ledger carries (pure): an open task's records that name a path — its branch, its
// project — are kept only when they are the task's own; every open task's next attempt opens a new
// Session; a task with nothing of the kind is left as it is.
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { intentDraftSchema, TASK_LIMITS, taskSchema } from '../../../src/tasks/record.ts'
import { ask } from '../../../src/tasks/asks.ts'
import { carryNoDecisions } from '../../../src/tasks/restored.ts'
import { at, claimAs, planOne, run } from '../../support/task-builders.ts'

describe('carryNoDecisions', () => {
  it("keeps a branch only when it is the task's own and an absolute, normal project path; clears every open task's Session", () => {
    const board = new TaskBoard()
    const own = planOne(board)
    const other = planOne(board)
    const relative = planOne(board)
    const plain = planOne(board)
    // Records as an archive may hold them (any the schema takes), written by hand.
    const wt = (id: string, worktree: object) => board.put({ ...board.get(id)!, worktree })
    wt(own, { project: '/src/p', branch: `team/${own}-write-the-parser` })
    wt(other, { project: '/src/p', branch: 'main' })
    wt(relative, { project: '/src/p/../../etc', branch: `team/${own}-write-the-parser` })
    run(board, claimAs(board, own))
    const r = carryNoDecisions(board, [], { now: at(1) })
    run(board, r)
    expect(board.get(own)!.worktree).toMatchObject({ project: '/src/p', branch: `team/${own}-write-the-parser` })
    expect(board.get(own)).toMatchObject({ status: 'ready', sessionId: null, lease: null, attempts: [{ outcome: 'withdrawn' }] })
    expect(board.get(other)!.worktree).toEqual({ project: '/src/p' })
    expect(board.get(relative)!.worktree).toEqual({})
    expect(r.changes.map((c) => c.task.id)).not.toContain(plain)
    for (const c of r.changes) expect(taskSchema.safeParse(c.task).success).toBe(true)
    expect(r.said).toEqual([
      `${own}: its attempt 1 was withdrawn; it starts again in a new Session`,
      `${other}: a branch or project path that is not the task's own was dropped`,
      `${relative}: a branch or project path that is not the task's own was dropped`,
    ])
  })
  it('keeps no clone folder a task record names as kept (open or closed): it lies on the machine the archive came from', () => {
    const board = new TaskBoard()
    const open = planOne(board)
    const closed = planOne(board)
    const kept = { dir: '/home/old/worktrees/clones/task-1', why: 'no sandbox' }
    board.put({ ...board.get(open)!, worktree: { project: '/src/p', kept } })
    board.put({ ...board.get(closed)!, status: 'cancelled', worktree: { project: '/src/p', kept } })
    const r = carryNoDecisions(board, [], { now: at(1) })
    run(board, r)
    expect(board.get(open)!.worktree).toEqual({ project: '/src/p' })
    expect(board.get(closed)!.worktree).toEqual({ project: '/src/p' })
    expect(board.get(closed)!.status).toBe('cancelled')
    for (const c of r.changes) expect(taskSchema.safeParse(c.task).success).toBe(true)
  })
})

describe('carryNoDecisions: what the Bots are told', () => {
  it("tells each asking Bot once, within a notice's length, however many of its asks an archive holds", () => {
    const board = new TaskBoard()
    // An archive may hold far more than a Bot may ask (5): copies of one question, written by hand.
    const ctx = { now: at(), botId: 'bot-2', sessionId: 's-1', chain: { hop: 1 } }
    const { id } = run(board, ask(board, { question: 'Question long enough to fill a good part of a line?' }, ctx))
    for (let i = 2; i <= 300; i++) board.put({ ...board.get(id)!, id: `task-${i}` })
    run(board, ask(board, { question: 'Bob asks' }, { now: at(), botId: 'bot-3', sessionId: 's-bob', chain: { hop: 1 } }))
    const r = carryNoDecisions(board, [], { now: at(1) })
    expect(r.intents.map((i) => [i.kind, (i as { botId: string }).botId])).toEqual([
      ['tell', 'bot-2'],
      ['tell', 'bot-3'],
    ])
    const ada = (r.intents[0] as { text: string }).text
    expect([...ada].length).toBeLessThanOrEqual(TASK_LIMITS.notice)
    expect(ada).toMatch(/; and \d+ more\. Ask again/)
    expect(r.changes).toHaveLength(301)
    for (const i of r.intents) expect(intentDraftSchema.safeParse(i).success).toBe(true)
  })
})
