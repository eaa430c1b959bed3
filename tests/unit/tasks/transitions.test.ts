// The task state machine: every transition tried on a task in every status (the table below is
// written out by hand, not read from the code), then each transition's own rules.
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import {
  type Result,
  addArtifacts,
  addTokens,
  attemptBrief,
  cancel,
  checkFailed,
  claim,
  endAttempt,
  expiredLeases,
  nextReady,
  plan,
  reassign,
  release,
  renew,
  review,
  submit,
  moveSession,
} from '../../../src/tasks/policy.ts'
import { TASK_STATUSES, assignedBot, type Task, type TaskStatus, intentSchema, taskSchema } from '../../../src/tasks/record.ts'
import { BOTS, LEASE, MAIN, USER, at, claimAs, planOne, run, taskIn } from '../../support/task-builders.ts'

const SYSTEM = { kind: 'system' } as const
const planCtx = { now: at(), creator: MAIN, chain: { hop: 0 }, bots: BOTS }
const holder = (t: Task) => t.lease?.sessionId ?? 'no-lease'

/** Each transition with valid input for `t` (the lease holder's Session where one is needed). */
const TRANSITIONS: Record<string, (b: TaskBoard, t: Task) => Result> = {
  claim: (b, t) => claim(b, t.id, { now: at(10), actor: SYSTEM, botId: assignedBot(t) ?? 'bot-3', sessionId: 's-new', leaseMs: LEASE }),
  renew: (b, t) => renew(b, t.id, { now: at(10), actor: SYSTEM, sessionId: holder(t), leaseMs: LEASE }),
  submit: (b, t) => submit(b, t.id, { now: at(10), actor: MAIN, sessionId: holder(t) }),
  accept: (b, t) => review(b, t.id, { now: at(10), actor: MAIN, verdict: 'accept' }),
  reject: (b, t) => review(b, t.id, { now: at(10), actor: MAIN, verdict: 'reject', reason: 'the tests fail' }),
  'end without submit': (b, t) => endAttempt(b, t.id, { now: at(10), actor: SYSTEM, outcome: 'ended-without-submit' }),
  crash: (b, t) => endAttempt(b, t.id, { now: at(10), actor: SYSTEM, outcome: 'crash' }),
  'lease expired': (b, t) => endAttempt(b, t.id, { now: at(LEASE + 10), actor: SYSTEM, outcome: 'lease-expired' }),
  'check failed': (b, t) => checkFailed(b, t.id, { now: at(10), actor: SYSTEM, sessionId: holder(t), reason: 'lint fails', leaseMs: LEASE }),
  cancel: (b, t) => cancel(b, t.id, { now: at(10), actor: MAIN, reason: 'not needed' }),
  reassign: (b, t) => reassign(b, t.id, { now: at(10), actor: MAIN, to: assignedBot(t) === 'bot-3' ? 'bot-1' : 'bot-3', bots: BOTS }),
  artifacts: (b, t) => addArtifacts(b, t.id, { now: at(10), actor: MAIN, artifacts: [{ kind: 'file', value: 'src/a.ts' }] }),
  tokens: (b, t) => addTokens(b, t.id, { now: at(10), tokens: { input: 10, cached: 5, output: 2 } }),
}

// The status each transition leads to from each status, in the order
//   blocked, ready, working, review, done, failed, cancelled;   '-' = refused.
const TABLE: Record<string, (TaskStatus | '-')[]> = {
  claim: ['-', 'working', '-', '-', '-', '-', '-'],
  renew: ['-', '-', 'working', '-', '-', '-', '-'],
  submit: ['-', '-', 'review', '-', '-', '-', '-'],
  accept: ['-', '-', '-', 'done', '-', '-', '-'],
  reject: ['-', '-', '-', 'ready', '-', '-', '-'],
  'end without submit': ['-', '-', 'ready', '-', '-', '-', '-'],
  crash: ['-', '-', 'ready', '-', '-', '-', '-'],
  'lease expired': ['-', '-', 'ready', '-', '-', '-', '-'],
  'check failed': ['-', '-', 'working', '-', '-', '-', '-'],
  cancel: ['cancelled', 'cancelled', 'cancelled', 'cancelled', '-', '-', '-'],
  reassign: ['blocked', 'ready', 'ready', '-', '-', '-', '-'],
  artifacts: ['blocked', 'ready', 'working', 'review', '-', '-', '-'],
  tokens: ['blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled'],
}

