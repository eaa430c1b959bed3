// A deterministic ledger workload for the store tests, the crash child and the soak: the next
// transition is a function of the board alone (plans of three tasks with dependencies over three
// Bots, claims, submits, accepts, rejections, crashes, cancels of tasks that can never start), so
// a run killed anywhere goes on from whatever the store rebuilt. Also the digest two readers compare.
import { createHash } from 'node:crypto'
import type { TaskView } from '../../src/tasks/board.ts'
import { type Result, cancel, claim, endAttempt, plan, readiness, review, submit } from '../../src/tasks/policy.ts'
import type { Intent, Task } from '../../src/tasks/record.ts'

export const WORKLOAD_BOTS = ['bot-1', 'bot-2', 'bot-3']
const BOTS = new Set(WORKLOAD_BOTS)
const SYSTEM = { kind: 'system' } as const
const MAIN = { kind: 'bot', botId: 'bot-1' } as const
const LEASE_MS = 3_600_000

type Step = { name: string; run: (view: TaskView) => Result }

/** The next transition for this board, or null when every task is closed and `finish` is set. */
export function nextStep(view: TaskView & { all(): Iterable<Task> }, now: string, opts: { finish?: boolean; open?: number } = {}): Step | null {
  const open = [...view.all()].filter((t) => t.status !== 'done' && t.status !== 'failed' && t.status !== 'cancelled')
  for (const t of open) {
    const n = t.attempts.length + t.historyDropped + t.history.length
    if (t.status === 'review') {
      const verdict = n % 3 === 0 ? 'reject' : 'accept'
      return {
        name: `${verdict} ${t.id}`,
        run: (v) => review(v, t.id, { now, actor: MAIN, verdict, reason: verdict === 'reject' ? `not yet (${n})` : undefined }),
      }
    }
    if (t.status === 'working') {
      if (n % 5 === 0) return { name: `crash ${t.id}`, run: (v) => endAttempt(v, t.id, { now, actor: SYSTEM, outcome: 'crash' }) }
      return {
        name: `submit ${t.id}`,
        run: (v) =>
          submit(v, t.id, {
            now,
            actor: t.assignee!,
            sessionId: t.lease!.sessionId,
            artifacts: [{ kind: 'note', value: `done in attempt ${t.lease!.attempt}` }],
          }),
      }
    }
  }
  for (const t of open) {
    if (t.status === 'ready' && t.assignee?.kind === 'bot' && !view.running(t.assignee.botId))
      return {
        name: `claim ${t.id}`,
        run: (v) => claim(v, t.id, { now, actor: SYSTEM, botId: (t.assignee as { botId: string }).botId, sessionId: `s-${t.id}`, leaseMs: LEASE_MS }),
      }
    if (t.status === 'blocked') {
      const r = readiness(t, view)
      if (!r.ready && r.stuckOn.length)
        return { name: `cancel ${t.id}`, run: (v) => cancel(v, t.id, { now, actor: MAIN, reason: `${r.stuckOn.join(', ')} will not be done` }) }
    }
  }
  if (opts.finish) return null
  if (open.length < (opts.open ?? 6)) {
    const k = view.nextId
    const bot = (i: number) => WORKLOAD_BOTS[(k + i) % WORKLOAD_BOTS.length]!
    const tasks = [
      { key: 'a', title: `Part A of plan ${k}`, brief: `Build part A (${k}).`, assignee: bot(0) },
      { key: 'b', title: `Part B of plan ${k}`, brief: `Build part B on A (${k}).`, assignee: bot(1), blockedBy: ['a'] },
      { key: 'c', title: `Part C of plan ${k}`, brief: `Check parts A and B (${k}).`, assignee: bot(2), blockedBy: ['a', 'b'] },
    ]
    return { name: `plan ${k}`, run: (v) => plan(v, { tasks }, { now, creator: MAIN, chain: { hop: 1, budget: 'b-1' }, bots: BOTS }) }
  }
  return null
}

/** A digest of the tasks and the pending intents (what two readers of one ledger must agree on). */
export function ledgerDigest(tasks: Iterable<Task>, pending: readonly Intent[]): string {
  const h = createHash('sha1')
  for (const t of [...tasks].sort((a, b) => a.id.localeCompare(b.id))) h.update(JSON.stringify(t))
  for (const i of [...pending].sort((a, b) => a.id.localeCompare(b.id))) h.update(JSON.stringify(i))
  return h.digest('hex').slice(0, 16)
}

/**
 * Problems in a task's history: each entry must start where the one before ended and the last must
 * end in its status (a transition applied twice, or one lost in the middle, breaks the chain).
 */
export function historyProblems(t: Task): string[] {
  const out: string[] = []
  t.history.forEach((e, i) => {
    const prev = t.history[i - 1]
    if (prev && e.from !== prev.to) out.push(`${t.id}: entry ${i} goes from ${e.from}, the one before ended at ${prev.to}`)
  })
  if (t.history.at(-1)?.to !== t.status) out.push(`${t.id}: the last entry ends at ${t.history.at(-1)?.to}, the task is ${t.status}`)
  if (t.history.filter((e) => e.what === 'accepted').length > 1) out.push(`${t.id}: accepted twice`)
  return out
}
