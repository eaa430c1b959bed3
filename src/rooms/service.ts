/**
 * `botRooms` — group rooms as an admin-moderated message router.
 *
 * Owns: groups (create / update / delete through `botStore`, checked by the roster's authority
 * check), the visible **room Session** of each group and the hidden **member Sessions** (one per
 * member per group, created on first use, archived so DSH Web does not list them), and rounds:
 * who speaks (pure `policy.ts`), one member turn at a time, limits in code, `[PASS]`, missed and
 * failed members, the transcript (in memory, rebuilt from the room log) and per-member "last
 * looked" cursors (in memory, saved to the group in team state at the end of every round, so a
 * restart does not treat a member who was not called as up to date).
 *
 * The room Session never calls a model. A global `llm/stream` listener answers every request of a
 * room Session itself (dsh-verified-2 §A1, text mode): it reads the new posts from the request's
 * messages (the user's, or a Bot's post entered as a plugin message), runs the round, and streams
 * each post as assistant text "**Name:** …" with a correct chunk grammar (one text block, usage
 * once, one finish). No tool is called, so the turn ends after one step; nothing is appended to a
 * Session outside DSH's loop.
 *
 * Deliberately does not: decide authority (the roster's `check`), attach a Bot's model, preset or
 * unattended-turn guard to member Sessions (the roster does, then emits `member-attached`; this
 * service adds the room's identity/rules sections and member tools there), or keep chat history in
 * team state (the room log is the room Session's log; the transcript is rebuilt from it).
 */
import { randomUUID } from 'node:crypto'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { z } from 'zod'
import type { Caller, Decision } from '../roster/authority.ts'
import { AgentRegistrations } from '../agent-registrations.ts'
import { TeamRefusal } from '../refusal.ts'
import type { BotRoster } from '../roster/service.ts'
import { allocateId, type BotStore, type Group, type TeamState } from '../store/index.ts'
import { resolveCreate, resolveUpdate } from './group-fields.ts'
import {
  afterPost, DEFAULT_LIMITS, firstSpeakers, isPass, nextSpeaker, postsFromRoomLog, renderPost, roomRulesText,
  startRound, turnText, windowFor, type Post, type Poster, type RoomLimits, type RoomShape,
} from './policy.ts'
import { groupTools, memberTools } from './tools.ts'
import { readSourceOf, roomNoticeSource, roomOpenSource, roomPostSource, roomReportSource, roomTurnSource } from '../sources.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botRooms: BotRooms
  }
}

export const Config = z.object({
  /** Every room and member Session's cwd (the Bots' working folder). */
  workspace: z.string(),
  /** `provider/model` for Sessions where DSH has no default (headless, tests). */
  defaultModel: z.string().optional(),
  limits: z.object({
    extraTurns: z.int().min(0).max(20),
    callsPerMember: z.int().min(1).max(10),
    callsPerAdmin: z.int().min(1).max(10),
    botRoundsPerUserMessage: z.int().min(0).max(50),
    turnTimeoutMs: z.int().min(10).max(3_600_000),
    windowPosts: z.int().min(1).max(200),
    windowPostChars: z.int().min(100).max(100_000),
  }).partial().default({}),
})
export type Config = z.input<typeof Config>

/** A refusal the caller can read (tools answer "Refused: …"). */
export class RoomRefusal extends TeamRefusal {}

export const ROOM_SECTION = 'botteam:room'

export type GroupAction = 'create_group' | 'update_group' | 'delete_group' | 'post_to_group' | 'read_group_chat'

/** How one member's turn went. */
export type TurnOutcome =
  | { kind: 'posted'; text: string }
  | { kind: 'pass' }
  | { kind: 'missed' }
  | { kind: 'failed'; reason: string }
  /** Its turn was cancelled from outside (removed from the group, deleted, stopped). */
  | { kind: 'stopped' }

/** One round, as recorded for the team page and tests (bounded log). */
export interface RoundRecord {
  groupId: string
  startedBy: 'user' | string
  first: string[]
  turns: { botId: string; outcome: TurnOutcome['kind'] }[]
  dropped: { id: string; why: string }[]
  maxTurns: number
  endedAt?: string
}

const MAX_ROUND_LOG = 200


