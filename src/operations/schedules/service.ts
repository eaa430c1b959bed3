/**
 * `botSchedules`: tasks in team state, one timer for the earliest, firing (a Bot's task as a message
 * in its own chat when idle, a group's as a post when no round runs), each run recorded first with
 * its own budget and a chain at the lowest of its creator's mode then, its preset now and the
 * target's; missed runs run once. Deliberately not DSH's schedule plugin (not drivable from another
 * plugin on rc.8), and only in the team writer.
 */
import type { Requester } from '../../core/caller.ts'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { z } from 'zod'
import { drawOn, scheduleChain } from '../../core/chain.ts'
import { TeamRefusal } from '../../core/refusal.ts'
import type { Caller } from '../../core/authority.ts'
import type { BotRoster } from '../../roster/service.ts'
import { scheduleSource } from '../../core/sources.ts'
import { allocateId, own, type BotStore, type Schedule, type TeamState } from '../../store/index.ts'
import { decideSchedule } from './authority.ts'
import { MAX_TIMER_MS, systemClock, type Clock } from '../../core/clock.ts'
import { nextDue, ruleInput, toRule } from './rules.ts'
import { scheduleTools } from './tools.ts'
import { taskMessage, taskPost } from './wording.ts'
import { formatIssues } from '../../core/zod-issues.ts'
import { afterBoot } from '../../dsh/boot.ts'
import { warn } from '../../dsh/warn.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botSchedules: BotSchedules
  }
}

export const PROMPT_MAX = 2_000

export const Config = z.object({
  /** Tasks in the whole team. */
  maxSchedules: z.int().min(1).max(500).default(100),
})
export type Config = z.input<typeof Config>

/** What the person or a Bot sends to create a task: one target, the prompt, one rule. */
export const CreateInput = z.strictObject({
  bot: z.string().trim().min(1).max(200).optional(),
  group: z.string().trim().min(1).max(200).optional(),
  prompt: z.string().trim().min(1, 'say what to do then').max(PROMPT_MAX, `at most ${PROMPT_MAX} characters`),
  ...ruleInput.shape,
})
export type CreateInput = z.input<typeof CreateInput>

/** A Bot's tool call (its Session), or the person. */
export type { Requester }

const iso = (ms: number) => new Date(ms).toISOString()

export class BotSchedules extends Service {
  static inject = ['botStore', 'botRoster', 'botLimits', 'botPause', 'agents']
  static Config = Config