describe('status × transition', () => {
  for (const [name, row] of Object.entries(TABLE)) {
    TASK_STATUSES.forEach((status, column) => {
      const expected = row[column]!
      it(`${name} on a ${status} task ${expected === '-' ? 'is refused with a sentence and changes nothing' : `leads to ${expected}`}`, () => {
        const board = new TaskBoard()
        const task = taskIn(board, status)
        expect(task.status).toBe(status)
        const before = JSON.stringify([...board.all()])
        const result = TRANSITIONS[name]!(board, task)
        if (expected === '-') {
          expect(result.ok).toBe(false)
          expect(!result.ok && result.refusal).toMatch(/^[A-Z].*[.)]$/)
          expect(JSON.stringify([...board.all()])).toBe(before)
        } else {
          expect(result.ok, !result.ok ? result.refusal : '').toBe(true)
          const changed = result.ok ? result.changes.find((c) => c.task.id === task.id)! : undefined
          expect(changed?.task.status).toBe(expected)
          // what a transition produces always fits the disk schema
          for (const c of result.ok ? result.changes : []) expect(taskSchema.safeParse(c.task).success).toBe(true)
          // the board is untouched until the caller puts the result
          expect(JSON.stringify([...board.all()])).toBe(before)
        }
      })
    })
  }
})

describe('claim and the lease', () => {
  it('a claim starts attempt 1 with a lease for the Session and records its dispatch', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    const r = run(board, claimAs(board, id, at(0)))
    const t = r.changes[0]!.task
    expect(t).toMatchObject({ status: 'working', assignee: { kind: 'bot', botId: 'bot-2' }, sessionId: `s-${id}` })
    expect(t.lease).toEqual({ attempt: 1, sessionId: `s-${id}`, expiresAt: at(LEASE) })
    expect(t.attempts).toEqual([{ n: 1, sessionId: `s-${id}`, botId: 'bot-2', startedAt: at(0), endedAt: null, outcome: null, reason: null }])
    expect(r.intents).toEqual([{ kind: 'dispatch', taskId: id, attempt: 1, botId: 'bot-2', sessionId: `s-${id}` }])
    expect(r.changes[0]!.entry).toMatchObject({ what: 'claimed', from: 'ready', to: 'working', actor: SYSTEM })
  })

  it('a second claim of the same task loses: one attempt at a time, the refusal names the running attempt', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    const second = claimAs(board, id, at(1), 'bot-2', 's-other')
    expect(second).toEqual({ ok: false, refusal: expect.stringMatching(new RegExp(`${id} is already being worked on \\(attempt 1, by bot-2\\)`)) })
  })

  it('one running task per Bot: its next task waits until the running attempt ends, then nextReady names it', () => {
    const board = new TaskBoard()
    const a = planOne(board)
    const b = planOne(board)
    run(board, claimAs(board, a))
    expect(nextReady(board, 'bot-2')).toBeUndefined()
    const r = claimAs(board, b)
    expect(!r.ok && r.refusal).toBe(`bot-2 is already working on ${a}; ${b} waits until that attempt ends (one running task per Bot).`)
    run(board, submit(board, a, { now: at(1), actor: MAIN, sessionId: `s-${a}` }))
    expect(nextReady(board, 'bot-2')?.id).toBe(b)
    run(board, claimAs(board, b, at(2)))
  })

  it('an unassigned task is taken by the claiming Bot; one assigned to another Bot is refused', () => {
    const board = new TaskBoard()
    const free = planOne(board, { assignee: undefined })
    expect(run(board, claimAs(board, free, at(), 'bot-3')).changes[0]!.task.assignee).toEqual({ kind: 'bot', botId: 'bot-3' })
    const theirs = planOne(board)
    expect(claimAs(board, theirs, at(), 'bot-1')).toEqual({ ok: false, refusal: `Task ${theirs} is assigned to bot-2, not bot-1. Nothing changed.` })
  })

  it('a blocked task cannot be claimed, and the refusal says what it waits for', () => {
    const board = new TaskBoard()
    const a = planOne(board)
    const b = planOne(board, { blockedBy: [a], assignee: 'bot-3' })
    const r = claimAs(board, b, at(), 'bot-3')
    expect(!r.ok && r.refusal).toBe(`Task ${b} cannot start yet: it waits for ${a} (ready).`)
  })

  it('leases outside 1 s – 24 h are refused', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    for (const leaseMs of [0, 999, 24 * 3_600_000 + 1, 1.5]) {
      expect(claim(board, id, { now: at(), actor: SYSTEM, botId: 'bot-2', sessionId: 's', leaseMs }).ok).toBe(false)
    }
  })

  it('renew extends the lease for its holder only and adds no history entry; after expiry it is refused', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    const r = run(board, renew(board, id, { now: at(30_000), actor: SYSTEM, sessionId: `s-${id}`, leaseMs: LEASE }))
    expect(r.changes[0]).toMatchObject({ entry: null, task: { lease: { expiresAt: at(90_000) } } })
    expect(board.get(id)!.history).toHaveLength(2)
    expect(renew(board, id, { now: at(1), actor: SYSTEM, sessionId: 'intruder', leaseMs: LEASE }).ok).toBe(false)
    expect(renew(board, id, { now: at(90_000), actor: SYSTEM, sessionId: `s-${id}`, leaseMs: LEASE })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/ran out/),
    })
  })

  it('expiredLeases lists exactly the working tasks whose lease ran out', () => {
    const board = new TaskBoard()
    const a = planOne(board)
    const b = planOne(board, { assignee: 'bot-3' })
    run(board, claimAs(board, a, at(0)))
    run(board, claimAs(board, b, at(30_000), 'bot-3'))
    expect(expiredLeases(board, at(LEASE - 1)).map((t) => t.id)).toEqual([])
    expect(expiredLeases(board, at(LEASE)).map((t) => t.id)).toEqual([a])
    expect(expiredLeases(board, at(LEASE + 30_000)).map((t) => t.id)).toEqual([a, b])
  })
})

