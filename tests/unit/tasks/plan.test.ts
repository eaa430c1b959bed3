// plan_tasks' validator: dependencies inside a plan and on existing tasks, cycles, unknown ids,
// self-dependencies, the limits, and readiness of what it creates.
import { describe, expect, it } from 'vitest'
import { TaskBoard } from '../../../src/tasks/board.ts'
import { type PlanContext, cancel, plan, readiness } from '../../../src/tasks/policy.ts'
import { BOTS, MAIN, USER, at, planOne, run, taskIn } from '../../support/task-builders.ts'

const ctx: PlanContext = { now: at(), creator: MAIN, chain: { hop: 2, budget: 'budget:s-1#3', mode: 'read-only' }, bots: BOTS }
const t = (key: string | undefined, blockedBy: string[] = [], extra: Record<string, unknown> = {}) => ({
  ...(key ? { key } : {}),
  title: `Do ${key ?? 'it'}`,
  brief: 'A brief that says everything needed.',
  blockedBy,
  ...extra,
})
const refusal = (board: TaskBoard, tasks: unknown[], c: PlanContext = ctx) => {
  const r = plan(board, { tasks }, c)
  if (r.ok) throw new Error('the plan was accepted')
  return r.refusal
}

describe('a plan with dependencies', () => {
  it('creates every task in one result with sequential ids, local keys resolved, roots ready and the rest blocked', () => {
    const board = new TaskBoard()
    const r = run(board, plan(board, { tasks: [t('design'), t('build', ['design']), t('test', ['build', 'design']), t(undefined)] }, ctx))
    expect(r.ids).toEqual(['task-1', 'task-2', 'task-3', 'task-4'])
    expect(r.changes.map((c) => [c.task.id, c.task.status, c.task.blockedBy])).toEqual([
      ['task-1', 'ready', []],
      ['task-2', 'blocked', ['task-1']],
      ['task-3', 'blocked', ['task-2', 'task-1']],
      ['task-4', 'ready', []],
    ])
    expect(r.intents).toEqual([])
    const first = r.changes[0]!
    expect(first.entry).toEqual({ at: at(), actor: MAIN, what: 'created', from: null, to: 'ready' })
    expect(first.task).toMatchObject({
      creator: MAIN,
      assignee: null,
      chain: { hop: 2, budget: 'budget:s-1#3', mode: 'read-only' },
      tokens: { input: 0, cached: 0, output: 0 },
    })
    // the next plan continues the numbering
    expect(run(board, plan(board, { tasks: [t('more')] }, ctx)).ids).toEqual(['task-5'])
  })

  it('a task blocked by an existing done task is ready; by an open one, blocked; duplicate blockers count once', () => {
    const board = new TaskBoard()
    const done = taskIn(board, 'done')
    const open = planOne(board)
    const r = run(board, plan(board, { tasks: [t('a', [done.id]), t('b', [open, open, done.id])] }, ctx))
    expect(r.changes.map((c) => [c.task.status, c.task.blockedBy])).toEqual([
      ['ready', [done.id]],
      ['blocked', [open, done.id]],
    ])
  })

  it('the person as creator is recorded as such', () => {
    const board = new TaskBoard()
    const r = run(board, plan(board, { tasks: [t('a')] }, { ...ctx, creator: USER, chain: { hop: 0 } }))
    expect(r.changes[0]!.task).toMatchObject({ creator: { kind: 'user' }, chain: { hop: 0 } })
    expect(r.changes[0]!.task.chain).toEqual({ hop: 0 })
  })
})

