/**
 * `botContext`, the context steward: at the end of a turn past the check line one side call decides
 * checkpoint (through `botCompaction`) or handoff to a new part (the note, the facts it left out
 * added in code, masked); past the hard line or on an overflow it moves at once with a fallback
 * note. Also forwarding, member Sessions between turns, the person's new part, and finishing a
 * handoff a crash cut. Deliberately does not condense itself or open member Sessions.
 */
import { join } from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { readFile } from 'node:fs/promises'
import type { z } from 'zod'
import { AgentRegistrations } from '../dsh/agent-registrations.ts'
import { ContextConfig } from './config.ts'
import { TextBlock } from '../dsh/answer-block.ts'
import type { BotRoster } from '../roster/service.ts'
import { TeamRefusal } from '../core/refusal.ts'
import { handoffSource, readSource, readSourceOf, type Chain } from '../core/sources.ts'
import type { BotStore } from '../store/index.ts'
import { makePrivateDir, writePrivateFile } from '../core/private-file.ts'
import { estimateSize, lastUserText, linesOf, messagesToBot } from './conversation.ts'
import type { LogEvent } from '../core/log-lines.ts'
import { linesFor, pressure, type Lines } from './thresholds.ts'
import {
  checkNote,
  fallbackNote,
  handoffPackage,
  HANDOFF_ACK,
  NOTE_MAX_TOKENS,
  NOTE_SHORT_CHARS,
  noteOfPackage,
  noteRequest,
  noteSystem,
  packageBudgets,
} from './note.ts'
import { keepFacts, missingFacts, partFacts } from './note-facts.ts'
import { sideCall, type SideCallUsage } from '../dsh/side-call.ts'
import { parseChoice, STEWARD_MAX_TOKENS, STEWARD_SYSTEM, stewardRequest, type StewardChoice } from './steward.ts'
import { afterBoot } from '../dsh/boot.ts'
import { requestRoute } from '../dsh/routes.ts'
import { warn } from '../dsh/warn.ts'

export type SideCallLabel = 'steward' | 'handoff-note'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botContext: BotContext
  }
  interface Events {
    /** A Bot's conversation made room: in place, or by moving to a new part. */
    'bot-team/context'(payload: { botId: string; sessionId: string; action: 'checkpoint' | 'handoff'; reason: string; to?: string }): void
  }
}

export const Config = ContextConfig
export type Config = z.input<typeof Config>

const OVERFLOW = 'CONTEXT_WINDOW_EXCEEDED'
/** Cool-downs after consecutive note failures below the hard line. */
const COOL_DOWN_MS = [60_000, 300_000, 900_000]

export interface ContextStats {
  stewardCalls: number
  noteCalls: number
  /** Input (cached or not) + output tokens of the steward's side calls. */
  sideTokens: number
  checkpoints: number
  handoffs: number
  fallbackNotes: number
  forwarded: number
  acks: number
  /** Facts of the latest messages a note left out, added to it word for word. */
  factsKept: number
}

/** Whose conversation a Session carries: a Bot's own chat, or its Session in one group. */
type Lane = { kind: 'own'; botId: string } | { kind: 'member'; botId: string; groupId: string }

const laneKey = (lane: Lane) => (lane.kind === 'own' ? lane.botId : `${lane.groupId}:${lane.botId}`)

interface MoveOptions {
  reason: string
  /** No room for a note-writing call: a fallback note at once. */
  noRoom: boolean
  /** A turn was cut off and goes on in the new part. */
  resume: boolean
  /** Messages of a rejected step, followed up in the new part. */
  carried?: readonly UserMessage[]
  /** The person asked for the move: a note that cannot be written gets the fallback note, never a cool-down. */
  requested?: boolean
  /** What the new part's opening says started it (default: the part grew long). */
  cause?: 'person' | 'requested'
  /** A task Session's move: the task's id (its package says so). */
  task?: string
}

export class BotContext extends Service {
  static inject = ['botStore', 'botRoster', 'agents', 'llm']
  static Config = Config

