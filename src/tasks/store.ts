/**
 * The task store — the ledger's own durable files under `<bot dir>/tasks/`: a snapshot and an
 * append-only journal (one fsynced record per transition; a whole-ledger pass in parts within the
 * record limit), compacted when the journal outgrows the snapshot. One writer (the process
 * `mayWrite()` names); others follow the journal. Its outbox hands each intent over once, recovered
 * after a crash by asking the hand-over whether it already happened. A torn or invalid record is
 * reported and skipped, never fatal. Deliberately narrow: no rules (`policy.ts`), no DSH, no Cordis.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { errorText } from '../core/errors.ts'
import { type DurableAppend, isPrivateTemp, makePrivateDir, openDurableAppend, writePrivateFile } from '../core/private-file.ts'
import { StoreError } from '../core/store-errors.ts'
import { TaskBoard, type TaskView } from './board.ts'
import {
  JOURNAL_FILE,
  type JournalRecord,
  MAX_LINE_BYTES,
  SNAPSHOT_FILE,
  TASKS_FORMAT,
  encodeChanges,
  journalHeaderSchema,
  journalHeaderText,
  recordParts,
  replay,
  snapshotHeaderSchema,
  snapshotText,
  splitLines,
} from './journal.ts'
import { FORMAT_STEPS } from './formats.ts'
import type { Result } from './policy.ts'
import { type Intent, type Task, intentSchema, taskSchema } from './record.ts'

/** Where an intent goes once recorded (the service wires it to DSH). */
export interface HandOver {
  /**
   * Hand the intent over; resolves once it is recorded where `delivered` looks. Resolving to
   * `'held'`: not now (the team's work is held); it stays pending, unreported, until `recover()`
   * is called again. Any other value: handed over.
   */
  deliver(intent: Intent): Promise<unknown>
  /** Whether `intent` was already handed over (asked for each pending intent after a crash). */
  delivered(intent: Intent): Promise<boolean>
}

export interface TaskStoreOptions {
  /** `<bot dir>/tasks` (absolute). */
  dir: string
  /** Whether this process may write now (the team writer's check). Asked before every write. */
  mayWrite: () => boolean
  handOver?: HandOver
  now?: () => Date
  /** The journal is compacted once it is larger than this and than the snapshot (bytes). */
  compactBytes?: number
  /** How often a follower looks for new records (ms). */
  followMs?: number
  /** Told of every problem as it is found (diagnostics). */
  report?: (problem: TaskStoreProblem) => void
}

export type TaskStoreMode = 'writer' | 'follower' | 'read-only'

export interface TaskStoreProblem {
  at: string
  code:
    | 'torn-tail'
    | 'bad-record'
    | 'bad-line'
    | 'seq-gap'
    | 'snapshot-unreadable'
    | 'newer-format'
    | 'broken-copy'
    | 'hand-over-failed'
    | 'write-failed'
    | 'read-failed'
  message: string
  file?: string
}

export interface TaskChange {
  seq: number
  /** The tasks this change touched (every task after a reload). */
  tasks: readonly Task[]
  source: 'local' | 'disk'
  reloaded: boolean
}

export type Applied = { ok: true; seq: number; tasks: Task[]; intents: Intent[] } | { ok: false; refusal: string }

export interface RecoveryCounts {
  /** Pending intents found already handed over (marked done without handing them over again). */
  found: number
  /** Pending intents handed over now. */
  handed: number
  failed: number
}

/** The read side of the board callers get (the store alone changes it). */
export type TaskReader = TaskView & Pick<TaskBoard, 'size' | 'all'>

const DEFAULT_COMPACT_BYTES = 1024 * 1024
const MAX_PROBLEMS = 50
/** Intents not yet handed over; past this a transition that causes more is refused. */
export const MAX_PENDING = 5_000

export interface TaskStoreStatus {
  mode: TaskStoreMode
  seq: number
  tasks: number
  open: number
  pending: number
  journalBytes: number
  snapshotBytes: number
  /** Bytes after the journal's last complete line when last read (a write under way, or torn). */
  tornBytes: number
  /** What the outbox recoveries of this process found, in all. */
  recovered: RecoveryCounts
}

