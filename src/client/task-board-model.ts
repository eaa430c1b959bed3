/**
 * The task board's data in the browser (pure): the cards by id and by column, loaded from
 * `GET /tasks/board` and changed by the team stream's `tasks` events. A change rebuilds only the
 * columns it touches, and an unchanged card keeps its object, so the board redraws only what moved.
 * Deliberately no React, no fetching; every answer is checked before it is kept.
 */
import type { BranchView, LogEntry, ProjectPanelView } from '../web/project-view.ts'
import type { BoardColumn, TaskBoardView, TaskCard } from '../web/task-cards.ts'

export type { BoardColumn, TaskCard } from '../web/task-cards.ts'
export type { BranchView, ProjectPanelView } from '../web/project-view.ts'

/** The columns in the order drawn (the inbox first). */
export const COLUMNS: readonly BoardColumn[] = ['inbox', 'blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled']
const COLUMN_SET: ReadonlySet<string> = new Set(COLUMNS)
/** Most cards the browser keeps (the server sends at most 1,000). */
export const CARDS_MAX = 2000

const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0

/** A card as received, or `undefined` when it is not one (pure). */
export function readCard(value: unknown): TaskCard | undefined {
  if (!value || typeof value !== 'object') return undefined
  const c = value as Record<string, unknown>
  if (!str(c.id, 40) || !/^task-\d+$/.test(c.id) || !str(c.title, 400) || !str(c.status, 40)) return undefined
  if (typeof c.column !== 'string' || !COLUMN_SET.has(c.column) || !Array.isArray(c.blockedBy) || !num(c.attempts) || !num(c.tokens)) return undefined
  return value as TaskCard
}

const numberOf = (id: string) => Number(id.slice(5))
const byNumber = (a: TaskCard, b: TaskCard) => numberOf(a.id) - numberOf(b.id)

export class BoardModel {
  private readonly cards = new Map<string, TaskCard>()
  private readonly columns = new Map<BoardColumn, readonly TaskCard[]>()
  /** How many tasks wait for the person (the server's count). */
  waiting = 0
  /** Closed tasks left off the board. */
  hiddenClosed = 0
  /** Set once a board answer was taken. */
  loaded = false

  constructor() {
    for (const c of COLUMNS) this.columns.set(c, [])
  }

  /** Take a whole board answer; false when it is not one. */
  load(value: unknown): boolean {
    const v = value as Partial<TaskBoardView> | undefined
    if (!v || typeof v !== 'object' || !Array.isArray(v.cards)) return false
    this.cards.clear()
    for (const raw of v.cards.slice(0, CARDS_MAX)) {
      const card = readCard(raw)
      if (card) this.cards.set(card.id, card)
    }
    this.waiting = num(v.waiting) ? v.waiting : 0
    this.hiddenClosed = num(v.hiddenClosed) ? v.hiddenClosed : 0
    this.loaded = true
    this.rebuild(new Set(COLUMNS))
    return true
  }

  /** Take a `tasks` event: `reload` when the board must be read again, `changed` when cards moved, else `ignored`. */
  apply(value: unknown): 'reload' | 'changed' | 'ignored' {
    if (!value || typeof value !== 'object') return 'ignored'
    const e = value as { reload?: unknown; cards?: unknown; waiting?: unknown }
    if (num(e.waiting)) this.waiting = e.waiting
    if (e.reload === true) return 'reload'
    if (!Array.isArray(e.cards) || !this.loaded) return 'ignored'
    const touched = new Set<BoardColumn>()
    for (const raw of e.cards) {
      const card = readCard(raw)
      if (!card) continue
      const old = this.cards.get(card.id)
      if (old) touched.add(old.column)
      else if (this.cards.size >= CARDS_MAX) continue
      touched.add(card.column)
      this.cards.set(card.id, card)
    }
    this.rebuild(touched)
    return 'changed'
  }

  private rebuild(touched: ReadonlySet<BoardColumn>): void {
    if (!touched.size) return
    const fresh = new Map<BoardColumn, TaskCard[]>()
    for (const c of touched) fresh.set(c, [])
    for (const card of this.cards.values()) fresh.get(card.column)?.push(card)
    for (const [c, list] of fresh) this.columns.set(c, list.sort(byNumber))
  }