  private readonly config: z.output<typeof Config>
  private readonly onAgents: AgentRegistrations
  /** sessionId → size at which the part last made room (start, checkpoint, failed attempt). */
  private readonly base = new Map<string, number>()
  private readonly checkpointsOf = new Map<string, number>()
  private readonly coolDown = new Map<string, { until: number; failures: number }>()
  /** Bots moving to a new part right now. */
  private readonly moving = new Map<string, Promise<void>>()
  /** Sessions whose bare handoff package is answered without a model call. */
  private readonly acks = new Set<string>()
  private readonly checks = new Map<string, Promise<void>>()
  /** `groupId:botId` → the member's running check and move (a round's next turn waits for it). */
  private readonly memberWork = new Map<string, Promise<void>>()
  private readonly attached = new WeakSet<Agent>()
  readonly stats: ContextStats = {
    stewardCalls: 0,
    noteCalls: 0,
    sideTokens: 0,
    checkpoints: 0,
    handoffs: 0,
    fallbackNotes: 0,
    forwarded: 0,
    acks: 0,
    factsKept: 0,
  }

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botContext')
    this.config = Config.parse(config)
    this.onAgents = new AgentRegistrations(ctx, 'bot-context:agent-registrations')
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  async [Service.init](): Promise<void> {
    this.ctx.effect(
      () => () => {
        this.active = false
      },
      'bot-context:active',
    )
    this.ctx.on('bot-team/bot-attached', ({ bot, agent }) => this.attach(agent, bot.id))
    for (const { agent, owner } of this.roster.openSessions({ kinds: ['own'] })) this.attach(agent, owner.botId)
    this.ctx.on('bot-team/task-attached', ({ bot, agent, taskId }) => this.attachTask(agent, bot.id, taskId))
    for (const { agent, owner } of this.roster.openSessions({ kinds: ['task'] })) if (owner.kind === 'task') this.attachTask(agent, owner.botId, owner.taskId)
    this.ctx.on('agent/status', ({ agent, status }) => {
      if (status !== 'idle') return
      const owner = this.roster.ownerOf(String(agent.id))
      if (owner?.kind === 'own' && this.isCurrent(owner.botId, String(agent.id))) this.scheduleCheck(agent, owner)
      if (owner?.kind === 'member' && this.isCurrentMember(owner.groupId, owner.botId, String(agent.id))) this.scheduleCheck(agent, owner)
    })
    this.ctx.on('llm/stream', (options, next) => {
      const sid = options.sessionId === undefined ? undefined : String(options.sessionId)
      if (!sid || options.purpose !== undefined || !this.acks.has(sid) || !endsWithBarePackage(options.messages)) return next()
      this.acks.delete(sid)
      this.stats.acks++
      return (async function* () {
        yield* new TextBlock().end(HANDOFF_ACK)
      })()
    })
    // Finish handoffs a crash cut, once the whole plugin tree is up (in DSH Web the Session is
    // resumed through its api proxy), and again whenever this process becomes the writer.
    const finish = () => {
      if (this.store.isWriter()) void this.finishInterrupted()
    }
    this.ctx.on('bot-team/writer', finish)
    afterBoot(this.ctx, finish)
  }

  /** Resolves when every check and move started so far has finished (tests, benches, shutdown). */
  async settled(): Promise<void> {
    while (this.checks.size || this.moving.size || this.memberWork.size || this.taskMoves.size)
      await Promise.allSettled([...this.checks.values(), ...this.moving.values(), ...this.memberWork.values(), ...this.taskMoves.values()])
  }

  /** Resolves when a member's context check and any move it started are over (never rejects). */
  async memberSettled(groupId: string, botId: string): Promise<void> {
    const key = laneKey({ kind: 'member', botId, groupId })
    for (let work = this.memberWork.get(key); work; work = this.memberWork.get(key)) await work.catch(() => {})
  }

  private isCurrentMember(groupId: string, botId: string, sessionId: string): boolean {
    return this.store.state.groups[groupId]?.memberSessions[botId] === sessionId
  }

  /** A member's parts in a group (absent: its one Session is part 1). */
  private memberPart(groupId: string, botId: string, sessionId: string): { part: number; note?: string | undefined } {
    const p = this.store.state.groups[groupId]?.memberParts?.[botId]?.find((x) => x.sessionId === sessionId)
    return p ? { part: p.part, note: p.note } : { part: 1 }
  }

  private isCurrent(botId: string, sessionId: string): boolean {
    return this.roster.bot(botId)?.sessionParts.at(-1)?.sessionId === sessionId
  }

  private partOf(botId: string, sessionId: string): number {
    return this.roster.bot(botId)?.sessionParts.find((p) => p.sessionId === sessionId)?.part ?? 1
  }

  // ── per agent ────────────────────────────────────────────────────────────────────────────────