describe('a move of Session', () => {
  it('the running attempt follows its Bot to a new Session: the lease, the task and the attempt name it; only the lease holder moves', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id, at(0)))
    expect(moveSession(board, id, { now: at(1), from: 'elsewhere', to: 's-new' })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/Only the Session holding the lease/),
    })
    const r = run(board, moveSession(board, id, { now: at(1), from: `s-${id}`, to: 's-new' }))
    const t = r.changes[0]!.task
    expect(t).toMatchObject({ status: 'working', sessionId: 's-new', lease: { attempt: 1, sessionId: 's-new', expiresAt: at(LEASE) } })
    expect(t.attempts).toEqual([expect.objectContaining({ n: 1, sessionId: `s-${id}`, moved: ['s-new'] })])
    expect(r.changes[0]!.entry).toBeNull()
    expect(r.intents).toEqual([])
    // the new Session now holds the lease: it submits, the old one cannot
    expect(submit(board, id, { now: at(2), actor: MAIN, sessionId: `s-${id}` }).ok).toBe(false)
    expect(run(board, submit(board, id, { now: at(2), actor: MAIN, sessionId: 's-new' })).changes[0]!.task.status).toBe('review')
  })
})

describe('submit', () => {
  it('only the lease holder submits; the attempt is submitted with its artifacts and the task waits for review', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    const other = submit(board, id, { now: at(1), actor: MAIN, sessionId: 'bot-2-own-chat' })
    expect(!other.ok && other.refusal).toBe(
      `Only the Session holding the lease of task ${id} (attempt 1) may submit it; this Session does not hold it. Nothing changed.`,
    )
    const r = run(
      board,
      submit(board, id, { now: at(5), actor: { kind: 'bot', botId: 'bot-2' }, sessionId: `s-${id}`, artifacts: [{ kind: 'commit', value: 'abc1234' }] }),
    )
    const t = r.changes[0]!.task
    expect(t).toMatchObject({ status: 'review', lease: null, attempts: [{ n: 1, outcome: 'submitted', endedAt: at(5) }] })
    expect(t.artifacts).toEqual([{ kind: 'commit', value: 'abc1234', at: at(5), by: { kind: 'bot', botId: 'bot-2' } }])
    // the creator is told it waits for review (the outbox hands the notice over)
    expect(r.intents).toEqual([
      {
        kind: 'notify',
        taskId: id,
        to: MAIN,
        text: `Task ${id} "Write the parser" was submitted by bot-2 (attempt 1) and waits for your review: review_task with accept, or reject with a reason.`,
      },
    ])
  })

  it('a submit after the lease ran out is refused', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    expect(submit(board, id, { now: at(LEASE), actor: MAIN, sessionId: `s-${id}` })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/ran out at .*no longer be submitted/),
    })
  })

  it('bad artifacts refuse the whole submit and change nothing', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    const r = submit(board, id, { now: at(1), actor: MAIN, sessionId: `s-${id}`, artifacts: [{ kind: 'commit', value: 'not-a-sha' }] })
    expect(!r.ok && r.refusal).toBe('The artifacts were not accepted: 0.value: a commit is 7 to 64 hexadecimal digits. Nothing changed.')
  })
})