interface Loaded {
  board: TaskBoard
  seq: number
  pending: Map<string, Intent>
  /** Bytes of the journal up to the end of its last complete line. */
  offset: number
  ino: number
  /** Bytes after the last complete line (a torn append). */
  torn: number
  snapshotBytes: number
  /** Something other than a torn tail was skipped: keep a copy before the next compaction drops it. */
  damaged: boolean
  newer: boolean
  /** The oldest format a header of the files names (`TASKS_FORMAT` when none does and no task was read). */
  format: number
  problems: Omit<TaskStoreProblem, 'at'>[]
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await fsp.readFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

function parseLine(line: Buffer): unknown {
  if (line.length > MAX_LINE_BYTES) throw new Error(`a line of ${line.length} bytes`)
  return JSON.parse(line.toString('utf8'))
}

export class TaskStore {
  private readonly opts: Required<Pick<TaskStoreOptions, 'compactBytes' | 'followMs'>> & TaskStoreOptions
  private readonly snapshotFile: string
  private readonly journalFile: string
  private boardValue = new TaskBoard()
  private seqValue = 0
  private pendingIntents = new Map<string, Intent>()
  private modeValue: TaskStoreMode = 'follower'
  private offset = 0
  private ino = -1
  private snapshotBytes = 0
  private journal: DurableAppend | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private handing: Promise<unknown> = Promise.resolve()
  private readonly inFlight = new Set<string>()
  private readonly listeners = new Set<(change: TaskChange) => void>()
  private readonly problemList: TaskStoreProblem[] = []
  private readonly textCache = new WeakMap<object, string>()
  private stopFollowing: (() => void) | undefined
  private closed = false
  private compacting = false
  /** Bytes after the journal's last complete line when it was last read (a torn append). */
  private torn = 0
  /** Something other than a torn tail was skipped: a copy is kept before a compaction drops it. */
  private damaged = false
  private readonly recovered: RecoveryCounts = { found: 0, handed: 0, failed: 0 }
  /** The snapshot as last seen while the journal was missing (`ino:size:mtime`, or `missing`). */
  private snapshotSig = 'missing'
  private lastReadProblem: string | undefined
  /** The format of the tasks as read (a compaction stamps it); the writer upgrades an older one before its first write. */
  private format = TASKS_FORMAT
  /** Why the last try to record the format steps failed. */
  private stepFailure = ''

  private constructor(opts: TaskStoreOptions) {
    if (!path.isAbsolute(opts.dir)) throw new Error('the tasks folder must be an absolute path')
    this.opts = { compactBytes: DEFAULT_COMPACT_BYTES, followMs: 1_000, ...opts }
    this.snapshotFile = path.join(opts.dir, SNAPSHOT_FILE)
    this.journalFile = path.join(opts.dir, JOURNAL_FILE)
  }

  /** Open the ledger: read what is on disk, then write (if `mayWrite()`) or follow. */
  static async open(opts: TaskStoreOptions): Promise<TaskStore> {
    const store = new TaskStore(opts)
    try {
      await store.enqueue(async () => {
        store.install(await store.load(), 'disk')
        await store.settleMode()
      })
    } catch (error) {
      await store.close()
      throw error
    }
    return store
  }

  get mode(): TaskStoreMode {
    return this.modeValue
  }

  /** The sequence number of the last record read or written. */
  get seq(): number {
    return this.seqValue
  }

  get board(): TaskReader {
    return this.boardValue
  }

  status(): TaskStoreStatus {
    return {
      mode: this.modeValue,
      seq: this.seqValue,
      tasks: this.boardValue.size,
      open: this.boardValue.openCount,
      pending: this.pendingIntents.size,
      journalBytes: this.offset,
      snapshotBytes: this.snapshotBytes,
      tornBytes: this.torn,
      recovered: { ...this.recovered },
    }
  }

  /** Intents recorded and not yet marked handed over, oldest first. */
  pending(): Intent[] {
    return [...this.pendingIntents.values()]
  }

  /** The latest problems (at most 50), oldest first. */
  problems(): TaskStoreProblem[] {
    return [...this.problemList]
  }

