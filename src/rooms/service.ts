/**
 * `botRooms`: groups, the visible room Session and the hidden member Sessions of each, the room
 * section and member tools, posting, reading and searching a room, recovery of cut rounds. Composed
 * of `stream.ts`, `rounds.ts`, `transcript.ts`, `post-log.ts`, `policy.ts`, `group-fields.ts`.
 * Deliberately decides no authority and attaches no identity (the roster does; src/rooms/README.md).
 */
import type { Requester } from '../core/caller.ts'
import { randomUUID } from 'node:crypto'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import type { Caller, Decision, Target } from '../core/authority.ts'
import { AgentRegistrations } from '../dsh/agent-registrations.ts'
import { byRef } from '../core/names.ts'
import { TeamRefusal } from '../core/refusal.ts'
import type { BotRoster } from '../roster/service.ts'
import {
  readRoomAnswerParts,
  readSourceOf,
  roomNoticeSource,
  roomOpenSource,
  roomPostSource,
  roomReportSource,
  type Chain,
  type RoomNote,
} from '../core/sources.ts'
import { canStart, drawOn } from '../core/chain.ts'
import { redriveInbox } from '../dsh/session-opener.ts'
import { allocateId, type BotStore, type Group, type TeamState } from '../store/index.ts'
import { resolveCreate, resolveUpdate } from './group-fields.ts'
import { postLine, roomRulesText } from './policy.ts'
import type { RoomLimits } from '../core/limits.ts'
import { PostLog } from './post-log.ts'
import { roundProgress, type RoundProgress } from './progress.ts'
import { Rounds, type RoundRecord } from './rounds.ts'
import { answerRoomStreams, readRoomRequest, messageText, type RoomInput, type RoomPiece } from './stream.ts'
import { groupTools, memberTools } from './tools.ts'
import { Transcript, type LegacySeed, type LoggedPost } from './transcript.ts'
import { afterBoot } from '../dsh/boot.ts'
import { warn } from '../dsh/warn.ts'

export type { RoundRecord } from './rounds.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botRooms: BotRooms
  }
  interface Events {
    /** A room's round moved (a member's turn started or ended, the round ended); read-only. */
    'bot-team/room-progress'(progress: RoundProgress): void
  }
}

/** A refusal the caller can read (tools answer "Refused: …"). */
export class RoomRefusal extends TeamRefusal {}

export const ROOM_SECTION = 'botteam:room'

export type GroupAction = 'create_group' | 'update_group' | 'delete_group' | 'post_to_group' | 'read_group_chat'

/** What `recover()` did. */
export interface RoomRecovery {
  /** Room Sessions whose restored inbox was re-driven. */
  redriven: number
  /** Room Sessions with an unanswered post (a round cut by a crash) that were woken to answer it. */
  resumed: number
  /** Stale member turns dropped from restored member inboxes (their round is re-run instead). */
  dropped: number
}

/** `read_group_chat`'s answer is at most this long. */
const READ_CHAT_MAX = 60_000

interface LooseEvent {
  type: string
  data: unknown
}

export class BotRooms extends Service {
  static inject = ['botStore', 'botRoster', 'botLimits', 'botPause', 'agents', 'sessions', 'tools', 'systemPrompt']

  private readonly transcripts: Transcript
  private readonly roundRunner: Rounds
  private readonly creating = new Map<string, Promise<Agent>>()
  /** What this service put on other agents' scopes; removed if this service unloads first. */
  private readonly onAgents: AgentRegistrations
  private streams: { answered: number } | undefined
  private alive = true
  /** Resolves when start-up recovery has run (at once in a process that does not write). */
  readonly ready: Promise<void>
  private resolveReady!: () => void
  /** What the last recovery did (tests, the team page). */
  recovered: RoomRecovery | undefined

  /** The round limits in force now (`botLimits`, asked at each check: a change needs no restart). */
  get limits(): RoomLimits {
    return this.ctx.botLimits.inForce()
  }

