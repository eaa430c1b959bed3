/**
 * The task ledger's format steps (pure): what opening a ledger an older build wrote does to it, one
 * step per format (`docs/upgrades.md`), each a transition the writer records once before its first
 * write, then stamps the new format with a compaction. A step is idempotent: after a crash between
 * its record and the compaction it runs again and changes nothing more. Deliberately narrow: no I/O.
 */
import type { TaskView } from './board.ts'
import { type Change, type Result, entryOf, moved } from './policy.ts'
import { type Ask, type Intent, type IntentDraft, type Task, TASK_LIMITS } from './record.ts'
import { clip } from '../core/text-limits.ts'

/** A format step: the ledger as read (its tasks and pending intents) → the transition that brings it to the next format. */
export type FormatStep = (view: TaskView & { all(): Iterable<Task> }, pending: readonly Intent[], now: string) => Extract<Result, { ok: true }>

/** Why a format-1 grant is cancelled, as its record and the Bot read it. */
export const FORMAT1_GRANT =
  'it was allowed before the plugin recorded which Session and attempt asked, and an allow now holds only there; the call waits for approval anew'

/** The turn that replaces a cancelled grant's turn: what the Bot reads instead of "make exactly that call again" (pure). */
export function grantCancelledWords(task: Task, why: string): string {
  const a = task.ask!
  const call = `${a.approval!.tool} (call ${a.approval!.callId}) with ${clip(a.approval!.args, 600)}`
  return `The user's allow of ${call} (${task.id}) no longer holds: ${why}. Nothing ran. If you still need it, make the call again; it waits for the user's approval.`
}

/**
 * Format 1 → 2: an ask records its Session's attempt and turn from now on. A format-1 grant cannot
 * say which attempt asked, so every unused one comes back cancelled, and a grant turn still queued
 * is replaced by a turn (on the same chain) telling the Bot so.
 */
export const formatTwo: FormatStep = (view, pending, now) => {
  const changes: Change[] = []
  const cancelled = new Set<string>()
  for (const task of view.all()) {
    const grant = task.ask?.grant
    if (!grant || grant.used || grant.cancelled) continue
    const ask: Ask = { ...task.ask!, grant: { ...grant, cancelled: { at: now, reason: FORMAT1_GRANT } } }
    const entry = entryOf({ now, actor: { kind: 'system' } }, 'grant-cancelled', task.status, task.status, clip(FORMAT1_GRANT, TASK_LIMITS.reason))
    changes.push(moved(task, { ask }, entry, now))
    cancelled.add(task.id)
  }
  const drop: string[] = []
  const intents: IntentDraft[] = []
  for (const intent of pending) {
    if (intent.kind !== 'answer' || !intent.grant) continue
    const task = view.get(intent.taskId)
    if (!task?.ask?.approval || !(cancelled.has(task.id) || task.ask.grant?.cancelled)) continue
    drop.push(intent.id)
    const { id: _id, at: _at, grant: _grant, ...rest } = intent
    intents.push({ ...rest, text: clip(grantCancelledWords(task, FORMAT1_GRANT), TASK_LIMITS.notice + TASK_LIMITS.question) })
  }
  return { ok: true, changes, intents, ...(drop.length ? { drop } : {}) }
}

/** The step from each older format to the next; `TASKS_FORMAT` (journal.ts) is one past the last. */
export const FORMAT_STEPS: Readonly<Record<number, FormatStep>> = Object.freeze({ 1: formatTwo })