describe('cycles', () => {
  const cases: [string, unknown[], string][] = [
    ['two tasks waiting for each other', [t('a', ['b']), t('b', ['a'])], "'a' → 'b' → 'a'"],
    ['a ring of three', [t('a', ['c']), t('b', ['a']), t('c', ['b'])], "'a' → 'c' → 'b' → 'a'"],
    ['a ring behind a root', [t('root'), t('x', ['root', 'z']), t('y', ['x']), t('z', ['y'])], "'x' → 'z' → 'y' → 'x'"],
    ['a ring beside a clean chain', [t('p'), t('q', ['p']), t('m', ['n']), t('n', ['m'])], "'m' → 'n' → 'm'"],
  ]
  for (const [name, tasks, path] of cases) {
    it(`${name} is refused, naming the cycle`, () => {
      const board = new TaskBoard()
      expect(refusal(board, tasks)).toBe(`The plan has a cycle: ${path}. A task cannot wait for itself. Nothing was created.`)
      expect(board.size).toBe(0)
    })
  }

  it('a diamond (two paths to one task) is not a cycle', () => {
    const board = new TaskBoard()
    expect(plan(board, { tasks: [t('a'), t('b', ['a']), t('c', ['a']), t('d', ['b', 'c'])] }, ctx).ok).toBe(true)
  })

  it('a long chain of 50 is accepted, and closing it into a ring is refused', () => {
    const board = new TaskBoard()
    const chain = Array.from({ length: 50 }, (_, i) => t(`k${i}`, i ? [`k${i - 1}`] : []))
    expect(plan(board, { tasks: chain }, ctx).ok).toBe(true)
    const ring = chain.map((x, i) => (i === 0 ? { ...x, blockedBy: ['k49'] } : x))
    expect(refusal(board, ring)).toMatch(/^The plan has a cycle: 'k0' → 'k49' → 'k48' → .* → 'k1' → 'k0'\./)
  })
})

describe('unknown ids, self-dependencies, keys and assignees', () => {
  it('every offender is named at once', () => {
    const board = new TaskBoard()
    planOne(board)
    const text = refusal(board, [t('a', ['a']), t('b', ['task-1', 'task-99', 'nope']), t(undefined, ['ghost']), t('c', [], { assignee: 'bot-404' })])
    expect(text).toBe(
      "The plan was not accepted: 'a' is blocked by itself; 'b' is blocked by \"task-99\", which is neither a key of this plan nor an existing task; " +
        '\'b\' is blocked by "nope", which is neither a key of this plan nor an existing task; task #3 is blocked by "ghost", which is neither a key of this plan nor an existing task; ' +
        '\'c\' is assigned to "bot-404", which is not a Bot of the team. Nothing was created.',
    )
    expect(board.size).toBe(1)
  })

  it('a key used twice, or shaped like a task id, is refused', () => {
    const board = new TaskBoard()
    expect(refusal(board, [t('a'), t('a')])).toBe("The plan was not accepted: the key 'a' is used twice (tasks #1 and #2). Nothing was created.")
    expect(refusal(board, [t('task-7')])).toBe('The plan was not accepted: tasks.0.key: looks like a task id; pick another key. Nothing was created.')
  })

  it('an existing blocker that failed or was cancelled is refused: the task could never start', () => {
    const board = new TaskBoard()
    const failed = taskIn(board, 'failed')
    const cancelled = taskIn(board, 'cancelled')
    expect(refusal(board, [t('a', [failed.id]), t('b', [cancelled.id])])).toBe(
      `The plan was not accepted: 'a' is blocked by ${failed.id}, which has failed and will never be done; 'b' is blocked by ${cancelled.id}, which was cancelled and will never be done. Nothing was created.`,
    )
  })
})