  readonly config: z.output<typeof Config>
  private clock: Clock = systemClock
  private timer: unknown
  private checking: Promise<void> | undefined
  private again = false
  private alive = true

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botSchedules')
    this.config = Config.parse(config ?? {})
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  async [Service.init](): Promise<void> {
    this.clock = this.ctx.get('botClock') ?? systemClock
    this.ctx.effect(
      () => () => {
        this.alive = false
        if (this.timer !== undefined) this.clock.clearTimeout(this.timer)
      },
      'bot-schedules:timer',
    )
    this.roster.offerTools(this.ctx, { kinds: ['own'], tools: () => scheduleTools(this) })
    // Re-plan the timer after every change; a deleted Bot or group (or task creator) stops its tasks at once.
    this.store.subscribe((state) => {
      if ((state.schedules ?? []).some((x) => this.orphaned(state, x))) this.check()
      else this.plan()
    })
    this.ctx.on('bot-team/work-released', () => this.check())
    this.ctx.on('bot-team/writer', () => this.check())
    this.ctx.on('session/event', (session, event) => {
      if (event.type !== 'turn/end' || !this.anyDue()) return
      const agent = this.ctx.agents.get(SessionId(String(session.id)))
      if (agent) void agent.whenIdle().then(() => this.check())
    })
    // Catch up once after start (missed runs run once), after the roster's team is open.
    afterBoot(this.ctx, () => this.check())
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────────

  /** Every task, or those of one Bot or group (by id). */
  list(filter: { botId?: string; groupId?: string } = {}): readonly Schedule[] {
    return (this.store.state.schedules ?? []).filter(
      (s) =>
        (filter.botId === undefined || (s.target.kind === 'bot' && s.target.botId === filter.botId)) &&
        (filter.groupId === undefined || (s.target.kind === 'group' && s.target.groupId === filter.groupId)),
    )
  }

  get(id: string): Schedule | undefined {
    return (this.store.state.schedules ?? []).find((s) => s.id === id)
  }

  /** A name for a task's target or creator ("Ada", "group Crew", "the user"). */
  nameOf(ref: { kind: 'bot'; botId: string } | { kind: 'group'; groupId: string } | string): string {
    if (typeof ref === 'string') return ref === 'user' ? 'the user' : (own(this.store.state.bots, ref)?.name ?? ref)
    if (ref.kind === 'bot') return own(this.store.state.bots, ref.botId)?.name ?? ref.botId
    return `group ${own(this.store.state.groups, ref.groupId)?.name ?? ref.groupId}`
  }

  // ── creating, deleting ─────────────────────────────────────────────────────────────────────

  /** Who asks, with the facts the authority rule needs. */
  private who(req: Requester): { caller: Caller; userAsked: boolean; mode?: Schedule['mode'] } {
    if (req.kind === 'user') return { caller: { kind: 'user' }, userAsked: true }
    const caller = this.roster.callerOf(req.sessionId)
    const mode = this.roster.modeOf(req.sessionId)
    return { caller, userAsked: this.roster.personOpened(req), ...(mode ? { mode } : {}) }
  }

  private require(who: { caller: Caller; userAsked: boolean }, target: Schedule['target']): void {
    const group = target.kind === 'group' ? own(this.store.state.groups, target.groupId) : undefined
    const verdict = decideSchedule(who.caller, {
      ...(target.kind === 'bot' ? { botId: target.botId } : { groupId: target.groupId }),
      ...(group && who.caller.botId !== undefined && group.admin === who.caller.botId ? { callerIsGroupAdmin: true } : {}),
      userAsked: who.userAsked,
    })
    if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
  }

  /** The target a request names: a live group, a live Bot, or (a Bot asking, none named) the Bot itself. */
  private targetOf(input: { bot?: string | undefined; group?: string | undefined }, who: { caller: Caller }): Schedule['target'] {
    if (input.bot !== undefined && input.group !== undefined) throw new TeamRefusal('invalid', 'Name either a Bot or a group, not both; nothing was scheduled.')
    if (input.group !== undefined) {
      const group = this.ctx.get('botRooms')?.group(input.group)
      if (!group) throw new TeamRefusal('not-found', `No group named or with id "${input.group}"; nothing was scheduled.`)
      return { kind: 'group', groupId: group.id }
    }
    const ref = input.bot ?? (who.caller.kind === 'user' ? undefined : who.caller.botId)
    if (ref === undefined) throw new TeamRefusal('invalid', 'Name the Bot (bot) or the group (group) the schedule is for; nothing was scheduled.')
    const bot = this.roster.find(ref)
    if (!bot) throw new TeamRefusal('not-found', `No Bot named or with id "${ref}"; nothing was scheduled. Call list_bots to see the team.`)
    return { kind: 'bot', botId: bot.id }
  }

  /** Create a task. Every field is validated here (zod), whoever calls; a refusal changes nothing. */
  async create(req: Requester, raw: unknown): Promise<Schedule> {
    const parsed = CreateInput.safeParse(raw)
    if (!parsed.success) throw new TeamRefusal('invalid', `${formatIssues(parsed.error, { root: 'schedule' })}. Nothing was scheduled.`)
    const input = parsed.data
    const who = this.who(req)
    const target = this.targetOf(input, who)
    this.require(who, target)
    const now = this.clock.now()
    const rule = toRule(input, new Date(now))
    if (!rule.ok) throw new TeamRefusal('invalid', `${rule.reason}; nothing was scheduled.`)
    const due = nextDue(rule.rule, now, now)
    if (due === undefined) throw new TeamRefusal('invalid', 'That rule is never due; nothing was scheduled.')
    let created: Schedule | undefined
    await this.store.update((s) => {
      const list = s.schedules ?? []
      if (list.length >= this.config.maxSchedules)
        throw new TeamRefusal(
          'limit',
          `The team already has ${list.length} schedules (limit ${this.config.maxSchedules}). Remove one first; nothing was scheduled.`,
        )
      created = {
        id: allocateId(s, 'schedule'),
        target,
        prompt: input.prompt,
        rule: rule.rule,
        createdBy: who.caller.kind === 'user' ? 'user' : who.caller.botId!,
        ...(who.mode ? { mode: who.mode } : {}),
        createdAt: iso(now),
        nextDueAt: iso(due),
        runs: 0,
      }
      s.schedules = [...list, created]
    })
    this.ctx.get('botDiagnostics')?.note({
      kind: 'schedule',
      message: `task ${created!.id} created for ${this.nameOf(target)} by ${this.nameOf(created!.createdBy)}`,
      data: { id: created!.id, rule: created!.rule },
    })
    return created!
  }

  /** Delete a task (the same authority as creating it). */
  async delete(req: Requester, id: string): Promise<Schedule> {
    const task = this.get(String(id ?? '').trim())
    if (!task) throw new TeamRefusal('not-found', `No schedule with id "${id}". list_schedules shows their ids.`)
    this.require(this.who(req), task.target)
    await this.store.update((s) => {
      s.schedules = (s.schedules ?? []).filter((x) => x.id !== task.id)
    })
    this.ctx.get('botDiagnostics')?.note({ kind: 'schedule', message: `task ${task.id} deleted` })
    return task
  }

  // ── timing ──────────────────────────────────────────────────────────────────────────────────

  private anyDue(): boolean {
    const now = this.clock.now()
    return (this.store.state.schedules ?? []).some((s) => s.nextDueAt !== undefined && Date.parse(s.nextDueAt) <= now)
  }

  /** One timer, for the earliest due task (or a periodic wake-up far ahead). */
  private plan(): void {
    if (!this.alive) return
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer)
    this.timer = undefined
    const dues = (this.store.state.schedules ?? []).flatMap((s) => (s.nextDueAt ? [Date.parse(s.nextDueAt)] : []))
    if (dues.length === 0 || !this.store.isWriter()) return
    const wait = Math.max(0, Math.min(Math.min(...dues) - this.clock.now(), MAX_TIMER_MS))
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined
      this.check()
    }, wait)
  }

  /** Look for due tasks now (serialised: a check asked for during one runs right after it). */
  check(): void {
    if (!this.alive) return
    if (this.checking) {
      this.again = true
      return
    }
    this.checking = (async () => {
      do {
        this.again = false
        try {
          await this.checkOnce()
        } catch (error) {
          warn(this.ctx, 'checking scheduled tasks failed', error, 'schedule-failed')
        }
      } while (this.again && this.alive)
    })().finally(() => {
      this.checking = undefined
      this.plan()
    })
  }

  /** Resolves when the check of due tasks running now (if any) is done (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.checking) await this.checking
  }

  private async checkOnce(): Promise<void> {
    if (!this.store.isWriter() || !this.alive) return
    await this.roster.ensureTeam()
    const state = this.store.state
    const gone = (state.schedules ?? []).filter((s) => this.orphaned(state, s))
    if (gone.length) {
      const ids = new Set(gone.map((s) => s.id))
      await this.store.update((s) => {
        s.schedules = (s.schedules ?? []).filter((x) => !ids.has(x.id))
      })
      for (const s of gone)
        this.ctx.get('botDiagnostics')?.note({ kind: 'schedule', message: `task ${s.id} removed: its ${s.target.kind} or its creator was deleted` })
    }
    const now = this.clock.now()
    const due = (this.store.state.schedules ?? [])
      .filter((s) => s.nextDueAt !== undefined && Date.parse(s.nextDueAt) <= now)
      .sort((a, b) => Date.parse(a.nextDueAt!) - Date.parse(b.nextDueAt!))
    for (const task of due) {
      if (!this.alive) return
      try {
        await this.fire(task, now)
      } catch (error) {
        warn(this.ctx, `could not run scheduled task ${task.id}`, error, 'schedule-failed')
      }
    }
  }

  /** A task whose target, or whose creating Bot, is deleted (or gone from the team). */
  private orphaned(state: Readonly<TeamState>, s: Schedule): boolean {
    const live = (rec: Record<string, { deleted?: unknown }>, id: string) => {
      const x = own(rec, id)
      return x !== undefined && !x.deleted
    }
    if (s.target.kind === 'bot' ? !live(state.bots, s.target.botId) : !live(state.groups, s.target.groupId)) return true
    return s.createdBy !== 'user' && !live(state.bots, s.createdBy)
  }

  /** Run one due task if its target is free and not held; otherwise leave it due. */
  private async fire(task: Schedule, now: number): Promise<void> {
    const pause = this.ctx.get('botPause')
    const targetRef = task.target.kind === 'bot' ? { botId: task.target.botId } : { groupId: task.target.groupId }
    if (pause?.holdsBotWork(targetRef)) return // released → check again
    let agent: Agent | undefined
    if (task.target.kind === 'bot') {
      agent = await this.roster.agentOf(task.target.botId)
      if (agent.status !== 'idle' || agent.inbox.hasPending) return // its turn end → check again
    }
    const rooms = task.target.kind === 'group' ? this.ctx.get('botRooms') : undefined
    if (task.target.kind === 'group' && (!rooms || rooms.roundRunning(task.target.groupId))) return
    const run = task.runs + 1
    // The lowest of the mode it was set at and its creator's preset now, and the creator's network
    // level now (the target's own bound the turn).
    const creatorMode = task.createdBy === 'user' ? undefined : (this.roster.ownMode(task.createdBy) ?? 'read-only')
    const creatorNetwork = task.createdBy === 'user' ? undefined : (this.roster.ownNetwork(task.createdBy) ?? 'none')
    const chain = scheduleChain(task, run, creatorMode, creatorNetwork)
    let recorded = false
    await this.store.update((s) => {
      const list = s.schedules ?? []
      const current = list.find((x) => x.id === task.id)
      // Deleted or already run meanwhile: nothing to do.
      if (!current || current.nextDueAt !== task.nextDueAt) return
      const next = nextDue(current.rule, now, Date.parse(current.createdAt))
      const updated: Schedule = { ...current, runs: run, lastRunAt: current.nextDueAt! }
      if (next === undefined) delete updated.nextDueAt
      else updated.nextDueAt = iso(next)
      // A one-off task is done once it ran: it leaves the list.
      s.schedules = next === undefined && current.rule.kind === 'at' ? list.filter((x) => x.id !== task.id) : list.map((x) => (x.id === task.id ? updated : x))
      if (task.target.kind === 'bot')
        drawOn(s, chain, { limit: this.ctx.botLimits.inForce(s.limits).workBudget, open: { origin: task.target.botId, by: task.id, at: iso(now) } })
      recorded = true
    })
    if (!recorded) return
    const creator = this.nameOf(task.createdBy)
    if (task.target.kind === 'bot') {
      agent!.followup(
        createUserMessage({
          content: [{ type: 'text', text: taskMessage(task, creator) }],
          source: scheduleSource({ scheduleId: task.id, createdBy: task.createdBy }, chain),
        }),
      )
    } else {
      const creator: Requester =
        task.createdBy === 'user' ? { kind: 'user' } : { kind: 'bot', sessionId: this.roster.bot(task.createdBy)?.sessionParts.at(-1)?.sessionId ?? '' }
      await rooms!.post(creator, task.target.groupId, taskPost(task), { chain })
    }
    this.ctx.get('botDiagnostics')?.note({
      kind: 'schedule-run',
      message: `task ${task.id} ran (run ${run}) for ${this.nameOf(task.target)}`,
      data: { id: task.id, run, due: task.nextDueAt },
    })
  }
}