type Source = Record<string, unknown> & { kind: string }
interface LooseMessage {
  role: string
  content: readonly { type: string; text?: string }[]
  source?: Source
}

const textOf = (m: { content: readonly { type: string; text?: string }[] }) => m.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('')
const isRuntimeContext = (text: string) => text.startsWith('Current runtime context')

/** What entered the room since it last answered. */
type RoomInput =
  | { kind: 'post'; poster: Poster; name: string; text: string; report?: boolean }
  | { kind: 'notice'; text: string }
  | { kind: 'open' }

/** The chunk grammar of one streamed text block (dsh-verified-2 §A1). */
class TextBlock {
  private text = ''
  private started = false;
  *delta(piece: string): Generator<StreamChunk> {
    if (!this.started) {
      this.started = true
      yield { type: 'block-start', index: 0, blockType: 'text' }
    }
    this.text += piece
    yield { type: 'text-delta', index: 0, text: piece };
  }
  *end(fallback: string): Generator<StreamChunk> {
    if (!this.started) yield* this.delta(fallback)
    yield { type: 'block-end', index: 0, block: { type: 'text', text: this.text } }
    yield { type: 'usage', usage: { inputTokens: 0, outputTokens: 0 } }
    yield { type: 'finish', reason: { kind: 'stop' } }
  }
}

export class BotRooms extends Service {
  static inject = ['botStore', 'botRoster', 'agents', 'sessions', 'tools', 'systemPrompt']
  static Config = Config

  readonly limits: RoomLimits
  private readonly config: z.output<typeof Config>
  private readonly transcripts = new Map<string, Post[]>()
  /** groupId → botId → index of the first post it has not seen. */
  private readonly cursors = new Map<string, Map<string, number>>()
  /** Groups with a round running right now. */
  private readonly running = new Set<string>()
  /** groupId → Bot-started rounds since the user last spoke there. */
  private readonly botRounds = new Map<string, number>()
  private readonly creating = new Map<string, Promise<Agent>>()
  private readonly roundLog: RoundRecord[] = []
  /** What this service put on other agents' scopes; removed if this service unloads first. */
  private readonly onAgents: AgentRegistrations
  /** Model requests the room Sessions answered themselves (never sent to a provider). */
  answered = 0

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botRooms')
    this.config = Config.parse(config)
    this.onAgents = new AgentRegistrations(ctx, 'bot-rooms:agent-registrations')
    this.limits = { ...DEFAULT_LIMITS, ...this.config.limits }
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  /** The roster this service asks (also for the tools). */
  get roster(): BotRoster {
    return this.ctx.botRoster
  }

  async [Service.init](): Promise<void> {
    // Global: every request of a room Session is answered here; every other one goes on untouched.
    this.ctx.on('llm/stream', (options, next) => {
      const groupId = options.sessionId === undefined ? undefined : this.groupOfRoom(String(options.sessionId))
      if (groupId === undefined) return next()
      this.answered++
      return this.roomStream(groupId, options)
    })
    this.ctx.on('bot-team/bot-attached', ({ agent }) => this.attachOwnChat(agent))
    this.ctx.on('bot-team/member-attached', ({ bot, groupId, agent }) => this.attachMember(agent, bot.id, groupId))
    this.ctx.on('bot-team/bot-deleted', ({ botId }) => {
      for (const cursors of this.cursors.values()) cursors.delete(botId)
    })
    // Bots whose own chat was attached before this service started get the group tools now.
    for (const bot of this.roster.bots()) {
      const sid = bot.sessionParts.at(-1)?.sessionId
      const agent = sid ? this.ctx.agents.get(SessionId(sid)) : undefined
      if (agent) this.attachOwnChat(agent)
    }
  }

