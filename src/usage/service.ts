/**
 * `botUsage`: every model request of a Bot Session or of the plugin as a row in `bot/usage.sqlite`
 * (loop steps from the Session's own events, so a rebuild re-derives them; tagged side calls live),
 * batched; prices and daily caps, one more hold of `botPause`; the once-a-day notice. Deliberately
 * holds no work itself and draws no charts (src/usage/README.md).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import { z } from 'zod'
import { touchPrivateFile } from '../core/private-file.ts'
import { loadSqlite, type SqliteDriverName, type SqliteProblem } from '../core/sqlite.ts'
import type { BotRoster } from '../roster/service.ts'
import { usageNoticeSource } from '../core/sources.ts'
import type { BotStore, UsageSettings } from '../store/index.ts'
import { capsReached, costOf, DayTotals, loosenedSpending, type CapHit, type DailyCap } from './caps.ts'
import { USER, type Requester } from '../core/caller.ts'
import { TeamRefusal } from '../core/refusal.ts'
import { LedgerDb, type ViewFilter, type ViewKey } from './ledger-db.ts'
import { LogDeriver, rowOf, rowsOfLog, timeKeys, tokensOf, type RowOwner, type UsageRow } from './rows.ts'
import { sideCallTag } from '../dsh/side-call.ts'
import { errorText } from '../core/errors.ts'
import { warn } from '../dsh/warn.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botUsage: BotUsage
  }
  interface Events {
    /** One model request was recorded (live, not by a rebuild); read only (the task ledger adds a task's tokens). */
    'bot-team/usage'(row: Readonly<UsageRow>): void
  }
}

export const Config = z.object({
  dir: z.string(),
  prefer: z.enum(['auto', 'better-sqlite3', 'node:sqlite']).default('auto'),
  /** Rows wait at most this long in memory before one transaction writes them. */
  flushMs: z.int().min(10).max(60_000).default(1_000),
  /** The drivers' loaders (`sqlite.ts`); injectable so a missing native module can be simulated. */
  loadBetterSqlite: z.custom<() => unknown>((v) => typeof v === 'function').optional(),
  loadNodeSqlite: z.custom<() => unknown>((v) => typeof v === 'function').optional(),
})
export type Config = z.input<typeof Config>

export interface UsageStatus {
  driver: SqliteDriverName | 'unavailable'
  problem?: SqliteProblem | { message: string }
  rows?: number
  pending: number
}

export interface UsageNotice {
  day: string
  scope: string
  text: string
}

/** Most notices kept in memory for the team page (the state keeps the day's scopes). */
const NOTICES_MAX = 50

export class BotUsage extends Service {
  static inject = ['botStore', 'botRoster', 'agents', 'llm']
  static Config = Config

  private readonly config: z.output<typeof Config>
  private ledger: LedgerDb | undefined
  private problem: UsageStatus['problem']
  private driver: SqliteDriverName | 'unavailable' = 'unavailable'
  private pending: UsageRow[] = []
  private flushTimer: ReturnType<typeof setTimeout> | undefined
  private dayTimer: ReturnType<typeof setTimeout> | undefined
  private totals: DayTotals
  private readonly derivers = new Map<string, LogDeriver>()
  private readonly noticeList: UsageNotice[] = []
  /** Scopes told today in this process (the state's `notified` is the durable copy). */
  private readonly told = new Set<string>()

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botUsage')
    this.config = Config.parse(config)
    this.totals = new DayTotals(timeKeys(Date.now()).day)
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  async [Service.init](): Promise<void> {
    this.open()
    this.seedTotals()
    this.ctx.on('session/event', (session, event) => {
      const t: string = event.type
      if (t !== 'assistant/chunk' && t !== 'request/context' && t !== 'compaction/summary') return
      if (t === 'assistant/chunk' && (event.data as { chunk?: { type?: unknown } }).chunk?.type !== 'usage') return
      this.fromLog(String(session.id), event, () => session.requestContext())
    })
    this.ctx.on('llm/stream', (options, next) => this.meter(options, next))
    this.ctx.on('session/disposed', (session) => {
      this.derivers.delete(String(session.id))
    })
    this.ctx.effect(() => () => this.close(), 'bot-usage:ledger')
    // The caps are holds of the pause service: one question for every place that starts Bot work.
    this.ctx.inject(['botPause'], (ctx) => {
      ctx.effect(() => ctx.botPause.addHold((target) => this.capHold(target)), 'bot-usage:cap-hold')
    })
    this.armDayTimer()
  }

