/**
 * `botRoster`: Bots as identities pinned to DSH root Sessions — create, change, delete, each decided
 * inside the save with `decide` and the team's invariants; the first Main Bot; own chats through the
 * one opener; the ownership index; turn origins and the Session's last chain; the role frozen with
 * each part and every service's tools offered by it (`offerTools`); attaching a Bot to its agent and
 * the `agent/created` veto. Deliberately no agent runtime, no chat history (src/roster/README.md).
 */
import { byRef, lookalikeOf, shownName } from '../core/names.ts'
import { randomUUID } from 'node:crypto'
import { mkdirSync, realpathSync, statSync } from 'node:fs'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { SessionId } from '@deepseek-ai/dsh-session'
import { z } from 'zod'
import { allocateId, own, type Bot, type BotStore, type Group, type HeldItem, type TeamState } from '../store/index.ts'
import type { Requester } from '../core/caller.ts'
import { decide, type Caller, type Decision, type TeamAction, type Target } from '../core/authority.ts'
import { BotCreateInput, BotUpdateInput, DEFAULT_PERMISSION_PRESET, nameTaken, type BotUpdateRaw } from './bot-fields.ts'
import { currentPart, IDENTITY_SECTION, identityText, liveBotList, liveGroupList, roleChangeText, TEAM_SECTION, teamText } from './identity.ts'
import { botTools } from './tools.ts'
import { PartRoles, type PartRole } from './part-role.ts'
import { DSH_TOOLS_DENIED, offerFor, sameRole, TEAM_TOOLS, type Offer, type Role, type SessionKind } from '../core/offer.ts'
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { roleNoticeSource } from '../core/sources.ts'
import { guardUnattendedTurns } from './unattended.ts'
import { PickerSync } from './pickers.ts'
import { TurnTracker, type TurnInfo } from './turns.ts'
import { raises, type Chain, type SandboxMode } from '../core/chain.ts'
import { chainOf, readSource } from '../core/sources.ts'
import { APPROVAL_ARGS_MAX, REASON_MAX } from '../core/text-limits.ts'
import { AgentRegistrations } from '../dsh/agent-registrations.ts'
import { TeamRefusal } from '../core/refusal.ts'
import { SessionOpener } from '../dsh/session-opener.ts'
import { SessionIndex, type BotSessionOwner, type OpeningOwner, type SessionKinds, type TaskSessionEntry } from './ownership.ts'
import { folderConflict, type Guarded, guardedConflict, openConflict, WORKSPACE_WRITE_EXTRAS, writableAbove } from './work-folder.ts'
import { heldText } from './held.ts'
import { networkProblemText, ShellGuard } from './shell-guard.ts'
import { botOwner, DEFAULT_NETWORK_LEVEL, LEVEL_WORDS, strictestLevel, type NetworkLevel } from '../core/network.ts'
import { turnNetwork } from '../core/chain.ts'
import { networkNoticeSource } from '../core/sources.ts'
import type { ProbeResult } from '../network/probe.ts'
import { warn } from '../dsh/warn.ts'
import { formatIssues } from '../core/zod-issues.ts'
import { parseModel } from '../core/models.ts'
import { afterBoot } from '../dsh/boot.ts'
import { errorText } from '../core/errors.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botRoster: BotRoster
  }
  interface Events {
    /** A Bot was deleted: services stop whatever they run for it (timers, rounds, deliveries). */
    'bot-team/bot-deleted'(payload: { botId: string; by: Caller; reason: string }): void
    /** A Bot's own-chat agent got its identity attached (fresh, resumed, or a new part). */
    'bot-team/bot-attached'(payload: { bot: Readonly<Bot>; agent: Agent }): void
    /**
     * A Bot's agent in one of its group Sessions was created or resumed: the Bot's model, preset
     * and unattended-turn guard are in place; the rooms service adds the room's tools and sections.
     */
    'bot-team/member-attached'(payload: { bot: Readonly<Bot>; groupId: string; agent: Agent }): void
    /**
     * A Bot's agent in one of its task Sessions was created or resumed: identity, model, preset and
     * the unattended-turn guard are in place; the task service adds the task's tools.
     */
    'bot-team/task-attached'(payload: { bot: Readonly<Bot>; taskId: string; agent: Agent }): void
  }
}

export const Config = z.object({
  /** The bot folder (absolute): the role frozen with each Session part lives in `<dir>/parts`. */
  dir: z.string(),
  /** The Bots' working folder (absolute); every Bot Session's cwd. */
  workspace: z.string(),
  /**
   * Folders a Bot's own working folder may not be, hold or lie inside (absolute): the DSH home and
   * the team folder (`work-folder.ts`); the team workspace is allowed.
   */
  protectedFolders: z.array(z.string()).default([]),
  /** The plugin's worktrees folder (absolute): no Bot's own folder lies inside or over it (a task Session works in its clone there). */
  worktrees: z.string().optional(),
  /** `provider/model` for Bots without their own model where DSH has no default (headless, tests). */
  defaultModel: z.string().optional(),
  /** Name of the Main Bot created on first start. */
  mainBotName: z.string().default('Main'),
})
export type Config = z.input<typeof Config>

/** A refusal the caller can read: the tool returns its message, the HTTP route a 4xx. */
export class RosterRefusal extends TeamRefusal {}

/** A new own-chat part that continues the conversation after a handoff (src/context/ writes `note`). */
export interface PartHandoff {
  /** Why the previous part ended. */
  endReason: string
  /** The handoff package file, relative to the bot folder. */
  note: string
  /** A turn was cut off by the move and goes on in the new part. */
  resume?: boolean
}

export interface RosterActivity {
  at: string
  botId?: string
  text: string
}

const MAX_ACTIVITY = 100
/** Models a refusal of an unserved model names (the rest: list_models). */
const MODELS_LISTED = 30

export type { BotSessionOwner, OpeningOwner, TaskSessionEntry } from './ownership.ts'

/** One Bot Session a service offers tools on, with what its frozen role is offered. */
export interface OfferedSession {
  agent: Agent
  sessionId: string
  owner: BotSessionOwner
  offer: Offer
}

/**
 * Tools a service offers on Bot Sessions (`offerTools`): built for each Session from the role
 * frozen with its part; only the names that role is offered (`core/offer.ts`) are registered.
 */
export interface ToolOffer {
  kinds: readonly SessionKind[]
  tools(session: OfferedSession): ToolDefinition[]
}

/** A disposer that runs once (a re-offer and the service's end may both call it). */
function once(dispose: () => unknown): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    dispose()
  }
}

export class BotRoster extends Service {
  static inject = ['botStore', 'botLimits', 'agents', 'sessions', 'tools', 'systemPrompt']
  static Config = Config

