/**
 * `botStore`, the one writer of team state: opening the team, the process's mode (writer, follower,
 * read-only), transactions (draft, validate what changed, verify the lock, durable save, publish),
 * following and taking over, the `bot-team/writer` event. Deliberately knows nothing of what Bots
 * mean and never writes without the lock or through a link (src/store/README.md).
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { type Context, Service } from '@deepseek-ai/cordis'
import { z } from 'zod'
import { StoreError } from '../core/store-errors.ts'
import { type Classified, type ReadOnlyReason, type ReadResult, LOCK_DIR, STATE_FILE, brokenCopyName, classifyRead, isTempLeftover } from './load.ts'
import { type AcquireResult, type LockFn, type LockHandle, type LockOwner, acquireStateLock, readLockOwner } from './lock.ts'
import { serializeState, writeStateFile } from './save.ts'
import { PRIVATE_FILE_MODE, makePrivateDir } from '../core/private-file.ts'
import { type TeamState, STATE_VERSION, emptyState, stateSchema } from './schema.ts'
import { createDraft } from './draft.ts'
import { KnownValid, validateState } from './validate.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botStore: BotStore
  }
  interface Events {
    /**
     * This process became the writer of team state: when the team is opened (`from: null`), or
     * later when it takes over from a follower's or read-only state (`from`). Emitted inside the
     * store's queue, after the mode is settled; a listener's `update()` runs right after.
     * Services that start after the store also check `botStore.mode` when they start.
     */
    'bot-team/writer'(payload: WriterEvent): void
  }
}

export interface WriterEvent {
  /** The mode before: `null` when the team was just opened. */
  from: 'follower' | 'read-only' | null
  /** Writing without a lock (see `StoreStatus.lockless`). */
  lockless: boolean
  revision: number
}

export const Config = z.object({
  /** Absolute path of the bot folder (the entry passes `$DSH_HOME/bot`). */
  dir: z.string().refine((p) => path.isAbsolute(p), { message: 'dir must be an absolute path' }),
  /** `auto`: become the writer only in a long-lived host (DSH Web); a one-shot run follows. */
  role: z.enum(['auto', 'writer', 'follower']).default('auto'),
  /** Set by the entry when this process hosts DSH's web app at activation; later, `allowWriting()`. */
  longLived: z.boolean().default(false),
  /** Refuse to write (read-only) instead of saving without a lock when locking fails. */
  requireLock: z.boolean().default(false),
  /** A lock not refreshed for this long is stale and may be taken over (min 2000). */
  staleMs: z.int().min(2000).default(10_000),
  /** How often the holder refreshes the lock's mtime (min 1000, at most staleMs / 2). */
  updateMs: z.int().min(1000).default(2_000),
  /** Poll interval while following the file (a directory watcher also triggers re-reads). */
  followMs: z.int().min(20).default(1_000),
  /** Recorded in `writtenBy` and in the lock owner. */
  pluginVersion: z.string().default('0.0.0'),
})
export type Config = z.infer<typeof Config>
/** What callers pass to `ctx.plugin(BotStore, …)`: only `dir` is required. */
export type ConfigInput = z.input<typeof Config>

/** Things tests (and only tests) replace. */
export interface StoreDeps {
  /** proper-lockfile's `lock`, or a stand-in that fails like a filesystem without locking. */
  lock?: LockFn
  /** Used for the byte-for-byte copy of a corrupt file (COPYFILE_EXCL semantics). */
  copyFile?: (src: string, dest: string) => Promise<void>
  now?: () => Date
}

export type StoreMode = 'writer' | 'follower' | 'read-only'
export type FollowerReason = 'role-follower' | 'lock-held'

export interface StoreStatus {
  mode: StoreMode
  reason: ReadOnlyReason | FollowerReason | null
  /** What the user sees: why this mode, and what to do about it. */
  message: string
  /** Writer without a lock (locking failed, `requireLock` off): concurrent DSH processes may clash. */
  lockless: boolean
  lockLost: boolean
  /** The recorded owner of bot/state.lock when another process holds it. */
  holder: LockOwner | null
  revision: number
  dir: string
}

