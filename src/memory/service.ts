/**
 * `botMemory`: the memory files under `bot/memory/`, every change checked in order (team writer,
 * rights, shape, the secret-like filter and saved secrets, topic, caps) and journaled; `remember`
 * and `recall` offered on own chats through `botRoster.offerTools`; the frozen section of every Bot
 * Session; the end-of-turn review; archiving a deleted Bot's folder. Deliberately serves no HTTP and
 * keeps no secrets (src/memory/README.md).
 */
import type { Requester } from '../core/caller.ts'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { z } from 'zod'
import { AgentRegistrations } from '../dsh/agent-registrations.ts'
import { TeamRefusal } from '../core/refusal.ts'
import type { Caller } from '../core/authority.ts'
import type { BotRoster } from '../roster/service.ts'
import type { BotStore } from '../store/index.ts'
import { sideCall } from '../dsh/side-call.ts'
import { capProblem, MemoryLimits, type ScopeSizes } from './caps.ts'
import { MemoryFiles, type ScopeFiles, type ScopeKey } from './files.ts'
import { addEntry, entryLine, entryShapeProblem, findEntry, parseEntries, replaceLine, type Entry } from './format.ts'
import { search } from './recall.ts'
import { secretProblem } from './secret-like.ts'
import { MEMORY_SECTION, renderMemorySection } from './section.ts'
import { topicName } from './topic.ts'
import { ENTRIES_MAX, parseReview, pickEntries, ReviewConfig, reviewPrompt, reviewStart, type NumberedEntry } from './review.ts'
import { dshDefaultModel, requestRoute } from '../dsh/routes.ts'
import { errorText } from '../core/errors.ts'
import { memoryTools } from './tools.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botMemory: BotMemory
  }
}

/** The journal's size bound (as the diagnostics log's); absent: 1 MiB. */
export const JOURNAL_MAX_BYTES = z
  .int()
  .min(4 * 1024)
  .max(64 * 1024 * 1024)
  .optional()

export const Config = z.object({
  /** The bot folder (absolute); memory lives in `<dir>/memory`. */
  dir: z.string(),
  limits: MemoryLimits.prefault({}),
  review: ReviewConfig.prefault({}),
  /** Bytes of `journal.jsonl`: past it the file becomes `journal.1.jsonl` (the one before it dropped); default 1 MiB. */
  journalMaxBytes: JOURNAL_MAX_BYTES,
  /** `provider/model` of Bots without their own model, where known (in-process hosts). */
  defaultModel: z.string().optional(),
})

/** What reviews cost and did, since this service started (the review's own tokens). */
export interface ReviewStats {
  reviews: number
  calls: number
  inputTokens: number
  outputTokens: number
  applied: number
  dropped: number
  malformed: number
  /** Reviews that could not run (no model known, the call failed); each cause is noted once per Bot in diagnostics. */
  unavailable: number
}
export type Config = z.input<typeof Config>

/** Who changes memory, resolved: a Bot from one of its Sessions, or the user (team page). */
interface Actor {
  caller: Caller
  sessionId?: string
  /** A change the end-of-turn review proposed (journaled as `auto`). */
  auto?: boolean
}

export interface WriteInput {
  text: string
  topic?: string | undefined
  team?: boolean | undefined
  /** Another Bot's memory, by name or id (Main Bots, when the user asks; the user). */
  bot?: string | undefined
  /** The entry to replace (its text or a unique part); omitted: add. */
  replace?: string | undefined
}

export interface ForgetInput {
  entry: string
  topic?: string | undefined
  team?: boolean | undefined
  bot?: string | undefined
}

interface Target {
  scope: ScopeKey
  label: string
  title: string
  /** Written by someone other than the scope's owner. */
  by?: string
}

const chars = (s: string) => [...s].length
const sizesOf = (files: ScopeFiles): ScopeSizes => ({
  memory: chars(files.memory),
  topics: Object.fromEntries(Object.entries(files.topics).map(([k, v]) => [k, chars(v)])),
})