describe('review', () => {
  it('accepting makes the dependents whose blockers are all done ready, with the team as the actor', () => {
    const board = new TaskBoard()
    const a = planOne(board)
    const b = planOne(board, { assignee: 'bot-3' })
    const c = planOne(board, { blockedBy: [a], assignee: 'bot-1' })
    const d = planOne(board, { blockedBy: [a, b], assignee: 'bot-1' })
    run(board, claimAs(board, a))
    run(board, submit(board, a, { now: at(1), actor: MAIN, sessionId: `s-${a}` }))
    const r = run(board, review(board, a, { now: at(2), actor: MAIN, verdict: 'accept' }))
    expect(r.changes.map((x) => [x.task.id, x.task.status])).toEqual([
      [a, 'done'],
      [c, 'ready'],
    ])
    expect(r.changes[1]!.entry).toEqual({ at: at(2), actor: SYSTEM, what: 'unblocked', from: 'blocked', to: 'ready', reason: `${a} is done` })
    expect(board.get(d)!.status).toBe('blocked')
  })

  it('a rejection needs a reason; the attempt is rejected and the task ready for the next attempt', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    run(board, submit(board, id, { now: at(1), actor: MAIN, sessionId: `s-${id}` }))
    expect(review(board, id, { now: at(2), actor: MAIN, verdict: 'reject' })).toEqual({
      ok: false,
      refusal: 'A reason is required: say in a sentence why. Nothing changed.',
    })
    expect(review(board, id, { now: at(2), actor: MAIN, verdict: 'reject', reason: '   ' }).ok).toBe(false)
    const t = run(board, review(board, id, { now: at(2), actor: MAIN, verdict: 'reject', reason: 'no tests' })).changes[0]!.task
    expect(t).toMatchObject({ status: 'ready', attempts: [{ n: 1, outcome: 'rejected', reason: 'no tests' }] })
    expect(t.history.at(-1)).toMatchObject({ what: 'rejected', from: 'review', to: 'ready', reason: 'no tests' })
  })

  it('neither accept nor reject is refused', () => {
    const board = new TaskBoard()
    const t = taskIn(board, 'review')
    expect(review(board, t.id, { now: at(), actor: MAIN, verdict: 'maybe' as 'accept' }).ok).toBe(false)
  })
})

