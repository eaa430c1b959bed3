/**
 * `botDelivery`: `message_bot` (DSH `followup`; with `interrupt`, `steer`), `stop_bot` (`cancel`),
 * reports back from rooms, reply routing (owed until recorded once), the limits of `botLimits` at
 * each check, the held queue (turns at once, the pause), and the outbox — every delivery recorded
 * before DSH is asked, recovered at start and on takeover. Deliberately never waits for the
 * target's turn or touches group Sessions (src/delivery/README.md).
 */
import { AgentRegistrations } from '../dsh/agent-registrations.ts'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import type { Caller } from '../core/authority.ts'
import type { Requester } from '../core/caller.ts'
import type { BotRoster } from '../roster/service.ts'
import { byRef } from '../core/names.ts'
import { TeamRefusal } from '../core/refusal.ts'
import { allocateId, own, type Bot, type BotStore, type Delivery } from '../store/index.ts'
import { drawOn, type Chain } from '../core/chain.ts'
import { awaitsReply, boundDeliveries, checkSend, discardReport, messageText, recoveryAction, replyBody, turnOutcome, type DeliveryKind } from './policy.ts'
import { charCount, clip, FINISHED_BODY_MAX, MESSAGE_MAX, REASON_MAX } from '../core/text-limits.ts'
import type { LimitOverrides, Limits } from '../core/limits.ts'
import { deliverySource, outboxIdOf, readSourceOf, roomReportSource, type DeliverySource } from '../core/sources.ts'
import { asMode, lowerMode } from '../core/chain.ts'
import { deliveryTools } from './tools.ts'
import { redriveInbox } from '../dsh/session-opener.ts'
import { afterBoot } from '../dsh/boot.ts'
import { warn } from '../dsh/warn.ts'
import { errorText } from '../core/errors.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botDelivery: BotDelivery
  }
}

/** What one Bot agent's current turn sent, and which handled messages want their answer back. */
interface TurnTrack {
  turn: number
  sent: number
  /** Deliveries claimed in this turn whose sender wants the answer. */
  wantReply: string[]
}

export interface SendResult {
  delivery: Delivery
  /** The target was running a turn when the message was handed over. */
  targetBusy: boolean
}

export interface StopResult {
  stopped: boolean
  discarded: number
  keptUserPrompts: number
  delivery?: Delivery
  targetName: string
}

const nowIso = () => new Date().toISOString()

/** What a start-up recovery did: records found delivered, queues re-driven, records sent, discarded, replies a crash cut sent. */
export interface RecoveryCounts {
  delivered: number
  redriven: number
  sent: number
  discarded: number
  replied: number
}

export class BotDelivery extends Service {
  static inject = ['botStore', 'botRoster', 'botLimits', 'botPause', 'agents', 'sessions', 'tools']

  /** Resolves when start-up recovery has run (at once in a process that does not write). */
  readonly ready: Promise<void>
  private resolveReady!: () => void
  private readonly turns = new Map<string, TurnTrack>()
  /** Messages this service is removing and re-adding itself (not discards). */
  private readonly quiet = new Set<string>()
  /** Target Session id → why its inbox is being cleared right now. */
  private readonly stopping = new Map<string, { byId: string; byName: string; reason: string }>()
  /** Status changes waiting to be saved (delivered/discarded/failed), applied in one transaction. */
  private readonly marks = new Map<string, { status: Delivery['status']; outcome: string }>()
  private flushing: Promise<void> | undefined
  /** Log flushes that end in a "delivered" mark. */
  private readonly logFlushes = new Set<Promise<void>>()
  /** Replies and discard reports on their way (`settled()` waits for them). */
  private readonly inflight = new Set<Promise<void>>()
  /** What the last start-up recovery did (for the team page and tests). */
  recovered: RecoveryCounts | undefined