  /** Be told after every change (a local transition, or records read from disk). Returns the unsubscriber. */
  subscribe(listener: (change: TaskChange) => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * Apply one transition: `fn` reads the board and returns the policy's result; a refusal is
   * returned as it is and nothing is written. Otherwise the record (changed tasks, the intents it
   * causes) is appended and fsynced before this resolves; then the intents are handed over.
   * Throws a `StoreError` when this process may not write.
   */
  transact(fn: (view: TaskReader, pending: readonly Intent[]) => Result): Promise<Applied> {
    return this.enqueue(async () => {
      await this.ensureWriter()
      const result = fn(this.boardValue, this.pending())
      if (!result.ok) return result
      const full = this.outboxFull(result)
      if (full) return full
      return this.commit(result)
    })
  }

  /**
   * Apply a whole-ledger pass (a restore's carrying over) that may change more tasks than one record
   * holds: like `transact`, but written as several records, each within the record limit, a task's
   * change with the intents it causes (`recordParts`). `fn` must be idempotent: cut by a crash
   * between its records, run again it changes only what is left.
   */
  transactInParts(fn: (view: TaskReader, pending: readonly Intent[]) => Result): Promise<Extract<Result, { ok: false }> | { ok: true; seq: number }> {
    return this.enqueue(async () => {
      await this.ensureWriter()
      const result = fn(this.boardValue, this.pending())
      if (!result.ok) return result
      const full = this.outboxFull(result)
      if (full) return full
      await this.commitInParts(result, true)
      return { ok: true, seq: this.seqValue }
    })
  }

  /** The refusal of a transition that would take the outbox past `MAX_PENDING`, if it would. */
  private outboxFull(result: Extract<Result, { ok: true }>): Extract<Result, { ok: false }> | undefined {
    if (!result.intents.length || this.pendingIntents.size + result.intents.length <= MAX_PENDING) return undefined
    return {
      ok: false,
      refusal: `${this.pendingIntents.size} deliveries of the task ledger wait to be handed over (at most ${MAX_PENDING}); nothing changed. Try again once they are.`,
    }
  }

  /** `commit` of a whole-ledger pass, part by part (each a record within the limits). */
  private async commitInParts(pass: Extract<Result, { ok: true }>, handOver: boolean): Promise<void> {
    for (const part of recordParts(this.boardValue, pass, (id) => this.pendingIntents.get(id)?.taskId)) await this.commit(part, handOver)
  }

  /** Append one transition's record (fsynced), apply it, tell the listeners and hand its intents over (writer, in the queue; `handOver: false`: left to the next recovery). */
  private async commit(result: Extract<Result, { ok: true }>, handOver = true): Promise<Extract<Applied, { ok: true }>> {
    const done = (result.drop ?? []).filter((id) => this.pendingIntents.has(id))
    if (!result.changes.length && !result.intents.length && !done.length) return { ok: true, seq: this.seqValue, tasks: [], intents: [] }
    const seq = this.seqValue + 1
    const at = this.now()
    const add = result.intents.map((d, i) => ({ ...d, id: `${seq}.${i}`, at }) as Intent)
    const record: JournalRecord = {
      seq,
      at,
      ops: encodeChanges(this.boardValue, result.changes),
      ...(add.length ? { add } : {}),
      ...(done.length ? { done } : {}),
    }
    const replayed = replay(this.boardValue, record, 'changes')
    if (!replayed.ok) throw new StoreError('EINVALID', `The transition was not saved: it ${replayed.problem}.`)
    await this.append(record)
    this.apply(replayed.tasks, replayed.add, replayed.done, seq)
    this.emit({ seq, tasks: replayed.tasks, source: 'local', reloaded: false })
    if (handOver) this.handOver(replayed.add)
    this.maybeCompact()
    return { ok: true, seq, tasks: replayed.tasks, intents: replayed.add }
  }

  /**
   * Bring a ledger an older build wrote to this build's format: each format step is recorded (as
   * records within the limit, `recordParts`), and only then is the new format stamped, by a
   * compaction. A crash or a failed write before that leaves the files in their older format, and
   * the steps run again; they change nothing the second time.
   */
  private async upgrade() {
    for (let f = this.format; f < TASKS_FORMAT; f++) {
      const step = FORMAT_STEPS[f]
      if (step) await this.commitInParts(step(this.boardValue, this.pending(), this.now()), false)
    }
    this.format = TASKS_FORMAT
    await this.compactNow()
  }

  /**
   * `upgrade`, a failure reported: until it succeeds the files keep their format, and the writer
   * changes nothing and hands nothing over (`ensureWriter` tries again at every change). Returns
   * whether the ledger is in this build's format now.
   */
  private async tryUpgrade(): Promise<boolean> {
    try {
      await this.upgrade()
      return true
    } catch (error) {
      if (this.format >= TASKS_FORMAT) {
        // The steps are recorded; only their compaction failed (the next one stamps the format).
        this.problem({ code: 'write-failed', file: SNAPSHOT_FILE, message: `The tasks could not be compacted after their format step: ${errorText(error)}.` })
        return true
      }
      this.stepFailure = `The task ledger was written by an older build, and the step to this build's format could not be recorded (${errorText(error)})`
      this.problem({
        code: 'write-failed',
        file: JOURNAL_FILE,
        message: `${this.stepFailure}; nothing is changed or handed over until it is, and it is tried again at the next change.`,
      })
      return false
    }
  }

  /**
   * Settle the mode now (become the writer when `mayWrite()` says so, a follower when it no longer
   * does) and, following, read new records. Never throws; returns the mode.
   */
  refresh(): Promise<TaskStoreMode> {
    return this.enqueue(async () => {
      await this.settleMode()
      if (this.modeValue !== 'writer') await this.follow()
      return this.modeValue
    }).catch(() => this.modeValue)
  }

  /** Hand over every pending intent not handed over yet (after asking whether it already was). */
  recover(): Promise<RecoveryCounts> {
    const run = this.handing.then(() => this.recoverNow())
    this.handing = run.catch(() => {})
    return run
  }

  /** Resolves once the hand-overs started so far and their marks are done. */
  async settled(): Promise<void> {
    await this.handing
    await this.queue
  }

  /** Compact now (writer only): a new snapshot of every task, a new empty journal. */
  compact(): Promise<void> {
    return this.enqueue(() => this.compactNow())
  }

  /**
   * Stop: no more writes or reads. Waits for the transitions under way, not for a hand-over in
   * flight (its intent stays pending and the next writer's recovery asks whether it happened).
   */
  async close(): Promise<void> {
    this.closed = true
    this.stopFollowing?.()
    await this.queue
    await this.journal?.close().catch(() => {})
    this.journal = undefined
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────────

  private now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString()
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn)
    this.queue = run.catch(() => {})
    return run
  }

