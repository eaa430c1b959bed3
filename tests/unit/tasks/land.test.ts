// Merging with no review: a project task planned with `review: false` and a check is merged by its
// passing check (`land`), tried on a task in every status; who may ask for it in a plan.
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { type Result, cancel, claim, endAttempt, land, plan, submit } from '../../../src/tasks/policy.ts'
import { TASK_STATUSES, type Creator, type Task, type TaskStatus, taskSchema } from '../../../src/tasks/record.ts'
import { BOTS, LEASE, MAIN, USER, at, run } from '../../support/task-builders.ts'

const SYSTEM = { kind: 'system' } as const
const PROJECT = '/src/app'
const noReview = { project: true, check: 'npm test', review: false }

function planIn(board: TaskBoard, tasks: Record<string, unknown>[], creator: Creator = MAIN): Result & { ids?: string[] } {
  return plan(board, { tasks }, { now: at(), creator, chain: { hop: 1, mode: 'workspace-write' }, bots: BOTS, project: PROJECT })
}

function planNoReview(board: TaskBoard, fields: Record<string, unknown> = {}, creator: Creator = MAIN): string {
  const r = run(board, planIn(board, [{ title: 'Add the parser', brief: 'Parse it.', assignee: 'bot-2', ...noReview, ...fields }], creator))
  return (r as { ids: string[] }).ids[0]!
}

const landAs = (board: TaskBoard, id: string, extra: { conflict?: string; now?: string; sessionId?: string } = {}) =>
  land(board, id, { now: extra.now ?? at(5), actor: SYSTEM, sessionId: extra.sessionId ?? `s-${id}`, ...(extra.conflict ? { conflict: extra.conflict } : {}) })

/** A no-review project task of its own, brought to `status` through the policy's transitions. */
function noReviewIn(board: TaskBoard, status: TaskStatus): Task {
  if (status === 'blocked') {
    const blocker = planNoReview(board, { assignee: 'bot-3' })
    return board.get(planNoReview(board, { blockedBy: [blocker] }))!
  }
  const id = planNoReview(board)
  if (status === 'ready') return board.get(id)!
  if (status === 'cancelled') return run(board, cancel(board, id, { now: at(), actor: MAIN })).changes[0]!.task
  const claimed = () => run(board, claim(board, id, { now: at(), actor: SYSTEM, botId: 'bot-2', sessionId: `s-${id}`, leaseMs: LEASE }))
  if (status === 'failed') {
    for (let i = 0; i < 3; i++) {
      claimed()
      run(board, endAttempt(board, id, { now: at(1), actor: SYSTEM, outcome: 'crash' }))
    }
    return board.get(id)!
  }
  claimed()
  if (status === 'working') return board.get(id)!
  if (status === 'review') return run(board, submit(board, id, { now: at(1), actor: SYSTEM, sessionId: `s-${id}` })).changes[0]!.task
  return run(board, landAs(board, id)).changes[0]!.task
}

describe('land (merged with no review) × status', () => {
  TASK_STATUSES.forEach((status) => {
    const expected = status === 'working' ? 'done' : '-'
    it(`land on a ${status} no-review task ${expected === '-' ? 'is refused with a sentence and changes nothing' : 'leads to done'}`, () => {
      const board = new TaskBoard()
      const task = noReviewIn(board, status)
      expect(task.status).toBe(status)
      const before = JSON.stringify([...board.all()])
      const r = landAs(board, task.id)
      if (expected === '-') {
        expect(r.ok).toBe(false)
        expect(!r.ok && r.refusal).toMatch(/^[A-Z].*[.)]$/)
      } else {
        expect(r.ok, !r.ok ? r.refusal : '').toBe(true)
        const changed = r.ok ? r.changes.find((c) => c.task.id === task.id)!.task : undefined
        expect(changed?.status).toBe('done')
        for (const c of r.ok ? r.changes : []) expect(taskSchema.safeParse(c.task).success).toBe(true)
      }
      expect(JSON.stringify([...board.all()])).toBe(before)
    })
  })
})