export interface Diagnostic {
  at: string
  level: 'info' | 'warn' | 'error'
  code:
    | 'corrupt-file'
    | 'broken-copy'
    | 'backup-failed'
    | 'unreadable'
    | 'newer-version'
    | 'migrated'
    | 'lockless'
    | 'lock-unavailable'
    | 'not-writable'
    | 'lock-lost'
    | 'took-over'
    | 'temp-cleaned'
    | 'follow-error'
    | 'symlink'
  message: string
  /** File name (relative to the bot folder) the diagnostic is about, e.g. the broken copy. */
  file?: string
}

export interface StateChange {
  revision: number
  /** `local`: saved by this process; `disk`: read from a file another process wrote. */
  source: 'local' | 'disk'
}

export type StateListener = (state: Readonly<TeamState>, change: StateChange) => void
// biome-ignore lint/suspicious/noConfusingVoidType: a transaction may mutate the draft and return nothing.
export type Transaction = (draft: TeamState) => TeamState | void | Promise<TeamState | void>

const MAX_DIAGNOSTICS = 50

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

function errText(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? error)
}

export class BotStore extends Service {
  static Config = Config

  readonly config: Config
  private home: Context
  private deps: StoreDeps
  private snapshot: TeamState
  private modeValue: StoreMode = 'follower'
  private reasonValue: StoreStatus['reason'] = null
  private messageValue = 'opening'
  private lockless = false
  private lockLost = false
  private holder: LockOwner | null = null
  private lock: LockHandle | null = null
  private diagnosticList: Diagnostic[] = []
  private listeners = new Set<StateListener>()
  private queue: Promise<unknown> = Promise.resolve()
  private disposed = false
  private lastSeen = ''
  private polling = false
  /** `config.longLived`, or true once the entry called `allowWriting()`. */
  private longLived: boolean
  private opened = false
  /** Entities of the published state that passed their schema (see validate.ts). */
  private known = new KnownValid()
  /** Saved text of each published entity, reused while it is unchanged (see save.ts). */
  private texts = new WeakMap<object, string>()

  constructor(ctx: Context, config: ConfigInput, deps: StoreDeps = {}) {
    super(ctx, 'botStore')
    this.home = ctx
    this.config = Config.parse(config)
    this.deps = deps
    this.longLived = this.config.longLived
    this.snapshot = deepFreeze(emptyState(this.config.pluginVersion, this.now()))
  }

  async [Service.init]() {
    // One teardown effect: stop accepting work, let the in-flight save finish, then release.
    this.home.effect(
      () => async () => {
        this.disposed = true
        await this.queue.catch(() => {})
        await this.dropLock()
      },
      'botStore lock',
    )
    await this.enqueue(() => this.open())
    this.home.effect(() => this.follow(), 'botStore follow')
  }

  // ── public API ────────────────────────────────────────────────────────────────────────────

  /** The current team state (deep-frozen; change it only through `update`). */
  get state(): Readonly<TeamState> {
    return this.snapshot
  }

  read(): Readonly<TeamState> {
    return this.snapshot
  }

  status(): StoreStatus {
    return {
      mode: this.modeValue,
      reason: this.reasonValue,
      message: this.messageValue,
      lockless: this.lockless,
      lockLost: this.lockLost,
      holder: this.holder,
      revision: this.snapshot.revision,
      dir: this.config.dir,
    }
  }

  get mode(): StoreMode {
    return this.modeValue
  }

  /**
   * May this process write team state, and what only the writer writes (Bot and group Sessions,
   * post logs, memory, secrets, the archive index, recovery)? The one check every service asks.
   * It never takes over: a request that should take over from a writer that is gone first awaits
   * `claim()`, then asks.
   */
  isWriter(): boolean {
    return this.modeValue === 'writer'
  }

  diagnostics(): readonly Diagnostic[] {
    return [...this.diagnosticList]
  }