  private attach(agent: Agent, botId: string): void {
    if (this.attached.has(agent)) return
    this.attached.add(agent)
    const sessionId = String(agent.id)
    this.onAgents.add(
      agent,
      agent.ctx.on(
        'agent/pre-step',
        async (payload, next) => {
          if (!this.roster.bot(botId)) return next()
          if (!this.isCurrent(botId, sessionId)) {
            // An old part (an open browser tab): its input goes to the current part, never lost.
            if (payload.messages.length === 0) return { kind: 'enter', messages: [] }
            this.forwardLater(botId, payload.messages)
            return { kind: 'enter', messages: [] }
          }
          const moving = this.moving.get(botId)
          if (moving) {
            // A turn that starts while the part is being left waits for the move, then goes where it belongs.
            await moving.catch(() => {})
            if (!this.isCurrent(botId, sessionId)) {
              this.forwardLater(botId, payload.messages)
              return { kind: 'enter', messages: [] }
            }
            return next()
          }
          const lines = await this.linesFor(agent)
          if (!lines) return next()
          const size = this.measure(agent)
          if (pressure(size, lines, this.base.get(sessionId) ?? 0) !== 'hard' || !this.holdsMessages(agent)) return next()
          // Past the hard line before a step: no room for a note call; move at once and go on there.
          this.startMove(botId, sessionId, {
            reason: `past the hard line (${size} of ${lines.hard} tokens) before a step`,
            noRoom: true,
            resume: payload.step > 1,
            carried: payload.messages,
          })
          return { kind: 'reject' }
        },
        { prepend: true },
      ),
    )
    this.onAgents.add(
      agent,
      agent.ctx.on('agent/request-error', async (payload, next) => {
        if (payload.failure.code === OVERFLOW && this.isCurrent(botId, sessionId) && !this.moving.has(botId) && this.holdsMessages(agent)) {
          this.startMove(botId, sessionId, { reason: 'the provider reported a context overflow', noRoom: true, resume: true })
        }
        return next()
      }),
    )
  }

  // ── task Sessions: the move in the middle of an attempt ───────────────────────────────────────

  /** Task moves under way, by task id. */
  private readonly taskMoves = new Map<string, Promise<void>>()

  /**
   * A task Session's attempt is one turn, which can be long: past the hard line before a step (or
   * on a provider overflow) the step is not sent and the attempt moves to a new task Session at
   * once — a fallback note, the messages it received (the brief among them), and the turn goes on
   * there on the same chain. Between attempts there is nothing to move: each attempt is one turn.
   */
  private attachTask(agent: Agent, botId: string, taskId: string): void {
    if (this.attached.has(agent)) return
    this.attached.add(agent)
    const sessionId = String(agent.id)
    const holdsLease = () => this.ctx.get('botTasks')?.board.get(taskId)?.lease?.sessionId === sessionId
    this.onAgents.add(
      agent,
      agent.ctx.on(
        'agent/pre-step',
        async (payload, next) => {
          if (!this.roster.bot(botId) || this.taskMoves.has(taskId) || !holdsLease()) return next()
          const lines = await this.linesFor(agent)
          if (!lines) return next()
          const size = this.measure(agent)
          if (pressure(size, lines, this.base.get(sessionId) ?? 0) !== 'hard' || !this.holdsMessages(agent)) return next()
          this.startTaskMove(botId, taskId, sessionId, {
            reason: `past the hard line (${size} of ${lines.hard} tokens) before a step`,
            noRoom: true,
            resume: true,
            carried: payload.messages,
            task: taskId,
          })
          return { kind: 'reject' }
        },
        { prepend: true },
      ),
    )
    this.onAgents.add(
      agent,
      agent.ctx.on('agent/request-error', async (payload, next) => {
        if (payload.failure.code === OVERFLOW && !this.taskMoves.has(taskId) && holdsLease() && this.holdsMessages(agent))
          this.startTaskMove(botId, taskId, sessionId, { reason: 'the provider reported a context overflow', noRoom: true, resume: true, task: taskId })
        return next()
      }),
    )
  }

  /** Start a task move (one per task at a time); the Session being left does not end its attempt when its turn ends. */
  private startTaskMove(botId: string, taskId: string, sessionId: string, options: MoveOptions): void {
    const leaving = this.ctx.get('botTasks')?.leaving(sessionId)
    const run = this.moveTask(botId, taskId, sessionId, options)
      .catch((error: unknown) => this.problem("a task Session's move failed", error))
      .finally(async () => {
        this.taskMoves.delete(taskId)
        await this.ctx.agents.get(SessionId(sessionId))?.whenIdle()
        leaving?.()
      })
    this.taskMoves.set(taskId, run)
  }