describe('land', () => {
  it('a passing check with no review asked: done, the attempt submitted, its dependents ready, a Bot creator told', () => {
    const board = new TaskBoard()
    const a = planNoReview(board)
    const dependent = planNoReview(board, { assignee: 'bot-3', blockedBy: [a] })
    run(board, claim(board, a, { now: at(), actor: SYSTEM, botId: 'bot-2', sessionId: `s-${a}`, leaseMs: LEASE }))
    const r = run(board, landAs(board, a))
    const done = r.changes.find((c) => c.task.id === a)!
    expect(done.task).toMatchObject({ status: 'done', lease: null, attempts: [{ n: 1, outcome: 'submitted' }] })
    expect(done.entry).toMatchObject({ what: 'merged', from: 'working', to: 'done' })
    expect(r.changes.find((c) => c.task.id === dependent)!.task.status).toBe('ready')
    expect(r.intents).toEqual([{ kind: 'notify', taskId: a, to: MAIN, text: expect.stringMatching(/passed its check and was merged \(no review asked\)/) }])
  })

  it('a person’s no-review task that lands tells nobody (the board shows it done)', () => {
    const board = new TaskBoard()
    const a = planNoReview(board, {}, USER)
    run(board, claim(board, a, { now: at(), actor: SYSTEM, botId: 'bot-2', sessionId: `s-${a}`, leaseMs: LEASE }))
    expect(run(board, landAs(board, a)).intents).toEqual([])
  })

  it('a conflict sends it back to its assignee as a rejected attempt with the reason; the third unsuccessful attempt fails it', () => {
    const board = new TaskBoard()
    const a = planNoReview(board)
    const claimNext = () => run(board, claim(board, a, { now: at(), actor: SYSTEM, botId: 'bot-2', sessionId: `s-${a}`, leaseMs: LEASE }))
    claimNext()
    const first = run(board, landAs(board, a, { conflict: 'Merging conflicts in src/a.txt.' })).changes[0]!.task
    expect(first).toMatchObject({
      status: 'ready',
      assignee: { kind: 'bot', botId: 'bot-2' },
      attempts: [{ n: 1, outcome: 'rejected', reason: 'Merging conflicts in src/a.txt.' }],
    })
    claimNext()
    run(board, landAs(board, a, { conflict: 'again' }))
    claimNext()
    const third = run(board, landAs(board, a, { conflict: 'and again' }))
    expect(third.changes[0]!.task.status).toBe('failed')
    expect(third.intents.map((i) => i.kind)).toEqual(['notify'])
  })

  it('is refused for a task that waits for a review, from a Session not holding the lease, and after the lease ran out', () => {
    const board = new TaskBoard()
    const reviewed = run(board, planIn(board, [{ title: 'Reviewed', brief: 'b', assignee: 'bot-2', project: true, check: 'npm test' }])) as { ids: string[] }
    const id = reviewed.ids[0]!
    run(board, claim(board, id, { now: at(), actor: SYSTEM, botId: 'bot-2', sessionId: `s-${id}`, leaseMs: LEASE }))
    expect(landAs(board, id)).toEqual({ ok: false, refusal: `${id} waits for a review; it is submitted, not merged on its own. Nothing changed.` })
    const b = planNoReview(board, { assignee: 'bot-3' })
    run(board, claim(board, b, { now: at(), actor: SYSTEM, botId: 'bot-3', sessionId: `s-${b}`, leaseMs: LEASE }))
    expect(landAs(board, b, { sessionId: 's-other' }).ok).toBe(false)
    expect(landAs(board, b, { now: at(LEASE + 1) })).toEqual({ ok: false, refusal: expect.stringMatching(/ran out .*; it can no longer be merged\.$/) })
  })

  it('is refused for an attempt run by the Bot that planned the task: its own work waits for a review', () => {
    const board = new TaskBoard()
    const r = run(board, planIn(board, [{ title: 'Mine', brief: 'b', ...noReview }])) as { ids: string[] }
    const id = r.ids[0]!
    run(board, claim(board, id, { now: at(), actor: SYSTEM, botId: MAIN.botId, sessionId: `s-${id}`, leaseMs: LEASE }))
    expect(landAs(board, id)).toEqual({ ok: false, refusal: `${id} waits for a review; it is submitted, not merged on its own. Nothing changed.` })
    expect(board.get(id)!.status).toBe('working')
  })
})

describe('asking for no review in a plan', () => {
  it('the person and a Bot may ask it for a project task with a check; it is recorded on the task', () => {
    for (const creator of [USER, MAIN] as Creator[]) {
      const board = new TaskBoard()
      const id = planNoReview(board, {}, creator)
      expect(board.get(id)!.worktree).toEqual({ project: PROJECT, command: 'npm test', review: false, merge: 'none' })
    }
  })

  it('is refused whole, naming the task, without a check, outside a project, when the user reviews it, assigned to the planning Bot, and for any value but false', () => {
    const refusal = (fields: Record<string, unknown>, creator: Creator = MAIN) => {
      const board = new TaskBoard()
      const r = planIn(board, [{ key: 'a', title: 'A', brief: 'b', ...fields }], creator)
      expect(board.size).toBe(0)
      return r.ok ? 'accepted' : r.refusal
    }
    expect(refusal({ project: true, review: false })).toMatch(/'a' asks for no review but has no check to stand for it/)
    expect(refusal({ project: true, review: false }, USER)).toMatch(/'a' asks for no review but has no check/)
    expect(refusal({ review: false })).toMatch(/'a' asks for no review but has no check/)
    expect(refusal({ ...noReview, reviewer: 'user' })).toMatch(/'a' asks for no review but says the user reviews it/)
    expect(refusal({ ...noReview, acceptance: 'The user reviews the diff.' })).toMatch(/says the user reviews it/)
    expect(refusal({ ...noReview, assignee: MAIN.botId })).toMatch(/'a' asks for no review but is assigned to the Bot planning it/)
    expect(refusal({ ...noReview, assignee: 'bot-2' })).toBe('accepted')
    expect(refusal({ ...noReview, review: true })).toMatch(/review.*is false \(a passing check merges it\) or absent/)
  })
})