  private problem(p: Omit<TaskStoreProblem, 'at'>) {
    const full = { at: this.now(), ...p }
    this.problemList.push(full)
    if (this.problemList.length > MAX_PROBLEMS) this.problemList.shift()
    try {
      this.opts.report?.(full)
    } catch {}
  }

  private emit(change: TaskChange) {
    for (const l of this.listeners) {
      try {
        l(change)
      } catch {}
    }
  }

  /** Read the snapshot and the journal (retried when a compaction happened between the two reads). */
  private async load(): Promise<Loaded> {
    let last: Loaded | undefined
    for (let attempt = 0; attempt < 5; attempt++) {
      last = await this.loadOnce()
      if (!last.problems.some((p) => p.code === 'seq-gap')) return last
    }
    return last!
  }

  private async loadOnce(): Promise<Loaded> {
    const out: Loaded = {
      board: new TaskBoard(),
      seq: 0,
      pending: new Map(),
      offset: 0,
      ino: -1,
      torn: 0,
      snapshotBytes: 0,
      damaged: false,
      newer: false,
      format: Number.POSITIVE_INFINITY,
      problems: [],
    }
    const snap = await readOrNull(this.snapshotFile)
    if (snap) this.readSnapshot(snap, out)
    let journal: Buffer | null
    try {
      const st = await fsp.stat(this.journalFile)
      out.ino = st.ino
      journal = await readOrNull(this.journalFile)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      journal = null
    }
    if (journal) this.readJournal(journal, out)
    // No header names a format: a ledger holding tasks is taken for the oldest (the steps are idempotent).
    if (!Number.isFinite(out.format)) out.format = out.board.size ? 1 : TASKS_FORMAT
    return out
  }

