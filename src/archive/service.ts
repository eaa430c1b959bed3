/**
 * `botArchive`: `bot/archive.sqlite`, an FTS5 index derived from DSH's Session logs (every part of
 * every own chat, every task Session, every room), the driver that never throws, catch-up after each turn end and before
 * a search, rebuilding a deleted file, `read_own_chat` (offered on own chats through
 * `botRoster.offerTools`) and `searchRoom`. Only the team writer writes the index. Deliberately keeps
 * no chat text in team state and never reads another Bot's partition (src/archive/README.md).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import { SessionId } from '@deepseek-ai/dsh-session'
import { z } from 'zod'
import { TeamRefusal } from '../core/refusal.ts'
import type { Caller } from '../core/authority.ts'
import type { Group, TeamState } from '../store/index.ts'
import { CatchUp, DEFAULT_CATCH_UP, type ArchiveSources, type CatchUpLimits, type LiveLog, type Placement } from './catch-up.ts'
import type { LogEvent } from '../core/log-lines.ts'
import { ArchiveIndex } from './index-db.ts'
import { partitionKeyOfBot, partitionKeyOfRoom, readOwnChat, readRoom, type OwnChatArgs } from './reader.ts'
import { loadSqlite, type LoadSqliteOptions, type SqliteDriver, type SqliteDriverName, type SqliteProblem } from '../core/sqlite.ts'
import { archiveTools } from './tools.ts'
import { formatIssues } from '../core/zod-issues.ts'
import { errorText } from '../core/errors.ts'
import { warn } from '../dsh/warn.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botArchive: BotArchive
  }
}

export interface ArchiveStatus {
  driver: SqliteDriverName | 'unavailable'
  problem?: SqliteProblem
  /** Lines indexed, the UTF-8 bytes of their text, and the file size (database + WAL). */
  lines?: number
  textBytes?: number
  fileBytes?: number
  /** This process keeps the index current (it writes team state). */
  writer?: boolean
  /** Sessions waiting for catch-up right now. */
  catchingUp?: number
  /** The file was deleted or its schema changed and it is being rebuilt from the logs. */
  rebuilding?: boolean
  /** When catch-up last added lines (ISO). */
  lastCatchUp?: string
  /** Rewrites and gaps met in Session logs (each made that Session be read again). */
  logProblems?: number
}

export interface BotArchiveOptions extends LoadSqliteOptions {
  dir: string
}

/** `read_own_chat`'s arguments: at most one of query, around, part. */
export const OwnChatInput = z
  .object({
    query: z.string().max(20_000, 'query: at most 20,000 characters').optional(),
    around: z.string().max(100, 'around: an anchor like "part 2 #135"').optional(),
    part: z.int('part: a whole number').min(1, 'part: 1 or more').max(1_000_000).optional(),
  })
  .strict()
  .refine((a) => [a.query, a.around, a.part].filter((v) => v !== undefined).length <= 1, 'give one of query, around or part, not several')

const LimitsPatch = z
  .object({
    sliceEvents: z.int().min(1).max(10_000),
    searchBudgetMs: z.int().min(0).max(10_000),
  })
  .partial()
  .strict()

/** The number of a task id (`task-7` → 7). */
const taskNumberOf = (taskId: string) => Number(/^task-(\d+)$/.exec(taskId)?.[1] ?? 0)

const describe = (a: OwnChatArgs) =>
  a.query !== undefined
    ? `searched for "${a.query.slice(0, 60)}"`
    : a.around !== undefined
      ? `read around ${a.around}`
      : a.part !== undefined
        ? `asked for the note of part ${a.part}`
        : 'read its latest lines'

export class BotArchive extends Service {
  /** The store's mode decides, when the index opens, whether this process writes it. */
  static inject = ['botStore']

  private driver: SqliteDriver | undefined
  private problem: SqliteProblem | undefined
  private index: ArchiveIndex | undefined
  private catchUp: CatchUp | undefined
  private rebuilding = false
  private readonly limits: CatchUpLimits = { ...DEFAULT_CATCH_UP }
  private readonly options: BotArchiveOptions
  private placements: { state: TeamState; map: Map<string, Placement> } | undefined
  /** The scope that has the roster (set once it exists). */
  private team: Context | undefined

  constructor(ctx: Context, options: BotArchiveOptions) {
    super(ctx, 'botArchive')
    this.options = options
  }

  [Service.init](): void {
    const load = loadSqlite(this.options)
    if (load.problem) warn(this.ctx, load.problem.message, undefined, 'archive')
    this.problem = load.problem
    if (!load.ok) return
    this.driver = load.driver
    try {
      mkdirSync(this.options.dir, { recursive: true })
      this.open()
    } catch (error) {
      const detail = errorText(error)
      this.problem = { kind: 'load-failed', detail, fix: `check that ${this.options.dir} is writable`, message: `archive index could not be opened: ${detail}` }
      warn(this.ctx, this.problem.message, undefined, 'archive')
      this.driver = undefined
      return
    }
    this.ctx.effect(() => () => this.close(), 'bot-archive:close')
    this.ctx.inject(['botRoster', 'botStore', 'agents'], (ctx) => this.wire(ctx))
  }