  private async moveTask(botId: string, taskId: string, sessionId: string, options: MoveOptions): Promise<void> {
    const tasks = this.ctx.get('botTasks')
    const agent = this.ctx.agents.get(SessionId(sessionId))
    if (!this.active || !tasks || !agent || !this.store.isWriter()) return
    const n = Number(taskId.replace(/^task-/, ''))
    const file = `context/${botId}/${taskId}-${sessionId}.md`
    const masked = await this.writePackage(agent, botId, -n, undefined, file, options)
    if (masked === undefined) return
    const chain = this.roster.sessionChain(sessionId)
    const next = await tasks.renewSession(taskId, sessionId)
    if (!next) return
    this.stats.handoffs++
    this.base.delete(sessionId)
    this.base.set(next.sessionId, 0)
    next.agent.followup(createUserMessage({ content: [{ type: 'text', text: masked }], source: handoffSource(1, true, chain) }))
    for (const m of options.carried ?? [])
      if (!readSourceOf(m.source, 'handoff')) next.agent.followup(createUserMessage({ content: m.content, source: m.source }))
    this.ctx.emit('bot-team/context', { botId, sessionId, action: 'handoff', reason: options.reason, to: next.sessionId })
  }

  private forwardLater(botId: string, messages: readonly UserMessage[]): void {
    void this.forward(botId, messages).catch((error: unknown) => this.problem('could not forward input from an earlier part', error))
  }

  /** A warning (`warn`) — unless this service has stopped (a host shutting down mid-move). */
  private problem(what: string, error: unknown): void {
    if (!this.active) return
    warn(this.ctx, what, error, 'context')
  }

  private active = true

  private async forward(botId: string, messages: readonly UserMessage[]): Promise<void> {
    await this.moving.get(botId)?.catch(() => {})
    const target = await this.roster.agentOf(botId)
    for (const m of messages) {
      if (readSourceOf(m.source, 'handoff')) continue
      this.stats.forwarded++
      this.pass(target, m)
    }
  }

  /**
   * The part holds a message to the Bot besides its own package: only then is there anything to
   * move. (A window too small for even the system text, the tools and a package would otherwise
   * hand off again and again.)
   */
  private holdsMessages(agent: Agent): boolean {
    return linesOf(agent.session.events as unknown as LogEvent[]).some((l) => l.who === 'user' || l.who === 'bot')
  }

  // ── measuring ────────────────────────────────────────────────────────────────────────────────

  private route(agent: Agent): { provider: string; model: string; maxTokens?: number } | undefined {
    return requestRoute(agent.session)
  }

  private async linesFor(agent: Agent): Promise<Lines | undefined> {
    const route = this.route(agent)
    if (!route) return undefined
    const info = (await this.ctx.llm.resolveModelInfo(route.provider, route.model).catch(() => undefined)) as
      | { context?: { contextWindow?: number }; defaultMaxTokens?: number }
      | undefined
    const window = info?.context?.contextWindow ?? agent.session.requestContext()?.contextWindow
    return linesFor({ window, reserve: route.maxTokens ?? info?.defaultMaxTokens, checkRatio: this.config.checkRatio })
  }

  /** The Session's size: DSH's token meter where it is mounted, else the estimate. */
  measure(agent: Agent): number {
    const meter = this.ctx.get('tokenMeter')
    if (meter) {
      try {
        return meter.measure(agent.session).totalTokens
      } catch {
        // fall back to the estimate
      }
    }
    return estimateSize(agent.session)
  }

  // ── the end-of-turn check ────────────────────────────────────────────────────────────────────

  private scheduleCheck(agent: Agent, lane: Lane): void {
    const sessionId = String(agent.id)
    const key = laneKey(lane)
    if (this.checks.has(sessionId) || (lane.kind === 'own' ? this.moving.has(key) : this.memberWork.has(key))) return
    const run = this.check(agent, lane)
      .catch((error: unknown) => this.problem('the context check of a Bot Session failed', error))
      .finally(() => {
        this.checks.delete(sessionId)
        if (this.memberWork.get(key) === run) this.memberWork.delete(key)
      })
    this.checks.set(sessionId, run)
    if (lane.kind === 'member') this.memberWork.set(key, run)
  }

