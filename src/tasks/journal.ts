/**
 * The tasks' files, as data: a snapshot (a header line, then one task or outbox intent per line)
 * and an append-only journal (a header line naming the snapshot it follows, then one record per
 * transition: new tasks whole, changed ones as their changed fields plus the history entry, the
 * intents it caused, the intents handed over). Encoding a transition, decoding a line and
 * replaying a record are pure and shared by the writer and every reader, so a restart rebuilds
 * exactly the tasks the writer had. Deliberately narrow: no I/O (`store.ts`), no rules.
 */
import { z } from 'zod'
import type { TaskView } from './board.ts'
import type { Change, Result } from './policy.ts'
import { type HistoryEntry, type Intent, type IntentDraft, type Task, appendHistory, historyEntrySchema, intentSchema, taskSchema } from './record.ts'

/** The format this build writes; a newer one is opened read-only, an older one upgraded (`formats.ts`). */
export const TASKS_FORMAT = 2
export const SNAPSHOT_FILE = 'snapshot.jsonl'
export const JOURNAL_FILE = 'journal.jsonl'
/** A journal line longer than this is not read (a plan of 50 maximal tasks is about 2 MiB). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024
/** A record holds at most this many ops, intents and marks each (`recordSchema`). */
const MAX_RECORD_ITEMS = 10_000

const count = z.int().min(0)
const time = z.string().min(1).max(40)

export const snapshotHeaderSchema = z.object({ v: z.int().min(1), seq: count, nextId: z.int().min(1), at: time, tasks: count, intents: count })
export const journalHeaderSchema = z.object({ v: z.int().min(1), base: count })
export type SnapshotHeader = z.infer<typeof snapshotHeaderSchema>

/** Fields a record may set on an existing task (history moves only through `log`). */
const SETTABLE = new Set(Object.keys(taskSchema.shape).filter((k) => k !== 'id' && k !== 'history' && k !== 'historyDropped'))

const putOp = z.object({ put: z.record(z.string(), z.unknown()) }).strict()
const setOp = z
  .object({
    id: taskSchema.shape.id,
    set: z.record(z.string(), z.unknown()).refine((s) => Object.keys(s).every((k) => SETTABLE.has(k)), { error: 'sets a field that cannot be set' }),
    log: historyEntrySchema.optional(),
  })
  .strict()
export type Op = { put: Task } | { id: string; set: Partial<Task>; log?: HistoryEntry }

export const recordSchema = z.object({
  seq: z.int().min(1),
  at: time,
  ops: z
    .array(z.union([putOp, setOp]))
    .max(MAX_RECORD_ITEMS)
    .optional(),
  add: z.array(z.unknown()).max(MAX_RECORD_ITEMS).optional(),
  done: z.array(z.string().min(1).max(40)).max(MAX_RECORD_ITEMS).optional(),
})
export interface JournalRecord {
  seq: number
  at: string
  ops?: Op[]
  add?: Intent[]
  done?: string[]
}

/** The ops that turn the board's tasks into the changed ones: new tasks whole, others by changed field. */
export function encodeChanges(view: Pick<TaskView, 'get'>, changes: readonly Change[]): Op[] {
  return changes.map(({ task, entry }): Op => {
    const old = view.get(task.id)
    if (!old || Object.keys(old).some((k) => !(k in task))) return { put: task }
    const set: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(task)) {
      if (k === 'history' || k === 'historyDropped' || k === 'id') continue
      if ((old as Record<string, unknown>)[k] !== v) set[k] = v
    }
    return entry ? { id: task.id, set: set as Partial<Task>, log: entry } : { id: task.id, set: set as Partial<Task> }
  })
}

type Transition = Extract<Result, { ok: true }>

/** How large one part of a whole-ledger pass may be: half the line limit (room for the record's own fields), a tenth of its items. */
const PART_LIMITS = Object.freeze({ bytes: MAX_LINE_BYTES / 2, items: MAX_RECORD_ITEMS / 10 })

/** Bytes an intent gains when recorded (its `id` and `at`), counted generously. */
const INTENT_EXTRA = 80

/**
 * A whole-ledger pass (a format step, a restore's carrying over) cut into transitions that each fit
 * one record: each task's changes stay with the intents naming it and the pending intents of it
 * dropped (`taskOf`: a pending intent's task). A pass that fits is returned whole, as it is. The
 * pass must be idempotent: a crash between its parts leaves it to be run again on what is left.
 */
export function recordParts(
  view: Pick<TaskView, 'get'>,
  pass: Transition,
  taskOf: (intentId: string) => string | undefined,
  limits: { bytes: number; items: number } = PART_LIMITS,
): Transition[] {
  interface Group {
    changes: Change[]
    intents: IntentDraft[]
    drop: string[]
  }
  const groups = new Map<string, Group>()
  const group = (taskId: string) => {
    const g = groups.get(taskId) ?? { changes: [], intents: [], drop: [] }
    groups.set(taskId, g)
    return g
  }
  for (const c of pass.changes) group(c.task.id).changes.push(c)
  for (const i of pass.intents) group(i.taskId).intents.push(i)
  for (const id of pass.drop ?? []) group(taskOf(id) ?? '').drop.push(id)
  const parts: Transition[] = []
  let part: Group = { changes: [], intents: [], drop: [] }
  let bytes = 0
  const flush = () => {
    if (!part.changes.length && !part.intents.length && !part.drop.length) return
    parts.push({ ok: true, changes: part.changes, intents: part.intents, ...(part.drop.length ? { drop: part.drop } : {}) })
    part = { changes: [], intents: [], drop: [] }
    bytes = 0
  }
  for (const g of groups.values()) {
    // Groups name different tasks: each encodes against the board as it is, whatever parts come first.
    const size =
      Buffer.byteLength(JSON.stringify(encodeChanges(view, g.changes))) +
      Buffer.byteLength(JSON.stringify(g.intents)) +
      INTENT_EXTRA * g.intents.length +
      Buffer.byteLength(JSON.stringify(g.drop))
    const items = (k: keyof Group) => part[k].length + g[k].length > limits.items
    if (bytes + size > limits.bytes || items('changes') || items('intents') || items('drop')) flush()
    part.changes.push(...g.changes)
    part.intents.push(...g.intents)
    part.drop.push(...g.drop)
    bytes += size
  }
  flush()
  return parts.length <= 1 ? [pass] : parts
}