  constructor(ctx: Context) {
    super(ctx, 'botRooms')
    const limitsNow = () => this.limits
    this.onAgents = new AgentRegistrations(ctx, 'bot-rooms:agent-registrations')
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve
    })
    const dir = ctx.botStore?.status().dir
    this.transcripts = new Transcript(
      dir ? new PostLog(dir) : undefined,
      () => this.store.isWriter(),
      (what, error) => warn(this.ctx, what, error, 'rooms'),
    )
    this.roundRunner = new Rounds({
      get limits() {
        return limitsNow()
      },
      transcript: this.transcripts,
      state: () => this.state,
      bot: (id) => this.roster.bot(id),
      memberAgent: (groupId, botId) => this.memberAgent(groupId, botId),
      flush: async (agent) => {
        await this.ctx.sessions
          .flush(agent.session)
          .catch((error: unknown) => warn(this.ctx, `could not write member Session ${String(agent.id)} to disk`, error, 'rooms'))
      },
      sendReport: (report) => this.sendReport(report),
      announce: (groupId, text) => this.announce(groupId, text),
      saveCursors: (groupId) => this.saveCursors(groupId),
      draw: (groupId, chain, opts) => this.draw(groupId, chain, opts),
      progress: (record, speaking) => {
        try {
          this.ctx.emit(
            'bot-team/room-progress',
            roundProgress(record, (id) => this.roster.bot(id)?.name ?? id, speaking),
          )
        } catch (error) {
          warn(this.ctx, 'room progress listener failed', error, 'rooms')
        }
      },
      userSpoke: (groupId) => this.resetBotRounds(groupId),
      heldBecause: (groupId) => this.ctx.get('botPause')?.heldBecause({ groupId }),
      whenReleased: (groupId, signal) => this.ctx.get('botPause')?.whenReleased({ groupId }, signal) ?? Promise.resolve(),
      alive: () => this.alive,
      warn: (what, error) => warn(this.ctx, what, error, 'rooms'),
      holdsBotWork: (botId) => this.ctx.get('botPause')?.heldBecause({ botId }),
    })
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  /** The roster this service asks (the tools go through the narrow methods below). */
  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  // ── for the tools (thin adapters: they reach the roster only through these) ─────────────────

  /** A Bot's name, or its id when it is not on the team (for the tools' answers). */
  nameOf(botId: string): string {
    return this.roster.bot(botId)?.name ?? botId
  }

  /** The chain a post made from this Session's current turn carries (one hop deeper, its budget and mode). */
  chainFrom(sessionId: string): Chain {
    return this.roster.chainFrom(sessionId)
  }

  /** Model requests the room Sessions answered themselves (never sent to a provider). */
  get answered(): number {
    return this.streams?.answered ?? 0
  }

  async [Service.init](): Promise<void> {
    this.ctx.effect(
      () => () => {
        this.alive = false
      },
      'bot-rooms:alive',
    )
    this.streams = answerRoomStreams(this.ctx, {
      roomOf: (sessionId) => this.roster.roomOf(sessionId),
      title: (groupId) => this.state.groups[groupId]?.name ?? 'Group',
      closed: (groupId) => {
        const group = this.state.groups[groupId]
        return !group || group.deleted ? '_This group was deleted._' : undefined
      },
      answer: (groupId, inputs, signal) => this.answer(groupId, inputs, signal),
    })
    this.roster.offerTools(this.ctx, { kinds: ['own'], tools: ({ offer }) => groupTools(this, offer) })
    this.roster.offerTools(this.ctx, { kinds: ['member'], tools: ({ owner }) => (owner.kind === 'member' ? memberTools(this, owner.groupId) : []) })
    this.ctx.on('bot-team/member-attached', ({ bot, groupId, agent }) => this.attachMember(agent, bot.id, groupId))
    this.ctx.on('bot-team/bot-deleted', ({ botId }) => this.transcripts.forgetBot(botId))
    // A member Session attached before this service started gets its room section now.
    for (const { agent, owner } of this.roster.openSessions({ kinds: ['member'] })) {
      if (owner.kind === 'member') this.attachMember(agent, owner.botId, owner.groupId)
    }
    // A process that takes over as the writer re-drives the room work the previous writer left.
    this.ctx.on('bot-team/writer', ({ from }) => {
      if (from !== null) void this.recover().catch((error: unknown) => warn(this.ctx, 'room recovery after taking over failed', error, 'rooms'))
    })
    if (!this.store.isWriter()) {
      this.resolveReady()
      return
    }
    const run = () =>
      this.recover()
        .then(
          () => {},
          (error: unknown) => warn(this.ctx, 'room recovery failed', error, 'rooms'),
        )
        .finally(() => this.resolveReady())
    afterBoot(this.ctx, run)
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────────

  private get state(): Readonly<TeamState> {
    return this.store.state
  }

  groups(): Group[] {
    return Object.values(this.state.groups).filter((g) => !g.deleted)
  }

  /** A live group by id, or by name (`nameKey`: case, width and composition do not matter). */
  group(ref: string): Group | undefined {
    return byRef(this.groups(), ref)
  }

  roundRunning(groupId: string): boolean {
    return this.roundRunner.isRunning(groupId)
  }

  rounds(groupId?: string): readonly RoundRecord[] {
    return this.roundRunner.records(groupId)
  }

  /**
   * The rounds one of the room's assistant messages ran (by DSH message id), read from what DSH
   * keeps with that message (`readRoomAnswerParts`); undefined when the room has no such message.
   */
  answerRounds(groupId: string, messageId: string): string[] | undefined {
    return this.answerParts(groupId, messageId)?.rounds
  }

  /** The rounds and the room's own lines (`RoomNote`) of one room assistant message; as `answerRounds`. */
  answerParts(groupId: string, messageId: string): { rounds: string[]; notes: RoomNote[] } | undefined {
    const group = this.state.groups[groupId]
    const agent = group?.roomSessionId ? this.ctx.agents.get(SessionId(group.roomSessionId)) : undefined
    if (!agent) return undefined
    const m = messagesOf(agent.session.events as readonly LooseEvent[]).findLast((x) => x.role === 'assistant' && x.id === messageId)
    return m ? (readRoomAnswerParts(m.source) ?? { rounds: [], notes: [] }) : undefined
  }

  /** Each member turn of a round so far (from the post log): who, and how it ended. */
  async roundTurns(groupId: string, round: string): Promise<readonly { botId: string; outcome: string; post?: number }[]> {
    this.loadTranscript(groupId)
    return (this.transcripts.round(groupId, round)?.turns ?? []).map((t) => ({
      botId: t.botId,
      outcome: t.outcome,
      ...(t.post !== undefined ? { post: t.post } : {}),
    }))
  }

  /** The room's posts known to this process (loaded from the post log when needed). */
  async transcript(groupId: string): Promise<readonly LoggedPost[]> {
    this.loadTranscript(groupId)
    return this.transcripts.posts(groupId)
  }

  /**
   * Load a group's transcript once: from its post log, or — a room written before the post log
   * existed — seeded from the room Session's history.
   */
  private loadTranscript(groupId: string): void {
    if (this.transcripts.loaded(groupId)) return
    const group = this.state.groups[groupId]
    this.transcripts.load(groupId, group?.members ?? [], group?.seen, () => {
      const agent = group?.roomSessionId ? this.ctx.agents.get(SessionId(group.roomSessionId)) : undefined
      if (!agent) return undefined
      return { items: legacyItems(agent.session.events as readonly LooseEvent[]), nameToId: (name) => this.roster.find(name)?.id }
    })
  }

  private targetFacts(caller: Caller, group: Group) {
    const botId = caller.botId
    return {
      groupId: group.id,
      callerIsGroupAdmin: botId !== undefined && group.admin === botId,
      callerIsGroupMember: botId !== undefined && group.members.includes(botId),
      roundRunning: this.roundRunner.isRunning(group.id),
    }
  }

  /** The authority decision for a group action, with this group's facts filled in. */
  decision(caller: Caller, action: GroupAction, group?: Group): Decision {
    return this.roster.check(caller, action, group ? this.targetFacts(caller, group) : {})
  }

  private require(caller: Caller, action: GroupAction, group?: Group): void {
    const verdict = this.decision(caller, action, group)
    if (!verdict.allowed) throw new RoomRefusal('forbidden', verdict.reason)
  }

  /** The authority check inside a save, with the facts read off the draft. */
  private requireIn(caller: Caller, action: GroupAction, target: Target): void {
    const verdict = this.roster.check(caller, action, target)
    if (!verdict.allowed) throw new RoomRefusal('forbidden', verdict.reason)
  }

  private find(ref: string): Group {
    const group = this.group(ref)
    if (!group)
      throw new RoomRefusal(
        'not-found',
        `No group named or with id "${ref}".${
          this.groups().length
            ? ` Groups: ${this.groups()
                .map((g) => g.name)
                .join(', ')}.`
            : ''
        }`,
      )
    return group
  }

  private async writable(): Promise<void> {
    await this.store.claim()
    if (!this.store.isWriter()) {
      throw new RoomRefusal('unavailable', `Groups cannot be changed from this process: ${this.store.status().message}`)
    }
  }

  // ── changing groups ─────────────────────────────────────────────────────────────────────────

  /**
   * Create a group. Its fields are validated first; who may create it (a named admin is a raise:
   * the person's turn for a Bot, a paired browser over HTTP) is decided inside the save.
   */
  async createGroup(req: Requester, raw: unknown): Promise<Group> {
    this.require(this.roster.caller(req), 'create_group')
    const fields = resolveCreate(this.state, raw)
    if (!fields.ok) throw new RoomRefusal('invalid', `The group was not created: ${fields.reason}.`)
    const userAsked = this.roster.personOpened(req)
    await this.writable()
    let id = ''
    await this.store.update((s) => {
      const again = resolveCreate(s, raw)
      if (!again.ok) throw new RoomRefusal('invalid', `The group was not created: ${again.reason}.`)
      this.requireIn(this.roster.caller(req, s), 'create_group', { userAsked, makesAdmin: again.value.admin !== undefined })
      const live = Object.values(s.groups).filter((g) => !g.deleted).length
      const { maxGroups } = this.ctx.botLimits.inForce(s.limits)
      if (live >= maxGroups)
        throw new RoomRefusal('limit', `The group was not created: the team already has ${live} groups (limit ${maxGroups}). Delete a group first.`)
      if (req.kind === 'bot') this.roster.noteCreation(req.sessionId, 'groups')
      id = allocateId(s, 'group')
      s.groups[id] = { id, ...again.value, memberSessions: {}, seen: {}, createdAt: new Date().toISOString() }
    })
    await this.openRoom(id)
    return this.state.groups[id]!
  }

  /**
   * Change a group. Its fields are validated first, and again inside the save, where who may
   * change it — naming an admin other than the group's own now is a raise — is decided against the
   * group as it is being written (a held request cannot undo the person's change).
   */
  async updateGroup(req: Requester, ref: string, raw: unknown): Promise<Group> {
    const group = this.find(ref)
    this.require(this.roster.caller(req), 'update_group', group)
    const adminOnly = (caller: Caller, g: Group) => (caller.kind === 'bot' && caller.botId === g.admin ? caller.botId : undefined)
    const first = resolveUpdate(this.state, group, raw, adminOnly(this.roster.caller(req), group))
    if (!first.ok) throw new RoomRefusal('invalid', `Group ${group.name} was not changed: ${first.reason}.`)
    const userAsked = this.roster.personOpened(req)
    await this.writable()
    let removed: string[] = []
    await this.store.update((s) => {
      const g = s.groups[group.id]
      if (!g || g.deleted) throw new RoomRefusal('not-found', `Group ${group.name} was deleted meanwhile; nothing was changed.`)
      const caller = this.roster.caller(req, s)
      const fields = resolveUpdate(s, g, raw, adminOnly(caller, g))
      if (!fields.ok) throw new RoomRefusal('invalid', `Group ${group.name} was not changed: ${fields.reason}.`)
      this.requireIn(caller, 'update_group', {
        ...this.targetFacts(caller, g),
        userAsked,
        makesAdmin: fields.value.admin !== undefined && fields.value.admin !== g.admin,
      })
      removed = g.members.filter((id) => !fields.value.members.includes(id))
      g.name = fields.value.name
      g.members = fields.value.members
      g.mode = fields.value.mode
      g.notice = fields.value.notice
      if (fields.value.admin) g.admin = fields.value.admin
      else delete g.admin
      for (const botId of Object.keys(g.seen ?? {})) if (!g.members.includes(botId)) delete g.seen![botId]
    })
    for (const botId of removed) await this.stopMember(group.id, botId, `removed from group ${group.name}`)
    return this.state.groups[group.id]!
  }

  async deleteGroup(req: Requester, ref: string, reason: string): Promise<Group> {
    const caller = this.roster.caller(req)
    const group = this.find(ref)
    this.require(caller, 'delete_group', group)
    await this.writable()
    await this.store.update((s) => {
      s.groups[group.id]!.deleted = { at: new Date().toISOString(), by: caller.botId ?? 'user' }
    })
    for (const botId of Object.keys(group.memberSessions)) await this.stopMember(group.id, botId, `group ${group.name} was deleted: ${reason}`)
    if (group.roomSessionId) await this.stopSession(group.roomSessionId, `group ${group.name} was deleted: ${reason}`)
    this.transcripts.forgetGroup(group.id)
    return this.state.groups[group.id]!
  }

  /** End a member's activity in one group: cancel its turn, drop its queue, archive the Session. */
  private async stopMember(groupId: string, botId: string, reason: string): Promise<void> {
    const sid = this.state.groups[groupId]?.memberSessions[botId]
    if (sid) await this.stopSession(sid, reason)
    this.transcripts.forgetMember(groupId, botId)
  }

  private async stopSession(sessionId: string, reason: string): Promise<void> {
    await this.roster.sessions.close(sessionId, reason)
  }

  /**
   * Draw one member turn (or report) of a round from the chain's work budget, in team state. A
   * round the user started opens its own budget (keyed by the post); a Bot's post carries its
   * turn's. False when the budget is spent (the turn is skipped with a notice).
   */
  private async draw(groupId: string, chain: Chain, opts: { force?: boolean } = {}): Promise<boolean> {
    if (!chain.budget || !this.store.isWriter()) return true
    let ok = true
    await this.store.update((s) => {
      ok = drawOn(s, chain, { limit: this.ctx.botLimits.inForce(s.limits).workBudget, open: { origin: groupId, at: new Date().toISOString() }, ...opts }).ok
    })
    return ok
  }

  /**
   * A round's replies back to the posting Bot: through the delivery outbox when it runs (recorded
   * before it is handed over, once per post, recovered after a crash); without it, a plain
   * follow-up drawn from the budget first.
   */
  private async sendReport(r: { groupId: string; groupName: string; to: string; postId: string; body: string; chain: Chain }): Promise<void> {
    const delivery = this.ctx.get('botDelivery')
    if (delivery) {
      await delivery.report({ groupId: r.groupId, to: r.to, postId: r.postId, body: r.body, chain: r.chain })
      return
    }
    await this.draw(r.groupId, r.chain, { force: true })
    const agent = await this.roster.agentOf(r.to)
    agent.followup(
      createUserMessage({
        content: [{ type: 'text', text: `[Group "${r.groupName}" — replies to your post]\n${r.body}` }],
        source: roomReportSource({ groupId: r.groupId, groupName: r.groupName }, r.chain),
      }),
    )
  }

  /** The user wrote in the room: Bots may start rounds there again. */
  private async resetBotRounds(groupId: string): Promise<void> {
    if (!this.state.groups[groupId]?.botRounds || !this.store.isWriter()) return
    try {
      await this.store.update((s) => {
        const g = s.groups[groupId]
        if (g) delete g.botRounds
      })
    } catch (error) {
      warn(this.ctx, 'could not reset the count of Bot-started rounds', error, 'rooms')
    }
  }

  // ── posting ─────────────────────────────────────────────────────────────────────────────────

  /**
   * A Bot's (or the user's, from the API) post: entered into the room Session as a plugin message,
   * so the room's own turn runs the round. Returns at once; `report` sends the round's posts to
   * the poster's own chat when it ends.
   */
  async post(req: Requester, ref: string, text: string, opts: { report?: boolean; chain?: Chain } = {}): Promise<string> {
    const caller = this.roster.caller(req)
    const group = this.find(ref)
    this.require(caller, 'post_to_group', group)
    // Saved secret values never enter the room's log (botSecrets; absent: no secrets to mask).
    const body = (this.ctx.get('botSecrets')?.mask(text) ?? text).trim()
    if (!body) throw new RoomRefusal('invalid', 'The post is empty.')
    if (body.length > 8000) throw new RoomRefusal('invalid', 'The post is longer than 8,000 characters; shorten it.')
    const room = await this.roomAgent(group.id)
    if (caller.kind !== 'user') {
      // Counted in team state (inside the save), so a restart or a second request cannot reset it.
      await this.writable()
      await this.store.update((s) => {
        const g = s.groups[group.id]
        if (!g || g.deleted) throw new RoomRefusal('not-found', `Group ${group.name} was deleted meanwhile.`)
        const budget = opts.chain ? canStart(s, opts.chain) : undefined
        if (budget && !budget.ok) throw new RoomRefusal('limit', `Not posted: ${budget.reason}`)
        const started = g.botRounds ?? 0
        if (started >= this.limits.botRoundsPerUserMessage) {
          throw new RoomRefusal(
            'limit',
            `Bots have started ${started} rounds in group ${group.name} since the user last wrote there (limit ${this.limits.botRoundsPerUserMessage}). Wait until the user writes in the group, or tell the user in your own chat.`,
          )
        }
        g.botRounds = started + 1
      })
    }
    const postId = `post-${randomUUID()}`
    const bot = caller.botId ? this.roster.bot(caller.botId) : undefined
    const name = bot?.name ?? 'User'
    // The report wish travels in the message itself, so it survives a restart before the round.
    // The chain travels too: the poster's turn's hop, budget and mode (a user's post: hop 0, no budget, no mode).
    const source = roomPostSource({ groupId: group.id, groupName: group.name, postId, said: body, from: bot, report: opts.report }, opts.chain ?? { hop: 0 })
    room.followup(createUserMessage({ content: [{ type: 'text', text: `${name}: ${body}` }], source }))
    return postId
  }

  /**
   * The announcement hook: a line shown in the room (e.g. "Ada read its own chat"), no round.
   * The archive service calls this when a member reads its own chat on purpose.
   */
  async announce(groupId: string, text: string): Promise<void> {
    const group = this.state.groups[groupId]
    if (!group || group.deleted) return
    const room = await this.roomAgent(groupId)
    room.followup(createUserMessage({ content: [{ type: 'text', text }], source: roomNoticeSource({ groupId, groupName: group.name }, text) }))
  }

  /**
   * A group's newest posts, or — with `query` — a search of the room's whole history in the
   * archive (members and Main Bots only, as for reading: decided here before the archive is asked).
   */
  async readChat(req: Requester, ref: string, last = 30, query?: string): Promise<string> {
    const caller = this.roster.caller(req)
    const group = this.find(ref)
    this.require(caller, 'read_group_chat', group)
    if (query !== undefined && String(query).trim()) {
      const archive = this.ctx.get('botArchive')
      if (!archive)
        throw new RoomRefusal(
          'unavailable',
          "Searching a room's history needs the archive, which is not running here; read the newest posts instead (omit query).",
        )
      return archive.searchRoom(group, String(query))
    }
    const posts = await this.transcript(group.id)
    if (posts.length === 0) return `Group ${group.name} has no posts yet.`
    const shown = posts.slice(-Math.max(1, Math.min(200, last)))
    const cut = (t: string) => (t.length > this.limits.windowPostChars ? `${t.slice(0, this.limits.windowPostChars)} … (cut)` : t)
    const out = [`Group ${group.name}, ${shown.length} of ${posts.length} post(s):`, ...shown.map((p) => postLine(p.name, cut(p.text)))].join('\n')
    return out.length > READ_CHAT_MAX ? `${out.slice(0, READ_CHAT_MAX)}\n… (cut: ask for fewer posts)` : out
  }

  // ── Sessions ────────────────────────────────────────────────────────────────────────────────

  /** Create the group's visible room Session: titled with the group name, non-blank (one zero-call turn). */
  private async openRoom(groupId: string): Promise<void> {
    const sessionId = `session-${randomUUID()}`
    const done = this.roster.opens(sessionId, { kind: 'room', groupId })
    const name = this.state.groups[groupId]!.name
    let agent: Agent
    try {
      agent = await this.roster.sessions.create(sessionId, { title: name })
      await this.store.update((s) => {
        s.groups[groupId]!.roomSessionId = sessionId
      })
    } finally {
      done()
    }
    // One turn the room answers itself, so DSH Web lists the room (it hides Sessions without a turn).
    agent.followup(createUserMessage({ content: [{ type: 'text', text: `Group ${name} opened.` }], source: roomOpenSource({ groupId, groupName: name }) }))
    await agent.whenIdle()
  }

  private async resumeSession(sessionId: string, model: string | undefined): Promise<Agent> {
    if (!this.ctx.agents.get(SessionId(sessionId))) {
      await this.store.claim()
      if (!this.store.isWriter()) throw new RoomRefusal('unavailable', `group Sessions are not opened here: ${this.store.status().message}`)
    }
    return this.roster.sessions.resume(sessionId, model)
  }

  /** The room Session's live agent (opened or resumed on demand). */
  async roomAgent(groupId: string): Promise<Agent> {
    const group = this.state.groups[groupId]
    if (!group || group.deleted) throw new RoomRefusal('not-found', `Group ${groupId} does not exist.`)
    if (!group.roomSessionId) await this.openRoom(groupId)
    return this.resumeSession(this.state.groups[groupId]!.roomSessionId!, undefined)
  }

  /**
   * A member's hidden Session for the group: created on first use (then archived), else resumed.
   * A context move of this member (`botContext.memberSettled`: its end-of-turn check and any
   * handoff to a fresh Session) finishes first, so a turn never enters a Session being left.
   */
  async memberAgent(groupId: string, botId: string): Promise<Agent> {
    await this.ctx.get('botContext')?.memberSettled(groupId, botId)
    const key = `${groupId}:${botId}`
    const pending = this.creating.get(key)
    if (pending) return pending
    const run = (async () => {
      const bot = this.roster.bot(botId)
      if (!bot) throw new RoomRefusal('not-found', `Bot ${botId} is not on the team.`)
      const existing = this.state.groups[groupId]?.memberSessions[botId]
      if (existing) return this.resumeSession(existing, bot.model)
      return this.createMember(groupId, bot, (g, sessionId) => {
        g.memberSessions[botId] = sessionId
      })
    })()
    this.creating.set(key, run)
    try {
      return await run
    } finally {
      this.creating.delete(key)
    }
  }

  /**
   * Move a member to a fresh Session in the group (the context steward's handoff, between its
   * turns): the Session is created like the first one (the roster attaches identity, model,
   * preset), then ONE save makes it the member's Session and records the parts (`memberParts`:
   * the old part ended with `endReason`, the new one with its package file `note`, `opening:
   * 'pending'`); then the old Session is closed (disposed and archived; its log stays). A crash
   * before the save leaves the old part current (the new Session unowned); after it, the
   * steward sends the pending package again at start.
   */
  async renewMember(
    groupId: string,
    botId: string,
    opts: { from: string; endReason: string; note: string },
  ): Promise<{ agent: Agent; sessionId: string; part: number }> {
    const bot = this.roster.bot(botId)
    const group = this.state.groups[groupId]
    if (!bot || !group || group.deleted || !group.members.includes(botId))
      throw new RoomRefusal('not-found', `Bot ${botId} is no longer a member of group ${groupId}.`)
    if (group.memberSessions[botId] !== opts.from) throw new RoomRefusal('unavailable', `The member's Session moved meanwhile.`)
    const key = `${groupId}:${botId}`
    let part = 0
    let sessionId = ''
    const run = this.createMember(groupId, bot, (g, sid) => {
      if (g.memberSessions[botId] !== opts.from) throw new RoomRefusal('unavailable', `The member's Session moved meanwhile.`)
      const now = new Date().toISOString()
      g.memberParts ??= {}
      g.memberParts[botId] ??= []
      const list = g.memberParts[botId]
      let last = list.at(-1)
      if (last?.sessionId !== opts.from) {
        last = { sessionId: opts.from, part: (last?.part ?? 0) + 1, startedAt: g.createdAt }
        list.push(last)
      }
      last.endedAt = now
      last.endReason = opts.endReason
      part = last.part + 1
      sessionId = sid
      list.push({ sessionId: sid, part, startedAt: now, note: opts.note, opening: 'pending' })
      g.memberSessions[botId] = sid
    })
    this.creating.set(key, run)
    try {
      const agent = await run
      await this.stopSession(opts.from, `${bot.name} moved to a new Session in this group: ${opts.endReason}`)
      return { agent, sessionId, part }
    } finally {
      this.creating.delete(key)
    }
  }

  /** Create a member Session and record it with `record` (inside one save), then archive it. */
  private async createMember(
    groupId: string,
    bot: { id: string; name: string; model?: string | undefined; workFolder?: string | undefined; workFolderReal?: string | undefined },
    record: (g: Group, sessionId: string) => void,
  ): Promise<Agent> {
    const sessionId = `session-${randomUUID()}`
    const done = this.roster.opens(sessionId, { kind: 'member', botId: bot.id, groupId })
    let agent: Agent
    try {
      agent = await this.roster.sessions.create(sessionId, {
        title: `${bot.name} in ${this.state.groups[groupId]!.name}`,
        model: bot.model,
        cwd: this.roster.folderOf(bot),
      })
      await this.store.update((s) => {
        record(s.groups[groupId]!, sessionId)
      })
    } finally {
      done()
    }
    await this.roster.sessions.archive(sessionId) // kept out of DSH Web's session list
    return agent
  }

  // ── attaching to agents ─────────────────────────────────────────────────────────────────────

  /** A member Session's room section: the group's name, and the admin's standing frozen with the part. */
  private attachMember(agent: Agent, _botId: string, groupId: string): void {
    const sessionId = String(agent.id)
    this.onAgents.add(
      agent,
      agent.ctx.systemPrompt.section({
        name: ROOM_SECTION,
        order: 20,
        text: () => roomRulesText(this.state.groups[groupId]!.name, this.roster.roleOf(sessionId)?.groups === 'admin'),
      }),
    )
  }

  // ── the room's own turn ─────────────────────────────────────────────────────────────────────

  /** The room's text for what entered it (the stream adapter frames it). */
  private async *answer(groupId: string, inputs: readonly RoomInput[], signal: AbortSignal | undefined): AsyncGenerator<RoomPiece> {
    this.loadTranscript(groupId)
    for (const input of inputs) {
      if (signal?.aborted) break
      yield* this.roundRunner.handle(groupId, input, signal)
    }
  }

  /** Save the group's "last looked" cursors (members only) if they changed. Best effort. */
  private async saveCursors(groupId: string): Promise<void> {
    const group = this.state.groups[groupId]
    if (!group || group.deleted || !this.store.isWriter() || !this.alive) return
    const cursors = this.transcripts.cursors(groupId)
    const next: Record<string, number> = {}
    for (const botId of group.members) next[botId] = cursors.get(botId) ?? group.seen?.[botId] ?? 0
    const before = group.seen ?? {}
    if (Object.keys(next).length === Object.keys(before).length && Object.entries(next).every(([k, v]) => before[k] === v)) return
    try {
      await this.store.update((s) => {
        const g = s.groups[groupId]
        if (g && !g.deleted) g.seen = next
      })
    } catch (error) {
      // The post log has every turn's cursor; the next start takes the newer of the two.
      warn(this.ctx, 'could not save group cursors', error, 'rooms')
    }
  }

  // ── recovery ────────────────────────────────────────────────────────────────────────────────

  /**
   * Finish room work a crash (or the previous writer) left behind, without new input: a room
   * Session whose restored inbox holds posts is re-driven (the queue taken out and put back, same
   * message ids, which wakes it); a room whose last post got no answer (its round was cut) is woken
   * with a one-line notice, and its turn re-runs the cut round from where it stopped. Member
   * Sessions of such a room lose their queued room turns: the round that asked for them is gone
   * and its re-run gives each member a fresh turn with the same posts (re-driving them too would
   * make the member answer twice, once into nothing). Run at start by the writer; call again when
   * this process becomes the writer. Idempotent: a room with nothing pending is left alone.
   */
  async recover(): Promise<RoomRecovery> {
    const counts: RoomRecovery = { redriven: 0, resumed: 0, dropped: 0 }
    if (!this.store.isWriter()) return counts
    for (const group of this.groups()) {
      if (!group.roomSessionId) continue
      let room: Agent
      try {
        room = await this.resumeSession(group.roomSessionId, undefined)
      } catch (error) {
        warn(this.ctx, `could not open group ${group.name}'s room to recover it`, error, 'rooms')
        continue
      }
      // Loaded while the room is live, so a room from before the post log is seeded from its history.
      this.loadTranscript(group.id)
      const unanswered = readRoomRequest(messagesOf(room.session.events as readonly LooseEvent[])).length > 0
      const queued = room.inbox.hasPending
      if (!unanswered && !queued) continue
      for (const [botId, sid] of Object.entries(group.memberSessions)) {
        const member = this.ctx.agents.get(SessionId(sid)) ?? (await this.resumeSession(sid, this.roster.bot(botId)?.model).catch(() => undefined))
        if (member) counts.dropped += dropStaleTurns(member, group.id)
      }
      if (room.status !== 'idle') continue
      if (queued) {
        redriveInbox(room)
        counts.redriven++
      } else {
        room.followup(
          createUserMessage({
            content: [{ type: 'text', text: 'The team restarted; the round goes on.' }],
            source: roomNoticeSource({ groupId: group.id, groupName: group.name }, 'The team restarted; the round goes on.'),
          }),
        )
        counts.resumed++
      }
    }
    this.recovered = counts
    return counts
  }
}