  /** The cards of one column, oldest first; the same array until that column changes. */
  column(c: BoardColumn): readonly TaskCard[] {
    return this.columns.get(c) ?? []
  }

  get(id: string): TaskCard | undefined {
    return this.cards.get(id)
  }

  get size(): number {
    return this.cards.size
  }
}

/** What the person may be offered on a task (pure; the API decides): each action by the task's status and kind. */
export interface TaskActions {
  review: boolean
  assign: boolean
  cancel: boolean
  /** A question to the person, not yet answered: its text and choices. */
  question?: { text: string; choices: string[] }
  /** A DSH tool call waiting for the person's approval: the tool, its arguments (masked) and why. */
  approval?: { tool: string; args: string; why: string }
}

const CLOSED: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled'])

/** The actions a task as `GET /tasks/<id>` shows it offers (pure; anything unexpected offers nothing). */
export function taskActions(task: unknown): TaskActions {
  const t = (task && typeof task === 'object' ? task : {}) as { status?: unknown; assignee?: { kind?: unknown } | null; ask?: any }
  const status = typeof t.status === 'string' ? t.status : ''
  const open = status !== '' && !CLOSED.has(status)
  const personal = t.assignee?.kind === 'user'
  const out: TaskActions = { review: status === 'review', assign: !personal && ['blocked', 'ready', 'working'].includes(status), cancel: open }
  const ask = t.ask && typeof t.ask === 'object' && !t.ask.answer ? t.ask : undefined
  if (open && personal && ask?.kind === 'question' && typeof ask.question === 'string')
    out.question = { text: ask.question, choices: Array.isArray(ask.choices) ? ask.choices.filter((c: unknown) => typeof c === 'string').slice(0, 10) : [] }
  if (open && personal && ask?.kind === 'approval' && typeof ask.approval?.tool === 'string')
    out.approval = { tool: ask.approval.tool, args: String(ask.approval.args ?? '').slice(0, 4000), why: String(ask.question ?? '') }
  return out
}

const SHA = /^[0-9a-f]{40,64}$/
const sha = (v: unknown): string | null => (typeof v === 'string' && SHA.test(v) ? v : null)
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '')

/** The project panel as received (`GET /project/log`), each part checked and capped, or `undefined` when it is not one (pure). */
export function readProjectPanel(value: unknown): ProjectPanelView | undefined {
  const v = value as Partial<ProjectPanelView> | undefined
  if (!v || typeof v !== 'object' || typeof v.paired !== 'boolean' || !Array.isArray(v.log) || !v.branches || typeof v.branches !== 'object') return undefined
  const p = v.project
  const project =
    p && typeof p === 'object' && str(p.path, 4096) && str(p.branch, 200)
      ? { path: p.path, branch: p.branch, targetHead: sha(p.targetHead), integrationHead: sha(p.integrationHead) }
      : null
  const log: LogEntry[] = []
  for (const e of v.log.slice(0, 50)) {
    if (!e || typeof e !== 'object' || !sha(e.commit) || !num(e.at)) continue
    log.push({
      commit: e.commit,
      at: e.at,
      subject: text(e.subject, 400),
      ...(str(e.taskId, 40) ? { taskId: e.taskId } : {}),
      ...(str(e.title, 400) ? { title: e.title } : {}),
      ...(str(e.branch, 250) ? { branch: e.branch } : {}),
    })
  }
  const branches: Record<string, BranchView> = {}
  for (const [id, b] of Object.entries(v.branches as Record<string, Partial<BranchView>>).slice(0, 200)) {
    if (!/^task-\d+$/.test(id) || !b || !str(b.branch, 250) || !num(b.commits) || !Array.isArray(b.recent)) continue
    const from = b.from === 'submitted' || b.from === 'merge' || b.from === 'kept' ? b.from : 'kept'
    const recent = b.recent.slice(0, 10).flatMap((c) => (c && sha(c.commit) ? [{ commit: c.commit, subject: text(c.subject, 400) }] : []))
    branches[id] = { branch: b.branch, from, commits: b.commits, more: b.more === true, recent }
  }
  return { project, paired: v.paired, log, branches, ...(str(v.note, 2000) ? { note: v.note } : {}) }
}