export class BotMemory extends Service {
  static inject = ['botStore', 'botRoster', 'agents', 'llm']
  static Config = Config

  readonly limits: MemoryLimits
  private readonly review: z.output<typeof ReviewConfig>
  private readonly defaultModel: string | undefined
  private reviews: Promise<unknown> = Promise.resolve()
  private readonly reviewPending = new Set<string>()
  /** `botId:cause` of reviews that could not run, already noted in diagnostics. */
  private readonly unreviewable = new Set<string>()
  private readonly stats: ReviewStats = { reviews: 0, calls: 0, inputTokens: 0, outputTokens: 0, applied: 0, dropped: 0, malformed: 0, unavailable: 0 }
  readonly files: MemoryFiles
  private readonly onAgents: AgentRegistrations
  private readonly attached = new WeakSet<Agent>()
  /** sessionId → the frozen memory section its prompt carries (set at attach, renewed at a checkpoint). */
  private readonly sections = new Map<string, string>()
  private queue: Promise<unknown> = Promise.resolve()

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botMemory')
    const parsed = Config.parse(config)
    this.limits = parsed.limits
    this.review = parsed.review
    this.defaultModel = parsed.defaultModel
    this.files = new MemoryFiles(parsed.dir, parsed.journalMaxBytes)
    this.onAgents = new AgentRegistrations(ctx, 'bot-memory:agent-registrations')
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  async [Service.init](): Promise<void> {
    this.ctx.on('bot-team/bot-attached', ({ agent }) => this.attach(agent))
    this.ctx.on('bot-team/member-attached', ({ agent }) => this.attach(agent))
    this.ctx.on('bot-team/task-attached', ({ agent }) => this.attach(agent))
    // Group and task Sessions stay narrow: memory is written from the own chat.
    this.roster.offerTools(this.ctx, { kinds: ['own'], tools: ({ offer }) => memoryTools(this, offer) })
    this.ctx.on('bot-team/bot-deleted', ({ botId, by }) => {
      void this.archive(botId, by).catch(() => {})
    })
    for (const { agent } of this.roster.openSessions({ kinds: ['own', 'member', 'task'] })) this.attach(agent)
    // A checkpoint (the steward's, or a person's /compact) rewrites the conversation in place: the
    // prompt prefix changes anyway, so the memory section is frozen anew there.
    this.ctx.on('session/event', (session, event) => {
      const type: string = event.type // `compaction/summary` is a compaction package's event, outside the core map
      const sessionId = String(session.id)
      if (type === 'compaction/summary' && this.sections.has(sessionId)) this.sections.set(sessionId, this.freeze(sessionId))
    })
    if (this.review.enabled) {
      this.ctx.on('agent/status', ({ agent, status }) => {
        if (status === 'idle' && this.roster.ownerOf(String(agent.id))?.kind === 'own') this.scheduleReview(agent)
      })
    }
  }

  /** Resolves when every change and review queued so far is done (or refused). */
  async settled(): Promise<void> {
    await this.reviews.then(
      () => {},
      () => {},
    )
    await this.queue.then(
      () => {},
      () => {},
    )
  }

  reviewStats(): Readonly<ReviewStats> {
    return { ...this.stats }
  }

  // ── the prompt section and tools on a Bot Session ─────────────────────────────────────────────

  private attach(agent: Agent): void {
    const sessionId = String(agent.id)
    const owner = this.roster.ownerOf(sessionId)
    if (!owner || this.attached.has(agent)) return
    this.attached.add(agent)
    const track = <T extends () => unknown>(dispose: T) => this.onAgents.add(agent, dispose)
    this.sections.set(sessionId, this.frozenSection(sessionId))
    track(() => this.sections.delete(sessionId))
    track(agent.ctx.systemPrompt.section({ name: MEMORY_SECTION, order: 30, text: () => this.sections.get(sessionId) ?? '' }))
  }