  // ── recording ────────────────────────────────────────────────────────────────────────────────

  private open(): void {
    const { prefer, loadBetterSqlite, loadNodeSqlite } = this.config
    const load = loadSqlite({ prefer, ...(loadBetterSqlite ? { loadBetterSqlite } : {}), ...(loadNodeSqlite ? { loadNodeSqlite } : {}) })
    if (!load.ok) {
      this.problem = load.problem
      warn(this.ctx, `the usage ledger is off: ${load.problem.message}`, undefined, 'usage')
      return
    }
    try {
      mkdirSync(this.config.dir, { recursive: true, mode: 0o700 })
      const file = join(this.config.dir, 'usage.sqlite')
      touchPrivateFile(file) // 0600 before SQLite opens it (its -wal / -shm files take the database's mode)
      this.ledger = new LedgerDb(load.driver.open(file))
      this.driver = load.driver.name
      if (load.problem) this.problem = load.problem
    } catch (error) {
      this.problem = { message: `usage.sqlite could not be opened: ${errorText(error)}` }
      warn(this.ctx, `the usage ledger is off: ${this.problem.message}`, undefined, 'usage')
    }
  }

  private seedTotals(): void {
    if (!this.ledger) return
    try {
      for (const s of this.ledger.daySums(this.totals.day)) this.totals.add(s)
    } catch {
      // An unreadable ledger still lets the caps count from now on.
    }
  }

  /** Whose a Session is, for the ledger (Bot Sessions only; rooms make no model requests). */
  private ownerOf(sessionId: string): RowOwner | undefined {
    const o = this.roster.ownerOf(sessionId)
    if (!o) return undefined
    if (o.kind === 'own') return { bot: o.botId, group: null, part: o.part, task: null, loop: 'turn' }
    if (o.kind === 'member') return { bot: o.botId, group: o.groupId, part: null, task: null, loop: 'room-turn' }
    return { bot: o.botId, group: null, part: null, task: o.taskId, loop: 'task-turn' }
  }

  private fromLog(
    sessionId: string,
    event: { type: string; seq: number; time: number; data: unknown },
    route: () => { provider: string; model: string } | undefined,
  ): void {
    let d = this.derivers.get(sessionId)
    if (!d) {
      if (event.type === 'request/context') {
        d = new LogDeriver(sessionId)
      } else {
        const r = route()
        d = new LogDeriver(sessionId, r ? { provider: r.provider, model: r.model } : undefined)
      }
      this.derivers.set(sessionId, d)
    }
    const row = d.push(event, () => this.ownerOf(sessionId))
    if (row) this.record(row)
  }