/** The room messages in a Session's events (user and assistant messages, in order). */
function messagesOf(events: readonly LooseEvent[]): { id?: unknown; role: string; content: readonly { type: string; text?: string }[]; source?: unknown }[] {
  return events.flatMap((e) => {
    if (e.type !== 'user/message' && e.type !== 'assistant/message') return []
    const data = e.data as { message?: unknown }
    const m = (data.message ?? data) as { id?: unknown; role?: string; content?: readonly { type: string; text?: string }[]; source?: unknown }
    return m.content ? [{ ...m, role: m.role ?? (e.type === 'user/message' ? 'user' : 'assistant'), content: m.content }] : []
  })
}

/** A legacy room's history as the one-time seed reads it. */
function legacyItems(events: readonly LooseEvent[]): LegacySeed {
  return messagesOf(events).flatMap((m): LegacySeed[number][] => {
    if (m.role === 'assistant') return [{ role: 'assistant' as const, text: messageText(m) }]
    const kind = (m.source as { kind?: unknown } | undefined)?.kind ?? 'user'
    if (m.role === 'user' && kind === 'user' && !messageText(m).startsWith('Current runtime context'))
      return [{ role: 'user' as const, text: messageText(m), userPost: true }]
    const post = readSourceOf(m.source, 'room-post')
    if (post) return [{ role: 'user' as const, text: `${post.fromName ?? 'User'}: ${post.said}`, userPost: false }]
    return []
  })
}

/** Remove this group's queued room turns from a member's restored inbox; returns how many. */
function dropStaleTurns(agent: Agent, groupId: string): number {
  if (agent.status !== 'idle') return 0
  let n = 0
  for (const m of [...agent.inbox.nextStep, ...agent.inbox.nextTurn]) {
    const s = readSourceOf(m.source, 'room-turn')
    if (s && s.groupId === groupId) {
      agent.inbox.remove(m.id)
      n++
    }
  }
  return n
}