  /** Change limits at run time (tests, the team page). */
  setLimits(patch: Partial<RoomLimits>): void {
    Object.assign(this.limits, patch)
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────────

  private get state(): Readonly<TeamState> {
    return this.store.state
  }

  groups(): Group[] {
    return Object.values(this.state.groups).filter((g) => !g.deleted)
  }

  group(ref: string): Group | undefined {
    const key = ref.trim().toLowerCase()
    return this.groups().find((g) => g.id === ref.trim()) ?? this.groups().find((g) => g.name.toLowerCase() === key)
  }

  groupOfRoom(sessionId: string): string | undefined {
    return this.roster.roomOf(sessionId)
  }

  roundRunning(groupId: string): boolean {
    return this.running.has(groupId)
  }

  rounds(groupId?: string): readonly RoundRecord[] {
    return this.roundLog.filter((r) => groupId === undefined || r.groupId === groupId)
  }

  /** The room's posts known to this process (rebuilt from the room log when needed). */
  async transcript(groupId: string): Promise<readonly Post[]> {
    if (!this.transcripts.has(groupId)) {
      const group = this.state.groups[groupId]
      const agent = group?.roomSessionId ? this.ctx.agents.get(SessionId(group.roomSessionId)) : undefined
      if (agent) this.rebuild(groupId, agent.session.events.flatMap((e) => {
        const data = e.data as unknown as { message?: LooseMessage } & LooseMessage
        if (e.type === 'user/message') return [data.message ?? data]
        if (e.type === 'assistant/message') return [data.message ?? data]
        return []
      }))
    }
    return this.transcripts.get(groupId) ?? []
  }

  /** Room shape for the pure policy: live members only, in order. */
  private shape(group: Group): RoomShape {
    const members = group.members.filter((id) => this.roster.bot(id)).map((id) => ({ id, name: this.roster.bot(id)!.name }))
    return { members, mode: group.mode, ...(group.admin && members.some((m) => m.id === group.admin) ? { admin: group.admin } : {}) }
  }

  private targetFacts(caller: Caller, group: Group) {
    const botId = caller.botId
    return {
      groupId: group.id,
      callerIsGroupAdmin: botId !== undefined && group.admin === botId,
      callerIsGroupMember: botId !== undefined && group.members.includes(botId),
      roundRunning: this.running.has(group.id),
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

  private find(ref: string): Group {
    const group = this.group(ref)
    if (!group) throw new RoomRefusal('not-found', `No group named or with id "${ref}".${this.groups().length ? ` Groups: ${this.groups().map((g) => g.name).join(', ')}.` : ''}`)
    return group
  }

  private async writable(): Promise<void> {
    if ((await this.store.claim()) !== 'writer') {
      throw new RoomRefusal('unavailable', `Groups cannot be changed from this process: ${this.store.status().message}`)
    }
  }

  // ── changing groups ─────────────────────────────────────────────────────────────────────────

  async createGroup(caller: Caller, raw: unknown): Promise<Group> {
    this.require(caller, 'create_group')
    const fields = resolveCreate(this.state, raw)
    if (!fields.ok) throw new RoomRefusal('invalid', `The group was not created: ${fields.reason}.`)
    await this.writable()
    let id = ''
    await this.store.update((s) => {
      const again = resolveCreate(s, raw)
      if (!again.ok) throw new RoomRefusal('invalid', `The group was not created: ${again.reason}.`)
      id = allocateId(s, 'group')
      s.groups[id] = { id, ...again.value, memberSessions: {}, seen: {}, createdAt: new Date().toISOString() }
    })
    this.transcripts.set(id, [])
    await this.openRoom(id)
    return this.state.groups[id]!
  }

  async updateGroup(caller: Caller, ref: string, raw: unknown): Promise<Group> {
    const group = this.find(ref)
    this.require(caller, 'update_group', group)
    const adminOnly = caller.kind === 'bot' && caller.botId === group.admin ? caller.botId : undefined
    const fields = resolveUpdate(this.state, group, raw, adminOnly)
    if (!fields.ok) throw new RoomRefusal('invalid', `Group ${group.name} was not changed: ${fields.reason}.`)
    await this.writable()
    await this.store.update((s) => {
      const g = s.groups[group.id]!
      g.name = fields.value.name
      g.members = fields.value.members
      g.mode = fields.value.mode
      g.notice = fields.value.notice
      if (fields.value.admin) g.admin = fields.value.admin
      else delete g.admin
      for (const botId of Object.keys(g.seen ?? {})) if (!g.members.includes(botId)) delete g.seen![botId]
    })
    const removed = group.members.filter((id) => !fields.value.members.includes(id))
    for (const botId of removed) await this.stopMember(group.id, botId, `removed from group ${group.name}`)
    return this.state.groups[group.id]!
  }

  async deleteGroup(caller: Caller, ref: string, reason: string): Promise<Group> {
    const group = this.find(ref)
    this.require(caller, 'delete_group', group)
    await this.writable()
    await this.store.update((s) => {
      s.groups[group.id]!.deleted = { at: new Date().toISOString(), by: caller.botId ?? 'user' }
    })
    for (const botId of Object.keys(group.memberSessions)) await this.stopMember(group.id, botId, `group ${group.name} was deleted: ${reason}`)
    if (group.roomSessionId) await this.stopSession(group.roomSessionId, `group ${group.name} was deleted: ${reason}`)
    this.transcripts.delete(group.id)
    this.cursors.delete(group.id)
    this.botRounds.delete(group.id)
    return this.state.groups[group.id]!
  }

  /** End a member's activity in one group: cancel its turn, drop its queue, archive the Session. */
  private async stopMember(groupId: string, botId: string, reason: string): Promise<void> {
    const sid = this.state.groups[groupId]?.memberSessions[botId]
    if (sid) await this.stopSession(sid, reason)
    this.cursors.get(groupId)?.delete(botId)
  }

  private async stopSession(sessionId: string, reason: string): Promise<void> {
    await this.roster.sessions.close(sessionId, reason)
  }

  // ── posting ─────────────────────────────────────────────────────────────────────────────────

  /**
   * A Bot's (or the user's, from the API) post: entered into the room Session as a plugin message,
   * so the room's own turn runs the round. Returns at once; `report` sends the round's posts to
   * the poster's own chat when it ends.
   */
  async post(caller: Caller, ref: string, text: string, opts: { report?: boolean } = {}): Promise<string> {
    const group = this.find(ref)
    this.require(caller, 'post_to_group', group)
    const body = text.trim()
    if (!body) throw new RoomRefusal('invalid', 'The post is empty.')
    if (body.length > 8000) throw new RoomRefusal('invalid', 'The post is longer than 8,000 characters; shorten it.')
    if (caller.kind !== 'user') {
      const started = this.botRounds.get(group.id) ?? 0
      if (started >= this.limits.botRoundsPerUserMessage) {
        throw new RoomRefusal('limit', `Bots have started ${started} rounds in group ${group.name} since the user last wrote there (limit ${this.limits.botRoundsPerUserMessage}). Wait until the user writes in the group, or tell the user in your own chat.`)
      }
      this.botRounds.set(group.id, started + 1)
    }
    const room = await this.roomAgent(group.id)
    const postId = `post-${randomUUID()}`
    const bot = caller.botId ? this.roster.bot(caller.botId) : undefined
    const name = bot?.name ?? 'User'
    // The report wish travels in the message itself, so it survives a restart before the round.
    const source = roomPostSource({ groupId: group.id, groupName: group.name, postId, said: body, from: bot, report: opts.report }, { hop: 0 })
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

  async readChat(caller: Caller, ref: string, last = 30): Promise<string> {
    const group = this.find(ref)
    this.require(caller, 'read_group_chat', group)
    const posts = await this.transcript(group.id)
    if (posts.length === 0) return `Group ${group.name} has no posts yet.`
    const shown = posts.slice(-Math.max(1, Math.min(200, last)))
    return [`Group ${group.name}, ${shown.length} of ${posts.length} post(s):`, ...shown.map((p) => `${p.name}: ${p.text}`)].join('\n')
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
    if (!this.ctx.agents.get(SessionId(sessionId)) && (await this.store.claim()) !== 'writer') {
      throw new RoomRefusal('unavailable', `group Sessions are not opened here: ${this.store.status().message}`)
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

  /** A member's hidden Session for the group: created on first use (then archived), else resumed. */
  async memberAgent(groupId: string, botId: string): Promise<Agent> {
    const key = `${groupId}:${botId}`
    const pending = this.creating.get(key)
    if (pending) return pending
    const run = (async () => {
      const bot = this.roster.bot(botId)
      if (!bot) throw new RoomRefusal('not-found', `Bot ${botId} is not on the team.`)
      const existing = this.state.groups[groupId]?.memberSessions[botId]
      if (existing) return this.resumeSession(existing, bot.model)
      const sessionId = `session-${randomUUID()}`
      const done = this.roster.opens(sessionId, { kind: 'member', botId, groupId })
      let agent: Agent
      try {
        agent = await this.roster.sessions.create(sessionId, { title: `${bot.name} in ${this.state.groups[groupId]!.name}`, model: bot.model })
        await this.store.update((s) => {
          s.groups[groupId]!.memberSessions[botId] = sessionId
        })
      } finally {
        done()
      }
      await this.roster.sessions.archive(sessionId) // kept out of DSH Web's session list
      return agent
    })()
    this.creating.set(key, run)
    try {
      return await run
    } finally {
      this.creating.delete(key)
    }
  }

  // ── attaching to agents ─────────────────────────────────────────────────────────────────────

  private attachOwnChat(agent: Agent): void {
    for (const tool of groupTools(this)) this.onAgents.add(agent, agent.ctx.tools.register(tool))
  }

  private attachMember(agent: Agent, botId: string, groupId: string): void {
    const ctx = agent.ctx
    this.onAgents.add(agent, ctx.systemPrompt.section({
      name: ROOM_SECTION,
      order: 20,
      text: () => {
        const g = this.state.groups[groupId]!
        return roomRulesText(g.name, g.admin === botId)
      },
    }))
    for (const tool of memberTools(this, groupId)) this.onAgents.add(agent, ctx.tools.register(tool))
  }

  // ── the room's own turn ─────────────────────────────────────────────────────────────────────

  private roomStream(groupId: string, options: GenerateOptions): AsyncIterable<StreamChunk> {
    const self = this
    return (async function* () {
      const block = new TextBlock()
      const group = self.state.groups[groupId]
      if (options.purpose !== undefined) {
        yield* block.end(group?.name ?? 'Group')
        return
      }
      if (!group || group.deleted) {
        yield* block.end('_This group was deleted._')
        return
      }
      const { inputs, history } = self.readRoomRequest(options.messages as unknown as LooseMessage[])
      if (!self.transcripts.has(groupId)) self.rebuild(groupId, history)
      try {
        for (const input of inputs) {
          if (options.signal?.aborted) break
          for await (const piece of self.handle(groupId, input, options.signal)) yield* block.delta(piece)
        }
      } catch (error) {
        yield* block.delta(`_The round stopped: ${error instanceof Error ? error.message : String(error)}_\n\n`)
      }
      yield* block.end('_No one had anything new to add._')
    })()
  }

  /** New inputs since the room last answered, and the history before them. */
  private readRoomRequest(messages: readonly LooseMessage[]): { inputs: RoomInput[]; history: LooseMessage[] } {
    let i = messages.length - 1
    while (i >= 0 && messages[i]!.role !== 'assistant') i--
    const inputs: RoomInput[] = []
    for (const m of messages.slice(i + 1)) {
      if (m.role !== 'user' || m.content.some((b) => b.type === 'tool-result')) continue
      const text = textOf(m)
      if ((m.source?.kind ?? 'user') === 'user') {
        if (text.trim() && !isRuntimeContext(text)) inputs.push({ kind: 'post', poster: { kind: 'user' }, name: 'User', text: text.trim() })
        continue
      }
      const s = readSourceOf(m.source, 'room-open', 'room-notice', 'room-post')
      if (s?.type === 'room-open') inputs.push({ kind: 'open' })
      else if (s?.type === 'room-notice') inputs.push({ kind: 'notice', text })
      else if (s?.type === 'room-post') {
        inputs.push({
          kind: 'post',
          poster: s.fromBot ? { kind: 'bot', botId: s.fromBot } : { kind: 'user' },
          name: s.fromName ?? 'User',
          text: s.said || text,
          ...(s.report && s.fromBot ? { report: true } : {}),
        })
      }
    }
    return { inputs, history: messages.slice(0, i + 1) as LooseMessage[] }
  }

  private rebuild(groupId: string, history: readonly LooseMessage[]): void {
    const items = history.flatMap((m): { role: 'user' | 'assistant'; text: string; userPost?: boolean }[] => {
      if (m.role === 'assistant') return [{ role: 'assistant' as const, text: textOf(m) }]
      if (m.role === 'user' && (m.source?.kind ?? 'user') === 'user' && !isRuntimeContext(textOf(m))) return [{ role: 'user' as const, text: textOf(m), userPost: true }]
      return []
    })
    const posts = postsFromRoomLog(items, (name) => this.roster.find(name)?.id)
    this.transcripts.set(groupId, posts)
    // Cursors saved at the end of each round; a member without one never looked. A group saved
    // before cursors were kept has none: its members are taken as up to date.
    const group = this.state.groups[groupId]
    const cursors = new Map<string, number>()
    for (const botId of group?.members ?? []) cursors.set(botId, Math.min(posts.length, group?.seen ? (group.seen[botId] ?? 0) : posts.length))
    this.cursors.set(groupId, cursors)
  }

  private async *handle(groupId: string, input: RoomInput, signal: AbortSignal | undefined): AsyncGenerator<string> {
    const group = this.state.groups[groupId]!
    if (input.kind === 'open') {
      const names = group.members.map((id) => this.state.bots[id]?.name ?? id)
      yield `_Group **${group.name}** is open: ${names.join(', ')}${group.admin ? `; admin ${this.state.bots[group.admin]?.name}` : '; no admin'}; ${group.mode} mode._\n\n`
      return
    }
    if (input.kind === 'notice') {
      yield `_${input.text.replace(/\s+/g, ' ').trim().replace(/_/g, '\\_')}_\n\n`
      return
    }
    const posts = this.transcripts.get(groupId) ?? []
    this.transcripts.set(groupId, posts)
    posts.push({ from: input.poster.kind === 'user' ? 'user' : input.poster.botId, name: input.name, text: input.text })
    if (input.poster.kind === 'user') this.botRounds.set(groupId, 0)
    else yield `${renderPost(input.name, input.text)}\n\n`
    const said: Post[] = []
    yield* this.round(groupId, input.poster, input.text, signal, said)
    if (input.report && input.poster.kind === 'bot') void this.report(input.poster.botId, groupId, group.name, said).catch(() => undefined)
  }

  private async report(botId: string, groupId: string, groupName: string, said: readonly Post[]): Promise<void> {
    const agent = await this.roster.agentOf(botId)
    const body = said.length ? said.map((p) => `${p.name}: ${p.text}`).join('\n') : '(nobody posted a reply)'
    agent.followup(createUserMessage({
      content: [{ type: 'text', text: `[Group "${groupName}" — replies to your post]\n${body}` }],
      source: roomReportSource({ groupId, groupName }, { hop: 0 }),
    }))
  }

  /** One round: speakers one at a time, in order, within the limits. Yields the room's text. */
  private async *round(groupId: string, poster: Poster, text: string, signal: AbortSignal | undefined, said: Post[]): AsyncGenerator<string> {
    let group = this.state.groups[groupId]!
    const room = this.shape(group)
    const first = firstSpeakers(room, poster, text)
    const plan = startRound(room, first, this.limits)
    const record: RoundRecord = { groupId, startedBy: poster.kind === 'user' ? 'user' : poster.botId, first, turns: [], dropped: plan.dropped, maxTurns: plan.maxTurns }
    this.roundLog.push(record)
    if (this.roundLog.length > MAX_ROUND_LOG) this.roundLog.shift()
    this.running.add(groupId)
    try {
      let previous: string | undefined
      for (let id = nextSpeaker(plan); id !== undefined; id = nextSpeaker(plan)) {
        if (signal?.aborted) break
        group = this.state.groups[groupId]!
        if (group.deleted) break
        if (!group.members.includes(id) || !this.roster.bot(id)) continue
        const name = this.roster.bot(id)!.name
        const outcome = await this.memberTurn(groupId, id, { place: plan.turns, planned: plan.turns + plan.queue.length, after: previous }, signal)
        record.turns.push({ botId: id, outcome: outcome.kind })
        if (outcome.kind === 'posted') {
          const post = { from: id, name, text: outcome.text }
          this.transcripts.get(groupId)!.push(post)
          said.push(post)
          previous = name
          yield `${renderPost(name, outcome.text)}\n\n`
          afterPost(plan, room, id, outcome.text, this.limits)
        } else if (outcome.kind === 'missed') {
          yield `_${name} did not answer within ${Math.round(this.limits.turnTimeoutMs / 100) / 10} s and was marked missed._\n\n`
        } else if (outcome.kind === 'stopped') {
          yield `_${name}'s turn was stopped._\n\n`
        } else if (outcome.kind === 'failed') {
          yield `_${name} failed and was skipped: ${outcome.reason.replace(/\s+/g, ' ').slice(0, 300)}_\n\n`
        }
      }
      if (plan.dropped.some((d) => d.why === 'turn-cap')) yield `_This round reached its limit of ${plan.maxTurns} turns._\n\n`
    } finally {
      this.running.delete(groupId)
      record.endedAt = new Date().toISOString()
      await this.saveCursors(groupId)
    }
  }

  /** Save the group's "last looked" cursors (members only) if they changed. Best effort. */
  private async saveCursors(groupId: string): Promise<void> {
    const cursors = this.cursors.get(groupId)
    const group = this.state.groups[groupId]
    if (!cursors || !group || group.deleted || this.store.mode !== 'writer') return
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
      // Kept in memory; after a restart the member is shown a few posts again, nothing is lost.
      process.stderr.write(`dsh-bot-team: could not save group cursors (${error instanceof Error ? error.message : String(error)})\n`)
    }
  }

  /** One member's turn: what it has not seen, then its reply (or pass / missed / failed). */
  private async memberTurn(groupId: string, botId: string, place: { place: number; planned: number; after: string | undefined }, signal: AbortSignal | undefined): Promise<TurnOutcome> {
    let agent: Agent
    try {
      agent = await this.memberAgent(groupId, botId)
    } catch (error) {
      return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) }
    }
    const group = this.state.groups[groupId]!
    const posts = this.transcripts.get(groupId) ?? []
    const cursors = this.cursors.get(groupId) ?? new Map<string, number>()
    this.cursors.set(groupId, cursors)
    const { shown, omitted } = windowFor(posts, cursors.get(botId) ?? 0, botId, this.limits)
    cursors.set(botId, posts.length)
    const text = turnText({ groupName: group.name, notice: group.notice, place: place.place, planned: place.planned, after: place.after, shown, omitted })
    const before = agent.session.events.length
    agent.followup(createUserMessage({
      content: [{ type: 'text', text }],
      source: roomTurnSource({ groupId, groupName: group.name }, { hop: 0 }),
    }))
    const ended = await this.waitIdle(agent, this.limits.turnTimeoutMs, signal)
    if (ended !== 'idle') {
      agent.cancel({ kind: 'hook', reason: ended === 'timeout' ? 'the group turn timed out' : 'the group round was stopped' })
      await Promise.race([agent.whenIdle(), new Promise((r) => setTimeout(r, 5000))])
      return { kind: 'missed' }
    }
    const events = agent.session.events.slice(before)
    const end = events.filter((e) => e.type === 'turn/end').at(-1)?.data as { reason?: { kind?: string; error?: { message?: string }; message?: string } } | undefined
    const replies = events.filter((e) => e.type === 'assistant/message').map((e) => {
      const data = e.data as unknown as { message?: LooseMessage }
      return data.message ? textOf(data.message) : ''
    }).filter((t) => t.trim())
    const reply = replies.at(-1) ?? ''
    if (end?.reason?.kind === 'aborted' || end?.reason?.kind === 'cancelled') return { kind: 'stopped' }
    if (end?.reason?.kind === 'error' || (!reply && end?.reason?.kind !== 'completed')) {
      return { kind: 'failed', reason: end?.reason?.error?.message ?? end?.reason?.message ?? `turn ended: ${end?.reason?.kind ?? 'unknown'}` }
    }
    return isPass(reply) ? { kind: 'pass' } : { kind: 'posted', text: reply.trim() }
  }

  private waitIdle(agent: Agent, ms: number, signal: AbortSignal | undefined): Promise<'idle' | 'timeout' | 'aborted'> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish('timeout'), ms)
      const onAbort = () => finish('aborted')
      signal?.addEventListener('abort', onAbort, { once: true })
      function finish(how: 'idle' | 'timeout' | 'aborted') {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        resolve(how)
      }
      void agent.whenIdle().then(() => finish('idle'))
    })
  }
}