  /**
   * The memory section of a Session, rendered the first time the Session is seen and persisted
   * (`frozen/<sessionId>.md`), so every later request — after a restart too — gets the same bytes.
   */
  frozenSection(sessionId: string): string {
    return this.files.readFrozen(sessionId) ?? this.freeze(sessionId)
  }

  /** Render the section from the memory files as they are now and persist it (writer only). */
  private freeze(sessionId: string): string {
    const caller = this.roster.callerOf(sessionId)
    const own = caller.botId ? this.files.read(`bot:${caller.botId}`) : { memory: '', topics: {} }
    const kind = this.roster.ownerOf(sessionId)?.kind
    const where = kind === 'member' ? 'group' : kind === 'task' ? 'task' : 'own-chat'
    const text = renderMemorySection(own, this.files.read('team'), { where })
    // Written at once (a write left running could land after the service stopped); a failure only costs the next render.
    if (this.store.isWriter())
      try {
        this.files.writeFrozen(sessionId, text)
      } catch {}
    return text
  }

  // ── changes ──────────────────────────────────────────────────────────────────────────────────

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run)
    this.queue = next.catch(() => {})
    return next
  }

  private requireWriter(): void {
    if (!this.store.isWriter()) {
      throw new TeamRefusal('unavailable', `memory can only be changed in the DSH process that writes the team (${this.store.status().message}).`)
    }
  }

  /** Who asks, as an actor of memory changes (a Bot in its own chat or group Session, or the user). */
  private actor(req: Requester, auto = false): Actor {
    return { caller: this.roster.caller(req), ...(req.kind === 'bot' ? { sessionId: req.sessionId } : {}), ...(auto ? { auto } : {}) }
  }

  private mayWriteTeam(caller: Caller): boolean {
    return this.roster.check(caller, 'write_team_memory', { callerAdminsAnyGroup: this.adminsAnyGroup(caller) }).allowed
  }

  private adminsAnyGroup(caller: Caller): boolean {
    return caller.botId !== undefined && Object.values(this.store.state.groups).some((g) => !g.deleted && g.admin === caller.botId)
  }

  private nameOf(actor: Actor): string {
    return actor.caller.botId ? (this.store.state.bots[actor.caller.botId]?.name ?? actor.caller.botId) : 'user'
  }

  /** Which scope a change goes to, after the rights check. */
  private target(actor: Actor, input: { team?: boolean | undefined; bot?: string | undefined }): Target {
    const { caller } = actor
    if (input.team) {
      const verdict = this.roster.check(caller, 'write_team_memory', { callerAdminsAnyGroup: this.adminsAnyGroup(caller) })
      if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
      return { scope: 'team', label: 'team memory', title: 'Team memory', by: this.nameOf(actor) }
    }
    const bot = input.bot !== undefined ? this.roster.find(input.bot) : caller.botId !== undefined ? this.roster.bot(caller.botId) : undefined
    if (!bot) {
      throw new TeamRefusal(
        input.bot !== undefined ? 'not-found' : 'invalid',
        input.bot !== undefined ? `there is no Bot "${input.bot}".` : 'name the Bot whose memory to change.',
      )
    }
    const userAsked = caller.kind === 'user' || (actor.sessionId !== undefined && this.roster.personOpened({ kind: 'bot', sessionId: actor.sessionId }))
    const verdict = this.roster.check(caller, 'write_own_memory', { botId: bot.id, userAsked })
    if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
    const mine = bot.id === caller.botId
    return {
      scope: `bot:${bot.id}`,
      label: mine ? 'your memory' : `${bot.name}'s memory`,
      title: `${bot.name}'s memory`,
      ...(mine ? {} : { by: this.nameOf(actor) }),
    }
  }

  /** Where the fact came from: the part or group of the calling Session, or the team page. */
  private source(actor: Actor): string {
    if (actor.caller.kind === 'user') return 'team page'
    const owner = actor.sessionId !== undefined ? this.roster.ownerOf(actor.sessionId) : undefined
    if (owner?.kind === 'own') return `part ${owner.part}`
    if (owner?.kind === 'member') return `group "${this.store.state.groups[owner.groupId]?.name ?? owner.groupId}"`
    if (owner?.kind === 'task') return `task ${owner.taskId}`
    return 'unknown'
  }

  private topic(raw: string | undefined): string | undefined {
    if (raw === undefined || raw === '') return undefined
    const t = topicName(raw)
    if (!t.ok) throw new TeamRefusal('invalid', t.problem)
    return t.name
  }

  private one(entries: readonly Entry[], ref: string, where: string): Entry {
    const match = findEntry(entries, ref)
    if (match.kind === 'one') return match.entry
    if (match.kind === 'none') throw new TeamRefusal('not-found', `no entry in ${where} matches "${ref.slice(0, 80)}"; recall shows what is there.`)
    throw new TeamRefusal(
      'invalid',
      `several entries in ${where} match "${ref.slice(0, 80)}": ${match.entries
        .slice(0, 5)
        .map((e) => `"${e.text}"`)
        .join(', ')}. Quote the whole entry.`,
    )
  }

  /** Add an entry, or replace one (`replace`). Returns the answer for the model. */
  remember(req: Requester, input: WriteInput): Promise<string> {
    return this.write(this.actor(req), input)
  }

  private write(actor: Actor, input: WriteInput): Promise<string> {
    return this.serial(async () => {
      this.requireWriter()
      const target = this.target(actor, input)
      const text = input.text.trim().replace(/\s+/g, ' ')
      const shape = entryShapeProblem(input.text.trim())
      if (shape) throw new TeamRefusal('invalid', shape)
      const secret = secretProblem(text) ?? (this.ctx.get('botSecrets')?.holdsSecret(text) ? 'it holds the value of a saved secret' : undefined)
      if (secret) {
        throw new TeamRefusal(
          'invalid',
          `not saved: ${secret}. Memory must not hold keys, tokens, passwords, one-time codes or ID, account or card numbers; save the fact without the value (e.g. "the staging password is in the vault").`,
        )
      }
      const topic = this.topic(input.topic)
      const files = this.files.read(target.scope)
      const where = `${target.label}${topic ? ` (topic ${topic})` : ''}`
      const before = topic ? (files.topics[topic] ?? '') : files.memory
      const entries = parseEntries(before)
      const meta = { added: new Date().toISOString().slice(0, 10), source: this.source(actor), ...(target.by ? { by: target.by } : {}) }
      let after: string
      let replaced: Entry | undefined
      if (input.replace?.trim()) {
        replaced = this.one(entries, input.replace, where)
        after = replaceLine(before, replaced, entryLine(text, meta))
      } else {
        if (entries.some((e) => e.text === text)) return `Already in ${where}. Nothing changed.`
        after = addEntry(before, entryLine(text, meta), topic ?? target.title)
      }
      const cap = capProblem(this.limits, sizesOf(files), { ...(topic ? { topic } : {}), after: chars(after), entry: text }, target.label)
      if (cap) throw new TeamRefusal('limit', `not saved: ${cap}`)
      await this.files.write(target.scope, topic, after)
      await this.files.journal({
        time: new Date().toISOString(),
        op: replaced ? 'replace' : 'add',
        scope: target.scope,
        file: this.files.relative(target.scope, topic),
        actor: actor.caller.botId ?? 'user',
        actorName: this.nameOf(actor),
        ...(actor.auto ? { auto: true } : {}),
        ...(replaced ? { before: replaced.text } : {}),
        after: text,
      })
      return `${replaced ? 'Replaced' : 'Saved'} in ${where}. It shows in the memory section from the next conversation part; recall finds it now.`
    })
  }

  /** Remove one entry (a topic file left without entries goes too). */
  forget(req: Requester, input: ForgetInput): Promise<string> {
    return this.erase(this.actor(req), input)
  }

  private erase(actor: Actor, input: ForgetInput): Promise<string> {
    return this.serial(async () => {
      this.requireWriter()
      const target = this.target(actor, input)
      const topic = this.topic(input.topic)
      const files = this.files.read(target.scope)
      const where = `${target.label}${topic ? ` (topic ${topic})` : ''}`
      const before = topic ? (files.topics[topic] ?? '') : files.memory
      const entry = this.one(parseEntries(before), input.entry, where)
      const after = replaceLine(before, entry, undefined)
      const emptyTopic =
        topic !== undefined && parseEntries(after).length === 0 && after.split('\n').filter((l) => l.trim() && !l.startsWith('# ')).length === 0
      if (emptyTopic) await this.files.removeTopic(target.scope, topic)
      else await this.files.write(target.scope, topic, after)
      await this.files.journal({
        time: new Date().toISOString(),
        op: 'remove',
        scope: target.scope,
        file: this.files.relative(target.scope, topic),
        actor: actor.caller.botId ?? 'user',
        actorName: this.nameOf(actor),
        ...(actor.auto ? { auto: true } : {}),
        before: entry.text,
      })
      return `Removed from ${where}${emptyTopic ? ' (the topic is gone with its last entry)' : ''}.`
    })
  }

  /** Search the caller's own and the team's memory, topic files included, as they are now. */
  recall(req: Requester, query: string): string {
    const botId = this.roster.caller(req).botId
    if (!botId) throw new TeamRefusal('invalid', 'recall is for Bots.')
    const hits = search(
      [
        { label: 'your', files: this.files.read(`bot:${botId}`) },
        { label: 'team', files: this.files.read('team') },
      ],
      query,
    )
    if (!hits.length) return query.trim() ? `Nothing in your or the team's memory matches "${query.slice(0, 80)}".` : "Your and the team's memory are empty."
    return hits.map((h) => `- [${h.where}] ${h.text}${h.added ? ` (added ${h.added})` : ''}`).join('\n')
  }

  // ── end-of-turn review ───────────────────────────────────────────────────────────────────────

  /** Queue a review of the Session's new lines: one review at a time, never awaited by the turn. */
  private scheduleReview(agent: Agent): void {
    const sessionId = String(agent.id)
    if (this.reviewPending.has(sessionId)) return
    this.reviewPending.add(sessionId)
    this.reviews = this.reviews
      .then(async () => {
        this.reviewPending.delete(sessionId)
        await this.reviewTurn(agent)
      })
      .catch(() => {})
  }

  private async reviewTurn(agent: Agent): Promise<void> {
    const sessionId = String(agent.id)
    const bot = this.roster.botOfSession(sessionId)
    if (!bot || bot.deleted || !this.store.isWriter()) return
    const cursors = this.files.readCursors()
    const key = `chat:${sessionId}`
    const events = agent.session.events
    const fresh = events.slice(reviewStart(events, cursors[key]))
    const userLines = fresh.flatMap((e) => {
      if (e.type !== 'user/message') return []
      const m = e.data as { source?: { kind?: string }; content?: { type: string; text?: string }[] }
      if (m.source?.kind !== 'user') return []
      const text = (m.content ?? [])
        .map((b) => (b.type === 'text' ? (b.text ?? '') : ''))
        .join('')
        .trim()
      return text ? [text] : []
    })
    const moveCursor = () => this.files.writeCursors({ ...this.files.readCursors(), [key]: events.length })
    if (!userLines.length) return moveCursor()
    const route = this.reviewRoute(agent, bot)
    if (!route) {
      this.cannotReview(bot, 'no-model', `no model is known for its turns (no request logged, no model of its own, no default model)`)
      return
    }
    const actor = this.actor({ kind: 'bot', sessionId }, true)
    const entries = pickEntries(this.numbered(actor), userLines)
    const { system, user } = reviewPrompt(entries, userLines, this.review.maxChanges)
    this.stats.reviews++
    let answer: string
    try {
      answer = await this.callModel(route, system, user, bot.id)
    } catch (error) {
      // The lines stay unread (the cursor does not move): the next turn's review reads them again.
      this.cannotReview(bot, 'call-failed', `the review call to ${route} failed: ${errorText(error)}`)
      return
    }
    const parsed = parseReview(answer, entries.length, this.review.maxChanges)
    if (!parsed.ok) {
      this.stats.malformed++
      return
    }
    const writesTeam = this.mayWriteTeam(actor.caller)
    for (const change of parsed.changes) {
      try {
        const old = change.entry !== undefined ? entries[change.entry - 1] : undefined
        if (change.op === 'add') await this.write(actor, { text: change.text!, topic: change.topic, team: change.team === true && writesTeam })
        else if (change.op === 'edit') await this.write(actor, { text: change.text!, replace: old!.text, topic: old!.topic, team: old!.team })
        else await this.erase(actor, { entry: old!.text, topic: old!.topic, team: old!.team })
        this.stats.applied++
      } catch (error) {
        if (!(error instanceof TeamRefusal)) throw error
        this.stats.dropped++
      }
    }
    await moveCursor()
  }

  /**
   * The model a review goes to: the configured review model, else the route the Bot's turn was
   * actually sent to (its latest request, whatever routed it), else what that turn would have
   * used — the Bot's model, the plugin's `defaultModel`, DSH's own default model.
   */
  private reviewRoute(agent: Agent, bot: { model?: string | undefined }): string | undefined {
    if (this.review.model) return this.review.model
    const sent = requestRoute(agent.session)
    return sent ? `${sent.provider}/${sent.model}` : (bot.model ?? this.defaultModel ?? dshDefaultModel(this.ctx))
  }

  /** A review that cannot run says why in diagnostics — once per Bot and cause (this process). */
  private cannotReview(bot: { id: string; name: string }, cause: 'no-model' | 'call-failed', why: string): void {
    this.stats.unavailable++
    const key = `${bot.id}:${cause}`
    if (this.unreviewable.has(key)) return
    this.unreviewable.add(key)
    this.ctx
      .get('botDiagnostics')
      ?.note({ kind: 'memory-review', level: 'warn', message: `${bot.name}'s turns are not reviewed for memory: ${why}.`, data: { bot: bot.id, cause } })
  }

  /** Own entries, then team entries, MEMORY.md before topics: the numbers a review refers to. */
  private numbered(actor: Actor): NumberedEntry[] {
    const out: NumberedEntry[] = []
    const scopes: [ScopeKey, boolean][] = [
      [`bot:${actor.caller.botId}`, false],
      ['team', true],
    ]
    for (const [scope, team] of scopes) {
      const files = this.files.read(scope)
      for (const e of parseEntries(files.memory)) out.push({ team, text: e.text })
      for (const [topic, text] of Object.entries(files.topics)) for (const e of parseEntries(text)) out.push({ team, topic, text: e.text })
    }
    return out.slice(0, ENTRIES_MAX)
  }

  private async callModel(route: string, system: string, user: string, botId: string): Promise<string> {
    const slash = route.indexOf('/')
    this.stats.calls++
    const result = await sideCall(this.ctx, {
      provider: route.slice(0, slash),
      model: route.slice(slash + 1),
      system,
      user,
      maxTokens: this.review.maxTokens,
      deadlineMs: 120_000,
      tag: { purpose: 'memory-review', bot: botId },
    })
    this.stats.inputTokens += result.usage.input
    this.stats.outputTokens += result.usage.output
    if (result.error) throw new Error(result.error)
    return result.text
  }

  /** A deleted Bot's folder moves to `archive/` (never deleted) and the journal says so. */
  private archive(botId: string, by: Caller): Promise<void> {
    return this.serial(async () => {
      if (!this.store.isWriter()) return
      const at = new Date()
      const moved = await this.files.archive(botId, at)
      if (!moved) return
      await this.files.journal({
        time: at.toISOString(),
        op: 'archive',
        scope: `bot:${botId}`,
        file: this.files.relative(`bot:${botId}`).replace(/\/MEMORY\.md$/, ''),
        actor: by.botId ?? 'user',
        after: moved,
      })
    })
  }
}