  private async check(agent: Agent, lane: Lane): Promise<void> {
    const botId = lane.botId
    const sessionId = String(agent.id)
    if (agent.status !== 'idle' || agent.inbox.hasPending) return
    const lines = await this.linesFor(agent)
    if (!lines) return
    const size = this.measure(agent)
    const level = pressure(size, lines, this.base.get(sessionId) ?? 0)
    if (level === 'none' || !this.holdsMessages(agent)) return
    const cool = this.coolDown.get(sessionId)
    if (level === 'check' && cool && cool.until > Date.now()) return
    const decision = await this.decide(agent, botId, false, lane.kind === 'own' ? 'own chat' : 'group')
    if (!this.active) return
    if (decision === 'checkpoint') {
      const service = this.ctx.get('botCompaction')
      const outcome = service
        ? await service.checkpoint(sessionId, { checkTokens: lines.check }).catch((error: unknown) => ({ ok: false as const, reason: String(error) }))
        : { ok: false as const, reason: 'no checkpoint service in this host' }
      if (outcome.ok) {
        this.stats.checkpoints++
        this.checkpointsOf.set(sessionId, (this.checkpointsOf.get(sessionId) ?? 0) + 1)
        const after = this.measure(agent)
        this.base.set(sessionId, after)
        this.ctx.emit('bot-team/context', { botId, sessionId, action: 'checkpoint', reason: 'the steward chose a checkpoint' })
        if (pressure(after, lines, after) === 'none' && after < lines.check) return
      }
    }
    const reason = decision === 'checkpoint' ? 'a checkpoint did not make room' : decision ? 'the steward chose a handoff' : 'the steward gave no decision'
    const options = { reason, noRoom: false, resume: false }
    if (lane.kind === 'own') await this.move(botId, sessionId, options)
    else await this.moveMember(lane, agent, options)
  }

  /** The steward's one decision; a malformed or missing answer is a handoff. */
  private async decide(agent: Agent, botId: string, midTurn: boolean, where: 'own chat' | 'group'): Promise<StewardChoice | undefined> {
    const route = this.sideRoute(agent)
    if (!route) return undefined
    const sessionId = String(agent.id)
    const check = (await this.linesFor(agent))?.check
    // Side-call inputs scale with the window (a sixteenth of the check line here, in chars ≈ tokens × 4).
    const user = stewardRequest({
      lines: linesOf(agent.session.events as unknown as LogEvent[]),
      midTurn,
      checkpoints: this.checkpointsOf.get(sessionId) ?? 0,
      where,
      ...(check ? { maxChars: check / 4 } : {}),
    })
    this.stats.stewardCalls++
    const result = await sideCall(this.ctx, {
      ...route,
      purpose: 'compaction',
      system: STEWARD_SYSTEM,
      user,
      maxTokens: STEWARD_MAX_TOKENS,
      deadlineMs: this.config.stewardTimeoutMs,
      tag: { purpose: 'steward', bot: botId },
    })
    this.report('steward', botId, sessionId, route, result)
    return parseChoice(result.text)
  }

  private sideRoute(agent: Agent): { provider: string; model: string } | undefined {
    const chosen = this.config.model
    if (chosen) return { provider: chosen.slice(0, chosen.indexOf('/')), model: chosen.slice(chosen.indexOf('/') + 1) }
    const route = this.route(agent)
    return route && { provider: route.provider, model: route.model }
  }

  private report(
    label: SideCallLabel,
    botId: string,
    sessionId: string,
    route: { provider: string; model: string },
    result: { usage: SideCallUsage; error?: string },
  ): void {
    this.stats.sideTokens += result.usage.input + result.usage.output
    if (result.error)
      this.ctx.get('botDiagnostics')?.note({
        kind: 'steward',
        level: 'warn',
        message: `${label} call for ${botId} (${sessionId}, ${route.provider}/${route.model}) failed: ${result.error}`,
      })
  }

  // ── handoff ──────────────────────────────────────────────────────────────────────────────────

  private startMove(botId: string, sessionId: string, options: MoveOptions): void {
    void this.move(botId, sessionId, options).catch((error: unknown) => this.problem("a Bot's handoff failed", error))
  }

  /**
   * The person's "start a new part now" (`paired`: the request came from a paired browser, and
   * the new part's opening says the user started it): the Bot's current own-chat part ends with the handoff the
   * steward makes (the model's note, or the fallback note when it cannot be written) and the next
   * part opens — in the Bot's working folder as it is now. Refused (`unavailable`) while the Bot is
   * working: a turn runs or waits, or a move is under way. Resolves to the new part's Session id.
   */
  async newPart(botId: string, opts: { paired?: boolean } = {}): Promise<string> {
    const bot = this.roster.bot(botId)
    if (!bot) throw new TeamRefusal('not-found', `No live Bot ${botId}.`)
    const busy = `${bot.name} is working now; a new part starts between turns. Wait until it is idle (or stop it), then try again.`
    if (this.moving.has(botId)) throw new TeamRefusal('unavailable', busy)
    const agent = await this.roster.agentOf(botId)
    const sessionId = String(agent.id)
    if (agent.status !== 'idle' || agent.inbox.hasPending || this.moving.has(botId)) throw new TeamRefusal('unavailable', busy)
    // Only a paired browser is the person; any other caller of the route is worded as a request.
    const reason = opts.paired ? 'the person started a new part' : 'a new part was requested (not from a paired browser)'
    await this.move(botId, sessionId, { reason, noRoom: false, resume: false, requested: true, cause: opts.paired ? 'person' : 'requested' })
    const next = this.roster.bot(botId)?.sessionParts.at(-1)?.sessionId
    if (!next || next === sessionId)
      throw new TeamRefusal(
        'unavailable',
        `${bot.name}'s new part could not be opened now (the team may be read-only in this process, or the Bot busy); its chat goes on in the current part. Try again.`,
      )
    return next
  }