  private readonly config: z.output<typeof Config>
  /** Whose each Session is (own-chat parts, member Sessions, rooms), rebuilt on every state change. */
  private readonly index: SessionIndex
  /** Opens, resumes and closes the Bots' Sessions (DSH Web's way where it runs). */
  readonly sessions: SessionOpener
  private readonly activityLog: RosterActivity[] = []
  private readonly onAgents: AgentRegistrations
  private bootstrapping: Promise<void> | undefined
  /** ensureTeam has run (or is running) since this process became the writer. */
  private teamChecked = false
  /** The team workspace's real path when the roster started: every open there must still resolve inside it. */
  private workspaceReal = ''
  /** Who opened the current turn of each Bot Session. */
  private readonly turns = new TurnTracker()
  /** The Bot's model and preset on its Sessions; DSH Web's pickers; delegated modes. */
  private readonly pickers: PickerSync
  /** The Bots' shell commands through DSH's sandbox: folders checked, no-network Bots unshared. */
  private readonly shell: ShellGuard
  /** The roles frozen with Session parts (`bot/parts/`), and those of the Sessions wired here. */
  private readonly parts: PartRoles
  private readonly frozen = new Map<string, PartRole>()
  /** Bot Sessions wired in this process, by Session id. */
  private readonly wired = new Map<string, { agent: Agent; owner: BotSessionOwner }>()
  /** The team's project's folder and git folder (as named and real): no Bot's own folder lies inside or over them. */
  private projectFolders: string[] = []
  private readonly toolOffers = new Set<ToolOffer>()
  private readonly offeredOn = new Map<Agent, Map<ToolOffer, Array<() => void>>>()

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botRoster')
    this.config = Config.parse(config)
    this.onAgents = new AgentRegistrations(ctx, 'bot-roster:agent-registrations')
    this.parts = new PartRoles(this.config.dir)
    this.sessions = new SessionOpener(this.ctx, { workspace: this.config.workspace, defaultModel: this.config.defaultModel })
    this.index = new SessionIndex(this.store.state)
    this.pickers = new PickerSync(this.ctx, {
      store: this.store,
      ownerOf: (sid) => this.ownerOf(sid),
      sessionsOf: (botId) => this.sessionsOf(botId),
      turnOf: (sid) => this.turns.current(sid),
      turnBegan: (sid, turn) => this.turns.began(sid, turn),
      record: (text, botId) => this.record(text, botId),
    })
    this.shell = new ShellGuard(this.ctx, {
      botOf: (sid) => this.workerOf(sid),
      levelOf: (sid) => this.networkOf(sid) ?? 'none',
      confinedBots: () =>
        liveBotList(this.state).flatMap((b) => {
          const level = this.levelOfBot(b)
          return level === 'full' ? [] : [{ id: b.id, name: b.name, level }]
        }),
      keepOf: (botId) => this.networkKeep(botId),
      folderProblem: (botId, cwd, sessionId) => {
        const bot = this.state.bots[botId]
        return bot ? this.folderProblem(bot, cwd, sessionId !== undefined && this.ownerOf(sessionId)?.kind === 'task' ? 'task' : 'own') : undefined
      },
      record: (text, botId) => this.record(text, botId),
    })
  }

  private get store(): BotStore {
    return this.ctx.botStore
  }

  async [Service.init](): Promise<void> {
    mkdirSync(this.config.workspace, { recursive: true })
    this.workspaceReal = realpathSync(this.config.workspace)
    this.index.rebuild(this.store.state)
    this.store.subscribe((state) => {
      this.index.rebuild(state)
      this.tellRoleChanges()
    })
    this.offerTools(this.ctx, { kinds: ['own'], tools: ({ offer }) => botTools(this, offer) })
    this.ctx.on('agent/created', ({ agent }) => this.onAgentCreated(agent))
    this.ctx.on('agent/disposed', ({ agent }) => {
      this.offeredOn.delete(agent)
      for (const [sessionId, s] of this.wired) {
        if (s.agent !== agent) continue
        this.wired.delete(sessionId)
        this.frozen.delete(sessionId)
      }
    })
    // A checkpoint rewrites the conversation in place: the part's role and team section are frozen anew there.
    this.ctx.on('session/event', (session, event) => {
      const type: string = event.type // `compaction/summary` is a compaction package's event, outside the core map
      if (type === 'compaction/summary') this.renewPart(String(session.id))
    })
    this.pickers.start()
    this.shell.start()
    // Where Bots have a sandboxed shell, a protected folder inside what workspace-write may write is theirs to rewrite.
    this.ctx.inject(['sandbox'], () => this.warnWritableProtected())
    this.sessions.disposeWithFiber('bot-roster:sessions')
    // Bot agents DSH created before this service started (their `agent/created` went by) get the
    // same wiring now, so the services that start after this one find them attached.
    for (const { agent } of this.openSessions({ kinds: ['own', 'member'] })) {
      try {
        this.onAgentCreated(agent)
      } catch {
        // Too late to veto, the agent is live: a Session this process may not run (recorded, with
        // a takeover asked) stays without the team's wiring.
      }
    }
    // Becoming the writer later (taking over, or a web app that came up after this plugin) makes
    // sure the team is whole: a Main Bot, and an own chat for every Bot.
    this.ctx.on('bot-team/writer', ({ from }) => {
      if (from === null && this.teamChecked) return
      this.teamChecked = false
      this.tookOver()
    })
    if (!this.store.isWriter()) return
    this.teamChecked = true
    // Inside DSH, wait until the whole plugin tree is up: in the web profile the Main Bot's chat
    // must be created through DSH Web's api proxy, which may activate after this plugin.
    afterBoot(this.ctx, () =>
      this.ensureTeam().catch((error: unknown) => {
        this.record(`could not set up the team: ${errorText(error)}`)
      }),
    )
  }

  // ── reading ─────────────────────────────────────────────────────────────────────────────────

  get state(): Readonly<TeamState> {
    return this.store.state
  }

  /** Live Bots, Main Bots first, then by name. */
  bots(): Bot[] {
    return liveBotList(this.state).sort((a, b) => Number(b.main) - Number(a.main) || a.name.localeCompare(b.name))
  }

  /** Live groups, by name (read for `list_bots`; the rooms service owns them). */
  groups(): Group[] {
    return liveGroupList(this.state).sort((a, b) => a.name.localeCompare(b.name))
  }

  bot(id: string): Bot | undefined {
    const bot = own(this.state.bots, id)
    return bot && !bot.deleted ? bot : undefined
  }

  /** A live Bot by id or (case-insensitive) name. */
  find(ref: string): Bot | undefined {
    return byRef(liveBotList(this.state), ref)
  }

  /**
   * Whose a Session is, when it is a Bot's (a live or deleted Bot's own chat, or its Session in a
   * group), including Sessions being opened right now. Room Sessions: `roomOf`.
   */
  ownerOf(sessionId: string): BotSessionOwner | undefined {
    const owner = this.index.get(sessionId)
    return owner && owner.kind !== 'room' ? owner : undefined
  }

  /**
   * The live Bot a Session works for: a Bot Session's owner, or the owner of the Bot Session that
   * started it (a sub-agent, through its parent Sessions).
   */
  workerOf(sessionId: string): Bot | undefined {
    let sid: string | undefined = sessionId
    for (let depth = 0; sid !== undefined && depth < 16; depth++) {
      const owner = this.ownerOf(sid)
      if (owner) return this.bot(owner.botId)
      sid = this.ctx.agents.get(SessionId(sid))?.session.header.parentSession
    }
    return undefined
  }

  /** Warn when the DSH home or the team folder lies where every Bot at workspace-write may write (`/tmp`). */
  private warnWritableProtected(): void {
    const writable = [...new Set(WORKSPACE_WRITE_EXTRAS.flatMap((w) => [w, real_(w)]))]
    for (const folder of this.config.protectedFolders) {
      const above = writableAbove(real_(folder), writable)
      if (above)
        warn(
          this.ctx,
          `${folder} lies under ${above}, which DSH's sandbox lets every Bot at workspace-write write: a Bot's shell could rewrite team state or pair itself there. Move DSH_HOME (or the plugin's dir) out of ${above}.`,
          undefined,
          'writable-home',
        )
    }
  }

  /** Whether this machine can give Bots a network of their own (`botNetwork`'s start-up probe). */
  networkProbe(): ProbeResult {
    return this.ctx.get('botNetwork')?.probe() ?? { state: 'checking' }
  }

  /**
   * A Bot's own network level: the person's setting; none set (a Bot on a custom preset the v8 step
   * left alone), `full` when its preset runs at danger-full-access, else the default.
   */
  levelOfBot(bot: Readonly<Bot>): NetworkLevel {
    if (bot.network) return bot.network
    return this.pickers.presetMode(bot.permissionPreset) === 'danger-full-access' ? 'full' : DEFAULT_NETWORK_LEVEL
  }

  /**
   * The folders a Bot works in, never covered in its namespace sets: the team workspace, its own
   * folder, and the worktrees folder (its task Sessions work in clones there).
   */
  networkKeep(botId: string): string[] {
    const bot = this.state.bots[botId]
    return [this.workspaceReal, ...(bot?.workFolderReal ? [bot.workFolderReal] : []), ...(this.config.worktrees ? [this.config.worktrees] : [])].filter(Boolean)
  }

  /** A live Bot's own network level now (undefined: no such Bot). */
  ownNetwork(botId: string): NetworkLevel | undefined {
    const bot = this.bot(botId)
    return bot ? this.levelOfBot(bot) : undefined
  }

  /**
   * The network level a Session's current turn runs at: its Bot's own, or the strictest along the
   * turn's chain (a sub-agent's: its Bot Session's). Undefined: no live Bot works there.
   */
  networkOf(sessionId: string): NetworkLevel | undefined {
    let sid: string | undefined = sessionId
    for (let depth = 0; sid !== undefined && depth < 16; depth++) {
      const owner = this.ownerOf(sid)
      if (owner) {
        const bot = this.bot(owner.botId)
        if (!bot) return undefined
        const turn = this.turns.current(sid)
        const own = this.levelOfBot(bot)
        return turn ? turnNetwork(own, turn.origin, bot.acceptsDelegatedWork) : own
      }
      sid = this.ctx.agents.get(SessionId(sid))?.session.header.parentSession
    }
    return undefined
  }

  /** Why this machine cannot run the Bot's shell commands at its level, in one plain message (undefined: it can). */
  networkProblem(bot: Readonly<Bot>): string | undefined {
    return networkProblemText(bot.name, this.levelOfBot(bot), this.networkProbe())
  }

  /** The group whose room Session this is (also while it is being opened). */
  roomOf(sessionId: string): string | undefined {
    const owner = this.index.get(sessionId)
    return owner?.kind === 'room' ? owner.groupId : undefined
  }

  /** The Bot whose own chat (any part) this Session is. Group Sessions are not own chats. */
  botOfSession(sessionId: string): Bot | undefined {
    const owner = this.ownerOf(sessionId)
    return owner?.kind === 'own' ? own(this.state.bots, owner.botId) : undefined
  }

  /**
   * Who asks, for the authority check: the person (over HTTP: paired or not), or the Bot whose
   * Session calls — as `state` has it (pass the draft inside a save, so the check and the write agree).
   */
  caller(req: Requester, state: Readonly<TeamState> = this.state): Caller {
    if (req.kind === 'user') return { kind: 'user', ...(req.paired !== undefined ? { paired: req.paired } : {}) }
    return this.callerOf(req.sessionId, state)
  }

  /** Who a Session is, for the authority check: the Bot, in its own chat or in a group Session. */
  callerOf(sessionId: string | undefined, state: Readonly<TeamState> = this.state): Caller {
    const owner = sessionId === undefined ? undefined : this.ownerOf(sessionId)
    const bot = owner && own(state.bots, owner.botId)
    if (!bot || bot.deleted) return { kind: 'non-bot-session' }
    return { kind: bot.main ? 'main-bot' : 'bot', botId: bot.id }
  }

  /**
   * Mark a Session as the Bot's while it is being created (before team state records it), so
   * `agent/created` attaches the right identity. Returns the function that ends the mark.
   */
  opens(sessionId: string, owner: OpeningOwner): () => void {
    return this.index.opens(sessionId, owner)
  }

  /**
   * The live Bots' Sessions open in this process, of the given kinds: what a service attaches to at
   * start for the Bots the roster opened before it (`{ kinds: ['own'], current: true }`: each Bot's
   * current own chat; `{ kinds: ['own', 'member'] }`: every part and group Session).
   */
  openSessions(kinds: SessionKinds): Array<{ agent: Agent; owner: BotSessionOwner }> {
    const out: Array<{ agent: Agent; owner: BotSessionOwner }> = []
    for (const bot of this.bots()) {
      for (const { sessionId, owner } of this.index.sessionsOfKind(bot.id, kinds)) {
        const agent = this.ctx.agents.get(SessionId(sessionId))
        if (agent) out.push({ agent, owner })
      }
    }
    return out
  }

  /** Every Session id of a Bot: its own-chat parts, its group Sessions and its task Sessions. */
  sessionsOf(botId: string): readonly string[] {
    return this.index.sessionsOf(botId)
  }

  /**
   * The task Sessions the task ledger records (the task service tells them; they are not in team
   * state): `replace` after the ledger was read whole, else the Sessions of the tasks that changed.
   */
  setTaskSessions(entries: Iterable<TaskSessionEntry>, replace = false): void {
    this.index.setTaskSessions(entries, replace)
  }

  /**
   * Bot-started turns running or about to run, in every Bot Session (own chats, group and task
   * Sessions): a running turn whose opener was a chain, or an idle agent whose inbox already holds
   * Bot-started work (handed over, not yet claimed). What `team.botTurnsAtOnce` bounds.
   */
  botTurnsRunning(): number {
    let n = 0
    for (const agent of this.ctx.agents.list()) {
      const sessionId = String(agent.id)
      if (
        agent.status === 'running'
          ? this.turnOf(sessionId)?.origin.kind === 'chain'
          : agent.inbox.nextTurn.some((m) => chainOf(readSource(m.source)) !== undefined)
      )
        n++
    }
    return n
  }

  /** The authority check with the target facts this service knows filled in. */
  check(caller: Caller, action: TeamAction, target: Target = {}): Decision {
    const bot = target.botId ? this.bot(target.botId) : undefined
    return decide(caller, action, { ...target, ...(bot ? { botIsMain: bot.main } : {}) })
  }

  /** Models a Bot can be given, as `provider/model`, from DSH's LLM runtime when present. */
  async models(): Promise<string[]> {
    const llm = this.ctx.get('llm')
    if (!llm) return []
    const out: string[] = []
    for (const provider of llm.listProviders()) {
      try {
        for (const m of await llm.listModels(provider.id)) out.push(`${provider.id}/${m.id}`)
      } catch {
        // a provider that cannot list its models offers none here
      }
    }
    return out
  }

  /**
   * Refuse a model DSH does not serve: DSH's own check (`resolveModelInfo`: no adapter owns its
   * provider route — what turns a Bot's next prompt into `model-unavailable`). A provider's list of
   * models is advisory in DSH (an endpoint may serve ids it does not list), so it is not required.
   * The refusal names the models DSH lists. Without DSH's LLM runtime nothing is checked.
   */
  private async requireServed(model: string, notDone: string): Promise<void> {
    const llm = this.ctx.get('llm')
    const route = parseModel(model)
    if (!llm || !route) return
    try {
      await llm.resolveModelInfo(route.provider, route.model)
      return
    } catch {
      // not served: refused below, with the list
    }
    const models = await this.models()
    const shown = models.slice(0, MODELS_LISTED)
    const list = shown.length
      ? `${shown.join(', ')}${models.length > shown.length ? ` and ${models.length - shown.length} more (list_models)` : ''}`
      : '(none listed)'
    throw new RosterRefusal(
      'invalid',
      `${notDone}: DSH does not serve the model "${model}". The models it serves: ${list}. Leave the model out for DSH's default.`,
    )
  }

  activity(): readonly RosterActivity[] {
    return [...this.activityLog]
  }

  private record(text: string, botId?: string): void {
    this.activityLog.push({ at: new Date().toISOString(), text, ...(botId ? { botId } : {}) })
    if (this.activityLog.length > MAX_ACTIVITY) this.activityLog.shift()
  }

  // ── the team: first Main Bot, every Bot has a Session ────────────────────────────────────────

  /**
   * Make sure the team has a Main Bot and every live Bot has its own chat. Writer only; idempotent
   * (a crash between recording a Bot and opening its Session is repaired here at the next start).
   */
  ensureTeam(): Promise<void> {
    this.bootstrapping ??= (async () => {
      try {
        if (!liveBotList(this.state).some((b) => b.main)) {
          await this.create({ kind: 'user' }, { name: this.config.mainBotName, role: 'Lead', main: true }, { system: true })
          this.record(`created the first Main Bot, ${this.config.mainBotName}`)
        }
        for (const bot of liveBotList(this.state)) {
          if (!currentPart(bot)) await this.openOwnChat(bot.id)
        }
        await this.tellNetworkUpgrade()
      } finally {
        this.bootstrapping = undefined
      }
    })()
    return this.bootstrapping
  }

  /**
   * The person is told once what the v8 step gave each Bot, and why: a line in the Main Bot's chat
   * (read at its next turn) and on the terminal; then the record goes.
   */
  private async tellNetworkUpgrade(): Promise<void> {
    const upgrade = this.state.networkUpgrade
    if (!upgrade) return
    const why = {
      'danger-full-access': 'it runs at danger-full-access, unconfined',
      'no-network': 'its network was switched off',
      default: 'the default',
    } as const
    const lines = upgrade.bots.flatMap((b) => {
      const bot = this.bot(b.botId)
      return bot ? [`${bot.name}: ${b.level} (${why[b.why]})`] : []
    })
    const text = `[Bot Team] Every Bot now has a network of its own. At "internet" a Bot's shell reaches the internet but never this machine, its loopback (DSH's own /api) or the local network; at "none" nothing; at "full" the machine's whole network. After the upgrade: ${lines.join('; ')}. The person sets a Bot's level on the team page.`
    const main = this.bots().find((b) => b.main)
    const agent = main ? await this.agentOf(main.id).catch(() => undefined) : undefined
    agent?.inject(createUserMessage({ content: [{ type: 'text', text }], source: networkNoticeSource(text) }))
    warn(this.ctx, text.replace('[Bot Team] ', ''), undefined, 'network')
    await this.store.update((s) => {
      delete s.networkUpgrade
    })
  }

  // ── changing Bots ───────────────────────────────────────────────────────────────────────────

  private require(caller: Caller, action: TeamAction, target: Target = {}): void {
    const verdict = this.check(caller, action, target)
    if (!verdict.allowed) throw new RosterRefusal('forbidden', verdict.reason)
  }

  /** `require` inside a save: the facts were read off the draft, so `decide` alone answers. */
  private requireIn(caller: Caller, action: TeamAction, target: Target): void {
    const verdict = decide(caller, action, target)
    if (!verdict.allowed) throw new RosterRefusal('forbidden', verdict.reason)
  }

  private async writable(): Promise<void> {
    await this.store.claim()
    if (!this.store.isWriter()) {
      throw new RosterRefusal('unavailable', `The team cannot be changed from this process: ${this.store.status().message}`)
    }
    this.tookOver()
  }

  /** After this process became the writer (at start or by taking over), make sure the team is whole. */
  private tookOver(): void {
    if (this.teamChecked) return
    this.teamChecked = true
    void this.ensureTeam().catch((error: unknown) => this.record(`could not set up the team: ${errorText(error)}`))
  }

  /**
   * Whether a requester acts in a turn the person opened: the person always; a Bot only from a
   * turn whose first step entered a message of the person (`TurnTracker`; a steered one does not count).
   */
  personOpened(req: Requester): boolean {
    return req.kind === 'user' || this.turns.current(req.sessionId)?.origin.kind === 'person'
  }

  /** The facts of a Bot-requested change about its turn: who opened it, and the mode it runs at. */
  private turnFacts(req: Requester): { userAsked: boolean; turnMode?: SandboxMode } {
    if (req.kind === 'user') return { userAsked: true }
    const mode = this.modeOf(req.sessionId)
    return { userAsked: this.personOpened(req), ...(mode ? { turnMode: mode } : {}) }
  }

  /** True when a Bot would get `preset` and it is above `turnMode` (a Bot-requested change only). */
  private aboveTurn(turnMode: SandboxMode | undefined, preset: string): boolean {
    return turnMode !== undefined && raises(turnMode, this.pickers.presetMode(preset))
  }

  /** Bots and groups created from one turn so far (the per-turn creation cap). */
  private readonly creations = new Map<string, { turn: number; count: number }>()

  /**
   * Count one creation (a Bot or a group) by the turn a tool call runs in; refused past the cap.
   * Bots and groups share the cap: a turn that keeps creating is stopped either way.
   */
  noteCreation(sessionId: string, what: 'Bots' | 'groups'): void {
    const turn = this.turns.current(sessionId)?.turn ?? -1
    const entry = this.creations.get(sessionId)
    const count = entry && entry.turn === turn ? entry.count : 0
    const { createsPerTurn } = this.ctx.botLimits.inForce()
    if (count >= createsPerTurn) {
      throw new RosterRefusal(
        'limit',
        `One turn may create at most ${createsPerTurn} Bots and groups, and this turn already created ${count}; no more ${what} now. Finish this turn; the user can ask for more.`,
      )
    }
    this.creations.set(sessionId, { turn, count: count + 1 })
  }

  /**
   * The chain a Bot-started piece of work carries when a Bot starts it from its current turn in a
   * Session (one hop deeper, the turn's work budget, the Bot's turn mode). Outside a turn (the
   * agent is not running) the Bot starts a chain of its own: hop 1, no budget.
   */
  chainFrom(sessionId: string): Chain {
    const running = this.ctx.agents.get(SessionId(sessionId))?.status === 'running'
    return this.chainAfter(sessionId, running ? this.turns.current(sessionId) : undefined)
  }

  /** The chain of what the turn that just ran in a Session sends back (replies), at its turn end. */
  replyChain(sessionId: string): Chain {
    return this.chainAfter(sessionId, this.turns.current(sessionId))
  }

  private chainAfter(sessionId: string, turn: TurnInfo | undefined): Chain {
    const mode = this.modeOf(sessionId)
    const network = this.networkOf(sessionId)
    return {
      hop: (turn?.origin.kind === 'chain' ? turn.origin.chain.hop : 0) + 1,
      ...(turn?.budget ? { budget: turn.budget } : {}),
      ...(mode ? { mode } : {}),
      ...(network ? { network } : {}),
    }
  }

  /**
   * Create a Bot and open its own chat. The input is validated first; who may create what is
   * decided inside the save, against the team being written (`system` skips it: first start only).
   */
  async create(req: Requester, raw: unknown, opts: { system?: boolean } = {}): Promise<Bot> {
    const parsed = BotCreateInput.safeParse(raw)
    if (!parsed.success) throw new RosterRefusal('invalid', `The Bot was not created: ${formatIssues(parsed.error)}`)
    const input = parsed.data
    const turn = this.turnFacts(req)
    let workFolderReal: string | undefined
    // DSH's own check of a route, before the save (it is asynchronous; the save is not).
    if (input.model) await this.requireServed(input.model, 'The Bot was not created')
    await this.writable()
    let created: Bot | undefined
    await this.store.update((s) => {
      const caller = this.caller(req, s)
      if (!opts.system) {
        const callerBot = caller.botId ? own(s.bots, caller.botId) : undefined
        const base = caller.kind === 'user' ? DEFAULT_PERMISSION_PRESET : callerBot?.permissionPreset
        this.requireIn(caller, 'create_bot', {
          ...turn,
          raisesPreset: base !== undefined && raises(this.pickers.presetMode(base), this.pickers.presetMode(input.permissionPreset)),
          exceedsTurnMode: this.aboveTurn(turn.turnMode, input.permissionPreset),
          makesMain: input.main,
          hides: input.hidden,
          setsWorkFolder: input.workFolder !== undefined,
        })
      }
      // The folder is checked once the caller may set one (a Bot is told whose act it is, not why the folder is bad).
      if (input.workFolder !== undefined) workFolderReal = requireFolder(input.workFolder, 'The Bot was not created', this.folderRules())
      // Invariants are checked here, inside the save, so parallel requests cannot both pass them.
      if (nameTaken(input.name, s.bots))
        throw new RosterRefusal('invalid', `The Bot was not created: a Bot named "${input.name}" already exists. Choose another name.`)
      const lookalike = lookalikeOf(input.name, s)
      if (lookalike)
        throw new RosterRefusal(
          'invalid',
          `The Bot was not created: "${shownName(input.name)}" looks like ${shownName(lookalike)} (their letters are confusable). Choose another name.`,
        )
      const live = Object.values(s.bots).filter((b) => !b.deleted).length
      const { maxBots } = this.ctx.botLimits.inForce(s.limits)
      if (live >= maxBots)
        throw new RosterRefusal(
          'limit',
          `The Bot was not created: the team already has ${live} Bots (limit ${maxBots}). Delete a Bot first, or raise the limit in Team settings.`,
        )
      if (req.kind === 'bot') this.noteCreation(req.sessionId, 'Bots')
      // danger-full-access runs commands unconfined: it means `full`. A Bot never gives a new Bot more network than its own turn has.
      const presetLevel: NetworkLevel = this.pickers.presetMode(input.permissionPreset) === 'danger-full-access' ? 'full' : DEFAULT_NETWORK_LEVEL
      const network = strictestLevel(presetLevel, req.kind === 'bot' ? (this.networkOf(req.sessionId) ?? 'none') : undefined)!
      if (network !== 'full' && presetLevel === 'full')
        throw new RosterRefusal(
          'forbidden',
          `The Bot was not created: danger-full-access gives its commands the machine's whole network, and this turn runs at network "${network}". The person can create it on the paired team page.`,
        )
      const id = allocateId(s, 'bot')
      created = {
        id,
        name: input.name,
        role: input.role,
        instructions: input.instructions,
        ...(input.model ? { model: input.model } : {}),
        ...(input.workFolder ? { workFolder: input.workFolder, workFolderReal } : {}),
        avatar: input.avatar,
        colour: input.colour,
        permissionPreset: input.permissionPreset,
        pinned: input.pinned,
        hidden: input.hidden,
        createdBy: caller.botId ?? 'user',
        createdAt: new Date().toISOString(),
        main: input.main,
        acceptsDelegatedWork: false,
        network,
        sessionParts: [],
      }
      s.bots[id] = created
    })
    this.record(`created Bot ${input.name}`, created!.id)
    await this.openOwnChat(created!.id)
    return this.state.bots[created!.id]!
  }

  /**
   * Change a Bot. The patch is validated first; who may change what is decided inside the save,
   * against the Bot as it is being written (a body held open while the person changed the Bot is
   * judged against the person's change, never against what the Bot was when the request began).
   */
  async update(req: Requester, ref: string, raw: unknown): Promise<Bot> {
    const bot = this.find(ref)
    if (!bot) throw new RosterRefusal('not-found', `No Bot named or with id "${ref}". Call list_bots to see the team.`)
    const parsed = BotUpdateInput.safeParse(raw as BotUpdateRaw)
    if (!parsed.success) throw new RosterRefusal('invalid', `Bot ${bot.name} was not changed: ${formatIssues(parsed.error)}`)
    const patch = parsed.data
    const turn = this.turnFacts(req)
    let workFolderReal: string | undefined
    let levelBefore: NetworkLevel | undefined
    if (typeof patch.model === 'string' && patch.model !== bot.model) await this.requireServed(patch.model, `Bot ${bot.name} was not changed`)
    await this.writable()
    await this.store.update((s) => {
      const b = own(s.bots, bot.id)
      if (!b || b.deleted) throw new RosterRefusal('not-found', `Bot ${bot.name} was deleted meanwhile; nothing was changed.`)
      const caller = this.caller(req, s)
      const preset = patch.permissionPreset
      const mode = (p: string) => this.pickers.presetMode(p)
      const lowers = preset !== undefined && raises(mode(preset), mode(b.permissionPreset))
      this.requireIn(caller, 'update_bot', {
        ...turn,
        botId: b.id,
        raisesPreset: preset !== undefined && raises(mode(b.permissionPreset), mode(preset)),
        exceedsTurnMode: preset !== undefined && !lowers && this.aboveTurn(turn.turnMode, preset),
        makesMain: patch.main === true && !b.main,
        hides: patch.hidden === true && !b.hidden,
        setsWorkFolder: patch.workFolder !== undefined,
        changesInstructions: patch.instructions !== undefined && patch.instructions !== b.instructions,
        wouldRemoveLastMain: patch.main === false && b.main && this.mainCount(s) === 1,
      })
      if (typeof patch.workFolder === 'string') workFolderReal = requireFolder(patch.workFolder, `Bot ${bot.name} was not changed`, this.folderRules())
      if (patch.name !== undefined && nameTaken(patch.name, s.bots, bot.id)) {
        throw new RosterRefusal('invalid', `Bot ${bot.name} was not changed: a Bot named "${patch.name}" already exists.`)
      }
      const lookalike = patch.name === undefined ? undefined : lookalikeOf(patch.name, s, bot.id)
      if (lookalike)
        throw new RosterRefusal(
          'invalid',
          `Bot ${shownName(bot.name)} was not changed: "${shownName(patch.name!)}" looks like ${shownName(lookalike)} (their letters are confusable).`,
        )
      // danger-full-access runs commands unconfined: it means `full` (a raise is the person's alone, see `decide`).
      levelBefore = this.levelOfBot(b)
      if (levelBefore !== 'full' && preset !== undefined && raises('workspace-write', mode(preset))) {
        b.network = 'full'
      }
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue
        if (key === 'model' && value === null) delete b.model
        else if (key === 'workFolder' && value === null) delete b.workFolder
        else (b as Record<string, unknown>)[key] = value
      }
      if (patch.workFolder === null) delete b.workFolderReal
      else if (workFolderReal !== undefined) b.workFolderReal = workFolderReal
    })
    const updated = this.state.bots[bot.id]!
    this.record(
      `changed Bot ${updated.name}: ${Object.keys(patch).join(', ')}${patch.workFolder !== undefined ? ' (the working folder applies from its next part)' : ''}`,
      bot.id,
    )
    if (patch.permissionPreset !== undefined) await this.pickers.applyEverywhere(updated)
    if (levelBefore !== undefined && levelBefore !== this.levelOfBot(updated)) {
      warn(this.ctx, `${updated.name} is at danger-full-access now, so its network is "full": ${LEVEL_WORDS.full}`, undefined, 'network')
      await this.applyNetwork(updated, levelBefore, this.levelOfBot(updated))
    }
    return updated
  }

  /**
   * The person's switch (paired team page only; no tool can set it): run this Bot's delegated work
   * at its own preset instead of the lowest along the chain. Decided inside the save, like any change.
   */
  async setAcceptsDelegatedWork(req: Requester, ref: string, accepts: boolean): Promise<Bot> {
    const bot = this.find(ref)
    if (!bot) throw new RosterRefusal('not-found', `No Bot named or with id "${ref}".`)
    await this.writable()
    await this.store.update((s) => {
      const b = own(s.bots, bot.id)
      if (!b || b.deleted) throw new RosterRefusal('not-found', `Bot ${bot.name} was deleted meanwhile; nothing was changed.`)
      this.requireIn(this.caller(req, s), 'update_bot', { ...this.turnFacts(req), botId: b.id, setsDelegatedWork: true })
      b.acceptsDelegatedWork = accepts
    })
    this.record(`${bot.name} ${accepts ? 'now runs' : 'no longer runs'} delegated work at its own preset (set by the person)`, bot.id)
    return this.state.bots[bot.id]!
  }

  // ── settings held for the person's confirmation ─────────────────────────────────────────────

  /** Settings kept lowered until the person confirms them: a restore's, and folders set before v4. */
  held(): readonly HeldItem[] {
    return this.state.held ?? []
  }

  /**
   * The person confirms a held setting (paired team page only): it takes effect as it was saved —
   * the preset, the delegated-work flag, the working folder (checked again now, its real path
   * stored), the schedule's next due time. A held item of a deleted Bot or schedule just goes.
   */
  async confirmHeld(req: Requester, id: string): Promise<HeldItem> {
    return this.settleHeld(req, id, true)
  }

  /** The person lets a held setting go: it stays lowered (the preset, flag and folder as they are now; the schedule not due). */
  async dismissHeld(req: Requester, id: string): Promise<HeldItem> {
    return this.settleHeld(req, id, false)
  }

  private async settleHeld(req: Requester, id: string, confirm: boolean): Promise<HeldItem> {
    if (this.caller(req).kind !== 'user') throw new RosterRefusal('forbidden', 'Only the person, on the paired team page, confirms a held setting.')
    const item = this.held().find((h) => h.id === id)
    if (!item) throw new RosterRefusal('not-found', `No held setting with id "${id}".`)
    // The project is named again through the task service (the whole check of PUT /project).
    if (item.kind === 'project') throw new RosterRefusal('invalid', `The held setting "${id}" is the team's project; the task service settles it.`)
    const bot = 'botId' in item ? this.bot(item.botId) : undefined
    let folderReal: string | undefined
    if (confirm && bot && item.kind === 'work-folder')
      folderReal = requireFolder(item.folder, `The working folder of Bot ${bot.name} was not confirmed`, this.folderRules())
    const levelBefore = bot ? this.levelOfBot(bot) : undefined
    await this.writable()
    await this.store.update((s) => {
      const rest = (s.held ?? []).filter((h) => h.id !== id)
      if (rest.length === (s.held ?? []).length) throw new RosterRefusal('not-found', `The held setting "${id}" was settled meanwhile.`)
      if (rest.length) s.held = rest
      else delete s.held
      if (!confirm) return
      const b = 'botId' in item ? own(s.bots, item.botId) : undefined
      if (b?.deleted) return
      if (b && item.kind === 'preset') {
        b.permissionPreset = item.preset
        // danger-full-access means `full` (confirmed by the person).
        if (raises('workspace-write', this.pickers.presetMode(item.preset)) && this.levelOfBot(b) !== 'full') {
          b.network = 'full'
        }
      } else if (b && item.kind === 'delegated-work') b.acceptsDelegatedWork = true
      else if (b && item.kind === 'work-folder') Object.assign(b, { workFolder: item.folder, workFolderReal: folderReal })
      else if (item.kind === 'schedule') {
        const task = s.schedules?.find((t) => t.id === item.scheduleId)
        if (task && item.nextDueAt) task.nextDueAt = item.nextDueAt
      }
    })
    this.record(`${confirm ? 'the person confirmed' : 'the person let go'} a held ${heldText(item, (botId) => this.state.bots[botId]?.name)}`, bot?.id)
    if (confirm && bot && item.kind === 'preset') {
      const now = this.state.bots[bot.id]!
      await this.pickers.applyEverywhere(now)
      if (levelBefore !== undefined) await this.applyNetwork(now, levelBefore, this.levelOfBot(now))
    }
    return item
  }

  /**
   * The person's network level for a Bot (paired team page only; no tool can set it). `internet`
   * and `none` cap its preset at workspace-write (a higher one is lowered now: danger-full-access
   * runs commands unconfined). `internet` ↔ `none` applies live (its namespaces keep their
   * processes, the user-mode stack goes or comes back); a change to or from `full` applies to new
   * commands: its namespaces end with every process in them, and its open terminals and background
   * jobs are ended, with a notice in its chat.
   */
  async setNetwork(req: Requester, ref: string, level: NetworkLevel): Promise<Bot> {
    if (this.caller(req).kind !== 'user') throw new RosterRefusal('forbidden', "Only the person, on the paired team page, sets a Bot's network.")
    const bot = this.find(ref)
    if (!bot) throw new RosterRefusal('not-found', `No Bot named or with id "${ref}".`)
    await this.writable()
    let lowered: string | undefined
    let before: NetworkLevel = this.levelOfBot(bot)
    await this.store.update((s) => {
      const b = own(s.bots, bot.id)
      if (!b || b.deleted) throw new RosterRefusal('not-found', `Bot ${bot.name} was deleted meanwhile; nothing was changed.`)
      before = this.levelOfBot(b)
      b.network = level
      if (level !== 'full' && raises('workspace-write', this.pickers.presetMode(b.permissionPreset))) {
        lowered = b.permissionPreset
        b.permissionPreset = 'workspace-write'
      }
    })
    const updated = this.state.bots[bot.id]!
    this.record(
      `${bot.name}'s network is now "${level}" (${LEVEL_WORDS[level]}; set by the person)${lowered ? `; its preset ${lowered} was lowered to workspace-write` : ''}`,
      bot.id,
    )
    if (lowered) await this.pickers.applyEverywhere(updated)
    await this.applyNetwork(updated, before, level)
    const problem = this.networkProblem(updated)
    if (problem) warn(this.ctx, problem, undefined, 'network')
    return updated
  }

  /** Carry a level change to what runs: live for `internet` ↔ `none`; to or from `full`, what ran at the old level ends. */
  private async applyNetwork(bot: Readonly<Bot>, from: NetworkLevel, to: NetworkLevel): Promise<void> {
    if (from === to) return
    const network = this.ctx.get('botNetwork')
    if (from !== 'full' && to !== 'full') {
      await network?.setOnline(botOwner(bot.id), to === 'internet')
      return
    }
    // DSH's own terminals and jobs first (they are told why), then whatever else ran in the old sets.
    const ended = await this.endShells(bot, `${bot.name}'s network changed from "${from}" to "${to}"`)
    network?.endOwner(botOwner(bot.id))
    if (!ended) return
    const text = `[Bot Team] The person changed your network from "${from}" to "${to}" (${LEVEL_WORDS[to]}). Your open terminals and background jobs were ended (${ended}); start them again if you still need them.`
    const agent = this.store.isWriter() ? await this.agentOf(bot.id).catch(() => undefined) : undefined
    agent?.inject(createUserMessage({ content: [{ type: 'text', text }], source: networkNoticeSource(text) }))
  }

  /** End the open terminals and background jobs of every live Session of a Bot; how many were ended. */
  private async endShells(bot: Readonly<Bot>, why: string): Promise<number> {
    const terminals = this.ctx.get('terminals')
    const jobs = this.ctx.get('jobs')
    let ended = 0
    for (const sessionId of this.sessionsOf(bot.id)) {
      const agent = this.ctx.agents.get(SessionId(sessionId))
      if (!agent) continue
      for (const t of terminals?.list(agent) ?? []) if (await terminals!.kill(agent, t.id, why).catch(() => false)) ended++
      for (const j of jobs?.list(agent) ?? []) if (j.status === 'running' && jobs!.kill(j.id, agent, why) === 'requested') ended++
    }
    return ended
  }

  private mainCount(state: Readonly<TeamState>): number {
    return Object.values(state.bots).filter((b) => !b.deleted && b.main).length
  }

  /**
   * Delete = stop all activity: mark the Bot deleted (its data stays), cancel its running turns and
   * drop what is queued for it (recorded), archive its Sessions, and tell the other services.
   */
  async delete(req: Requester, ref: string, reason: string): Promise<Bot> {
    const caller = this.caller(req)
    const bot = this.find(ref)
    if (!bot) throw new RosterRefusal('not-found', `No Bot named or with id "${ref}". Call list_bots to see the team.`)
    const why = String(reason ?? '').trim()
    if ([...why].length > REASON_MAX)
      throw new RosterRefusal('invalid', `The reason is longer than ${REASON_MAX} characters; say it in a sentence. Nothing was deleted.`)
    const facts = { botId: bot.id, userAsked: this.personOpened(req), wouldRemoveLastMain: bot.main && this.mainCount(this.state) === 1 }
    this.require(caller, 'delete_bot', facts)
    await this.writable()
    const at = new Date().toISOString()
    await this.store.update((s) => {
      const b = own(s.bots, bot.id)
      if (!b || b.deleted) throw new RosterRefusal('not-found', `Bot ${bot.name} is already deleted.`)
      if (b.main && this.mainCount(s) === 1) throw new RosterRefusal('forbidden', lastMainReason(caller, 'delete_bot', bot.id))
      b.deleted = { at, by: caller.botId ?? 'user' }
    })
    await this.stopActivity(bot, why || 'no reason given')
    this.ctx.emit('bot-team/bot-deleted', { botId: bot.id, by: caller, reason: why || 'no reason given' })
    return this.state.bots[bot.id]!
  }

  private async stopActivity(bot: Bot, reason: string): Promise<void> {
    for (const sessionId of this.sessionsOf(bot.id)) {
      const dropped = await this.sessions.close(sessionId, `Bot ${bot.name} was deleted: ${reason}`)
      if (dropped) this.record(`dropped ${dropped} queued message(s) for deleted Bot ${bot.name}`, bot.id)
    }
    this.record(`deleted Bot ${bot.name} (${reason}); its Sessions are archived, its data kept`, bot.id)
  }

  // ── Sessions ────────────────────────────────────────────────────────────────────────────────

  /**
   * Open a new part of the Bot's own chat and record it. One at a time per Bot: a second call while
   * one is being opened (the first start's repair racing a create) gets the same part.
   */
  openOwnChat(botId: string, handoff?: PartHandoff): Promise<string> {
    const pending = this.openingChats.get(botId)
    if (pending) return pending
    const run = this.openPart(botId, handoff).finally(() => this.openingChats.delete(botId))
    this.openingChats.set(botId, run)
    return run
  }

  private readonly openingChats = new Map<string, Promise<string>>()

  private async openPart(botId: string, handoff?: PartHandoff): Promise<string> {
    const bot = this.bot(botId)
    if (!bot) throw new RosterRefusal('not-found', `No live Bot ${botId}.`)
    const sessionId = `session-${randomUUID()}`
    const previous = currentPart(bot)
    const done = this.opens(sessionId, { kind: 'own', botId })
    try {
      // A handoff part's first turn is its package (src/context/), not the bootstrap.
      await this.sessions.create(sessionId, {
        title: bot.name,
        model: bot.model,
        cwd: this.folderOf(bot),
        ...(handoff ? {} : { bootstrap: `${bot.name} joined the team.` }),
      })
      await this.store.update((s) => {
        const b = s.bots[botId]!
        const now = new Date().toISOString()
        const last = b.sessionParts.at(-1)
        if (handoff && last && !last.endedAt) Object.assign(last, { endedAt: now, endReason: handoff.endReason })
        b.sessionParts.push({
          sessionId,
          part: (last?.part ?? 0) + 1,
          startedAt: now,
          ...(handoff ? { opening: 'pending' as const, note: handoff.note, ...(handoff.resume ? { resume: true } : {}) } : {}),
        })
      })
    } finally {
      done()
    }
    // The earlier part leaves DSH Web's list; it stays in the archive and `read_own_chat`.
    if (handoff && previous) await this.sessions.archive(previous)
    return sessionId
  }

  /**
   * The folder a new Session of the Bot is created in: its working folder while that is a
   * directory, else the team's workspace (a folder removed since it was set is recorded, not fatal).
   */
  folderOf(bot: FolderOwner): string {
    let folder = this.config.workspace
    if (bot.workFolder && isDirectory(bot.workFolder)) folder = bot.workFolder
    else if (bot.workFolder)
      this.record(`${bot.name}'s working folder ${bot.workFolder} is not a folder any more; this Session uses the team workspace`, bot.id)
    const problem = this.folderProblem(bot, folder)
    if (problem) throw new RosterRefusal('unavailable', this.refuseOpen(bot, problem))
    return folder
  }

  /**
   * Why a Session of `bot` may not open in `cwd` now (links resolved on disk), or undefined when it
   * may: the real path must be the one stored when the person set the folder, lie inside the team
   * workspace's real path when it is named inside it, and stay clear of the protected folders.
   */
  folderProblem(bot: FolderOwner, cwd: string, kind: 'own' | 'task' = 'own'): string | undefined {
    const workspaceNow = realOrUndefined(this.config.workspace)
    if (workspaceNow !== this.workspaceReal)
      return `the team workspace ${this.config.workspace} now resolves to ${workspaceNow ?? 'nothing'}, not to ${this.workspaceReal}`
    const real = realOrUndefined(cwd)
    if (real === undefined) return `${cwd} does not exist`
    const named = bot.workFolder !== undefined && (cwd === bot.workFolder || cwd === bot.workFolderReal)
    return openConflict({
      cwd,
      real,
      workspace: this.config.workspace,
      workspaceReal: this.workspaceReal,
      protectedFolders: [...new Set(this.config.protectedFolders.flatMap((p) => [p, real_(p)]))],
      stored: named ? bot.workFolderReal : undefined,
      guarded: this.guarded(kind),
    })
  }

  /**
   * The folders no Bot's own folder may lie inside or over: the plugin's worktrees folder (a task
   * Session's clone lies there by design: `kind` task leaves it out) and the team's project.
   */
  private guarded(kind: 'own' | 'task'): Guarded[] {
    const out: Guarded[] = []
    if (kind === 'own' && this.config.worktrees)
      out.push({ label: "the plugin's worktrees folder", paths: [...new Set([this.config.worktrees, real_(this.config.worktrees)])] })
    if (this.projectFolders.length) out.push({ label: "the team's project", paths: this.projectFolders })
    return out
  }

  /**
   * The team's project joins the guarded folders (the task service says so when it names, holds
   * or forgets one; `null`: none). Its folder and git folder, as named and real.
   */
  protectProject(project: { path: string; gitDir: string } | null): void {
    this.projectFolders = project ? [...new Set([project.path, real_(project.path), project.gitDir, real_(project.gitDir)])] : []
  }

  /** What a working folder the person sets is checked against. */
  private folderRules() {
    return { protectedFolders: this.config.protectedFolders, workspace: this.config.workspace, guarded: this.guarded('own') }
  }

  /** Record and report a refused open; returns the message for the person. */
  private refuseOpen(bot: FolderOwner, problem: string): string {
    const message = `Bot Team: a Session of Bot ${bot.name} was not opened: ${problem}. The folder was changed after it was set (a link put in its place?); check it, then set the Bot's working folder again on the paired team page.`
    this.record(message, bot.id)
    warn(this.ctx, message, undefined, 'work-folder')
    return message
  }

  /** The live agent of the Bot's own chat, resuming it if it is cold. */
  async agentOf(botId: string): Promise<Agent> {
    const bot = this.bot(botId)
    const sessionId = bot && currentPart(bot)
    if (!bot || !sessionId) throw new RosterRefusal('not-found', `Bot ${botId} has no open chat.`)
    const live = this.ctx.agents.get(SessionId(sessionId))
    if (live) return live
    // Opening a Bot Session is a write to its log: only the process that writes the team may.
    await this.store.claim()
    if (!this.store.isWriter()) {
      throw new RosterRefusal('unavailable', `Bot ${bot.name}'s chat is not opened here: ${this.store.status().message}`)
    }
    this.tookOver()
    return this.sessions.resume(sessionId, bot.model)
  }

  // ── identity on the agent ───────────────────────────────────────────────────────────────────

  private onAgentCreated(agent: Agent): void {
    const owner = this.ownerOf(String(agent.id))
    const bot = owner && own(this.state.bots, owner.botId)
    if (!owner || !bot) return
    if (bot.deleted) {
      // A synchronous throw vetoes publication: nothing of a deleted Bot runs again.
      throw new Error(`Bot Team: this Session belonged to Bot ${bot.name}, which was deleted; it stays archived.`)
    }
    const cwd = agent.session.header.cwd
    const problem = cwd === undefined ? undefined : this.folderProblem(bot, cwd, owner.kind === 'task' ? 'task' : 'own')
    // A synchronous throw vetoes publication: a Session whose folder resolves elsewhere never runs.
    if (problem) throw new Error(this.refuseOpen(bot, problem))
    if (!this.store.isWriter()) {
      const message = `Bot Team: Bot ${bot.name}'s Session is not opened in this process, because another DSH process writes the team (${this.store.status().message}). Use the DSH window that runs the team, or close it; this process takes over on its next request.`
      this.record(message, bot.id)
      void this.store.claim()
      throw new Error(message)
    }
    this.wireBotAgent(agent, bot.id, owner)
  }

  /**
   * What every Bot Session gets, own chat and group Session alike: the turn tracker, the
   * unattended-turn guard (fail closed on an unknown preset), the delegated-mode switch, the veto
   * of any turn once the Bot is deleted, the Bot's preset and identity. The own chat adds the team
   * rules and tools; a group Session gets the room's rules and tools from the rooms service.
   */
  private wireBotAgent(agent: Agent, botId: string, owner: BotSessionOwner): void {
    const ctx = agent.ctx
    const sessionId = String(agent.id)
    const track = <T extends () => unknown>(dispose: T) => this.onAgents.add(agent, dispose)
    const current = () => this.state.bots[botId]!
    track(this.turns.track(agent))
    for (const dispose of guardUnattendedTurns(ctx, {
      turn: () => this.turns.current(sessionId),
      unknownPreset: () => this.pickers.unknownPreset(current()),
      onDenied: (who, toolName) => {
        const unknown = this.pickers.unknownPreset(current())
        this.record(
          unknown
            ? `denied an approval request of ${toolName} in ${current().name}'s chat: its permission preset "${unknown}" is not known to this DSH (fail closed); choose a known preset on the team page`
            : `denied an approval request of ${toolName} in ${current().name}'s turn started by ${who}`,
          botId,
        )
      },
      // The call waits for the person in the inbox (the task ledger), its arguments masked.
      wait: async (call) => {
        const tasks = this.ctx.get('botTasks')
        if (!tasks) return undefined
        const json = JSON.stringify(call.args ?? {}) ?? '{}'
        const masked = this.ctx.get('botSecrets')?.mask(json) ?? json
        // The person approves what they see: arguments too long to show whole never wait (the grant would cover the hidden rest).
        if (masked.length > APPROVAL_ARGS_MAX)
          return `This call cannot wait for the person's approval: its arguments are ${masked.length} characters, more than the ${APPROVAL_ARGS_MAX} an approval shows whole. Make the call shorter.`
        return tasks.approvalWaits({
          sessionId,
          botId,
          tool: call.tool,
          callId: call.callId,
          args: masked,
          key: call.key,
          reason: call.reason,
          turn: call.turn.turn,
        })
      },
      useGrant: (grant, call) => this.ctx.get('botTasks')?.useGrant(grant, { ...call, botId, sessionId }) ?? false,
    }))
      track(dispose)
    track(this.pickers.switchModes(agent, botId))
    // A deleted Bot's Session may still be woken (DSH Web keeps a closed agent alive, a message may
    // already be queued): its turn enters nothing, so no model call is made and nothing runs.
    track(
      ctx.on(
        'agent/pre-step',
        async (_payload, next) => {
          if (!current().deleted) return next()
          return { kind: 'enter', messages: [] }
        },
        { prepend: true },
      ),
    )
    this.freezePart(sessionId, owner)
    // DSH's tools this kind of Session is not offered (the preset is mounted before publication).
    const deny = DSH_TOOLS_DENIED[owner.kind].filter((name) => this.ctx.tools.get(name, agent) !== undefined)
    if (deny.length) track(ctx.tools.restrict({ deny }))
    track(ctx.systemPrompt.section({ name: IDENTITY_SECTION, order: 5, text: () => identityText(current()) }))
    if (owner.kind === 'own') track(ctx.systemPrompt.section({ name: TEAM_SECTION, order: 20, text: () => this.frozen.get(sessionId)?.team ?? '' }))
    this.wired.set(sessionId, { agent, owner })
    for (const offer of this.toolOffers) this.offerOn(offer, sessionId)
    this.tellRoleChange(sessionId)
    if (this.pickers.unknownPreset(current()))
      this.record(
        `${current().name}'s permission preset "${current().permissionPreset}" is not known to this DSH: its Sessions refuse every tool call that needs approval until a known preset is chosen`,
        botId,
      )
    void this.pickers.applyTo(agent, current())
    if (owner.kind === 'own') this.ctx.emit('bot-team/bot-attached', { bot: current(), agent })
    else if (owner.kind === 'member') this.ctx.emit('bot-team/member-attached', { bot: current(), groupId: owner.groupId, agent })
    else this.ctx.emit('bot-team/task-attached', { bot: current(), taskId: owner.taskId, agent })
  }

  // ── the role frozen with a part, and the tools it is offered ─────────────────────────────────

  /**
   * The role a Bot has on the team now, for one of its Sessions: Main or not, its standing in
   * groups (own chat: the highest over its live groups; member Session: in that group). Undefined
   * once the Bot (or that group) is deleted.
   */
  roleNow(owner: BotSessionOwner): Role | undefined {
    const bot = this.bot(owner.botId)
    if (!bot) return undefined
    // A task Session works on its task only: no standing in groups there.
    if (owner.kind === 'task') return { main: bot.main, groups: 'none', kind: 'task' }
    const groups = Object.values(this.state.groups).filter((g) => !g.deleted && (owner.kind === 'own' || g.id === owner.groupId))
    if (owner.kind === 'member' && !groups.some((g) => g.members.includes(bot.id))) return undefined
    const standing = groups.some((g) => g.admin === bot.id) ? 'admin' : groups.some((g) => g.members.includes(bot.id)) ? 'member' : 'none'
    return { main: bot.main, groups: standing, kind: owner.kind }
  }

  /** The role frozen with a Session's part (what its tools and team text were made for). */
  roleOf(sessionId: string): Role | undefined {
    return this.frozen.get(sessionId)?.role
  }

  /**
   * Offer `offer`'s tools on every Bot Session of its kinds, now and as they open, by each part's
   * frozen role; withdrawn when `ctx` (the offering service) ends.
   */
  offerTools(ctx: Context, offer: ToolOffer): void {
    ctx.effect(() => {
      this.toolOffers.add(offer)
      for (const sessionId of this.wired.keys()) this.offerOn(offer, sessionId)
      return () => {
        this.toolOffers.delete(offer)
        for (const { agent } of this.wired.values()) this.withdraw(offer, agent)
      }
    }, 'bot-roster:tool-offer')
  }

  private offerOn(offer: ToolOffer, sessionId: string): void {
    const wired = this.wired.get(sessionId)
    const record = this.frozen.get(sessionId)
    if (!wired || !record || !offer.kinds.includes(record.role.kind)) return
    const { agent, owner } = wired
    this.withdraw(offer, agent)
    const offered = offerFor(record.role)
    const disposers: Array<() => void> = []
    for (const tool of offer.tools({ agent, sessionId, owner, offer: offered })) {
      if (!TEAM_TOOLS[tool.name]) throw new Error(`Bot Team: tool ${tool.name} is not in the team's tool table (core/offer.ts)`)
      if (offered.tools.includes(tool.name)) disposers.push(this.onAgents.add(agent, once(agent.ctx.tools.register(tool))))
    }
    const byOffer = this.offeredOn.get(agent) ?? new Map<ToolOffer, Array<() => void>>()
    byOffer.set(offer, disposers)
    this.offeredOn.set(agent, byOffer)
  }

  private withdraw(offer: ToolOffer, agent: Agent): void {
    const disposers = this.offeredOn.get(agent)?.get(offer)
    if (!disposers) return
    this.offeredOn.get(agent)!.delete(offer)
    for (const dispose of disposers) {
      try {
        dispose()
      } catch {
        // the agent's scope is gone, and the tool with it
      }
    }
  }

  /** The part's frozen role: as saved with it, or frozen now (a new part, or one from before roles were saved). */
  private freezePart(sessionId: string, owner: BotSessionOwner): void {
    const saved = this.frozen.get(sessionId) ?? this.parts.read(sessionId)
    if (saved && saved.role.kind === owner.kind) this.frozen.set(sessionId, saved)
    else this.refreeze(sessionId, owner)
  }

  private refreeze(sessionId: string, owner: BotSessionOwner): PartRole | undefined {
    const role = this.roleNow(owner)
    if (!role) return undefined
    const record: PartRole = { role, team: owner.kind === 'own' ? teamText(this.state, owner.botId, role) : '' }
    this.frozen.set(sessionId, record)
    this.save(sessionId, record)
    return record
  }

  private save(sessionId: string, record: PartRole): void {
    if (!this.store.isWriter()) return
    void this.parts.write(sessionId, record).catch((error: unknown) => this.record(`could not save the role of Session ${sessionId}: ${errorText(error)}`))
  }

  /** At a checkpoint: the role and team section frozen anew, the tools offered for it. */
  private renewPart(sessionId: string): void {
    const wired = this.wired.get(sessionId)
    if (!wired) return
    const before = this.frozen.get(sessionId)
    const after = this.refreeze(sessionId, wired.owner)
    if (after && !(before && sameRole(before.role, after.role))) for (const offer of this.toolOffers) this.offerOn(offer, sessionId)
  }

  /** Whether a Session is the Bot's current own-chat part or its current Session in the group (a task Session is never told: its turn is its task's). */
  private isCurrentSession(sessionId: string, owner: BotSessionOwner): boolean {
    const bot = this.bot(owner.botId)
    if (owner.kind === 'task') return false
    if (owner.kind === 'own') return bot !== undefined && currentPart(bot) === sessionId
    return this.state.groups[owner.groupId]?.memberSessions[owner.botId] === sessionId
  }

  private tellRoleChanges(): void {
    for (const sessionId of this.wired.keys()) this.tellRoleChange(sessionId)
  }

  /**
   * A role that changed since the part was frozen takes effect at the Bot's next part or
   * checkpoint; the Bot is told once, in a line injected into its Session (it starts no turn).
   */
  private tellRoleChange(sessionId: string): void {
    const wired = this.wired.get(sessionId)
    const record = this.frozen.get(sessionId)
    const now = wired && this.isCurrentSession(sessionId, wired.owner) ? this.roleNow(wired.owner) : undefined
    if (!wired || !record || !now) return
    const text = roleChangeText(record.told ?? record.role, now, record.role)
    if (!text) return
    const { told: _, ...rest } = record
    const next: PartRole = sameRole(now, record.role) ? rest : { ...rest, told: now }
    this.frozen.set(sessionId, next)
    this.save(sessionId, next)
    wired.agent.inject(createUserMessage({ content: [{ type: 'text', text }], source: roleNoticeSource(text) }))
  }

  /** The current turn of a Bot Session: who opened it (the person or a chain), its budget. */
  turnOf(sessionId: string): TurnInfo | undefined {
    return this.turns.current(sessionId)
  }

  /**
   * The chain a Bot Session carries now (its current or last turn's, else its log's): what a turn
   * nothing opened inherits, and what a handoff carries into the next part. Undefined: none known.
   */
  sessionChain(sessionId: string): Chain | undefined {
    return this.turns.lastChain(sessionId)
  }

  /** The sandbox mode of a live Bot's own preset now (undefined: no such Bot, or a preset this DSH does not know). */
  ownMode(botId: string): SandboxMode | undefined {
    const bot = this.bot(botId)
    return bot ? this.pickers.presetMode(bot.permissionPreset) : undefined
  }

  /** The sandbox mode a Bot's current turn in a Session runs at. */
  modeOf(sessionId: string): SandboxMode | undefined {
    const owner = this.ownerOf(sessionId)
    const bot = owner && this.bot(owner.botId)
    return bot ? this.pickers.turnModeOf(sessionId, bot) : undefined
  }
}