  get path(): string {
    return join(this.options.dir, 'archive.sqlite')
  }

  /** What the team page shows. */
  get status(): ArchiveStatus {
    if (!this.driver) return { driver: 'unavailable', ...(this.problem ? { problem: this.problem } : {}) }
    const base: ArchiveStatus = { driver: this.driver.name, ...(this.problem ? { problem: this.problem } : {}) }
    const index = this.index
    if (!index) return base
    const stats = index.stats()
    return {
      ...base,
      lines: stats.lines,
      textBytes: stats.textBytes,
      fileBytes: stats.fileBytes,
      writer: this.isWriter(),
      catchingUp: this.catchUp?.pending ?? 0,
      rebuilding: this.rebuilding,
      ...(this.catchUp?.lastAt ? { lastCatchUp: new Date(this.catchUp.lastAt).toISOString() } : {}),
      logProblems: this.catchUp?.problems.length ?? 0,
    }
  }

  /** Change catch-up limits at run time (tests, the team page). Bad values are refused, changing nothing. */
  setLimits(patch: Partial<CatchUpLimits>): void {
    Object.assign(this.limits, LimitsPatch.parse(patch))
  }

  /** Resolves when background catch-up has nothing left to do. */
  async caughtUp(): Promise<void> {
    await this.catchUp?.idle()
  }

  // ── index lifecycle ─────────────────────────────────────────────────────────────────────────

  private isWriter(): boolean {
    return this.ctx.get('botStore')?.isWriter() ?? false
  }

  private open(): void {
    const writer = this.isWriter()
    this.index = ArchiveIndex.open(this.driver!, this.path, writer)
    this.catchUp = this.index ? new CatchUp(this.index, this.sources, this.limits) : undefined
    // A new or dropped schema is empty: every archived Session is read again from its log.
    if (this.index?.created && writer) {
      const catchUp = this.catchUp!
      this.rebuilding = true
      catchUp.requestAll()
      void catchUp.idle().then(() => {
        if (this.catchUp === catchUp) this.rebuilding = false
      })
    }
  }

  private close(): void {
    this.catchUp?.stop()
    this.index?.close()
    this.index = undefined
    this.catchUp = undefined
  }

  /** The index, reopened (and rebuilt from the logs) when its file was deleted or replaced. */
  private usable(): ArchiveIndex | undefined {
    if (!this.driver) return undefined
    if (this.index?.stillOnDisk()) return this.index
    if (this.index) {
      this.catchUp?.stop()
      this.index.close()
    }
    try {
      mkdirSync(this.options.dir, { recursive: true })
      this.open()
    } catch (error) {
      warn(this.ctx, 'the archive index could not be reopened', error, 'archive')
      this.index = undefined
      this.catchUp = undefined
    }
    return this.index
  }

  // ── where Sessions go ───────────────────────────────────────────────────────────────────────

  private placementMap(): Map<string, Placement> {
    const state = this.ctx.get('botStore')?.state
    if (!state) return new Map()
    if (this.placements?.state === state) return this.placements.map
    const map = new Map<string, Placement>()
    for (const bot of Object.values(state.bots)) {
      for (const p of bot.sessionParts) map.set(p.sessionId, { partition: partitionKeyOfBot(bot.id), part: p.part, room: false })
    }
    for (const group of Object.values(state.groups)) {
      if (group.roomSessionId) map.set(group.roomSessionId, { partition: partitionKeyOfRoom(group.id), part: 0, room: true })
    }
    this.placements = { state, map }
    return map
  }

  /** A task Session's place: its Bot's partition, as part `-N` for task N (the task ledger, not team state, records them). */
  private taskPlacement(sid: string): Placement | undefined {
    const owner = this.team?.botRoster.ownerOf(sid)
    if (owner?.kind !== 'task') return undefined
    return { partition: partitionKeyOfBot(owner.botId), part: -taskNumberOf(owner.taskId), room: false }
  }

  /** Every task Session the roster knows (of live and deleted Bots alike). */
  private taskSessions(): string[] {
    const roster = this.team?.botRoster
    const state = this.ctx.get('botStore')?.state
    if (!roster || !state) return []
    return Object.keys(state.bots).flatMap((botId) => roster.sessionsOf(botId).filter((sid) => roster.ownerOf(sid)?.kind === 'task'))
  }

  private readonly sources: ArchiveSources = {
    place: (sid) => this.placementMap().get(sid) ?? this.taskPlacement(sid),
    all: () => [...this.placementMap().keys(), ...this.taskSessions()],
    live: (sid): LiveLog | undefined => {
      const session = this.ctx.get('agents')?.get(SessionId(sid))?.session
      return session ? { seq: session.seq, at: (seq) => session.events[seq] as LogEvent | undefined } : undefined
    },
    readFrom: async (sid, fromSeq) => {
      const persistence = this.ctx.get('sessionPersistence')
      if (!persistence?.readFrom) return undefined
      try {
        return (await persistence.readFrom(SessionId(sid), fromSeq)).events
      } catch (error) {
        // A Session never written (materialized on the first append) has no log: nothing to index.
        if (/not found|ENOENT|no such|unknown session/i.test(errorText(error))) return undefined
        throw error
      }
    },
  }