  /** Move a Bot's own chat to a new part (one move at a time per Bot). */
  move(botId: string, sessionId: string, options: MoveOptions): Promise<void> {
    const running = this.moving.get(botId)
    if (running) return running
    const run = this.moveNow(botId, sessionId, options).finally(() => this.moving.delete(botId))
    this.moving.set(botId, run)
    return run
  }

  private async moveNow(botId: string, sessionId: string, options: MoveOptions): Promise<void> {
    if (!this.active) return
    const bot = this.roster.bot(botId)
    const agent = this.ctx.agents.get(SessionId(sessionId))
    if (!bot || !agent || !this.isCurrent(botId, sessionId) || !this.store.isWriter()) return
    const part = this.partOf(botId, sessionId)
    const file = `context/${botId}/part-${part + 1}.md`
    const masked = await this.writePackage(agent, botId, part, await this.previousNote(botId, sessionId), file, options)
    if (masked === undefined) return
    // The part's chain goes on in the next part, in the package's source (never in its text).
    const chain = this.roster.sessionChain(sessionId)
    const next = await this.roster.openOwnChat(botId, { endReason: `handoff: ${options.reason}`, note: file, ...(options.resume ? { resume: true } : {}) })
    this.stats.handoffs++
    this.base.delete(sessionId)
    await this.sendOpening(botId, next, part + 1, masked, options.resume, chain)
    // Messages of a rejected step follow in the new part (a package of the old part stays behind).
    for (const m of options.carried ?? []) {
      if (!readSourceOf(m.source, 'handoff')) (await this.roster.agentOf(botId)).followup(createUserMessage({ content: m.content, source: m.source }))
    }
    // Not awaited: a turn of the old part that started meanwhile waits for this move to end first.
    void agent
      .whenIdle()
      .then(() => this.carryLeftovers(agent, botId))
      .catch((error: unknown) => this.problem('could not carry input left in an earlier part', error))
    this.ctx.emit('bot-team/context', { botId, sessionId, action: 'handoff', reason: options.reason, to: next })
  }

  /**
   * Input that reached the old part while it was being left stays in its inbox: a rejected step
   * closes its turn without starting another for what arrived meanwhile. It follows to the new
   * part (a notice injected, as it was; a handoff package stays behind).
   */
  private async carryLeftovers(old: Agent, botId: string): Promise<void> {
    if (old.status !== 'idle' || !this.active) return
    const left = [...old.inbox.nextStep, ...old.inbox.nextTurn]
    if (!left.length) return
    const target = await this.roster.agentOf(botId)
    for (const m of left) {
      old.inbox.remove(m.id)
      if (!readSourceOf(m.source, 'handoff')) this.pass(target, m)
    }
  }

  /** Hand a message of an old part to the current one: a notice injected (it starts no turn), the rest as follow-ups. */
  private pass(target: Agent, m: UserMessage): void {
    const copy = createUserMessage({ content: m.content, source: m.source })
    if (readSource(m.source)?.form === 'notice') target.inject(copy)
    else target.followup(copy)
  }