  constructor(ctx: Context) {
    super(ctx, 'botDelivery')
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve
    })
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  /** The limits in force (`botLimits`, asked at each check); inside a save, of the state being written. */
  private limits(overrides?: LimitOverrides): Limits {
    return this.ctx.botLimits.inForce(overrides)
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  /** False once the service is disposed: late flushes and turn ends must not touch team state. */
  private alive = true

  async [Service.init](): Promise<void> {
    this.ctx.effect(
      () => () => {
        this.alive = false
      },
      'bot-delivery:alive',
    )
    this.ctx.on('bot-team/bot-attached', ({ bot, agent }) => this.attach(agent, bot.id))
    this.roster.offerTools(this.ctx, { kinds: ['own'], tools: ({ offer }) => deliveryTools(this, offer) })
    // Delivery owns its records: the deleted Bot's pending messages are discarded here (those still
    // in its inbox were already discarded, and their senders told, when the roster closed its Sessions).
    this.ctx.on('bot-team/bot-deleted', ({ botId }) => {
      const name = this.nameOf(botId)
      for (const d of this.store.state.deliveries) {
        if (d.to === botId && d.status === 'pending') this.mark(d.id, 'discarded', `discarded: target Bot ${name} was deleted`)
      }
      // Replies that will never come (the Bot that owed one or was owed one is gone) stop being owed.
      const owed = this.store.state.deliveries.filter((d) => awaitsReply(d) && (d.to === botId || d.from === botId)).map((d) => d.id)
      if (owed.length) this.background(this.noReply(owed), 'could not record replies that will not come')
    })
    this.ctx.on('session/event', (session, event) => {
      if (event.type === 'user/message') {
        const deliveryId = outboxIdOf((event.data as UserMessage).source)
        // "Delivered" is what is on disk: the live event comes before the log append, and a crash
        // between a saved mark and an unwritten log line would lose the message.
        if (deliveryId) {
          const at = nowIso()
          const flushed = Promise.resolve(this.ctx.sessions.flush(session))
            .then(
              () => this.mark(deliveryId, 'delivered', `in the target's log at ${at}`),
              (error: unknown) => warn(this.ctx, `could not flush the log holding ${deliveryId}`, error, 'delivery'),
            )
            .finally(() => this.logFlushes.delete(flushed))
          this.logFlushes.add(flushed)
        }
      } else if (event.type === 'turn/end') {
        const data = event.data as { turn: number; reason: unknown }
        this.onTurnEnd(String(session.id), data.turn, data.reason)
        // A turn ended: held Bot-started work may go (after the agent is idle, so it is not counted).
        const ended = this.ctx.agents.get(SessionId(String(session.id)))
        if (ended) void ended.whenIdle().then(() => this.release())
      }
    })
    // Bots attached before this service started (the roster opened the team first).
    for (const { agent, owner } of this.ctx.botRoster.openSessions({ kinds: ['own'] })) this.attach(agent, owner.botId)
    // The pause switch (or a cap) lifted: held messages go, in order.
    this.ctx.on('bot-team/work-released', () => this.release())
    // A process that takes over as the writer finishes what the previous writer left pending.
    this.ctx.on('bot-team/writer', ({ from }) => {
      if (from === null) return // the team was just opened: the start-up recovery below covers it
      void this.recover().catch((error: unknown) => warn(this.ctx, 'delivery recovery after taking over failed', error, 'delivery'))
    })
    if (!this.store.isWriter()) {
      this.resolveReady()
      return
    }
    const run = () =>
      this.recover()
        .then(
          () => {},
          (error: unknown) => {
            warn(this.ctx, 'delivery recovery failed', error, 'delivery')
          },
        )
        .finally(() => this.resolveReady())
    afterBoot(this.ctx, run)
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────────

  /** The delivery log (bounded: every pending record and the newest finished ones), oldest first. */
  log(): readonly Delivery[] {
    return this.store.state.deliveries
  }

  delivery(id: string): Delivery | undefined {
    return this.store.state.deliveries.find((d) => d.id === id)
  }

  // ── per-agent wiring ────────────────────────────────────────────────────────────────────────

  private readonly wired = new WeakSet<Agent>()
  private readonly onAgents = new AgentRegistrations(this.ctx, 'bot-delivery:agent-registrations')

  private attach(agent: Agent, _botId: string): void {
    if (this.wired.has(agent)) return
    this.wired.add(agent)
    const sessionId = String(agent.id)
    const track = <T extends () => unknown>(dispose: T) => this.onAgents.add(agent, dispose)
    track(
      agent.ctx.on('agent/inbox/claimed', ({ message, turn }) => {
        const t = this.track(sessionId, turn)
        const relay = relayOf(message.source)
        if (relay?.type === 'message' && relay.replyTo === 'sender') t.wantReply.push(relay.deliveryId)
      }),
    )
    track(agent.ctx.on('agent/inbox/discarded', ({ message }) => this.onDiscarded(sessionId, message)))
    track(
      agent.ctx.effect(
        () => () => {
          this.turns.delete(sessionId)
        },
        'bot-delivery:turns',
      ),
    )
  }

  // ── sending ─────────────────────────────────────────────────────────────────────────────────

  private track(sessionId: string, turn: number): TurnTrack {
    let t = this.turns.get(sessionId)
    if (!t || t.turn !== turn) {
      t = { turn, sent: 0, wantReply: [] }
      this.turns.set(sessionId, t)
    }
    return t
  }

  /**
   * Who is asking, with everything the rules need: the caller for `decide`, the sending Bot, and
   * the chain the message will carry (`botRoster.chainFrom`: one hop deeper than the sender's
   * turn, the turn's work budget, the sender's turn mode). The person's message is hop 1 of a
   * chain without budget or mode.
   */
  private identify(who: Requester): { caller: Caller; from?: Bot; sessionId?: string; chain: Chain } {
    if (who.kind === 'user') return { caller: { kind: 'user' }, chain: { hop: 1 } }
    const caller = this.roster.callerOf(who.sessionId)
    const from = caller.botId ? this.roster.bot(caller.botId) : undefined
    return { caller, sessionId: who.sessionId, chain: this.roster.chainFrom(who.sessionId), ...(from ? { from } : {}) }
  }

  /** The target among live Bots; a deleted or unknown one is a refusal naming it. */
  private target(ref: string): Bot {
    const target = this.roster.find(String(ref ?? '').trim())
    if (target) return target
    const gone = byRef(
      Object.values(this.store.state.bots).filter((b) => b.deleted),
      ref,
    )
    throw new TeamRefusal(
      'not-found',
      gone
        ? `Bot ${gone.name} was deleted; nothing was sent. Call list_bots to see the team.`
        : `there is no Bot named or with id "${ref}". Call list_bots to see the team.`,
    )
  }

  /**
   * A Bot (from one of its turns) or the person sends a message (`message_bot`) or an interruption
   * (`interrupt_bot`). Authority, the hop limit, the per-turn send cap, the work budget and the
   * size limit are all checked here, whoever calls.
   */
  async send(who: Requester, req: { to: string; kind: 'message' | 'interrupt'; body: string; replyMode?: 'sender' | 'user' }): Promise<SendResult> {
    const sender = this.identify(who)
    const target = this.target(req.to)
    const verdict = this.roster.check(sender.caller, req.kind === 'message' ? 'message_bot' : 'interrupt_bot', { botId: target.id })
    if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
    const body = String(req.body ?? '').trim()
    if (!body) throw new TeamRefusal('invalid', 'the message is empty; nothing was sent.')
    if (charCount(body) > MESSAGE_MAX)
      throw new TeamRefusal(
        'invalid',
        `The message is ${charCount(body)} characters long; the limit is ${MESSAGE_MAX}. Shorten it (put long material in a file and name the path); nothing was sent.`,
      )
    const track = sender.sessionId ? this.turns.get(sender.sessionId) : undefined
    if (sender.from) {
      const limits = this.limits()
      const next = checkSend(sender.chain.hop - 1, track?.sent ?? 0, { hopLimit: limits.hopLimit, sendCap: limits.sendsPerTurn })
      if (!next.ok) throw new TeamRefusal('limit', `Not sent: ${next.reason}`)
    }
    const result = await this.deliver({
      from: sender.from?.id ?? 'user',
      to: target.id,
      kind: req.kind,
      body,
      replyMode: req.kind === 'message' ? (req.replyMode ?? 'sender') : undefined,
      chain: sender.chain,
    })
    if (track) track.sent++
    return result
  }

  /**
   * The one send path: record the delivery (pending) in the same transaction that draws on the
   * chain's work budget and re-checks that the target is live, then hand the message to DSH.
   * `force` is for what the plugin itself routes back (replies, discard reports): they always
   * arrive, and still count against the budget, so the turn they open cannot send further.
   */
  private async deliver(req: {
    from: string
    to: string
    kind: DeliveryKind
    body: string
    chain: Chain
    replyMode?: 'sender' | 'user' | undefined
    replyTo?: string | null
    force?: boolean
  }): Promise<SendResult> {
    const target = this.roster.bot(req.to)
    if (!target) throw new TeamRefusal('not-found', `No live Bot with id ${req.to}.`)
    const agent = await this.roster.agentOf(target.id)
    // Saved secret values never enter the outbox or the target's log (botSecrets; absent: none).
    const masked = this.ctx.get('botSecrets')?.mask(req.body) ?? req.body
    let delivery: Delivery | undefined
    let already: Delivery | undefined
    await this.store.update((s) => {
      const live = own(s.bots, target.id)
      if (!live || live.deleted) throw new TeamRefusal('not-found', `Bot ${target.name} was deleted; nothing was sent.`)
      // A reply or a report is sent once: the second attempt (recovery after a crash, a late turn
      // end) finds the first, recorded in the same save that created it.
      const answered = req.replyTo && (req.kind === 'reply' || req.kind === 'report') ? s.deliveries.find((d) => d.id === req.replyTo) : undefined
      already = req.replyTo
        ? s.deliveries.find((d) => d.kind === req.kind && d.replyTo === req.replyTo && (req.kind === 'report' || d.to === target.id))
        : undefined
      if (already || (answered?.reply !== undefined && req.kind === 'reply')) {
        already ??= s.deliveries.find((d) => d.id === answered?.reply) ?? answered
        return
      }
      const drawn = drawOn(s, req.chain, { limit: this.limits(s.limits).workBudget, open: { origin: req.from, at: nowIso() }, force: req.force })
      if (!drawn.ok && !req.force) throw new TeamRefusal('limit', `Not sent: ${drawn.reason}`)
      delivery = {
        id: allocateId(s, 'delivery'),
        from: req.from,
        to: target.id,
        kind: req.kind,
        body: clip(masked, MESSAGE_MAX),
        hop: req.chain.hop,
        replyTo: req.replyTo ?? null,
        createdAt: nowIso(),
        status: 'pending',
        ...(req.kind === 'message' ? { replyMode: req.replyMode ?? 'sender' } : {}),
        sessionId: String(agent.id),
        ...(req.chain.budget ? { budget: req.chain.budget } : {}),
        ...(req.chain.mode ? { mode: req.chain.mode } : {}),
        ...(req.chain.network ? { network: req.chain.network } : {}),
      }
      if (answered && req.kind === 'reply') answered.reply = delivery.id
      s.deliveries.push(delivery)
      s.deliveries = boundDeliveries(s.deliveries, this.limits(s.limits).keepFinished)
    })
    if (already) return { delivery: already, targetBusy: false }
    const targetBusy = agent.status === 'running'
    this.handOver(agent, delivery!)
    return { delivery: this.delivery(delivery!.id) ?? delivery!, targetBusy }
  }

  /**
   * A group's replies to a Bot's post, sent back to the poster's own chat through the outbox:
   * recorded (keyed by the post, so a round that ends twice — resumed after a crash — reports
   * once) in the save that draws it from the chain's budget (forced: a report always goes), then
   * handed over; a crash in between is recovered at the next start like any delivery.
   */
  report(req: { groupId: string; to: string; postId: string; body: string; chain: Chain }): Promise<SendResult> {
    return this.deliver({ from: req.groupId, to: req.to, kind: 'report', body: req.body, chain: req.chain, replyTo: req.postId, force: true })
  }

  /** Record that the given messages will get no reply (their sender or target is gone). */
  private async noReply(ids: readonly string[]): Promise<void> {
    if (!this.alive || !this.store.isWriter()) return
    await this.store.update((s) => {
      for (const d of s.deliveries) if (ids.includes(d.id) && awaitsReply(d)) d.reply = 'none'
    })
  }

  /** Bot-started turns running or about to run in every Bot Session (the roster counts them for every service). */
  private botTurnsRunning(): number {
    return this.roster.botTurnsRunning()
  }

  /** Messages that would start a Bot-started turn while the cap is reached, in order (records stay pending). */
  private readonly held: Array<{ agent: Agent; d: Delivery }> = []

  /** Agents whose restored inbox recovery found while work was held: re-driven on release. */
  private readonly redriveLater = new Set<Agent>()

  /**
   * Bot-started work held by `botPause` (the pause switch, spending caps): everything a Bot or the
   * plugin sends; the person's own messages (from the team page) are never held.
   */
  private holds(d: Delivery): boolean {
    if (d.from === 'user') return false
    return this.ctx.get('botPause')?.holdsBotWork({ botId: d.to }) ?? false
  }

  /**
   * Hand over held messages while fewer Bot-started turns than the cap run (oldest first). A
   * message `botPause` still holds keeps its place; the ones behind it for other Bots may go.
   */
  private release(): void {
    for (let i = 0; i < this.held.length && this.alive; ) {
      const { agent, d } = this.held[i]!
      if (this.holds(d)) {
        i++
        continue
      }
      if (this.botTurnsRunning() >= this.limits().botTurnsAtOnce) break
      this.held.splice(i, 1)
      try {
        this.handOver(agent, d, true)
      } catch (error) {
        warn(this.ctx, `could not hand over held ${d.id}`, error, 'delivery')
      }
    }
    for (const agent of [...this.redriveLater]) {
      if (this.ctx.get('botPause')?.holdsBotWork({}) ?? false) break
      this.redriveLater.delete(agent)
      this.redrive(agent)
    }
  }

  /**
   * The DSH call for a recorded delivery. A message that would start a new turn of an idle Bot
   * while `botTurnsAtOnce` Bot-started turns already run (or others wait) waits, in order, until one
   * ends: the budget bounds how many turns a request causes, this bounds the cost spike. The record
   * stays pending meanwhile (a restart sends it). A throw marks the record failed.
   */
  private handOver(agent: Agent, d: Delivery, released = false): void {
    // Never hand a message to a Bot deleted since it was recorded (its records are discarded).
    if (own(this.store.state.bots, d.to)?.deleted) return
    const waiting = () => this.held.some((h) => !this.holds(h.d))
    if (!released && (this.holds(d) || (agent.status !== 'running' && (waiting() || this.botTurnsRunning() >= this.limits().botTurnsAtOnce)))) {
      this.held.push({ agent, d })
      return
    }
    const fromName = d.kind === 'report' ? (this.store.state.groups[d.from]?.name ?? d.from) : this.nameOf(d.from)
    const text = messageText(d.kind, fromName, d.body, { replyMode: d.replyMode, hop: d.hop, hopLimit: this.limits().hopLimit })
    const message = createUserMessage({
      content: [{ type: 'text', text }],
      source:
        d.kind === 'report'
          ? roomReportSource({ groupId: d.from, groupName: fromName }, chainOfDelivery(d), d.id)
          : deliverySource(d, fromName, chainOfDelivery(d)),
    })
    try {
      if (d.kind === 'interrupt') agent.steer(message)
      else agent.followup(message)
    } catch (error) {
      this.mark(d.id, 'failed', `DSH refused the message: ${errorText(error)}`)
      throw error
    }
  }

  /** A Bot's name (live or deleted), or "the user". */
  nameOf(botId: string): string {
    if (botId === 'user') return 'the user'
    return own(this.store.state.bots, botId)?.name ?? botId
  }

  /**
   * Stop the target's current turn (`stop_bot`). Queued Bot messages are discarded (recorded,
   * reported to their senders); the user's own queued prompts are re-queued with their ids after
   * the turn ends; the stop notice is the target's next turn. Never waits for the target inside the
   * caller's turn. Authority and the send cap are checked here.
   */
  async stop(who: Requester, to: string, reason: string): Promise<StopResult> {
    const sender = this.identify(who)
    const target = this.target(to)
    const verdict = this.roster.check(sender.caller, 'stop_bot', { botId: target.id })
    if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
    const why = String(reason ?? '').trim() || 'no reason given'
    if (charCount(why) > REASON_MAX)
      throw new TeamRefusal('invalid', `The reason is longer than ${REASON_MAX} characters; say it in a sentence. Nothing was stopped.`)
    const agent = await this.roster.agentOf(target.id)
    if (agent.status !== 'running') return { stopped: false, discarded: 0, keptUserPrompts: 0, targetName: target.name }
    const track = sender.sessionId ? this.turns.get(sender.sessionId) : undefined
    if (sender.from) {
      const next = checkSend(sender.chain.hop - 1, track?.sent ?? 0, { hopLimit: Number.POSITIVE_INFINITY, sendCap: this.limits().sendsPerTurn })
      if (!next.ok) throw new TeamRefusal('limit', `Not stopped: ${next.reason}`)
      if (track) track.sent++
    }
    const stopper = { id: sender.from?.id ?? 'user', name: sender.from?.name ?? 'the user' }
    const inbox = [...agent.inbox.nextStep, ...agent.inbox.nextTurn]
    const userPrompts = inbox.filter((m) => m.source.kind === 'user')
    const botMessages = inbox.filter((m) => relayOf(m.source)).length
    // The notice is recorded first (outbox), handed over once the aborted turn has closed. It opens
    // a turn of the target, so it draws on the stopping chain's budget and carries it (forced: a
    // stop always goes, and the turn it opens cannot start more once the budget is spent).
    let delivery: Delivery | undefined
    await this.store.update((s) => {
      drawOn(s, sender.chain, { limit: this.limits(s.limits).workBudget, open: { origin: stopper.id, at: nowIso() }, force: true })
      delivery = {
        id: allocateId(s, 'delivery'),
        from: stopper.id,
        to: target.id,
        kind: 'stop',
        body: why,
        hop: sender.chain.hop,
        replyTo: null,
        createdAt: nowIso(),
        status: 'pending',
        sessionId: String(agent.id),
        ...(sender.chain.budget ? { budget: sender.chain.budget } : {}),
        ...(sender.chain.mode ? { mode: sender.chain.mode } : {}),
        ...(sender.chain.network ? { network: sender.chain.network } : {}),
      }
      s.deliveries.push(delivery)
      s.deliveries = boundDeliveries(s.deliveries, this.limits(s.limits).keepFinished)
    })
    const targetSession = String(agent.id)
    this.stopping.set(targetSession, { byId: stopper.id, byName: stopper.name, reason: why })
    try {
      agent.cancel({ kind: 'hook', reason: `stopped by ${stopper.name}: ${why}` })
    } finally {
      this.stopping.delete(targetSession)
    }
    const notice = delivery!
    void agent
      .whenIdle()
      .then(() => {
        // Plain cancel dropped the user's prompts; re-queue them (same ids, same order) after the notice.
        this.handOver(agent, notice)
        for (const m of userPrompts) agent.followup(m)
      })
      .catch((error: unknown) => this.mark(notice.id, 'failed', `could not hand over the stop notice: ${errorText(error)}`))
    return { stopped: true, discarded: botMessages, keptUserPrompts: userPrompts.length, delivery: notice, targetName: target.name }
  }

  // ── discards, replies ───────────────────────────────────────────────────────────────────────

  private onDiscarded(sessionId: string, message: UserMessage): void {
    if (!this.alive) return
    if (this.quiet.has(String(message.id))) return
    const deliveryId = outboxIdOf(message.source)
    if (!deliveryId) return
    const relay = relayOf(message.source)
    const record = this.delivery(deliveryId)
    const stop = this.stopping.get(sessionId)
    const target = record ? this.store.state.bots[record.to] : undefined
    const targetName = record ? this.nameOf(record.to) : 'the target'
    let cause: string
    if (stop) {
      cause = `${stop.byName} stopped ${targetName} ("${stop.reason}")`
      this.mark(deliveryId, 'discarded', `discarded: ${stop.byName} stopped ${targetName} (${stop.reason})`)
    } else if (target?.deleted) {
      cause = `${targetName} was deleted`
      this.mark(deliveryId, 'discarded', `discarded: ${targetName} was deleted`)
    } else {
      // Neither a stop nor a deletion: DSH clears an agent's inbox when it disposes the agent
      // (shutdown, plugin unload), and logs the clear. The record stays pending: the next start
      // finds it nowhere and sends it again under its id. No report: nothing was lost.
      return
    }
    // Report to the sender (a stop notice or a room's report has nobody to report to).
    if (!record || !relay || relay.type === 'stop' || !this.ctx.botRoster.bot(record.from)) return
    const body = discardReport(targetName, record.id, record.body, cause)
    this.background(
      this.deliver({ from: stop?.byId ?? record.to, to: record.from, kind: 'reply', body, chain: chainOfDelivery(record), replyTo: record.id, force: true }),
      `could not report discarded ${record.id} to its sender`,
    )
  }

  private onTurnEnd(sessionId: string, turn: number, reason: unknown): void {
    if (!this.alive) return
    const track = this.turns.get(sessionId)
    if (!track || track.turn !== turn || track.wantReply.length === 0) return
    const wants = track.wantReply.splice(0)
    const agent = this.ctx.agents.get(SessionId(sessionId))
    const outcome = turnOutcome(reason, agent ? finalText(agent, turn) : '')
    const chain = this.roster.replyChain(sessionId)
    for (const id of wants) {
      const request = this.delivery(id)
      if (!request) continue
      if (!this.ctx.botRoster.bot(request.from)) {
        this.background(this.noReply([id]), 'could not record a reply that will not come')
        continue
      }
      const body = clip(replyBody(this.nameOf(request.to), id, outcome), MESSAGE_MAX)
      this.background(
        this.deliver({ from: request.to, to: request.from, kind: 'reply', body, chain, replyTo: id, force: true }),
        `could not route the reply to ${id}`,
      )
    }
  }

  // ── outbox bookkeeping ──────────────────────────────────────────────────────────────────────

  /** Queue a status change for a pending record; saved in one transaction with others. */
  private mark(id: string, status: Delivery['status'], outcome: string): void {
    if (!this.alive || !this.store.isWriter()) return
    const record = this.delivery(id)
    if (record && record.status !== 'pending') return
    if (!this.marks.has(id)) this.marks.set(id, { status, outcome })
    this.flushing ??= this.flushMarks().finally(() => {
      this.flushing = undefined
    })
  }

  private async flushMarks(): Promise<void> {
    while (this.marks.size > 0) {
      const batch = new Map(this.marks)
      this.marks.clear()
      try {
        await this.store.update((s) => {
          const at = nowIso()
          for (const d of s.deliveries) {
            const m = batch.get(d.id)
            // A finished record keeps only the start of its body: team state stays small.
            if (m && d.status === 'pending') Object.assign(d, { status: m.status, outcome: m.outcome, updatedAt: at, body: clip(d.body, FINISHED_BODY_MAX) })
          }
          s.deliveries = boundDeliveries(s.deliveries, this.limits(s.limits).keepFinished)
        })
      } catch (error) {
        warn(this.ctx, 'could not save delivery outcomes', error, 'delivery')
        return
      }
    }
  }

  /** Run a send the plugin itself started (a reply, a report) without making anyone wait for it. */
  private background(work: Promise<unknown>, what: string): void {
    const tracked: Promise<void> = work
      .then(
        () => undefined,
        (error: unknown) => warn(this.ctx, what, error, 'delivery'),
      )
      .finally(() => this.inflight.delete(tracked))
    this.inflight.add(tracked)
  }

  /**
   * Resolves when every send the plugin started itself (replies, discard reports), every log flush
   * and every queued status change is done (tests, shutdown).
   */
  async settled(): Promise<void> {
    this.release()
    while (this.flushing || this.logFlushes.size || this.inflight.size) {
      await Promise.all([...this.logFlushes, ...this.inflight])
      if (this.flushing) await this.flushing
    }
  }

  // ── start-up recovery ───────────────────────────────────────────────────────────────────────

  /**
   * For every pending record (writer only, after the roster's team is ready): in the target's log
   * → delivered; in its restored inbox → re-drive the restored queue (never send twice); nowhere →
   * send it now under the same id.
   */
  recover(): Promise<RecoveryCounts> {
    this.recovering ??= this.recoverOnce().finally(() => {
      this.recovering = undefined
    })
    return this.recovering
  }

  private recovering: Promise<RecoveryCounts> | undefined

  private async recoverOnce(): Promise<RecoveryCounts> {
    await this.ctx.botRoster.ensureTeam()
    const counts: RecoveryCounts = { delivered: 0, redriven: 0, sent: 0, discarded: 0, replied: 0 }
    const pending = this.store.state.deliveries.filter((d) => d.status === 'pending')
    const byTarget = new Map<string, Delivery[]>()
    const owed: Parameters<BotDelivery['deliver']>[0][] = []
    for (const d of pending) byTarget.set(d.to, [...(byTarget.get(d.to) ?? []), d])
    // Messages owed a reply: delivered before the crash, or found delivered just now.
    for (const d of this.store.state.deliveries) if (awaitsReply(d) && !byTarget.has(d.to)) byTarget.set(d.to, [])
    for (const [to, records] of byTarget) {
      const bot = this.ctx.botRoster.bot(to)
      let agent: Agent | undefined
      if (bot) {
        try {
          agent = await this.ctx.botRoster.agentOf(to)
        } catch (error) {
          warn(this.ctx, `could not open Bot ${bot.name}'s chat to recover its messages`, error, 'delivery')
          continue
        }
      }
      const logged = new Set<string>()
      const queued = new Set<string>()
      if (agent) {
        for (const e of agent.session.events) {
          if (e.type === 'user/message') {
            const id = outboxIdOf((e.data as UserMessage).source)
            if (id) logged.add(id)
          }
        }
        for (const m of [...agent.inbox.nextStep, ...agent.inbox.nextTurn]) {
          const id = outboxIdOf(m.source)
          if (id) queued.add(id)
        }
      }
      let redrive = false
      const toSend: Delivery[] = []
      for (const d of records) {
        const action = recoveryAction({ inLog: logged.has(d.id), inRestoredInbox: queued.has(d.id), targetGone: !agent })
        if (action === 'mark-delivered') {
          this.mark(d.id, 'delivered', "found in the target's log at start-up")
          counts.delivered++
        } else if (action === 'discard') {
          this.mark(d.id, 'discarded', 'the target Bot is gone')
          counts.discarded++
        } else if (action === 'redrive') {
          redrive = true
          counts.redriven++
        } else toSend.push(d)
      }
      if (agent && redrive) {
        // DSH's restored queue holds Bot-started work: while it is held, wake it only on release.
        if (this.ctx.get('botPause')?.holdsBotWork({ botId: to })) this.redriveLater.add(agent)
        else this.redrive(agent)
      }
      for (const d of toSend) {
        if (!agent) break
        try {
          this.handOver(agent, d)
          counts.sent++
        } catch (error) {
          warn(this.ctx, `could not re-send ${d.id}`, error, 'delivery')
        }
      }
      if (agent) owed.push(...this.repliesOwed(agent, to, logged, queued))
    }
    // Sent after every target's records are handled: a reply opens its sender's chat, which this
    // loop may be opening at the same moment.
    for (const reply of owed) {
      try {
        await this.deliver(reply)
        counts.replied++
      } catch (error) {
        warn(this.ctx, `could not send the reply to ${reply.replyTo} after a restart`, error, 'delivery')
      }
    }
    await this.settled()
    this.recovered = counts
    return counts
  }

  /**
   * Replies a crash cut (the target's turn ended, or was cut, before its reply was recorded): for
   * each message to this target that wants its answer back, is in the target's log and not in its
   * inbox, and has no reply recorded, the reply is built from the log — the final answer of the
   * turn that handled it, or "cut off" when that turn never ended. Returns the replies to send
   * (once each: `deliver` finds a reply already recorded).
   */
  private repliesOwed(agent: Agent, to: string, logged: ReadonlySet<string>, queued: ReadonlySet<string>): Parameters<BotDelivery['deliver']>[0][] {
    const events = agent.session.events
    const out: Parameters<BotDelivery['deliver']>[0][] = []
    for (const d of this.store.state.deliveries) {
      if (d.to !== to || d.kind !== 'message' || d.replyMode !== 'sender' || d.reply !== undefined || d.status === 'discarded' || d.status === 'failed')
        continue
      if (!logged.has(d.id) || queued.has(d.id)) continue
      const at = events.findIndex((e) => e.type === 'user/message' && outboxIdOf((e.data as UserMessage).source) === d.id)
      const end = at < 0 ? undefined : events.slice(at).find((e) => e.type === 'turn/end')
      if (!end && agent.status === 'running') continue
      const data = end?.data as { turn: number; reason: unknown } | undefined
      const outcome = data ? turnOutcome(data.reason, finalText(agent, data.turn)) : ({ kind: 'aborted', why: 'DSH stopped before the turn finished' } as const)
      if (!this.ctx.botRoster.bot(d.from)) {
        this.background(this.noReply([d.id]), 'could not record a reply that will not come')
        continue
      }
      const target = this.ctx.botRoster.bot(to)
      const mode = lowerMode(d.mode, target ? asMode(target.permissionPreset) : undefined)
      const chain: Chain = { hop: d.hop + 1, ...(d.budget ? { budget: d.budget } : {}), ...(mode ? { mode } : {}) }
      const body = clip(replyBody(this.nameOf(to), d.id, outcome), MESSAGE_MAX)
      out.push({ from: to, to: d.from, kind: 'reply', body, chain, replyTo: d.id, force: true })
    }
    return out
  }

  /**
   * DSH rebuilds a resumed agent's inbox but does not run it: take the queue out and put it back
   * (same message ids, same order), which wakes the agent.
   */
  redrive(agent: Agent): void {
    redriveInbox(agent, this.quiet)
  }
}

/** The chain facts a delivery record carries into its message source. */
function chainOfDelivery(d: Delivery): Chain {
  return { hop: d.hop, ...(d.budget ? { budget: d.budget } : {}), ...(d.mode ? { mode: d.mode } : {}), ...(d.network ? { network: d.network } : {}) }
}

/** The delivery a message source names, if it is one of ours. */
function relayOf(source: unknown): DeliverySource | undefined {
  return readSourceOf(source, 'message', 'interrupt', 'stop', 'reply')
}

/** The last assistant text of one turn of an agent's Session. */
function finalText(agent: Agent, turn: number): string {
  const events = agent.session.events
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'turn/start' && (e.data as { turn: number }).turn === turn) break
    if (e.type !== 'assistant/message') continue
    const data = e.data as { turn: number; message: { content: readonly { type: string; text?: string }[] } }
    if (data.turn !== turn) continue
    const text = data.message.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('')
      .trim()
    if (text) return text
  }
  return ''
}