  /**
   * Run a transaction: `fn` gets a mutable draft (copy-on-write, see `draft.ts`; it behaves like a
   * deep copy) and may mutate it or return a new state. The result is validated, saved atomically
   * and durably, and then published. If `fn` throws, the result is
   * invalid, or the save is refused, nothing changes (in memory or on disk). Transactions of one
   * process run one at a time. Refusals throw `StoreError` (EFOLLOWER, EREADONLY, ELOCKLOST,
   * EINVALID).
   */
  update(fn: Transaction): Promise<Readonly<TeamState>> {
    return this.enqueue(async () => {
      await this.ensureWriter()
      // Copy-on-write: the transaction copies only what it writes; everything else stays the
      // published (frozen, validated) object, so validation and serialisation skip it.
      const { draft, finish } = createDraft(this.snapshot as TeamState)
      const produced = finish(await fn(draft))
      const candidate =
        typeof produced === 'object' && produced !== null && !Array.isArray(produced)
          ? {
              ...produced,
              version: STATE_VERSION,
              revision: this.snapshot.revision + 1,
              writtenBy: { pluginVersion: this.config.pluginVersion, at: this.now().toISOString() },
            }
          : produced
      const checked = validateState(candidate, this.known)
      if (!checked.ok) {
        throw new StoreError('EINVALID', `The change was refused because the team state would be invalid (${checked.problem}). Nothing was saved.`)
      }
      const next = deepFreeze(checked.state)
      this.known.remember(next, checked.fresh)
      await this.save(next)
      this.snapshot = next
      this.publish('local')
      return this.snapshot
    })
  }

  /**
   * Listen to state changes. The listener runs after every published change: a save by this
   * process (`source: 'local'`), and a state read from disk (`'disk'`: a file another process
   * wrote, or the state loaded when the team is opened or re-opened). It is not called with the
   * current state when subscribing. A listener that throws is logged; the save it follows stands.
   * The subscription is a Cordis effect of the context `botStore` was reached through
   * (`ctx.botStore.subscribe(…)` in a plugin ends when that plugin unloads); the returned function
   * ends it earlier.
   */
  subscribe(listener: StateListener): () => void {
    return this.ctx.effect(() => {
      this.listeners.add(listener)
      return () => {
        this.listeners.delete(listener)
      }
    }, 'botStore.subscribe()')
  }

  /**
   * Try to become the writer now (what `update` does first): a follower whose holder exited, or
   * whose lock went stale, takes over. Never throws; returns the resulting mode (callers then ask
   * `isWriter()`).
   */
  claim(): Promise<StoreMode> {
    return this.enqueue(async () => {
      try {
        await this.ensureWriter()
      } catch {
        // the mode and its message already say why
      }
      return this.modeValue
    }).catch(() => this.modeValue)
  }

  /**
   * This process turned out to be long-lived after it opened (DSH's web app appeared after the
   * plugin activated): let it write. Only under role `auto`; a follower by `role-follower` tries
   * the lock and becomes the writer, or a `lock-held` follower when another process holds it.
   * Idempotent; never throws; returns the resulting mode.
   */
  allowWriting(): Promise<StoreMode> {
    if (this.config.role !== 'auto' || this.longLived) return Promise.resolve(this.modeValue)
    this.longLived = true
    return this.claim()
  }

  /** Re-read the file now if it changed (what the watcher does); no-op for the writer. */
  refresh(): Promise<void> {
    return this.enqueue(() => this.followOnce())
  }

  // ── opening and modes ────────────────────────────────────────────────────────────────────

  private now(): Date {
    return this.deps.now?.() ?? new Date()
  }

  private get file() {
    return path.join(this.config.dir, STATE_FILE)
  }