describe('attempts: three unsuccessful ones and the task fails', () => {
  for (const [label, fail] of [
    ['turns that end without a submit', (b: TaskBoard, id: string) => endAttempt(b, id, { now: at(10), actor: SYSTEM, outcome: 'ended-without-submit' })],
    ['crashes', (b: TaskBoard, id: string) => endAttempt(b, id, { now: at(10), actor: SYSTEM, outcome: 'crash' })],
    ['expired leases', (b: TaskBoard, id: string) => endAttempt(b, id, { now: at(LEASE), actor: SYSTEM, outcome: 'lease-expired' })],
    [
      'rejections',
      (b: TaskBoard, id: string) => {
        run(b, submit(b, id, { now: at(5), actor: MAIN, sessionId: `s-${id}` }))
        return review(b, id, { now: at(10), actor: MAIN, verdict: 'reject', reason: 'wrong output' })
      },
    ],
  ] as const) {
    it(`after 3 ${label} the task is failed and its creator is told, naming what it blocks`, () => {
      const board = new TaskBoard()
      const id = planOne(board)
      const dependent = planOne(board, { blockedBy: [id] })
      for (let i = 1; i <= 2; i++) {
        run(board, claimAs(board, id))
        expect(run(board, fail(board, id)).changes[0]!.task.status).toBe('ready')
      }
      run(board, claimAs(board, id))
      const r = run(board, fail(board, id))
      const t = r.changes[0]!.task
      expect(t.status).toBe('failed')
      expect(t.attempts.map((a) => a.n)).toEqual([1, 2, 3])
      expect(t.history.at(-1)).toMatchObject({ what: 'failed', to: 'failed' })
      expect(r.intents).toEqual([
        {
          kind: 'notify',
          taskId: id,
          to: MAIN,
          text: expect.stringMatching(
            new RegExp(
              `^Task ${id} "Write the parser" failed after 3 unsuccessful attempts\\. The last: .+\\. It blocks ${dependent}: cancel them, or plan the work again\\.$`,
            ),
          ),
        },
      ])
    })
  }

  it('a notice naming hundreds of blocked tasks is clipped to its limit and still a valid intent', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    for (let k = 0; k < 6; k++)
      run(board, plan(board, { tasks: Array.from({ length: 50 }, () => ({ title: 'Wait', brief: 'For it.', blockedBy: [id] })) }, planCtx))
    run(board, claimAs(board, id))
    run(board, checkFailed(board, id, { now: at(1), actor: SYSTEM, sessionId: `s-${id}`, reason: 'x'.repeat(500), leaseMs: LEASE }))
    run(board, checkFailed(board, id, { now: at(2), actor: SYSTEM, sessionId: `s-${id}`, reason: 'x'.repeat(500), leaseMs: LEASE }))
    const r = run(board, checkFailed(board, id, { now: at(3), actor: SYSTEM, sessionId: `s-${id}`, reason: 'x'.repeat(500), leaseMs: LEASE }))
    const notice = r.intents[0]!
    const text = notice.kind === 'notify' ? notice.text : ''
    expect([...text].length).toBeLessThanOrEqual(2000)
    expect(text).toMatch(
      /^Task task-1 "Write the parser" failed after 3 unsuccessful attempts\. The last: x+\. It blocks task-2, task-3, .*… \[\d+ more characters cut\]$/,
    )
    expect(intentSchema.safeParse({ ...notice, id: '1.0', at: at() }).success).toBe(true)
  })

  it('a lease cannot be reported expired before it runs out; a late report of an older attempt is refused', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    expect(endAttempt(board, id, { now: at(LEASE - 1), actor: SYSTEM, outcome: 'lease-expired' }).ok).toBe(false)
    run(board, endAttempt(board, id, { now: at(1), actor: SYSTEM, outcome: 'crash' }))
    run(board, claimAs(board, id, at(2)))
    expect(endAttempt(board, id, { now: at(3), actor: SYSTEM, outcome: 'ended-without-submit', attempt: 1 })).toEqual({
      ok: false,
      refusal: `Attempt 1 of ${id} is not the running one (attempt 2 is). Nothing changed.`,
    })
  })

  it('a failed check is working → working: the attempt ends check-failed and the next starts in the same Session with its dispatch', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    const r = run(board, checkFailed(board, id, { now: at(5), actor: SYSTEM, sessionId: `s-${id}`, reason: 'npm test fails', leaseMs: LEASE }))
    const t = r.changes[0]!.task
    expect(t.status).toBe('working')
    expect(t.attempts).toMatchObject([
      { n: 1, outcome: 'check-failed', reason: 'npm test fails' },
      { n: 2, outcome: null, sessionId: `s-${id}` },
    ])
    expect(t.lease).toEqual({ attempt: 2, sessionId: `s-${id}`, expiresAt: at(5 + LEASE) })
    expect(r.intents).toEqual([{ kind: 'dispatch', taskId: id, attempt: 2, botId: 'bot-2', sessionId: `s-${id}` }])
    expect(checkFailed(board, id, { now: at(6), actor: SYSTEM, sessionId: `s-${id}`, reason: '', leaseMs: LEASE }).ok).toBe(false)
    run(board, checkFailed(board, id, { now: at(6), actor: SYSTEM, sessionId: `s-${id}`, reason: 'still failing', leaseMs: LEASE }))
    const third = run(board, checkFailed(board, id, { now: at(7), actor: SYSTEM, sessionId: `s-${id}`, reason: 'third time', leaseMs: LEASE }))
    expect(third.changes[0]!.task.status).toBe('failed')
    expect(third.intents.map((i) => i.kind)).toEqual(['notify'])
  })

  it('the next attempt’s brief carries the earlier attempts and their reasons, and is the same text each time', () => {
    const board = new TaskBoard()
    const id = planOne(board, { acceptance: 'All tests pass.' })
    expect(attemptBrief(board.get(id)!)).toBe(
      `Task ${id}: Write the parser\n\nParse the config file.\n\nAcceptance criteria:\nAll tests pass.\n\nThis is attempt 1 of at most 3.`,
    )
    run(board, claimAs(board, id))
    run(board, endAttempt(board, id, { now: at(LEASE), actor: SYSTEM, outcome: 'lease-expired', reason: 'the lease ran out at 09:01' }))
    run(board, claimAs(board, id, at(LEASE + 1)))
    run(board, submit(board, id, { now: at(LEASE + 2), actor: MAIN, sessionId: `s-${id}` }))
    run(board, review(board, id, { now: at(LEASE + 3), actor: MAIN, verdict: 'reject', reason: 'misses the empty file case' }))
    const brief = attemptBrief(board.get(id)!)
    expect(brief.split('\n').slice(-4)).toEqual([
      'This is attempt 3 of at most 3.',
      'Earlier attempts:',
      '- attempt 1 (lease ran out): the lease ran out at 09:01',
      '- attempt 2 (rejected in review): misses the empty file case',
    ])
    expect(attemptBrief(board.get(id)!)).toBe(brief)
  })
})

