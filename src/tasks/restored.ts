/**
 * What a restored ledger carries (pure): no decision. Questions and approvals still waiting, unused
 * grants and answers not yet delivered come back cancelled, each asking Bot told in one line of its
 * own chat (read at its next turn); an attempt under way is withdrawn and every open task starts its next
 * attempt in a new Session (its folder, or clone, is the one the new home gives it); a branch that is
 * not the task's own is dropped. Deliberately narrow: the backup command opens the store and applies it.
 */
import { isAbsolute, normalize } from 'node:path'
import { clip } from '../core/text-limits.ts'
import type { TaskView } from './board.ts'
import { type Change, type Result, entryOf, moved } from './policy.ts'
import { type Ask, type Intent, type IntentDraft, type Task, TASK_LIMITS, isClosed } from './record.ts'

/** Why, as the task's history, the grant and the Bot say it. */
export const RESTORED = 'the team was restored from a backup, and nothing asked, allowed or answered before it carries over'

const SYSTEM = { kind: 'system' } as const

/** What a restore's carrying over did, task by task (for the report), with the transition. */
export type Carried = Extract<Result, { ok: true }> & { said: string[] }

/** One of a Bot's asks the restore cancelled, as its line names it (pure). */
function told(task: Task, what: 'waiting' | 'grant' | 'answer'): string {
  const a = task.ask!
  const call = a.approval ? `${a.approval.tool} (call ${a.approval.callId}) with ${clip(a.approval.args, 200)}` : ''
  if (what === 'waiting') return a.kind === 'question' ? `your question ${task.id} ("${clip(a.question, 120)}")` : `your approval ${task.id} of ${call}`
  if (what === 'grant') return `the user's allow of ${call} (${task.id}), which never ran`
  return `the user's answer to your question ${task.id} ("${clip(a.question, 120)}"), not yet delivered`
}

/** The one line a Bot reads about all of its asks the restore cancelled, within a notice's length (pure). */
function toldAll(items: readonly string[]): string {
  const head = `The team was restored from a backup, and nothing asked, allowed or answered before it carries over. Cancelled: `
  const tail = ". Ask again if you still need an answer; a call you still need waits for the user's approval when you make it again."
  const room = TASK_LIMITS.notice - head.length - tail.length - 40
  let list = ''
  let n = 0
  for (const item of items) {
    const next = list ? `${list}; ${item}` : item
    if ([...next].length > room) break
    list = next
    n++
  }
  return `${head}${list}${n < items.length ? `; and ${items.length - n} more` : ''}${tail}`
}

/** A branch a task record may name: only the one `taskBranch` makes for that task. */
const ownBranch = (task: Task, branch: string) => new RegExp(`^team/${task.id}-[a-z0-9-]{1,40}$`).test(branch)

/**
 * The transition a restore applies to the ledger it brings back, and what it did in words
 * (`nameOf`: a Bot's name for the report).
 */