  /** `llm/stream`: loop requests pass untouched; a Bot's title call and tagged side calls are metered. */
  private meter(options: GenerateOptions, next: () => AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> {
    const tag = sideCallTag(options)
    let owner: { bot: string | null; group: string | null; part: number | null; session: string | null; task: string | null; purpose: string } | undefined
    if (tag) {
      owner = { bot: tag.bot ?? null, group: tag.group ?? null, part: tag.part ?? null, session: null, task: null, purpose: tag.purpose }
    } else if (options.purpose === 'session-title' && options.sessionId !== undefined) {
      const sid = String(options.sessionId)
      const o = this.ownerOf(sid)
      if (o) owner = { bot: o.bot, group: o.group, part: o.part, session: sid, task: o.task, purpose: 'title' }
    }
    if (!owner) return next()
    const who = owner
    const stream = next()
    return (async function* (usage: BotUsage) {
      for await (const chunk of stream) {
        if (chunk.type === 'usage') {
          usage.record(
            rowOf({
              key: `call:${crypto.randomUUID()}`,
              time: Date.now(),
              ...who,
              provider: String(options.provider),
              model: String(options.model),
              ...tokensOf(chunk.usage),
            }),
          )
        }
        yield chunk
      }
    })(this)
  }

  /** Add one row: buffered for the ledger, counted in the day's totals, caps checked. */
  private record(row: UsageRow): void {
    this.ctx.emit('bot-team/usage', row)
    if (this.ledger) {
      this.pending.push(row)
      this.flushTimer ??= setTimeout(() => this.flush(), this.config.flushMs)
      this.flushTimer.unref?.()
    }
    if (row.day !== this.totals.day) {
      if (row.day < this.totals.day) return
      this.newDay(row.day)
    }
    this.totals.add(row)
    if (row.bot !== null) this.checkCaps(row.bot)
  }

  /** Write buffered rows now (one transaction). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer)
    this.flushTimer = undefined
    if (!this.ledger || !this.pending.length) return
    const rows = this.pending
    this.pending = []
    try {
      this.ledger.insert(rows)
    } catch (error) {
      // Busy or broken file: keep the rows for the next flush (bounded).
      this.pending = [...rows, ...this.pending].slice(-50_000)
      warn(this.ctx, 'usage rows not written yet', error, 'usage')
    }
  }

  private close(): void {
    this.flush()
    if (this.dayTimer) clearTimeout(this.dayTimer)
    this.ledger?.close()
    this.ledger = undefined
  }

  /** The rebuild running now, which a second request joins. */
  private rebuilding: Promise<number> | undefined

  /**
   * Re-derive rows from the Session logs of every Bot Session (own-chat parts and group Sessions):
   * rows already in the ledger are kept, missing ones added. Returns the rows the logs hold. One at
   * a time: a call while one runs gets that one's answer (it reads every Bot Session's log).
   */
  rebuild(): Promise<number> {
    this.rebuilding ??= this.rebuildOnce().finally(() => {
      this.rebuilding = undefined
    })
    return this.rebuilding
  }

  private async rebuildOnce(): Promise<number> {
    const persistence = this.ctx.get('sessionPersistence')
    if (!this.ledger) throw new Error('the usage ledger is off')
    if (!persistence) throw new Error('DSH session persistence is not available in this process')
    let n = 0
    for (const bot of this.roster.bots()) {
      for (const sid of this.roster.sessionsOf(bot.id)) {
        const owner = this.ownerOf(sid)
        if (!owner) continue
        let events: readonly { type: string; seq: number; time: number; data: unknown }[]
        try {
          events = (await persistence.inspect(sid)).events
        } catch {
          continue // never written (no turn yet)
        }
        const rows = rowsOfLog(sid, events, owner)
        this.ledger.insert(rows)
        n += rows.length
      }
    }
    return n
  }

  // ── caps ────────────────────────────────────────────────────────────────────────────────────

  get settings(): UsageSettings | undefined {
    return this.store.state.usage
  }

  private currentTotals(): DayTotals {
    const day = timeKeys(Date.now()).day
    if (day !== this.totals.day) this.newDay(day)
    return this.totals
  }

  private newDay(day: string): void {
    this.totals = new DayTotals(day)
    this.told.clear()
    this.limitsChanged()
  }

  private armDayTimer(): void {
    const now = new Date()
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime()
    this.dayTimer = setTimeout(
      () => {
        this.currentTotals()
        this.armDayTimer()
      },
      Math.max(1_000, midnight - now.getTime() + 1_000),
    )
    this.dayTimer.unref?.()
  }

  /** True while the Bot's or the team's daily cap is reached: hold Bot-started work for that Bot. */
  capReached(botId: string): boolean {
    return capsReached(this.currentTotals(), this.settings, botId).length > 0
  }

  /** The cap hold: a Bot's work while its or the team's cap is reached; a group's while the team's is. */
  private capHold(target: { botId?: string }): string | undefined {
    const hits = capsReached(this.currentTotals(), this.settings, target.botId ?? '').filter((h) => target.botId !== undefined || h.scope === 'team')
    if (hits.length === 0) return undefined
    return hits[0]!.scope === 'team' ? "the team's daily spending cap is reached" : 'its daily spending cap is reached'
  }

  /** Prices, caps or the day changed: work a cap held may go now. */
  private limitsChanged(): void {
    this.ctx.get('botPause')?.released()
  }

  private checkCaps(botId: string): void {
    for (const hit of capsReached(this.totals, this.settings, botId)) this.tell(hit)
  }

  /** Tell the person once per day and scope: the team page's notices and the Main Bot's chat. */
  private tell(hit: CapHit): void {
    const day = this.totals.day
    const mark = `${day} ${hit.scope}`
    if (this.told.has(mark) || this.settings?.notified?.includes(mark)) return
    this.told.add(mark)
    const text = this.noticeText(hit)
    this.noticeList.push({ day, scope: hit.scope, text })
    if (this.noticeList.length > NOTICES_MAX) this.noticeList.shift()
    if (!this.store.isWriter()) return
    void this.store
      .update((s) => {
        const today = (s.usage?.notified ?? []).filter((m) => m.startsWith(`${day} `))
        s.usage = { ...s.usage, notified: [...today, mark].slice(-2_000) }
      })
      .catch(() => {})
    void this.tellMain(text).catch(() => {})
  }

  private noticeText(hit: CapHit): string {
    const who = hit.scope === 'team' ? 'The team' : (this.roster.bot(hit.scope.slice(4))?.name ?? hit.scope.slice(4))
    const currency = this.settings?.currency ? ` ${this.settings.currency}` : ''
    const used =
      hit.what === 'tokens'
        ? `${hit.spent.tokens.toLocaleString('en-US')} tokens today (cap ${hit.cap.tokens!.toLocaleString('en-US')})`
        : `${hit.spent.money.toFixed(2)}${currency} today (cap ${hit.cap.money!.toFixed(2)}${currency})`
    const held = hit.scope === 'team' ? 'all Bot-started work' : `Bot-started work for ${who}`
    return `Daily cap reached: ${who} used ${used}. ${held} is held until tomorrow or until the cap is raised on the team page; your own messages still work.`
  }

  private async tellMain(text: string): Promise<void> {
    const main = this.roster.bots().find((b) => b.main && !b.deleted)
    if (!main) return
    const agent = await this.roster.agentOf(main.id)
    // Injected (never wakes the agent): Main reads it at its next turn, at no model cost now.
    agent.inject(createUserMessage({ content: [{ type: 'text', text }], source: usageNoticeSource(text) }))
  }

  /** Change prices, currency or caps (the person, over HTTP); held work may go after. */
  /**
   * Change the settings (each given key replaces that part). A change that lets the team spend more
   * (`loosenedSpending`: a cap removed or raised, a price removed or lowered) is the person's through
   * a paired browser: `by` over HTTP unpaired is refused it, decided inside the save.
   */
  async configure(patch: Omit<UsageSettings, 'notified'>, by: Requester = USER): Promise<UsageSettings> {
    const state = await this.store.update((s) => {
      const next: UsageSettings = { ...s.usage }
      if (patch.currency !== undefined) next.currency = patch.currency
      if (patch.prices !== undefined) next.prices = patch.prices
      if (patch.caps !== undefined) next.caps = patch.caps
      const loosened = loosenedSpending(s.usage, next)
      if (loosened.length && (by.kind !== 'user' || by.paired === false))
        throw new TeamRefusal(
          'forbidden',
          `Changing ${loosened.join(', ')} lets the team spend more, so it is accepted only from the paired team page; nothing was changed.`,
        )
      s.usage = next
    })
    this.limitsChanged()
    for (const bot of this.currentTotals().bots()) this.checkCaps(bot)
    return state.usage ?? {}
  }

  // ── views ───────────────────────────────────────────────────────────────────────────────────

  status(): UsageStatus {
    let rows: number | undefined
    try {
      rows = this.ledger?.count()
    } catch {
      rows = undefined
    }
    return {
      driver: this.ledger ? this.driver : 'unavailable',
      ...(this.problem ? { problem: this.problem } : {}),
      ...(rows !== undefined ? { rows } : {}),
      pending: this.pending.length,
    }
  }

  /** Sums by `by` (with money where every model in a cell is priced), buffered rows included. */
  view(
    by: ViewKey,
    filter: ViewFilter = {},
  ): {
    by: ViewKey
    currency?: string
    rows: Array<{ key: string | null; requests: number; input: number; cached: number; output: number; money?: number; unpriced?: string[] }>
  } {
    if (!this.ledger) throw new Error('the usage ledger is off')
    this.flush()
    const prices = this.settings?.prices
    const cells = new Map<
      string | null,
      { key: string | null; requests: number; input: number; cached: number; output: number; money: number; unpriced: string[] }
    >()
    for (const c of this.ledger.view(by, filter)) {
      const cell = cells.get(c.key) ?? { key: c.key, requests: 0, input: 0, cached: 0, output: 0, money: 0, unpriced: [] }
      cell.requests += c.requests
      cell.input += c.input
      cell.cached += c.cached
      cell.output += c.output
      const money = costOf(prices, c.route, c)
      if (money === undefined) cell.unpriced.push(c.route)
      else cell.money += money
      cells.set(c.key, cell)
    }
    const rows = [...cells.values()].map(({ money, unpriced, ...rest }) => ({
      ...rest,
      ...(prices && Object.keys(prices).length ? { money: Math.round(money * 1e6) / 1e6 } : {}),
      ...(unpriced.length && prices && Object.keys(prices).length ? { unpriced } : {}),
    }))
    return { by, ...(this.settings?.currency ? { currency: this.settings.currency } : {}), rows }
  }

  /** Today's spending per Bot and for the team against the caps, and the notices given. */
  today(): {
    day: string
    team: { tokens: number; money: number; cap?: DailyCap; reached: boolean }
    bots: Array<{ id: string; name: string; tokens: number; money: number; cap?: DailyCap; reached: boolean }>
    notices: UsageNotice[]
    settings: UsageSettings
  } {
    const totals = this.currentTotals()
    const settings = this.settings ?? {}
    const prices = settings.prices
    const teamHit = capsReached(totals, { caps: { ...(settings.caps?.team ? { team: settings.caps.team } : {}) }, ...(prices ? { prices } : {}) }, '')
    const bots = this.roster
      .bots()
      .filter((b) => !b.deleted)
      .map((b) => {
        const cap = settings.caps?.bots?.[b.id] ?? settings.caps?.eachBot
        return {
          id: b.id,
          name: b.name,
          ...totals.spent(prices, b.id),
          ...(cap ? { cap } : {}),
          reached: capsReached(totals, { caps: cap ? { bots: { [b.id]: cap } } : {}, ...(prices ? { prices } : {}) }, b.id).length > 0,
        }
      })
    return {
      day: totals.day,
      team: { ...totals.spent(prices), ...(settings.caps?.team ? { cap: settings.caps.team } : {}), reached: teamHit.length > 0 },
      bots,
      notices: this.noticeList.filter((n) => n.day === totals.day),
      settings,
    }
  }
}