describe('cancel, reassign, release', () => {
  it('cancelling a working task withdraws its attempt (not counted), stops its turn, and tells a creator who did not cancel', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    const dep = planOne(board, { blockedBy: [id] })
    run(board, claimAs(board, id))
    const r = run(board, cancel(board, id, { now: at(1), actor: USER, reason: 'changed my mind' }))
    expect(r.changes[0]!.task).toMatchObject({ status: 'cancelled', lease: null, attempts: [{ outcome: 'withdrawn' }] })
    expect(r.intents).toEqual([
      { kind: 'stop', taskId: id, sessionId: `s-${id}`, reason: 'the task was cancelled: changed my mind' },
      {
        kind: 'notify',
        taskId: id,
        to: MAIN,
        text: `Task ${id} "Write the parser" was cancelled: changed my mind. It blocked ${dep}, which cannot start now.`,
      },
    ])
    // the creator cancelling tells nobody
    const other = planOne(board)
    expect(run(board, cancel(board, other, { now: at(1), actor: MAIN })).intents).toEqual([])
  })

  it('reassigning a working task returns it ready for the new Bot; to the same Bot or an unknown one is refused', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    run(board, claimAs(board, id))
    expect(reassign(board, id, { now: at(1), actor: MAIN, to: 'bot-2', bots: BOTS })).toEqual({
      ok: false,
      refusal: `Task ${id} is already assigned to bot-2. Nothing changed.`,
    })
    expect(reassign(board, id, { now: at(1), actor: MAIN, to: 'bot-9', bots: BOTS })).toEqual({
      ok: false,
      refusal: '"bot-9" is not a Bot of the team. Nothing changed.',
    })
    const r = run(board, reassign(board, id, { now: at(1), actor: MAIN, to: 'bot-3', bots: BOTS, reason: 'bot-2 is busy' }))
    expect(r.changes[0]!.task).toMatchObject({ status: 'ready', assignee: { botId: 'bot-3' }, lease: null })
    expect(r.changes[0]!.entry).toMatchObject({ what: 'reassigned', from: 'working', to: 'ready', reason: 'to bot-3: bot-2 is busy' })
    expect(r.intents.map((i) => i.kind)).toEqual(['stop'])
    const t = run(board, reassign(board, id, { now: at(2), actor: MAIN, to: null, bots: BOTS })).changes[0]!.task
    expect(t.assignee).toBeNull()
  })

  it('release (a Bot deleted) unassigns each open task of that Bot, keeps review in review, and tells each creator', () => {
    const board = new TaskBoard()
    const working = planOne(board)
    const ready = planOne(board)
    run(board, claimAs(board, working))
    const other = planOne(board, { assignee: 'bot-3' })
    const r = run(board, release(board, 'bot-2', { now: at(1), actor: USER }))
    expect(r.changes.map((c) => [c.task.id, c.task.status, c.task.assignee])).toEqual([
      [working, 'ready', null],
      [ready, 'ready', null],
    ])
    expect(r.intents.map((i) => `${i.kind}:${i.taskId}`)).toEqual([`stop:${working}`, `notify:${working}`, `notify:${ready}`])
    expect(board.get(other)!.assignee).toEqual({ kind: 'bot', botId: 'bot-3' })
    expect(run(board, release(board, 'bot-2', { now: at(2), actor: USER })).changes).toEqual([])
  })

  it('withdrawn attempts do not count towards the three', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    for (let i = 0; i < 5; i++) {
      run(board, claimAs(board, id, at(i), i % 2 ? 'bot-3' : 'bot-2'))
      run(board, reassign(board, id, { now: at(i), actor: MAIN, to: i % 2 ? 'bot-2' : 'bot-3', bots: BOTS }))
    }
    expect(board.get(id)!.status).toBe('ready')
    expect(board.get(id)!.attempts.every((a) => a.outcome === 'withdrawn')).toBe(true)
  })
})

