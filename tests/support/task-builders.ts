// Builders for the task policy tests: a board, applying a result to it, and a task in each status
// reached through the policy's own transitions (never written by hand).
import { expect } from 'vitest'
import type { TaskBoard } from '../../src/tasks/board.ts'
import { type Result, claim, endAttempt, plan, review, submit, cancel } from '../../src/tasks/policy.ts'
import type { Task, TaskStatus } from '../../src/tasks/record.ts'

export const T0 = Date.parse('2025-03-01T09:00:00.000Z')
/** The ISO time `ms` after T0. */
export const at = (ms = 0) => new Date(T0 + ms).toISOString()
export const USER = { kind: 'user' } as const
export const MAIN = { kind: 'bot', botId: 'bot-1' } as const
export const BOTS = new Set(['bot-1', 'bot-2', 'bot-3'])
export const LEASE = 60_000

/** Put a successful result's tasks on the board and return it (a refusal fails the test). */
export function run<R extends Result>(board: TaskBoard, result: R): Extract<R, { ok: true }> {
  if (!result.ok) expect.fail(`refused: ${result.refusal}`)
  for (const c of result.changes) board.put(c.task)
  return result as Extract<R, { ok: true }>
}

/** Plan one task (ready unless blocked) and return its id. */
export function planOne(board: TaskBoard, fields: Record<string, unknown> = {}, now = at()): string {
  const r = run(
    board,
    plan(
      board,
      { tasks: [{ title: 'Write the parser', brief: 'Parse the config file.', assignee: 'bot-2', ...fields }] },
      { now, creator: MAIN, chain: { hop: 1, budget: 'b-1', mode: 'workspace-write' }, bots: BOTS },
    ),
  )
  return r.ids[0]!
}

export const claimAs = (board: TaskBoard, id: string, now = at(), botId = 'bot-2', sessionId = `s-${id}`) =>
  claim(board, id, { now, actor: { kind: 'system' }, botId, sessionId, leaseMs: LEASE })

/** A fresh task of its own, brought to `status` by the policy's transitions. */
export function taskIn(board: TaskBoard, status: TaskStatus): Task {
  if (status === 'blocked') {
    const blocker = planOne(board, { assignee: 'bot-3' })
    return board.get(planOne(board, { blockedBy: [blocker] }))!
  }
  if (status === 'ready') return board.get(planOne(board))!
  const id = planOne(board, { assignee: undefined })
  if (status === 'cancelled') return run(board, cancel(board, id, { now: at(), actor: MAIN, reason: 'not needed' })).changes[0]!.task
  // each working task runs on a Bot of its own (one running task per Bot)
  const bot = `bot-w${board.size}`
  const s = `s-${id}`
  const claimed = () => run(board, claim(board, id, { now: at(), actor: { kind: 'system' }, botId: bot, sessionId: s, leaseMs: LEASE }))
  if (status === 'failed') {
    for (let i = 0; i < 3; i++) {
      claimed()
      run(board, endAttempt(board, id, { now: at(1), actor: { kind: 'system' }, outcome: 'crash' }))
    }
    return board.get(id)!
  }
  claimed()
  if (status === 'working') return board.get(id)!
  run(board, submit(board, id, { now: at(1), actor: { kind: 'bot', botId: bot }, sessionId: s }))
  if (status === 'review') return board.get(id)!
  return run(board, review(board, id, { now: at(2), actor: MAIN, verdict: 'accept' })).changes[0]!.task
}