export type Replayed = { ok: true; tasks: Task[]; add: Intent[]; done: string[] } | { ok: false; problem: string }

const firstIssue = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.')}${i.path.length ? ': ' : ''}${i.message}`)[0] ?? 'invalid'

/** The fields a `set` changes, each checked against its field of the task schema (the schema has no cross-field rules). */
function checkSet(set: Record<string, unknown>, log: unknown): string | undefined {
  for (const [k, v] of Object.entries(set)) {
    if (!SETTABLE.has(k)) return `sets ${k}, which cannot be set`
    const r = (taskSchema.shape as Record<string, z.ZodType>)[k]!.safeParse(v)
    if (!r.success) return `gives an invalid task (${[k, ...(r.error.issues[0]?.path ?? [])].join('.')}: ${r.error.issues[0]?.message ?? 'invalid'})`
  }
  if (log !== undefined) {
    const r = historyEntrySchema.safeParse(log)
    if (!r.success) return `gives an invalid task (history: ${firstIssue(r.error)})`
  }
  return undefined
}

/**
 * Replay one record over the board (pure: the board is not changed). A record read from disk
 * (`check: 'all'`) is validated whole: every resulting task and intent. The writer's own record
 * (`'changes'`) checks new tasks whole and, of a changed task, only the fields it changes — every
 * task on a board passed the whole schema once. One that fails fails the whole record (it is
 * skipped, not half applied).
 */
export function replay(view: Pick<TaskView, 'get'>, raw: unknown, check: 'all' | 'changes' = 'all'): Replayed {
  let rec: JournalRecord
  if (check === 'all') {
    const parsed = recordSchema.safeParse(raw)
    if (!parsed.success) return { ok: false, problem: `not a record (${firstIssue(parsed.error)})` }
    rec = parsed.data as JournalRecord
  } else rec = raw as JournalRecord
  const out = new Map<string, Task>()
  for (const op of rec.ops ?? []) {
    if ('put' in op || check === 'all') {
      let next: unknown
      if ('put' in op) next = op.put
      else {
        const base = out.get(op.id) ?? view.get(op.id)
        if (!base) return { ok: false, problem: `changes ${op.id}, which does not exist` }
        next = { ...base, ...op.set, ...(op.log ? appendHistory(base, op.log) : {}) }
      }
      const task = taskSchema.safeParse(next)
      if (!task.success) return { ok: false, problem: `gives an invalid task (${firstIssue(task.error)})` }
      out.set(task.data.id, task.data as Task)
      continue
    }
    const base = out.get(op.id) ?? view.get(op.id)
    if (!base) return { ok: false, problem: `changes ${op.id}, which does not exist` }
    const bad = checkSet(op.set, op.log)
    if (bad) return { ok: false, problem: bad }
    out.set(op.id, { ...base, ...op.set, ...(op.log ? appendHistory(base, op.log) : {}) })
  }
  const add: Intent[] = []
  for (const a of rec.add ?? []) {
    const intent = intentSchema.safeParse(a)
    if (!intent.success) return { ok: false, problem: `records an invalid intent (${firstIssue(intent.error)})` }
    add.push(intent.data)
  }
  return { ok: true, tasks: [...out.values()], add, done: rec.done ?? [] }
}

/** Split bytes into complete lines (each without its '\n') and the bytes after the last '\n'. */
export function splitLines(buf: Buffer): { lines: Buffer[]; rest: number } {
  const lines: Buffer[] = []
  let start = 0
  for (let i = buf.indexOf(10, start); i !== -1; i = buf.indexOf(10, start)) {
    lines.push(buf.subarray(start, i))
    start = i + 1
  }
  return { lines, rest: buf.length - start }
}

/**
 * The text of a snapshot: its header, then every task, then every pending intent, one per line.
 * `v`: the format its tasks are in (this build's unless a format step has not been recorded yet).
 */
export function snapshotText(
  header: Omit<SnapshotHeader, 'v' | 'tasks' | 'intents'> & { v?: number },
  tasks: readonly Task[],
  intents: readonly Intent[],
  cache?: WeakMap<object, string>,
): string {
  const { v = TASKS_FORMAT, ...rest } = header
  const parts: string[] = [JSON.stringify({ v, ...rest, tasks: tasks.length, intents: intents.length })]
  for (const t of tasks) {
    let text = cache?.get(t)
    if (text === undefined) {
      text = JSON.stringify(t)
      cache?.set(t, text)
    }
    parts.push(`{"task":${text}}`)
  }
  for (const i of intents) parts.push(JSON.stringify({ intent: i }))
  return `${parts.join('\n')}\n`
}

/** A journal's header line (`v` as for `snapshotText`). */
export const journalHeaderText = (base: number, v = TASKS_FORMAT) => `${JSON.stringify({ v, base })}\n`