  private eligible(): boolean {
    return this.config.role === 'writer' || (this.config.role === 'auto' && this.longLived)
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.disposed) throw new StoreError('EREADONLY', 'The team store plugin has been unloaded; nothing was saved. Reload the plugin to reopen the team.')
      return task()
    }
    const p = this.queue.then(run, run)
    this.queue = p.catch(() => {})
    return p
  }

  private diagnose(d: Omit<Diagnostic, 'at'>) {
    const entry = { at: this.now().toISOString(), ...d }
    this.diagnosticList.push(entry)
    if (this.diagnosticList.length > MAX_DIAGNOSTICS) this.diagnosticList.shift()
    const log = this.home.logger('botStore')
    if (d.level === 'error') log.error(d.message)
    else if (d.level === 'warn') log.warn(d.message)
    else log.info(d.message)
  }

  private setMode(mode: StoreMode, reason: StoreStatus['reason'], message: string) {
    this.modeValue = mode
    this.reasonValue = reason
    this.messageValue = message
  }

  private async readFile(): Promise<ReadResult> {
    try {
      return { kind: 'bytes', bytes: await fsp.readFile(this.file) }
    } catch (error) {
      const e = error as NodeJS.ErrnoException
      if (e.code === 'ENOENT') return { kind: 'missing' }
      return { kind: 'error', code: e.code ?? 'EIO', message: e.message }
    }
  }

  private async tryLock(): Promise<AcquireResult> {
    return acquireStateLock({
      dir: this.config.dir,
      staleMs: this.config.staleMs,
      updateMs: this.config.updateMs,
      pluginVersion: this.config.pluginVersion,
      lockFn: this.deps.lock,
      onCompromised: (error) => this.markLockLost(`proper-lockfile reports the lock compromised (${errText(error)})`),
    })
  }

  private async dropLock() {
    const lock = this.lock
    this.lock = null
    await lock?.release()
  }

  private async isWritable(): Promise<boolean> {
    try {
      await fsp.access(this.config.dir, fs.constants.W_OK)
      await fsp.access(this.file, fs.constants.W_OK).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e
      })
      return true
    } catch {
      return false
    }
  }

  /**
   * Open (or re-open) the team: lock if this process may write, read and classify the file,
   * then settle the mode. Used at load, and again on a request while follower or read-only.
   * Emits `bot-team/writer` when this process becomes the writer.
   */
  private async open(): Promise<void> {
    const before = this.modeValue
    const first = !this.opened
    this.opened = true
    await this.openTeam()
    if (this.modeValue !== 'writer' || this.lockLost || this.disposed) return
    if (first || before !== 'writer') {
      const from = first || before === 'writer' ? null : before
      this.home.emit('bot-team/writer', { from, lockless: this.lockless, revision: this.snapshot.revision } satisfies WriterEvent)
    }
  }

  /** A symbolic link at `bot/` or `bot/state.json`, described; `null` when there is none. */
  private async symlinkProblem(): Promise<string | null> {
    for (const [file, what] of [
      [this.config.dir, `The bot folder ${this.config.dir}`],
      [this.file, 'bot/state.json'],
    ] as const) {
      try {
        if ((await fsp.lstat(file)).isSymbolicLink()) return `${what} is a symbolic link (to ${await fsp.readlink(file).catch(() => '?')})`
      } catch {}
    }
    return null
  }

  private async openTeam(): Promise<void> {
    const link = await this.symlinkProblem()
    if (link) return this.openSymlinked(link)
    let lock: AcquireResult | null = null
    if (this.eligible() && !this.lock) {
      await makePrivateDir(this.config.dir).catch(() => {})
      lock = await this.tryLock()
      if (lock.kind === 'acquired') {
        this.lock = lock.handle
        this.holder = null
        if (lock.brokeDeadOwner) {
          this.diagnose({
            level: 'info',
            code: 'took-over',
            message: `Took over bot/state.lock from pid ${lock.brokeDeadOwner.pid}, which is no longer running on this host.`,
          })
        }
      }
    }
    const read = await this.readFile()
    const classified = classifyRead(read)
    this.noteSeen(read)

    if (classified.kind === 'read-only') return this.openReadOnly(classified, read)

    // Who may write?
    const dirText = `${this.config.dir}`
    if (!this.eligible()) {
      this.setMode(
        'follower',
        'role-follower',
        'This one-shot DSH run only follows the team; changes are made by the long-lived DSH (DSH Web). To let this process write, set the Bot Team plugin setting writer: always (the store role: writer).',
      )
    } else if (this.lock) {
      this.lockless = false
      this.setMode('writer', null, 'This process writes the team; bot/state.lock is held.')
    } else if (lock?.kind === 'busy') {
      this.holder = lock.owner
      const who = lock.owner ? `pid ${lock.owner.pid} on ${lock.owner.host}` : 'an unknown process'
      this.setMode(
        'follower',
        'lock-held',
        `Another DSH process (${who}) writes the team, so this one shows it read-only and follows its changes. It takes over on its next change once that process exits (or its lock goes stale after ${this.config.staleMs / 1000} s).`,
      )
    } else if (lock?.kind === 'failed') {
      const why = errText(lock.error)
      if (!(await this.isWritable())) {
        this.diagnose({ level: 'error', code: 'not-writable', message: `Locking bot/state.lock failed (${why}) and ${dirText} is not writable.` })
        this.setMode(
          'read-only',
          'not-writable',
          `The bot folder ${dirText} is not writable (locking failed: ${why}), so nothing can be saved. Fix the folder's permissions or free disk space, then retry; the next change re-opens the team.`,
        )
      } else if (this.config.requireLock) {
        this.diagnose({
          level: 'error',
          code: 'lock-unavailable',
          message: `Locking bot/state.lock failed (${why}); requireLock is set, so the team is read-only.`,
        })
        this.setMode(
          'read-only',
          'lock-unavailable',
          `This filesystem cannot lock bot/state.lock (${why}) and requireLock is set, so nothing is saved. Move DSH_HOME to a local filesystem, or turn requireLock off to save without a lock.`,
        )
      } else {
        this.lockless = true
        const msg = `WARNING: locking bot/state.lock failed (${why}); saving WITHOUT a lock. If a second DSH process (DSH Web, Desktop or a headless run) uses the same DSH_HOME, the two can overwrite each other's team changes. Move DSH_HOME to a local filesystem, or set requireLock: true to refuse writes instead.`
        this.diagnose({ level: 'warn', code: 'lockless', message: msg })
        this.setMode('writer', null, msg)
      }
    }
    const writer = this.modeValue === 'writer'

    if (classified.kind === 'corrupt') {
      if (!writer) {
        this.diagnose({
          level: 'warn',
          code: 'corrupt-file',
          message: `${classified.problem}. The writing process will set it aside; showing ${this.snapshot.revision ? 'the last good state' : 'an empty team'} meanwhile.`,
        })
        return
      }
      const name = await this.copyAside(read)
      if (!name.ok) {
        await this.dropLock()
        this.lockless = false
        this.diagnose({ level: 'error', code: 'backup-failed', message: `${classified.problem}; copying it aside failed (${name.error}).` })
        this.setMode(
          'read-only',
          'backup-failed',
          `bot/state.json is damaged (${classified.problem}) and copying it aside failed (${name.error}), so nothing is written and the file is kept as it is. Free disk space or fix the folder's permissions (or move the file away yourself), then retry; the next change re-opens the team.`,
        )
        this.replaceState(emptyState(this.config.pluginVersion, this.now()), 'disk')
        return
      }
      this.diagnose({
        level: 'warn',
        code: 'broken-copy',
        file: name.file,
        message: `${classified.problem}. The original was copied byte for byte to bot/${name.file} and the team starts empty. To recover, fix that copy and move it back to bot/state.json while DSH is stopped.`,
      })
      const fresh = emptyState(this.config.pluginVersion, this.now())
      await this.cleanTemps()
      // Replace the damaged file now so followers stop seeing it; if that fails the next
      // successful save replaces it (the copy above already holds the original).
      await this.save(fresh).catch(() => {})
      this.replaceState(fresh, 'disk')
      return
    }

    if (writer) await this.cleanTemps()
    if (classified.kind === 'ok') {
      if (classified.migratedFrom !== undefined) {
        this.diagnose({
          level: 'info',
          code: 'migrated',
          message: `bot/state.json was upgraded from version ${classified.migratedFrom} in memory (${classified.steps.join('; ')}); the next save writes version ${STATE_VERSION}.`,
        })
      }
      this.replaceState(classified.state, 'disk')
    } else if (this.snapshot.revision !== 0) {
      this.replaceState(emptyState(this.config.pluginVersion, this.now()), 'disk')
    }
  }

  private async openReadOnly(classified: Extract<Classified, { kind: 'read-only' }>, read: ReadResult) {
    await this.dropLock()
    this.lockless = false
    this.diagnose({ level: 'error', code: classified.reason, message: classified.problem })
    if (classified.reason === 'newer-version') {
      // Show the newer team if its shape still reads as ours; otherwise keep what we have.
      const shown = this.peekNewer(read)
      if (shown) this.replaceState(shown, 'disk')
      this.setMode(
        'read-only',
        'newer-version',
        `${classified.problem}. Nothing is written so the newer data is not damaged. Upgrade the Bot Team plugin (every DSH on this DSH_HOME) to change the team.`,
      )
    } else {
      this.setMode(
        'read-only',
        'unreadable',
        `${classified.problem}. Nothing is written. Make bot/state.json a readable regular file again (check permissions, or move the directory/bad file away), then retry; the next change re-reads it.`,
      )
    }
  }

  /** Never write through a link: show what it points at (if it reads as a team), write nothing. */
  private async openSymlinked(problem: string) {
    await this.dropLock()
    this.lockless = false
    this.diagnose({ level: 'error', code: 'symlink', message: `${problem}; the team is read-only.` })
    const read = await this.readFile()
    this.noteSeen(read)
    const classified = classifyRead(read)
    if (classified.kind === 'ok') this.replaceState(classified.state, 'disk')
    this.setMode(
      'read-only',
      'symlink',
      `${problem}, so nothing is written: writing through a link could change a file outside the bot folder. Put the real folder or file in its place (move the link's target there), then retry; the next change re-opens the team.`,
    )
  }

  private peekNewer(read: ReadResult): TeamState | null {
    if (read.kind !== 'bytes') return null
    try {
      const raw = JSON.parse(Buffer.from(read.bytes).toString('utf8')) as Record<string, unknown>
      const parsed = stateSchema.safeParse({ ...raw, version: STATE_VERSION })
      return parsed.success ? parsed.data : null
    } catch {
      return null
    }
  }

  private async copyAside(read: ReadResult): Promise<{ ok: true; file: string } | { ok: false; error: string }> {
    const copy = this.deps.copyFile ?? ((src: string, dest: string) => fsp.copyFile(src, dest, fs.constants.COPYFILE_EXCL))
    for (let i = 0; i < 5; i++) {
      const base = brokenCopyName(this.now())
      const name = i === 0 ? base : `${base}-${i}`
      try {
        await copy(this.file, path.join(this.config.dir, name))
        await fsp.chmod(path.join(this.config.dir, name), PRIVATE_FILE_MODE)
        // Prove the copy is byte-for-byte before anything overwrites the original.
        const copied = await fsp.readFile(path.join(this.config.dir, name))
        if (read.kind === 'bytes' && !Buffer.from(read.bytes).equals(copied)) {
          return { ok: false, error: `the copy bot/${name} differs from the original` }
        }
        return { ok: true, file: name }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue
        return { ok: false, error: errText(error) }
      }
    }
    return { ok: false, error: 'EEXIST: no free broken-copy name' }
  }

  /** Remove temp files of saves a killed writer left behind (only while we write). */
  private async cleanTemps() {
    let names: string[]
    try {
      names = await fsp.readdir(this.config.dir)
    } catch {
      return
    }
    const temps = names.filter(isTempLeftover)
    for (const name of temps) await fsp.rm(path.join(this.config.dir, name), { force: true }).catch(() => {})
    if (temps.length)
      this.diagnose({ level: 'info', code: 'temp-cleaned', message: `Removed ${temps.length} unfinished save(s) left by an interrupted process.` })
  }

  // ── writing ──────────────────────────────────────────────────────────────────────────────

  /** Make sure this process may write, taking over if the holder is gone; otherwise throw why not. */
  private async ensureWriter() {
    if (this.lockLost) throw this.lockLostError()
    if (this.modeValue === 'writer') return
    const promoted = this.reasonValue === 'role-follower'
    if (promoted && !this.eligible()) {
      throw new StoreError('EFOLLOWER', `Not saved: ${this.messageValue}`)
    }
    // follower (lock-held, or role-follower now allowed to write) or read-only for a file/lock
    // reason: re-open, which may take over.
    await this.open()
    if ((this.modeValue as StoreMode) === 'writer') {
      if (this.reasonValue === null && this.lock) {
        this.diagnose({
          level: 'info',
          code: 'took-over',
          message: promoted
            ? "This process now writes the team (it hosts DSH's web app)."
            : 'This process now writes the team (the previous writer exited or its lock went stale).',
        })
      }
      return
    }
    throw new StoreError(this.modeValue === 'follower' ? 'EFOLLOWER' : 'EREADONLY', `Not saved: ${this.messageValue}`)
  }

  private lockLostError() {
    return new StoreError('ELOCKLOST', `Not saved: ${this.messageValue}`)
  }

  private markLockLost(why: string) {
    if (this.lockLost || this.disposed) return
    this.lockLost = true
    this.lock = null
    this.lockless = false
    this.diagnose({ level: 'error', code: 'lock-lost', message: `Lost ownership of bot/state.lock: ${why}.` })
    this.setMode(
      'read-only',
      'lock-lost',
      `This process lost ownership of bot/state.lock (${why}); another process may now write the team, so this one saves nothing and keeps its state in memory only. Restart DSH (or reload the Bot Team plugin) to reopen the team from disk; changes made here since are not saved.`,
    )
  }

  private async save(next: TeamState) {
    if (this.lockLost) throw this.lockLostError()
    if (this.modeValue !== 'writer') throw new StoreError('EREADONLY', `Not saved: ${this.messageValue}`)
    if (!this.lockless) {
      const verdict = this.lock ? await this.lock.verify() : 'missing'
      if (verdict !== 'ok') {
        const owner = await readLockOwner(path.join(this.config.dir, LOCK_DIR))
        this.holder = verdict === 'other' ? owner : null
        this.markLockLost(
          verdict === 'missing' ? 'bot/state.lock was removed' : `bot/state.lock now belongs to pid ${owner?.pid ?? '?'} on ${owner?.host ?? '?'}`,
        )
        throw this.lockLostError()
      }
    }
    await writeStateFile(this.file, serializeState(next, this.texts))
    this.noteSeen(null)
  }

  private replaceState(next: TeamState, source: StateChange['source']) {
    const changed = next.revision !== this.snapshot.revision || JSON.stringify(next) !== JSON.stringify(this.snapshot)
    this.snapshot = deepFreeze(next)
    this.known.rememberAll(this.snapshot)
    if (changed) this.publish(source)
  }

  private publish(source: StateChange['source']) {
    const change = { revision: this.snapshot.revision, source }
    for (const listener of [...this.listeners]) {
      try {
        listener(this.snapshot, change)
      } catch (error) {
        this.home.logger('botStore').error(error)
      }
    }
  }

  // ── following ────────────────────────────────────────────────────────────────────────────

  private noteSeen(read: ReadResult | null) {
    try {
      const st = fs.statSync(this.file)
      this.lastSeen = `${st.ino}:${st.size}:${st.mtimeMs}`
    } catch {
      this.lastSeen = read?.kind === 'missing' ? 'missing' : ''
    }
  }

  private follow() {
    const check = () => {
      if (this.polling || this.disposed || this.modeValue === 'writer' || this.lockLost) return
      let sig: string
      try {
        const st = fs.statSync(this.file)
        sig = `${st.ino}:${st.size}:${st.mtimeMs}`
      } catch {
        sig = 'missing'
      }
      if (sig === this.lastSeen) return
      this.polling = true
      this.refresh()
        .catch(() => {})
        .finally(() => {
          this.polling = false
        })
    }
    let watcher: fs.FSWatcher | undefined
    try {
      watcher = fs.watch(this.config.dir, (_event, name) => {
        if (!name || name === STATE_FILE) check()
      })
      watcher.on('error', () => {})
    } catch {}
    const timer = setInterval(check, this.config.followMs)
    timer.unref()
    return () => {
      watcher?.close()
      clearInterval(timer)
    }
  }

  private async followOnce() {
    if (this.modeValue === 'writer' || this.lockLost) return
    const read = await this.readFile()
    this.noteSeen(read)
    const classified = classifyRead(read)
    if (classified.kind === 'ok') {
      this.replaceState(classified.state, 'disk')
    } else if (classified.kind === 'empty') {
      // The writer has not saved yet (or the file was removed): keep showing what we have.
    } else {
      this.diagnose({ level: 'warn', code: 'follow-error', message: `While following the team: ${classified.problem}. Showing the last good state.` })
    }
  }
}

/** `ctx.plugin(botStoreWith({ lock }), config)`: the same service with test doubles injected. */
export function botStoreWith(deps: StoreDeps) {
  return class BotStoreWithDeps extends BotStore {
    constructor(ctx: Context, config: ConfigInput) {
      super(ctx, config, deps)
    }
  }
}