/** Why a change that would leave the team without a Main Bot is refused, in `decide`'s words. */
function lastMainReason(caller: Caller, action: 'update_bot' | 'delete_bot', botId: string): string {
  const verdict = decide(caller, action, { botId, wouldRemoveLastMain: true, userAsked: true })
  return verdict.allowed ? 'The team must keep a Main Bot.' : verdict.reason
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** What a folder check needs of a Bot. */
type FolderOwner = Pick<Bot, 'id' | 'name' | 'workFolder' | 'workFolderReal'>

/** The real path of `path`, or `path` itself when it does not exist (yet). */
function real_(path: string): string {
  return realOrUndefined(path) ?? path
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * A working folder must exist and be a directory when it is set, and its real path must be clear
 * of the protected folders (refused with the field's name otherwise). Returns that real path, which
 * every later open compares with.
 */
function requireFolder(folder: string, what: string, where: { protectedFolders: readonly string[]; workspace: string; guarded: readonly Guarded[] }): string {
  if (!isDirectory(folder))
    throw new RosterRefusal(
      'invalid',
      `${what}: workFolder: ${JSON.stringify(folder)} is not an existing folder. Create it first, or leave the field empty for the team workspace.`,
    )
  const real = real_(folder)
  const conflict =
    folderConflict(real, [...new Set(where.protectedFolders.flatMap((p) => [p, real_(p)]))], real_(where.workspace)) ?? guardedConflict(real, where.guarded)
  if (conflict) throw new RosterRefusal('invalid', `${what}: workFolder: ${JSON.stringify(folder)} cannot be a Bot's working folder: ${conflict}.`)
  return real
}