describe('limits', () => {
  it('at most 50 tasks per plan: 50 is accepted, 51 refused before anything is read', () => {
    const board = new TaskBoard()
    expect(plan(board, { tasks: Array.from({ length: 50 }, () => t(undefined)) }, ctx).ok).toBe(true)
    expect(
      refusal(
        board,
        Array.from({ length: 51 }, () => ({ junk: true })),
      ),
    ).toBe('A plan holds at most 50 tasks; this one has 51. Split it into smaller plans. Nothing was created.')
  })

  it('at most 500 open tasks in the team; closed tasks do not count', () => {
    const board = new TaskBoard()
    for (let i = 0; i < 10; i++) run(board, plan(board, { tasks: Array.from({ length: 50 }, () => t(undefined)) }, ctx))
    expect(board.openCount).toBe(500)
    expect(refusal(board, [t('one-more')])).toBe(
      'The team has 500 open tasks and at most 500 may be open; this plan adds 1. Finish or cancel tasks first. Nothing was created.',
    )
    run(board, cancel(board, 'task-1', { now: at(), actor: MAIN }))
    expect(plan(board, { tasks: [t('one-more')] }, ctx).ok).toBe(true)
    expect(refusal(board, [t('x'), t('y')], { ...ctx, rules: { maxAttempts: 3, perPlan: 50, openTasks: 500 } })).toMatch(/^The team has 499 open tasks/)
  })

  it('field limits count characters (code points), with the field named', () => {
    const board = new TaskBoard()
    run(board, plan(board, { tasks: [t('a', [], { title: '字'.repeat(120), brief: '字'.repeat(8000), acceptance: '字'.repeat(2000) })] }, ctx))
    expect(refusal(board, [t('a', [], { title: '字'.repeat(121) })])).toBe(
      'The plan was not accepted: tasks.0.title: must be at most 120 characters (it has 121). Nothing was created.',
    )
    expect(refusal(board, [t('a', [], { brief: 'x'.repeat(8001) })])).toMatch(/tasks\.0\.brief: must be at most 8000 characters \(it has 8001\)/)
    expect(refusal(board, [t('a', [], { acceptance: 'x'.repeat(2001) })])).toMatch(/tasks\.0\.acceptance: must be at most 2000 characters/)
    expect(refusal(board, [t('a', [], { title: '  ' })])).toMatch(/tasks\.0\.title: must not be empty/)
    expect(refusal(board, [t('a', [], { title: 'two\nlines' })])).toMatch(/tasks\.0\.title: must be one line/)
    expect(refusal(board, [t('a', [], { owner: 'me' })])).toMatch(/tasks\.0\.owner: is not a field here/)
    expect(
      refusal(board, [
        t(
          'a',
          Array.from({ length: 51 }, (_, i) => `x${i}`),
        ),
      ]),
    ).toMatch(/tasks\.0\.blockedBy: at most 50 blockers per task/)
    expect(refusal(board, [])).toMatch(/tasks: a plan needs at least one task/)
    expect(plan(board, 'not a plan', ctx)).toEqual({
      ok: false,
      refusal: 'The plan was not accepted: plan: Invalid input: expected object, received string. Nothing was created.',
    })
    expect(board.size).toBe(1)
  })
})

describe('readiness', () => {
  it('names the blockers it waits for, and those that will never be done with what to do', () => {
    const board = new TaskBoard()
    const open = planOne(board)
    const failed = taskIn(board, 'failed')
    const cancelled = taskIn(board, 'cancelled')
    const done = taskIn(board, 'done')
    expect(readiness({ blockedBy: [done.id] }, board)).toEqual({ ready: true })
    expect(readiness({ blockedBy: [] }, board)).toEqual({ ready: true })
    expect(readiness({ blockedBy: [open, done.id] }, board)).toEqual({ ready: false, waitingOn: [open], stuckOn: [], reason: `waits for ${open} (ready)` })
    expect(readiness({ blockedBy: [failed.id, cancelled.id, open] }, board)).toEqual({
      ready: false,
      waitingOn: [open],
      stuckOn: [failed.id, cancelled.id],
      reason: `blocked by ${failed.id} (failed), ${cancelled.id} (cancelled), which will not be done: cancel this task or plan it again without them; waits for ${open} (ready)`,
    })
  })
})

describe('project tasks in a plan', () => {
  it('records the project and its check on tasks planned with project: true; refuses them with the reason when it is given, and a check without project', () => {
    const board = new TaskBoard()
    const withProject = { ...ctx, project: '/src/app' }
    const r = run(board, plan(board, { tasks: [t('a', [], { project: true, check: 'npm test' }), t('b')] }, withProject))
    expect(r.changes.map((c) => c.task.worktree)).toEqual([{ project: '/src/app', command: 'npm test', merge: 'none' }, undefined])
    expect(refusal(new TaskBoard(), [t('a', [], { project: true })], { ...ctx, projectRefusal: 'This chain runs read-only. Nothing was planned.' })).toBe(
      'This chain runs read-only. Nothing was planned.',
    )
    expect(refusal(new TaskBoard(), [t('a', [], { check: 'npm test' })], withProject)).toMatch(/'a' has a check but is not a project task/)
    expect(refusal(new TaskBoard(), [t('a', [], { project: 'yes' })], withProject)).toMatch(/project/)
  })
})
