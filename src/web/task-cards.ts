/**
 * The task board as the browser half draws it (pure): one small card per task (title, column,
 * assignee, blockers, attempts, tokens; a project task's branch, check, merge and conflict), which tasks wait for the person (the
 * ledger's `waitsForPerson`), and the board's cut:
 * every open task, then the newest closed ones up to `BOARD_CARDS_MAX`. Deliberately no I/O, no rules.
 */
import { clip } from '../core/text-limits.ts'
import { type Task, type TaskStatus, isClosed, taskNumber, waitsForPerson } from '../tasks/record.ts'

/** The board's columns, in order: the person's inbox, then the statuses. */
export const BOARD_COLUMNS = ['inbox', 'blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled'] as const
export type BoardColumn = (typeof BOARD_COLUMNS)[number]

/** Most cards one board answer carries (every open task fits: the ledger keeps at most 500 open). */
export const BOARD_CARDS_MAX = 1000
/** Most cards one `tasks` event of the team feed carries; more is a "reload". */
export const CARDS_PER_EVENT = 100

export interface TaskCard {
  id: string
  title: string
  status: TaskStatus
  column: BoardColumn
  /** The assignee: a Bot's id, `user` (the person), or absent (nobody). */
  assignee?: string
  /** `user` or the id of the Bot that planned it. */
  creator: string
  blockedBy: string[]
  /** Why a blocked task waits, in words. */
  waitsFor?: string
  attempts: number
  /** Unsuccessful attempts so far. */
  failed: number
  /** Input, cached and output tokens of its attempts, summed. */
  tokens: number
  /** It waits for the person (counted by the sidebar's badge). */
  waiting: boolean
  /** Its worktree's branch and check, once tasks run in worktrees. */
  branch?: string
  check?: 'passed' | 'failed'
  /** The last check in words: passed or failed, with its exit status or time limit, time and output size. */
  checkSummary?: string
  /** The last check's output, its last lines (masked when it ran). */
  checkTail?: string
  /** Its branch's merge into the integration branch: done, or sent back on a conflict. */
  merge?: 'merged' | 'conflict'
  /** The merge commit, once merged. */
  mergeCommit?: string
  /** The submitted commit: what its check ran on, its review shows and accepting merges. */
  submitted?: string
  /** Where its clone was kept (not removed), and why. */
  kept?: { dir: string; why: string }
  /** The last conflict: the first paths, how many in all, and both sides' commits. */
  conflict?: { paths: string[]; pathCount: number; ours: string; theirs: string }
  updatedAt: string
}

export interface TaskBoardView {
  cards: TaskCard[]
  /** How many tasks wait for the person. */
  waiting: number
  /** Closed tasks not on the board (older than the newest `BOARD_CARDS_MAX` cards). */
  hiddenClosed: number
}

/** A task event of the team feed: the cards that changed, or `reload` (read the board again). */
export type TaskFeedEvent = { cards: TaskCard[]; waiting: number } | { reload: true; waiting: number }

/** Whose a task is: a Bot's id, or `user` for the person. */
function assigneeOf(task: Task): string | undefined {
  if (!task.assignee) return undefined
  return task.assignee.kind === 'bot' ? task.assignee.botId : 'user'
}

const COLUMN_SET: ReadonlySet<string> = new Set(BOARD_COLUMNS)

/** A task's column: the inbox for an open task of the person's, else its status's (a status without a column of its own waits: blocked). */
function columnOf(task: Task, assignee: string | undefined): BoardColumn {
  if (assignee === 'user' && !isClosed(task)) return 'inbox'
  return COLUMN_SET.has(task.status) ? task.status : 'blocked'
}

/** One task's card (pure); `waitsFor`: why a blocked one waits. */
export function taskCard(task: Task, waitsFor?: string): TaskCard {
  const assignee = assigneeOf(task)
  const wt = task.worktree
  let failed = 0
  for (const a of task.attempts) if (a.outcome && a.outcome !== 'submitted' && a.outcome !== 'withdrawn') failed++
  return {
    id: task.id,
    title: clip(task.title, 120),
    status: task.status,
    column: columnOf(task, assignee),
    ...(assignee ? { assignee } : {}),
    creator: task.creator.kind === 'bot' ? task.creator.botId : 'user',
    blockedBy: [...task.blockedBy],
    ...(waitsFor ? { waitsFor: clip(waitsFor, 300) } : {}),
    attempts: task.attempts.length,
    failed,
    tokens: task.tokens.input + task.tokens.cached + task.tokens.output,
    waiting: waitsForPerson(task),
    updatedAt: task.updatedAt,
    ...(wt?.branch ? { branch: clip(wt.branch, 120) } : {}),
    ...(wt ? worktreeFacts(wt) : {}),
  }
}

/** Paths of a conflict on a card, lines and characters of a check's tail. */
const CARD_LIMITS = Object.freeze({ conflictPaths: 10, path: 200, tailLines: 8, tail: 800, summary: 200 })

/** A project task's check and merge facts for its card, capped (pure). */
function worktreeFacts(wt: NonNullable<Task['worktree']>): Partial<TaskCard> {
  const out: Partial<TaskCard> = {}
  if (wt.check) {
    out.check = wt.check.ok ? 'passed' : 'failed'
    if (wt.check.summary) out.checkSummary = clip(wt.check.summary, CARD_LIMITS.summary)
    const tail = wt.check.tail?.split('\n').slice(-CARD_LIMITS.tailLines).join('\n').slice(-CARD_LIMITS.tail)
    if (tail) out.checkTail = tail
  }
  if (wt.submitted) out.submitted = wt.submitted
  if (wt.kept) out.kept = { dir: clip(wt.kept.dir, CARD_LIMITS.path), why: clip(wt.kept.why, CARD_LIMITS.summary) }
  if (wt.merge === 'merged' || wt.merge === 'conflict') out.merge = wt.merge
  if (wt.merge === 'merged' && wt.commit) out.mergeCommit = wt.commit
  if (wt.merge === 'conflict' && wt.conflict) {
    const { paths, pathCount, ours, theirs } = wt.conflict
    out.conflict = { paths: paths.slice(0, CARD_LIMITS.conflictPaths).map((p) => clip(p, CARD_LIMITS.path)), pathCount, ours, theirs }
  }
  return out
}

/** How many of the tasks wait for the person (pure). */
export function waitingCount(tasks: Iterable<Task>): number {
  let n = 0
  for (const t of tasks) if (waitsForPerson(t)) n++
  return n
}

/** The board (pure): every open task, then the newest closed ones, up to `max` cards, oldest first. */
export function boardView(tasks: Iterable<Task>, waitsFor: (task: Task) => string | undefined, max = BOARD_CARDS_MAX): TaskBoardView {
  const open: Task[] = []
  const closed: Task[] = []
  let waiting = 0
  for (const t of tasks) {
    if (isClosed(t)) closed.push(t)
    else open.push(t)
    if (waitsForPerson(t)) waiting++
  }
  const byNumber = (a: Task, b: Task) => taskNumber(a.id) - taskNumber(b.id)
  closed.sort((a, b) => byNumber(b, a))
  const room = Math.max(0, max - open.length)
  const shown = [...open.slice(0, max), ...closed.slice(0, room)].sort(byNumber)
  return {
    cards: shown.map((t) => taskCard(t, t.status === 'blocked' ? waitsFor(t) : undefined)),
    waiting,
    hiddenClosed: Math.max(0, closed.length - room),
  }
}