  // ── wiring (once the roster exists) ─────────────────────────────────────────────────────────

  private wire(ctx: Context): void {
    this.team = ctx
    ctx.effect(
      () => () => {
        this.team = undefined
      },
      'bot-archive:team',
    )
    ctx.on('session/event', (session, event) => {
      if (event.type !== 'turn/end' || !this.isWriter()) return
      const sid = String(session.id)
      if (this.sources.place(sid)) this.usable() && this.catchUp?.request(sid)
    })
    ctx.botRoster.offerTools(ctx, { kinds: ['own'], tools: () => archiveTools(this) })
    if (this.isWriter()) this.catchUp?.requestAll()
  }

  // ── the tool ────────────────────────────────────────────────────────────────────────────────

  /** The seq of the turn/start of the Session's running turn (its own lines are hidden), if one runs. */
  private turnStart(sessionId: string): number | undefined {
    const events = this.ctx.get('agents')?.get(SessionId(sessionId))?.session.events
    if (!events) return undefined
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i]!.type === 'turn/end') return undefined // no turn is running: nothing to hide
      if (events[i]!.type === 'turn/start') return events[i]!.seq
    }
    return undefined
  }

  /** `read_own_chat` from a Session: the caller's own chat only. */
  async readOwnChat(sessionId: string | undefined, raw: unknown): Promise<string> {
    const roster = this.team?.botRoster
    if (!roster) throw new TeamRefusal('unavailable', 'the team is not open in this process, so the archive cannot tell whose chat this is')
    const caller: Caller = roster.callerOf(sessionId)
    const verdict = roster.check(caller, 'read_own_chat', caller.botId ? { botId: caller.botId } : {})
    if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
    const parsed = OwnChatInput.safeParse(raw ?? {})
    if (!parsed.success) throw new TeamRefusal('invalid', formatIssues(parsed.error))
    const args = parsed.data as OwnChatArgs
    const bot = roster.bot(caller.botId!)!
    const index = this.usable()
    if (!index) throw new TeamRefusal('unavailable', this.unavailableReason())
    const parts = bot.sessionParts.map((p) => ({ sid: p.sessionId, part: p.part, startedAt: p.startedAt, ...(p.endedAt ? { endedAt: p.endedAt } : {}) }))
    const tasks = roster.sessionsOf(bot.id).flatMap((sid) => {
      const owner = roster.ownerOf(sid)
      return owner?.kind === 'task' ? [{ sid, part: -taskNumberOf(owner.taskId) }] : []
    })
    if (args.part !== undefined) {
      const closing = await this.ctx.get('botContext')?.closingNote(bot.id, args.part)
      const target = parts.find((p) => p.part === args.part)
      if (target && closing) Object.assign(target, { closingNote: closing })
    }
    const writer = this.isWriter()
    const level = writer && this.catchUp ? await this.catchUp.ensure([...parts, ...tasks].map((p) => p.sid)) : true
    const from = sessionId === undefined ? undefined : this.turnStart(sessionId)
    const text = readOwnChat(this.index ?? index, {
      botId: bot.id,
      args,
      parts,
      tasks,
      ...(sessionId !== undefined && from !== undefined ? { hide: { sid: sessionId, fromSeq: from } } : {}),
      catchingUp: !level,
    })
    const owner = sessionId === undefined ? undefined : roster.ownerOf(sessionId)
    if (owner?.groupId) {
      void this.ctx
        .get('botRooms')
        ?.announce(owner.groupId, `${bot.name} ${describe(args)} in its own chat.`)
        .catch(() => undefined)
    }
    return writer
      ? text
      : `${text}\n(This DSH process does not write the team, so it does not keep the archive current: lines since the writing process last indexed may be missing.)`
  }

  /**
   * Search a group room's whole history. `group` is already authorised: the rooms service decides
   * who may read a room (`read_group_chat`) before it asks.
   */
  async searchRoom(group: Pick<Group, 'id' | 'name' | 'roomSessionId'>, query: string): Promise<string> {
    const groupId = group.id
    const index = this.usable()
    if (!index) throw new TeamRefusal('unavailable', this.unavailableReason())
    const level = this.isWriter() && this.catchUp && group.roomSessionId ? await this.catchUp.ensure([group.roomSessionId]) : true
    return readRoom(this.index ?? index, { groupId, groupName: group.name, query, catchingUp: !level })
  }

  private unavailableReason(): string {
    if (!this.driver) return `the archive is unavailable: ${this.problem?.message ?? 'no SQLite driver loads'}`
    return 'the archive index is being rebuilt by the DSH process that writes the team; ask again there or in a moment'
  }
}