  /**
   * The handoff package of a part's Session (the note, written by the model or built in code,
   * and the latest messages), masked and written to `file` under the bot folder. Undefined: the
   * note failed below the hard line, so the part stays as it is for a while (a cool-down).
   */
  private async writePackage(
    agent: Agent,
    botId: string,
    part: number,
    previous: string | undefined,
    file: string,
    options: MoveOptions,
  ): Promise<string | undefined> {
    const sessionId = String(agent.id)
    const lines = linesOf(agent.session.events as unknown as LogEvent[])
    const limits = await this.linesFor(agent)
    let note: string | undefined
    if (!options.noRoom) note = await this.writeNote(agent, botId, lines, previous)
    if (!this.active) return undefined
    if (!note) {
      const size = this.measure(agent)
      if (!options.noRoom && !options.requested && limits && size < limits.hard) {
        // Below the hard line a failed note leaves the part as it is, for a while.
        const failures = (this.coolDown.get(sessionId)?.failures ?? 0) + 1
        this.coolDown.set(sessionId, { failures, until: Date.now() + COOL_DOWN_MS[Math.min(failures, COOL_DOWN_MS.length) - 1]! })
        this.base.set(sessionId, size)
        return undefined
      }
      this.stats.fallbackNotes++
      note = fallbackNote({ why: options.noRoom ? options.reason : 'the note could not be written', previousNote: previous, lastUserText: lastUserText(lines) })
    }
    const secrets = this.ctx.get('botSecrets')
    const shape = {
      part: part + 1,
      messages: messagesToBot(lines, part),
      ...packageBudgets(limits?.check ?? 16_384 * 4),
      resume: options.resume,
      ...(options.cause ? { cause: options.cause } : {}),
      ...(options.task ? { task: options.task } : {}),
    }
    let text = handoffPackage({ ...shape, note })
    // What the latest messages and tool errors name (paths, URLs, ids, quoted names, errors) must
    // reach the new part: what neither the note nor the package holds is added to the note verbatim.
    const missing = missingFacts(partFacts(lines), text)
    if (missing.length) {
      this.stats.factsKept += missing.length
      text = handoffPackage({ ...shape, note: keepFacts(note, missing) })
    }
    const masked = secrets?.mask ? secrets.mask(text) : text
    await makePrivateDir(join(this.config.dir, 'context')).catch(() => {})
    await makePrivateDir(join(this.config.dir, 'context', botId)).catch(() => {})
    await writePrivateFile(join(this.config.dir, file), masked)
    return masked
  }

  // ── member handoff ───────────────────────────────────────────────────────────────────────────

  /** Move a member to a fresh Session in its group (runs inside the member's check, between its turns). */
  private async moveMember(lane: Extract<Lane, { kind: 'member' }>, agent: Agent, options: MoveOptions): Promise<void> {
    const { botId, groupId } = lane
    const sessionId = String(agent.id)
    const rooms = this.ctx.get('botRooms')
    if (!this.active || !rooms || !this.isCurrentMember(groupId, botId, sessionId) || !this.store.isWriter()) return
    // The part being left must be on disk before the handoff starts: a crash from here on keeps it
    // as the member's current Session, and DSH may still hold its newest events (writes are batched).
    await this.ctx.sessions.flush(agent.session)
    const { part, note } = this.memberPart(groupId, botId, sessionId)
    const file = `context/${botId}/group-${groupId}-part-${part + 1}.md`
    const previous = note === undefined ? undefined : await this.noteFrom(note)
    const masked = await this.writePackage(agent, botId, part, previous, file, options)
    // Never mid-turn: a turn that entered meanwhile keeps this Session; its own end checks again.
    if (masked === undefined || agent.status !== 'idle' || agent.inbox.hasPending || !this.isCurrentMember(groupId, botId, sessionId)) return
    const chain = this.roster.sessionChain(sessionId)
    const next = await rooms.renewMember(groupId, botId, { from: sessionId, endReason: `handoff: ${options.reason}`, note: file })
    this.stats.handoffs++
    this.base.delete(sessionId)
    await this.sendMemberOpening(lane, next.agent, next.part, masked, chain)
    this.ctx.emit('bot-team/context', { botId, sessionId, action: 'handoff', reason: options.reason, to: next.sessionId })
  }