describe('artifacts and tokens', () => {
  it('each artifact kind is checked; at most 50 per task', () => {
    const board = new TaskBoard()
    const id = planOne(board)
    const ok = [
      { kind: 'file', value: 'src/tasks/policy.ts' },
      { kind: 'commit', value: 'deadbeefcafe' },
      { kind: 'branch', value: 'h/tasks' },
      { kind: 'link', value: 'https://example.com/pr/1', label: 'the PR' },
      { kind: 'note', value: 'Two lines\nof note.' },
    ]
    run(board, addArtifacts(board, id, { now: at(), actor: MAIN, artifacts: ok }))
    expect(board.get(id)!.artifacts.map((a) => a.kind)).toEqual(['file', 'commit', 'branch', 'link', 'note'])
    const bad: [unknown, RegExp][] = [
      [{ kind: 'link', value: 'javascript:alert(1)' }, /http:\/\/ or https:\/\//],
      [{ kind: 'branch', value: 'has space' }, /branch name/],
      [{ kind: 'file', value: 'a\nb' }, /one line/],
      [{ kind: 'note', value: 'x'.repeat(2001) }, /at most 2000 characters \(it has 2001\)/],
      [{ kind: 'tarball', value: 'x' }, /kind/],
      [{ kind: 'file', value: 'a', extra: 1 }, /extra: is not a field here/],
    ]
    for (const [a, message] of bad) {
      const r = addArtifacts(board, id, { now: at(), actor: MAIN, artifacts: [a] })
      expect(!r.ok && r.refusal).toMatch(message)
    }
    run(board, addArtifacts(board, id, { now: at(), actor: MAIN, artifacts: Array.from({ length: 45 }, (_, i) => ({ kind: 'file', value: `f${i}` })) }))
    expect(addArtifacts(board, id, { now: at(), actor: MAIN, artifacts: [{ kind: 'file', value: 'one-too-many' }] })).toEqual({
      ok: false,
      refusal: `A task keeps at most 50 artifacts; ${id} has 50 and 1 more were given. Nothing changed.`,
    })
  })

  it('tokens add up in any status; negative or fractional counts are refused', () => {
    const board = new TaskBoard()
    const t = taskIn(board, 'done')
    run(board, addTokens(board, t.id, { now: at(), tokens: { input: 100, cached: 60, output: 20 } }))
    run(board, addTokens(board, t.id, { now: at(), tokens: { input: 1, cached: 0, output: 2 } }))
    expect(board.get(t.id)!.tokens).toEqual({ input: 101, cached: 60, output: 22 })
    expect(addTokens(board, t.id, { now: at(), tokens: { input: -1, cached: 0, output: 0 } }).ok).toBe(false)
    expect(addTokens(board, t.id, { now: at(), tokens: { input: 1.5, cached: 0, output: 0 } }).ok).toBe(false)
  })

  it('an unknown task id is refused by every transition, naming it', () => {
    const board = new TaskBoard()
    planOne(board)
    const ghost = { id: 'task-99' } as Task
    for (const [name, fn] of Object.entries(TRANSITIONS)) {
      const r = fn(board, ghost)
      expect(r, name).toEqual({ ok: false, refusal: 'No task "task-99" exists. list_tasks shows the team\'s tasks.' })
    }
  })
})