  private readSnapshot(buf: Buffer, out: Loaded) {
    out.snapshotBytes = buf.length
    const { lines, rest } = splitLines(buf)
    let header: ReturnType<typeof snapshotHeaderSchema.safeParse> | undefined
    try {
      header = snapshotHeaderSchema.safeParse(lines.length ? parseLine(lines[0]!) : null)
    } catch {}
    if (!header?.success || rest) {
      out.damaged = true
      out.problems.push({
        code: 'snapshot-unreadable',
        file: SNAPSHOT_FILE,
        message: `The tasks snapshot has no readable header${rest ? ' or ends mid-line' : ''}; its tasks are read where possible.`,
      })
    }
    if (header?.success) {
      if (header.data.v > TASKS_FORMAT) out.newer = true
      out.format = Math.min(out.format, header.data.v)
      out.seq = header.data.seq
      out.board.reserve(header.data.nextId)
    }
    for (let i = header?.success ? 1 : 0; i < lines.length; i++) {
      let entry: { task?: unknown; intent?: unknown }
      try {
        entry = parseLine(lines[i]!) as typeof entry
      } catch {
        entry = {}
      }
      const task = entry && 'task' in entry ? taskSchema.safeParse(entry.task) : undefined
      const intent = entry && 'intent' in entry ? intentSchema.safeParse(entry.intent) : undefined
      if (task?.success) out.board.put(task.data as Task)
      else if (intent?.success) out.pending.set(intent.data.id, intent.data)
      else {
        out.damaged = true
        out.problems.push({
          code: 'bad-line',
          file: SNAPSHOT_FILE,
          message: `Line ${i + 1} of the tasks snapshot is not a valid task or intent; it was skipped.`,
        })
      }
    }
  }

  private readJournal(buf: Buffer, out: Loaded) {
    const { lines, rest } = splitLines(buf)
    out.offset = buf.length - rest
    out.torn = rest
    let first = 0
    if (lines.length) {
      let header: ReturnType<typeof journalHeaderSchema.safeParse> | undefined
      try {
        header = journalHeaderSchema.safeParse(parseLine(lines[0]!))
      } catch {}
      if (header?.success) {
        first = 1
        if (header.data.v > TASKS_FORMAT) out.newer = true
        out.format = Math.min(out.format, header.data.v)
        if (header.data.base > out.seq) {
          out.problems.push({
            code: 'seq-gap',
            file: JOURNAL_FILE,
            message: `The tasks journal follows record ${header.data.base}, but the snapshot ends at ${out.seq}.`,
          })
        }
      }
    }
    this.applyLines(lines.slice(first), out)
  }

  /** Replay complete journal lines onto `out` (records already applied are skipped). */
  private applyLines(lines: Buffer[], out: Pick<Loaded, 'board' | 'seq' | 'pending' | 'damaged' | 'problems'>): Task[] {
    const touched = new Map<string, Task>()
    // Records skipped without a readable seq: that many missing numbers after them are theirs, not a gap.
    let unnumbered = 0
    for (const line of lines) {
      let raw: unknown
      try {
        raw = parseLine(line)
      } catch (error) {
        out.damaged = true
        unnumbered++
        out.problems.push({
          code: 'bad-record',
          file: JOURNAL_FILE,
          message: `A tasks record after record ${out.seq} is not JSON (${errorText(error)}); it was skipped.`,
        })
        continue
      }
      const seq = (raw as { seq?: unknown })?.seq
      if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) {
        out.damaged = true
        unnumbered++
        out.problems.push({ code: 'bad-record', file: JOURNAL_FILE, message: `A tasks record after record ${out.seq} has no sequence number; it was skipped.` })
        continue
      }
      if (seq <= out.seq) continue
      if (seq > out.seq + 1 + unnumbered)
        out.problems.push({ code: 'seq-gap', file: JOURNAL_FILE, message: `Tasks records ${out.seq + 1}–${seq - 1} are missing.` })
      unnumbered = 0
      const r = replay(out.board, raw)
      if (!r.ok) {
        out.damaged = true
        out.problems.push({ code: 'bad-record', file: JOURNAL_FILE, message: `Tasks record ${seq} ${r.problem}; it was skipped.` })
        out.seq = seq
        continue
      }
      for (const t of r.tasks) {
        out.board.put(t)
        touched.set(t.id, t)
      }
      for (const a of r.add) out.pending.set(a.id, a)
      for (const id of r.done) out.pending.delete(id)
      out.seq = seq
    }
    return [...touched.values()]
  }