  /**
   * The package enters the member's new Session and is answered (no model call) before its next
   * turn. `chain`: the old Session's last chain (a package re-sent after a crash has none: fail closed).
   */
  private async sendMemberOpening(lane: Extract<Lane, { kind: 'member' }>, agent: Agent, part: number, text: string, chain?: Chain): Promise<void> {
    const sessionId = String(agent.id)
    this.base.set(sessionId, 0)
    this.acks.add(sessionId)
    agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: handoffSource(part, false, chain) }))
    await agent.whenIdle()
    await this.store.update((s) => {
      const p = s.groups[lane.groupId]?.memberParts?.[lane.botId]?.find((x) => x.sessionId === sessionId)
      if (p) p.opening = 'sent'
    })
  }

  /** The note, written by the model: one retry (shorter, or naming the missing headings). */
  private async writeNote(agent: Agent, botId: string, lines: ReturnType<typeof linesOf>, previous: string | undefined): Promise<string | undefined> {
    const route = this.sideRoute(agent)
    if (!route) return undefined
    const sessionId = String(agent.id)
    const check = (await this.linesFor(agent))?.check
    // An eighth of the check line of latest lines (chars ≈ tokens × 4), at most NOTE_INPUT_CHARS.
    const user = noteRequest(lines, previous, check ? check / 2 : undefined)
    let retry: string | undefined
    for (let attempt = 0; attempt < 2; attempt++) {
      this.stats.noteCalls++
      const result = await sideCall(this.ctx, {
        ...route,
        purpose: 'compaction',
        system: noteSystem(retry),
        user,
        maxTokens: NOTE_MAX_TOKENS,
        deadlineMs: this.config.noteTimeoutMs,
        tag: { purpose: 'handoff-note', bot: botId },
      })
      this.report('handoff-note', botId, sessionId, route, result)
      if (result.error) return undefined
      const checked = checkNote(result.complete ? result.text : undefined, retry === 'shorter' ? NOTE_SHORT_CHARS : undefined)
      if (checked.ok) return checked.note
      retry = result.complete ? checked.retry : 'shorter'
    }
    return undefined
  }

  /** The note that closed part `part` of a Bot's own chat: it opened part `part + 1` (its package file). */
  async closingNote(botId: string, part: number): Promise<string | undefined> {
    const file = this.roster.bot(botId)?.sessionParts.find((p) => p.part === part + 1)?.note
    return file ? this.noteFrom(file) : undefined
  }

  /** The note that opened this part (from its package file), carried into the next note. */
  private async previousNote(botId: string, sessionId: string): Promise<string | undefined> {
    const file = this.roster.bot(botId)?.sessionParts.find((p) => p.sessionId === sessionId)?.note
    if (!file) return undefined
    return this.noteFrom(file)
  }

  /** The note inside a package file (relative to the bot folder). */
  private async noteFrom(file: string): Promise<string | undefined> {
    const text = await readFile(join(this.config.dir, file), 'utf8').catch(() => undefined)
    return text === undefined ? undefined : noteOfPackage(text)
  }

  /** The package opens the new part; `chain` rides its source (a package re-sent after a crash has none: fail closed). */
  private async sendOpening(botId: string, sessionId: string, part: number, text: string, resume: boolean, chain?: Chain): Promise<void> {
    const agent = await this.roster.agentOf(botId)
    if (String(agent.id) !== sessionId) return
    this.base.set(sessionId, 0)
    if (!resume) this.acks.add(sessionId)
    agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: handoffSource(part, resume, chain) }))
    await this.store.update((s) => {
      const p = s.bots[botId]?.sessionParts.find((x) => x.sessionId === sessionId)
      if (p) p.opening = 'sent'
    })
  }

  private finishing: Promise<void> | undefined

  /** A handoff a crash interrupted: the current part's package is sent (again) from its file. One run at a time. */
  private finishInterrupted(): Promise<void> {
    this.finishing ??= this.finishNow().finally(() => {
      this.finishing = undefined
    })
    return this.finishing
  }

  private async finishNow(): Promise<void> {
    for (const bot of this.roster.bots()) {
      const part = bot.sessionParts.at(-1)
      if (part?.opening !== 'pending' || !part.note || this.moving.has(bot.id)) continue
      const text = await readFile(join(this.config.dir, part.note), 'utf8').catch(() => undefined)
      if (text === undefined) continue
      await this.sendOpening(bot.id, part.sessionId, part.part, text, part.resume === true).catch((error: unknown) =>
        this.problem(`could not finish ${bot.name}'s handoff`, error),
      )
    }
    const rooms = this.ctx.get('botRooms')
    for (const group of Object.values(this.store.state.groups)) {
      if (group.deleted || !rooms) continue
      for (const [botId, parts] of Object.entries(group.memberParts ?? {})) {
        const part = parts.at(-1)
        const lane = { kind: 'member' as const, botId, groupId: group.id }
        if (part?.opening !== 'pending' || !part.note || part.sessionId !== group.memberSessions[botId] || this.memberWork.has(laneKey(lane))) continue
        const text = await readFile(join(this.config.dir, part.note), 'utf8').catch(() => undefined)
        if (text === undefined) continue
        const run = rooms.memberAgent(group.id, botId).then((agent) => this.sendMemberOpening(lane, agent, part.part, text))
        this.memberWork.set(laneKey(lane), run)
        await run
          .catch((error: unknown) => this.problem(`could not finish a member handoff in group ${group.name}`, error))
          .finally(() => this.memberWork.delete(laneKey(lane)))
      }
    }
  }
}

/** The request's newest user message (runtime context aside) is a handoff package with nothing to resume. */
function endsWithBarePackage(messages: readonly { role: string; content: readonly { type: string; text?: string }[]; source?: unknown }[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role !== 'user') return false
    const text = m.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('')
    if (text.startsWith('Current runtime context')) continue
    const s = readSourceOf(m.source, 'handoff')
    return s !== undefined && !s.resume
  }
  return false
}
