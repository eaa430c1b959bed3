/**
 * The task board — the ledger's tasks in memory with the indexes every transition needs, so a
 * transition costs the same with 10 or 10,000 tasks: by id, the dependents of each task, the open
 * tasks of each Bot, the tasks being worked on, the counts of open tasks and open asks, the newest
 * ask of each Bot's Session, and the next id.
 *
 * Deliberately narrow: no rules (`policy.ts` reads it through `TaskView`), no I/O; tasks are
 * frozen when put, and replaced whole.
 */
import { type Task, inboxKind, isClosed, taskNumber } from './record.ts'

/** What the policy may ask of the ledger. */
export interface TaskView {
  get(taskId: string): Task | undefined
  /** The tasks blocked by `taskId` (whatever their status), oldest first. */
  dependents(taskId: string): Task[]
  /** The open tasks assigned to `botId`, oldest first. */
  openOf(botId: string): Task[]
  /** The task `botId` is working on now, if any. */
  running(botId: string): Task | undefined
  /** Every task being worked on. */
  working(): Task[]
  /** What waits for the person (questions, approvals, reviews the person makes), oldest first. */
  inbox(): Task[]
  /** Tasks not done, failed or cancelled. */
  readonly openCount: number
  /** Open questions and approvals (every one a Bot asked). */
  readonly openAskCount: number
  /** The newest question or approval (any status) `botId` asked from `sessionId`, if any. */
  lastAsk(botId: string, kind: 'question' | 'approval', sessionId: string): Task | undefined
  /** The number the next new task gets. */
  readonly nextId: number
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

const byNumber = (a: Task, b: Task) => taskNumber(a.id) - taskNumber(b.id)

function addTo(index: Map<string, Set<string>>, key: string, id: string) {
  const set = index.get(key)
  if (set) set.add(id)
  else index.set(key, new Set([id]))
}

function removeFrom(index: Map<string, Set<string>>, key: string, id: string) {
  const set = index.get(key)
  if (!set) return
  set.delete(id)
  if (set.size === 0) index.delete(key)
}

export class TaskBoard implements TaskView {
  private readonly tasks = new Map<string, Task>()
  private readonly dependentsOf = new Map<string, Set<string>>()
  private readonly openByBot = new Map<string, Set<string>>()
  private readonly workingIds = new Set<string>()
  private readonly inboxIds = new Set<string>()
  /** `<kind>:<botId>:<sessionId>` → the id of the newest ask of that kind the Bot made from that Session. */
  private readonly lastAsks = new Map<string, string>()
  private open = 0
  private openAsks = 0
  private next = 1

  constructor(tasks: Iterable<Task> = []) {
    for (const t of tasks) this.put(t)
  }

  get size(): number {
    return this.tasks.size
  }

  get openCount(): number {
    return this.open
  }

  get openAskCount(): number {
    return this.openAsks
  }

  get nextId(): number {
    return this.next
  }

  lastAsk(botId: string, kind: 'question' | 'approval', sessionId: string): Task | undefined {
    const id = this.lastAsks.get(`${kind}:${botId}:${sessionId}`)
    return id === undefined ? undefined : this.tasks.get(id)
  }

  /** Raise the next id (a snapshot's counter; ids are never reused, even of tasks no longer kept). */
  reserve(nextId: number): void {
    this.next = Math.max(this.next, nextId)
  }

  get(taskId: string): Task | undefined {
    return this.tasks.get(taskId)
  }

  all(): IterableIterator<Task> {
    return this.tasks.values()
  }

  dependents(taskId: string): Task[] {
    return this.pick(this.dependentsOf.get(taskId))
  }

  openOf(botId: string): Task[] {
    return this.pick(this.openByBot.get(botId))
  }

  running(botId: string): Task | undefined {
    for (const id of this.openByBot.get(botId) ?? []) {
      const t = this.tasks.get(id)!
      if (t.status === 'working') return t
    }
    return undefined
  }

  working(): Task[] {
    return this.pick(this.workingIds)
  }

  inbox(): Task[] {
    return this.pick(this.inboxIds)
  }

  /** Put a task (new or replacing the one with its id); it is frozen from now on. */
  put(task: Task): void {
    const old = this.tasks.get(task.id)
    if (old) this.unindex(old)
    deepFreeze(task)
    this.tasks.set(task.id, task)
    for (const b of task.blockedBy) addTo(this.dependentsOf, b, task.id)
    if (!isClosed(task)) {
      this.open++
      if (task.ask) this.openAsks++
      if (task.assignee?.kind === 'bot') addTo(this.openByBot, task.assignee.botId, task.id)
    }
    if (task.ask) {
      const key = `${task.ask.kind}:${task.ask.botId}:${task.ask.sessionId}`
      const last = this.lastAsks.get(key)
      if (last === undefined || taskNumber(last) <= taskNumber(task.id)) this.lastAsks.set(key, task.id)
    }
    if (task.status === 'working') this.workingIds.add(task.id)
    if (inboxKind(task)) this.inboxIds.add(task.id)
    this.next = Math.max(this.next, taskNumber(task.id) + 1)
  }

  private unindex(task: Task) {
    for (const b of task.blockedBy) removeFrom(this.dependentsOf, b, task.id)
    if (!isClosed(task)) {
      this.open--
      if (task.ask) this.openAsks--
      if (task.assignee?.kind === 'bot') removeFrom(this.openByBot, task.assignee.botId, task.id)
    }
    this.workingIds.delete(task.id)
    this.inboxIds.delete(task.id)
  }

  private pick(ids: Iterable<string> | undefined): Task[] {
    const out: Task[] = []
    for (const id of ids ?? []) out.push(this.tasks.get(id)!)
    return out.sort(byNumber)
  }
}