  private install(loaded: Loaded, source: 'disk') {
    this.boardValue = loaded.board
    this.seqValue = loaded.seq
    this.pendingIntents = loaded.pending
    this.offset = loaded.offset
    this.ino = loaded.ino
    this.snapshotBytes = loaded.snapshotBytes
    this.torn = loaded.torn
    this.damaged = loaded.damaged
    this.format = loaded.format
    for (const p of loaded.problems) this.problem(p)
    if (loaded.newer) {
      this.modeValue = 'read-only'
      this.problem({ code: 'newer-format', message: 'The tasks were written by a newer build of the plugin; they are shown read-only until it is updated.' })
    }
    this.emit({ seq: this.seqValue, tasks: [...this.boardValue.all()], source, reloaded: true })
  }

  private apply(tasks: readonly Task[], add: readonly Intent[], done: readonly string[], seq: number) {
    for (const t of tasks) this.boardValue.put(t)
    for (const a of add) this.pendingIntents.set(a.id, a)
    for (const id of done) this.pendingIntents.delete(id)
    this.seqValue = seq
  }

  private async settleMode() {
    if (this.closed) return
    if (this.modeValue === 'read-only') return this.startFollowing()
    let may = false
    try {
      may = this.opts.mayWrite()
    } catch {}
    if (may && this.modeValue === 'follower') await this.becomeWriter()
    else if (!may && this.modeValue === 'writer') await this.becomeFollower()
    else if (!may && !this.stopFollowing) this.startFollowing()
  }

  private async ensureWriter() {
    if (this.closed) throw new StoreError('EREADONLY', 'The task ledger is closed.')
    await this.settleMode()
    if (this.modeValue === 'read-only')
      throw new StoreError('EREADONLY', 'The tasks were written by a newer build of the plugin; nothing is changed until it is updated.')
    if (this.modeValue !== 'writer')
      throw new StoreError(
        'EFOLLOWER',
        'Another DSH process writes the team and its tasks; this one only follows them. Make the change where the team is written (DSH Web).',
      )
    if (this.format < TASKS_FORMAT) {
      if (!(await this.tryUpgrade())) throw new StoreError('EREADONLY', `${this.stepFailure}; nothing changed. It is tried again at the next change.`)
      this.recoverLater()
    }
  }

  /** Hand over what is pending, in the background (after becoming the writer, or once the ledger is in this format). */
  private recoverLater() {
    if (this.opts.handOver && this.pendingIntents.size) void this.recover().catch(() => {})
  }

  private async becomeWriter() {
    // Catch up with what the previous writer left, then repair and open the journal.
    await this.follow()
    if (this.modeValue === 'read-only') return
    await makePrivateDir(this.opts.dir)
    for (const name of await fsp.readdir(this.opts.dir)) {
      if (isPrivateTemp(name, SNAPSHOT_FILE) || isPrivateTemp(name, JOURNAL_FILE)) await fsp.rm(path.join(this.opts.dir, name), { force: true })
    }
    this.stopFollowing?.()
    this.stopFollowing = undefined
    let fresh = false
    if (!fs.existsSync(this.journalFile)) {
      await writePrivateFile(this.journalFile, journalHeaderText(this.seqValue, this.format))
      fresh = true
    }
    const journal = await openDurableAppend(this.journalFile)
    if (!fresh && journal.size > this.offset) {
      const cut = journal.size - this.offset
      await journal.truncate(this.offset)
      this.problem({
        code: 'torn-tail',
        file: JOURNAL_FILE,
        message: `The last tasks record was cut off (${cut} bytes of a write that never finished); it was ignored and removed.`,
      })
    }
    this.torn = 0
    if (fresh) this.offset = journal.size
    this.ino = (await fsp.stat(this.journalFile)).ino
    this.journal = journal
    this.modeValue = 'writer'
    // A damaged ledger is copied as found, then compacted — by the format steps' own compaction
    // when it is older (no compaction stamps the new format before the steps are recorded).
    if (this.damaged) await this.keepBrokenCopies()
    if (this.format < TASKS_FORMAT) {
      if (!(await this.tryUpgrade())) return
    } else if (this.damaged) await this.compactNow()
    this.recoverLater()
  }