export function carryNoDecisions(
  view: TaskView & { all(): Iterable<Task> },
  pending: readonly Intent[],
  ctx: { now: string; nameOf?: (botId: string) => string | undefined },
): Carried {
  const { now } = ctx
  const name = (botId: string) => ctx.nameOf?.(botId) ?? botId
  const act = { now, actor: SYSTEM }
  const reason = clip(RESTORED, TASK_LIMITS.reason)
  // Answers not yet handed over: a question's answer and an allow carry a decision; a deny or an expiry does not.
  const undelivered = new Map<string, Intent>()
  const drop: string[] = []
  for (const i of pending) {
    if (i.kind === 'answer') {
      const t = view.get(i.taskId)
      const verdict = t?.ask?.answer?.verdict
      if (i.grant || verdict === 'answered' || verdict === 'allowed') {
        undelivered.set(i.taskId, i)
        drop.push(i.id)
      }
    } else if (i.kind === 'dispatch') {
      const t = view.get(i.taskId)
      if (t?.status === 'working' && t.lease?.attempt === i.attempt) drop.push(i.id)
    }
  }
  const changes: Change[] = []
  const said: string[] = []
  // One line per asking Bot (its first task's id names it), however many asks an archive holds.
  const tells = new Map<string, { taskId: string; items: string[] }>()
  const tell = (task: Task, what: 'waiting' | 'grant' | 'answer') => {
    const botId = task.ask!.botId
    const entry = tells.get(botId) ?? { taskId: task.id, items: [] }
    entry.items.push(told(task, what))
    tells.set(botId, entry)
  }
  for (const task of view.all()) {
    const a = task.ask
    if (a) {
      const kindWords = a.kind === 'question' ? 'question' : `approval of ${a.approval?.tool ?? 'a call'}`
      const grant = a.grant && !a.grant.used && !a.grant.cancelled ? { ...a.grant, cancelled: { at: now, reason } } : a.grant
      if (task.status === 'ready') {
        const ask: Ask = { ...a, answer: { at: now, verdict: 'cancelled', text: reason } }
        changes.push(moved(task, { status: 'cancelled', ask }, entryOf(act, 'restored', 'ready', 'cancelled', reason), now))
        tell(task, 'waiting')
        said.push(`${task.id}: ${name(a.botId)}'s ${kindWords}, still waiting, was cancelled`)
      } else if (grant !== a.grant || undelivered.has(task.id)) {
        // An allow (its grant unused, or its turn not yet handed over), or a question's answer not yet delivered.
        const ask: Ask = { ...a, ...(grant ? { grant } : {}) }
        const to = isClosed(task) ? 'cancelled' : task.status
        changes.push(moved(task, { status: to, ask }, entryOf(act, 'restored', task.status, to, reason), now))
        tell(task, a.kind === 'approval' ? 'grant' : 'answer')
        said.push(
          a.kind === 'approval'
            ? `${task.id}: the allow of ${name(a.botId)}'s ${kindWords} was cancelled unused`
            : `${task.id}: the answer to ${name(a.botId)}'s question, not yet delivered, was cancelled`,
        )
      }
      continue
    }
    // A kept clone names a folder on the machine the archive came from: no restored record keeps it.
    const { kept, ...unkept } = task.worktree ?? {}
    if (isClosed(task)) {
      if (kept) changes.push(moved(task, { worktree: unkept }, null, now))
      continue
    }
    const patch: Partial<Task> = kept ? { worktree: unkept } : {}
    let entry = null
    if (task.status === 'working' && task.lease) {
      const n = task.lease.attempt
      patch.attempts = task.attempts.map((x) => (x.n === n && x.outcome === null ? { ...x, endedAt: now, outcome: 'withdrawn' as const, reason } : x))
      patch.lease = null
      patch.status = 'ready'
      entry = entryOf(act, 'restored', 'working', 'ready', reason)
      said.push(`${task.id}: its attempt ${n} was withdrawn; it starts again in a new Session`)
    }
    if (task.sessionId) patch.sessionId = null
    const wt = task.worktree ? unkept : undefined
    if (
      wt &&
      ((wt.branch !== undefined && !ownBranch(task, wt.branch)) ||
        (wt.project !== undefined && !(isAbsolute(wt.project) && normalize(wt.project) === wt.project)))
    ) {
      const { branch, project, ...rest } = wt
      patch.worktree = {
        ...rest,
        ...(branch !== undefined && ownBranch(task, branch) ? { branch } : {}),
        ...(project !== undefined && isAbsolute(project) && normalize(project) === project ? { project } : {}),
      }
      said.push(`${task.id}: a branch or project path that is not the task's own was dropped`)
    }
    if (Object.keys(patch).length) changes.push(moved(task, patch, entry, now))
  }
  const intents: IntentDraft[] = [...tells].map(([botId, t]) => ({ kind: 'tell', taskId: t.taskId, botId, text: clip(toldAll(t.items), TASK_LIMITS.notice) }))
  return { ok: true, changes, intents, ...(drop.length ? { drop } : {}), said }
}