  private async becomeFollower() {
    await this.journal?.close().catch(() => {})
    this.journal = undefined
    this.modeValue = 'follower'
    this.startFollowing()
  }

  private async keepBrokenCopies() {
    const stamp = this.now().replace(/[:.]/g, '-')
    for (const name of [SNAPSHOT_FILE, JOURNAL_FILE]) {
      const copy = `${name.replace(/\.jsonl$/, '')}.broken-${stamp}.jsonl`
      try {
        await fsp.copyFile(path.join(this.opts.dir, name), path.join(this.opts.dir, copy), fs.constants.COPYFILE_EXCL)
        this.problem({ code: 'broken-copy', file: copy, message: `A copy of ${name} as it was found is kept as ${copy}.` })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
          this.problem({ code: 'write-failed', file: copy, message: `Could not keep a copy of ${name}: ${errorText(error)}.` })
      }
    }
  }

  /** Read what was appended since the last read; reload everything after a compaction. */
  private async follow() {
    let st: fs.Stats | undefined
    try {
      st = await fsp.stat(this.journalFile)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        const message = `Could not read the tasks journal: ${errorText(error)}.`
        if (message !== this.lastReadProblem) this.problem({ code: 'read-failed', message })
        this.lastReadProblem = message
        return
      }
      // No journal (none written yet, or the file was removed): reload only when something changed.
      const sig = await fsp.stat(this.snapshotFile).then(
        (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
        () => 'missing',
      )
      if (this.ino === -1 && sig === this.snapshotSig) return
      this.snapshotSig = sig
      return this.install(await this.load(), 'disk')
    }
    this.lastReadProblem = undefined
    if (st.ino !== this.ino || st.size < this.offset) return this.install(await this.load(), 'disk')
    if (st.size === this.offset) return
    const handle = await fsp.open(this.journalFile, 'r')
    let buf: Buffer
    try {
      buf = Buffer.alloc(st.size - this.offset)
      const { bytesRead } = await handle.read(buf, 0, buf.length, this.offset)
      buf = buf.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
    const { lines, rest } = splitLines(buf)
    const out = { board: this.boardValue, seq: this.seqValue, pending: this.pendingIntents, damaged: false, problems: [] as Omit<TaskStoreProblem, 'at'>[] }
    const touched = this.applyLines(lines, out)
    if (out.problems.some((p) => p.code === 'seq-gap')) return this.install(await this.load(), 'disk')
    for (const p of out.problems) this.problem(p)
    this.offset += buf.length - rest
    this.torn = rest
    this.seqValue = out.seq
    this.damaged ||= out.damaged
    if (touched.length || lines.length) this.emit({ seq: this.seqValue, tasks: touched, source: 'disk', reloaded: false })
  }

  private startFollowing() {
    if (this.closed || this.stopFollowing) return
    let busy = false
    const check = () => {
      if (busy || this.closed || this.modeValue === 'writer') return
      busy = true
      this.refresh().finally(() => {
        busy = false
      })
    }
    let watcher: fs.FSWatcher | undefined
    const watch = () => {
      if (watcher) return
      try {
        watcher = fs.watch(this.opts.dir, (_e, name) => {
          if (!name || name === JOURNAL_FILE) check()
        })
        watcher.on('error', () => {})
      } catch {}
    }
    watch()
    const timer = setInterval(() => {
      watch()
      check()
    }, this.opts.followMs)
    timer.unref()
    this.stopFollowing = () => {
      watcher?.close()
      clearInterval(timer)
    }
  }

  private async append(record: JournalRecord) {
    const line = Buffer.from(`${JSON.stringify(record)}\n`)
    if (line.length > MAX_LINE_BYTES)
      throw new StoreError('EINVALID', `The transition was not saved: its record would be ${line.length} bytes (at most ${MAX_LINE_BYTES}).`)
    const journal = this.journal!
    const before = journal.size
    try {
      await journal.append(line)
    } catch (error) {
      this.problem({ code: 'write-failed', file: JOURNAL_FILE, message: `A tasks record could not be written: ${errorText(error)}.` })
      // Cut what may have reached the file, so the next record does not follow a torn one.
      await journal.truncate(before).catch(async () => {
        this.problem({ code: 'write-failed', file: JOURNAL_FILE, message: 'The tasks journal could not be repaired; this process stops writing it.' })
        await this.becomeFollower()
      })
      throw error
    }
    this.offset = journal.size
  }

  private handOver(intents: readonly Intent[]) {
    const h = this.opts.handOver
    if (!h || !intents.length) return
    const run = this.handing.then(async () => {
      for (const intent of intents) await this.handOne(intent, false)
    })
    this.handing = run.catch(() => {})
  }

  private async recoverNow(): Promise<RecoveryCounts> {
    const counts: RecoveryCounts = { found: 0, handed: 0, failed: 0 }
    for (const intent of this.pending()) {
      const r = await this.handOne(intent, true)
      if (r) {
        counts[r]++
        this.recovered[r]++
      }
    }
    return counts
  }

  private async handOne(intent: Intent, probe: boolean): Promise<'found' | 'handed' | 'failed' | undefined> {
    const h = this.opts.handOver
    if (!h || this.closed || this.modeValue !== 'writer' || this.format < TASKS_FORMAT || !this.pendingIntents.has(intent.id) || this.inFlight.has(intent.id))
      return undefined
    this.inFlight.add(intent.id)
    try {
      let outcome: 'found' | 'handed' = 'handed'
      if (probe && (await h.delivered(intent))) outcome = 'found'
      else if ((await h.deliver(intent)) === 'held') return undefined
      await this.markDone(intent.id)
      return outcome
    } catch (error) {
      this.problem({
        code: 'hand-over-failed',
        message: `Intent ${intent.id} (${intent.kind} of ${intent.taskId}) was not handed over: ${errorText(error)}. It stays pending.`,
      })
      return 'failed'
    } finally {
      this.inFlight.delete(intent.id)
    }
  }

  private markDone(id: string): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed || this.modeValue !== 'writer' || !this.pendingIntents.has(id)) return
      const seq = this.seqValue + 1
      await this.append({ seq, at: this.now(), done: [id] })
      this.apply([], [], [id], seq)
      this.maybeCompact()
    })
  }

  private maybeCompact() {
    if (this.compacting || this.modeValue !== 'writer') return
    const size = this.journal?.size ?? 0
    if (size <= this.opts.compactBytes || size <= this.snapshotBytes) return
    this.compacting = true
    void this.enqueue(() => this.compactNow())
      .catch((error) =>
        this.problem({
          code: 'write-failed',
          file: SNAPSHOT_FILE,
          message: `The tasks could not be compacted: ${errorText(error)}. The journal keeps growing until a compaction works.`,
        }),
      )
      .finally(() => {
        this.compacting = false
      })
  }

  private async compactNow() {
    if (this.modeValue !== 'writer') return
    const text = snapshotText(
      { v: this.format, seq: this.seqValue, nextId: this.boardValue.nextId, at: this.now() },
      [...this.boardValue.all()],
      this.pending(),
      this.textCache,
    )
    await writePrivateFile(this.snapshotFile, text)
    this.snapshotBytes = Buffer.byteLength(text)
    // The old journal's records are all in the snapshot now: a crash (or a failure) before the new
    // journal replaces it only leaves them to be skipped, and appends go on to the old one.
    await writePrivateFile(this.journalFile, journalHeaderText(this.seqValue, this.format))
    const old = this.journal
    try {
      this.journal = await openDurableAppend(this.journalFile)
    } catch (error) {
      // The old handle points at a file no longer named: never append there.
      this.journal = undefined
      await old?.close().catch(() => {})
      this.problem({
        code: 'write-failed',
        file: JOURNAL_FILE,
        message: `The new tasks journal could not be opened (${errorText(error)}); this process stops writing the tasks.`,
      })
      await this.becomeFollower()
      return
    }
    await old?.close().catch(() => {})
    this.offset = this.journal.size
    this.ino = (await fsp.stat(this.journalFile)).ino
    this.damaged = false
  }
}
