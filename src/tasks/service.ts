/**
 * `botTasks` — the shared task ledger as a running service: it opens the ledger's store (written
 * by the team writer only), dispatches ready tasks to their assignees' task Sessions through the
 * outbox (within the Bot-started turns at once, one running task per Bot, held while work is
 * held), ends attempts (a turn without `submit_task`, a crash, a lease run out), tells creators,
 * and keeps the ownership index and the Bots' own chats told. Transitions are the policy's;
 * authority is `decide()`'s; tools and routes are thin adapters over the methods here.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'
import { z } from 'zod'
import type { Caller, TaskAction, Target } from '../core/authority.ts'
import type { Requester } from '../core/caller.ts'
import { canStart, drawOn, lowerMode, openBudget, type Chain } from '../core/chain.ts'
import { TeamRefusal } from '../core/refusal.ts'
import { errorText } from '../core/errors.ts'
import { botOwner, type NetworkLevel, PLUGIN_OWNER, RELEASE_OWNER, strictestLevel } from '../core/network.ts'
import { systemClock, type Clock } from '../core/clock.ts'
import { answerSource, readSource, taskNoticeSource, taskReportSource, taskSource } from '../core/sources.ts'
import { clip, REASON_MAX } from '../core/text-limits.ts'
import { AgentRegistrations } from '../dsh/agent-registrations.ts'
import { afterBoot } from '../dsh/boot.ts'
import { redriveInbox } from '../dsh/session-opener.ts'
import { warn } from '../dsh/warn.ts'
import type { BotRoster, TaskSessionEntry } from '../roster/service.ts'
import { allocateId, type BotStore, type HeldItem } from '../store/index.ts'
import type { UsageRow } from '../usage/rows.ts'
import {
  type Result,
  addArtifacts,
  addTokens,
  attemptBrief,
  cancel,
  checkFailed,
  claim,
  endAttempt,
  expiredLeases,
  moveSession,
  nextReady,
  plan,
  readiness,
  reassign,
  release,
  renew,
  review,
  setWorktree,
  land,
  submit,
} from './policy.ts'
import {
  type Actor,
  type Ask,
  type Creator,
  type Intent,
  type Task,
  type TaskStatus,
  type Tokens,
  CHECK_TAIL_MAX,
  assignedBot,
  CONFLICT_PATH_MAX,
  isClosed,
  mergesOnCheck,
  personReviews,
  taskNumber,
} from './record.ts'
import { type TaskChange, type TaskReader, TaskStore, type TaskStoreStatus } from './store.ts'
import { ledgerTools, taskSessionTools } from './tools.ts'
import { ask, cancelGrant, expiredAsks, importQuestions, nextDeadline, type Settlement, settle, useGrant } from './asks.ts'
import { grantCancelledWords } from './formats.ts'
import {
  forgetProject,
  nameProject,
  placementProblem,
  PROJECT_FILE,
  projectForbidden,
  readProject,
  realForbidden,
  type TeamProject,
  WORKTREES_LABEL,
} from './project.ts'
import { type Confine, ConfineUnavailable, type GitRun } from '../worktrees/git.ts'
import { confineWith } from '../worktrees/confine.ts'
import { type Forbidden, projectTaskModeProblem } from '../worktrees/policy.ts'
import type { MergeOutcome } from '../worktrees/integration.ts'
import { type ActAs, type CheckShell, type RemoveOutcome, Worktrees } from '../worktrees/worktrees.ts'
import { type CheckSpawner, runCheck } from '../worktrees/check.ts'
import { release as releaseInto } from '../worktrees/release.ts'
import { createHash } from 'node:crypto'
import { realpath } from 'node:fs/promises'

type HeldProject = Extract<HeldItem, { kind: 'project' }>

declare module '@deepseek-ai/cordis' {
  interface Context {
    botTasks: BotTasks
  }
  interface Events {
    /** The task ledger changed (a transition here, or records another process wrote); read only. */
    'bot-team/tasks'(change: { tasks: readonly Task[]; reloaded: boolean }): void
    /** A git process of the project's clones, merges and removals finished (its arguments, exit code, wall time); read only. */
    'bot-team/git'(run: GitRun): void
  }
}

export const Config = z.object({
  /** The bot folder (absolute): the ledger lives in `<dir>/tasks`. */
  dir: z.string(),
  /** Folders a project may not lie in or hold (the DSH home, the team folder, the workspace). */
  protectedFolders: z.array(z.object({ label: z.string(), path: z.string() })).default([]),
  /** The folder holding one root per project (integration clone, task clones); absent: no project tasks. */
  worktrees: z.string().optional(),
})
export type Config = z.input<typeof Config>

const SYSTEM: Actor = Object.freeze({ kind: 'system' })
/** Where the plugin's confined steps run for a folder no live Bot owns: its own namespace set, with no network. */
const PLUGIN_AT_NONE = Object.freeze({ owner: PLUGIN_OWNER, level: 'none' as const })

/** The wrapper around the attempt's brief in the task Session (what a task turn starts from). */
export function attemptText(task: Task): string {
  return [attemptBrief(task), '', 'Do it in this turn and call submit_task when it is done: a turn that ends without it is an unsuccessful attempt.'].join('\n')
}

/** The line a Bot's own chat gets when one of its tasks starts or ends (pure). */
export function taskLine(task: Task, what: 'started' | 'ended'): string {
  const title = clip(task.title, 80)
  if (what === 'started') return `Task ${task.id} "${title}" started in its own task Session (attempt ${task.lease?.attempt ?? 1}).`
  const how = task.status === 'done' ? 'is done' : task.status === 'failed' ? 'failed' : task.status === 'cancelled' ? 'was cancelled' : 'was taken from you'
  return `Task ${task.id} "${title}" ${how}.`
}

/** What a merge's outcome writes in the task's worktree record: its state, the merge commit or the conflict (pure). */
function mergeFacts(m: MergeOutcome): NonNullable<Task['worktree']> {
  if (m.kind === 'conflict')
    return { merge: 'conflict', conflict: { paths: m.paths.map((p) => clip(p, CONFLICT_PATH_MAX)), pathCount: m.pathCount, ours: m.ours, theirs: m.theirs } }
  return { merge: 'merged', ...(m.kind === 'merged' ? { commit: m.commit } : {}), conflict: undefined }
}

/** Why a merge sent the task back: the conflicting paths and both commits, and how to resolve it in the clone (pure). */
export function conflictReason(c: { ours: string; theirs: string; paths: readonly string[]; pathCount: number }): string {
  const more = c.pathCount > c.paths.length ? ` and ${c.pathCount - c.paths.length} more` : ''
  return clip(
    `Merging your branch into the integration branch conflicts in ${c.paths.join(', ')}${more}. Integration head ${c.ours}, your head ${c.theirs}. In your clone: git fetch integration, git merge ${c.ours}, resolve, commit, then submit_task again.`,
    REASON_MAX,
  )
}

/** The task Sessions a task has (every attempt's, and where each moved), with whose they are. */
function sessionsOfTask(task: Task): TaskSessionEntry[] {
  const out = new Map<string, TaskSessionEntry>()
  const open = !isClosed(task)
  for (const a of task.attempts) {
    const botId = a.botId ?? assignedBot(task)
    if (!botId) continue
    for (const sessionId of [a.sessionId, ...(a.moved ?? [])])
      out.set(sessionId, { sessionId, botId, taskId: task.id, current: open && sessionId === task.sessionId })
  }
  return [...out.values()]
}

interface TurnOfAttempt {
  turn: number
  attempt: number
}

export class BotTasks extends Service {
  static inject = ['botStore', 'botRoster', 'botLimits', 'botPause', 'agents', 'sessions']
  static Config = Config

  private readonly config: z.output<typeof Config>
  private storeValue: TaskStore | undefined
  private clock: Clock = systemClock
  private readonly onAgents: AgentRegistrations
  private active = true
  /** Which turn of each task Session runs which attempt (from the claimed dispatch message). */
  private readonly attemptTurns = new Map<string, TurnOfAttempt>()
  /** Tokens of task Sessions' requests not yet added to their tasks (added at the turn's end). */
  private readonly tokens = new Map<string, Tokens>()
  /** Task Sessions leaving for another Session mid-turn (their turn's end does not end the attempt). */
  private readonly moving = new Set<string>()
  private pumping: Promise<void> | undefined
  private again = false
  private sweepTimer: unknown
  private readonly background = new Set<Promise<unknown>>()
  /** Tasks known to be closed (a task that closes now is not among them yet). */
  private readonly closedIds = new Set<string>()
  /** The attempts the crash check at the last start or takeover ended. */
  crashed = 0
  private projectValue: TeamProject | null = null
  /** The project's worktrees, opened at the first need (and at start when project tasks are open). */
  private worktreesValue: Promise<Worktrees> | undefined
  private projectQueue: Promise<unknown> = Promise.resolve()

  constructor(ctx: Context, config: Config) {
    super(ctx, 'botTasks')
    this.config = Config.parse(config)
    this.onAgents = new AgentRegistrations(ctx, 'bot-tasks:agent-registrations')
  }

  private get roster(): BotRoster {
    return this.ctx.botRoster
  }

  private get teamStore(): BotStore {
    return this.ctx.botStore
  }

  /** The ledger (open once the service started). */
  get store(): TaskStore {
    if (!this.storeValue) throw new Error('the task ledger is not open')
    return this.storeValue
  }

  get board(): TaskReader {
    return this.store.board
  }

  status(): TaskStoreStatus {
    return this.store.status()
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString()
  }

  /** `text` through the secrets masker (git text, check output, a Bot's words) before it is stored or served. */
  mask(text: string): string {
    return this.ctx.get('botSecrets')?.mask(text) ?? text
  }

  /** A merge's outcome with its conflicting paths masked (they come from a Bot's clone). */
  private maskedMerge(m: MergeOutcome): MergeOutcome {
    return m.kind === 'conflict' ? { ...m, paths: m.paths.map((p) => this.mask(p)), messages: m.messages.map((x) => this.mask(x)) } : m
  }

  async [Service.init](): Promise<void> {
    this.clock = this.ctx.get('botClock') ?? systemClock
    this.projectValue = await readProject(join(this.config.dir, PROJECT_FILE))
    // Named or held, the person's repository is no Bot's folder (held: it may still be named again).
    this.roster.protectProject(this.projectValue)
    const store = await TaskStore.open({
      dir: join(this.config.dir, 'tasks'),
      mayWrite: () => this.ctx.get('botStore')?.isWriter() ?? false,
      handOver: { deliver: (intent) => this.deliver(intent), delivered: (intent) => this.delivered(intent) },
      now: () => new Date(this.clock.now()),
      report: (p) => this.ctx.get('botDiagnostics')?.note({ kind: 'tasks', level: 'warn', message: `${p.code}: ${p.message}` }),
    })
    this.storeValue = store
    this.ctx.effect(
      () => () => {
        this.active = false
        if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer)
        if (this.askTimer !== undefined) this.clock.clearTimeout(this.askTimer)
        void store.close()
      },
      'bot-tasks:store',
    )
    this.roster.setTaskSessions([...store.board.all()].flatMap(sessionsOfTask), true)
    for (const t of store.board.all()) if (isClosed(t)) this.closedIds.add(t.id)
    store.subscribe((change) => this.changed(change))
    this.ctx.on('bot-team/writer', () => {
      void store.refresh().then((mode) => {
        if (mode === 'writer') this.afterTakeover()
      })
    })
    this.ctx.on('bot-team/task-attached', ({ agent, taskId }) => this.attach(agent, taskId))
    // The tools, by each Session part's frozen role (`core/offer.ts`): the task's own in its Session,
    // planning and review where `decide` could allow them.
    this.roster.offerTools(this.ctx, { kinds: ['task'], tools: ({ owner }) => (owner.kind === 'task' ? taskSessionTools(this, owner.taskId) : []) })
    this.roster.offerTools(this.ctx, { kinds: ['own'], tools: () => ledgerTools(this) })
    for (const { agent, owner } of this.roster.openSessions({ kinds: ['task'] })) if (owner.kind === 'task') this.attach(agent, owner.taskId)
    this.ctx.on('session/event', (session, event) => {
      if (event.type !== 'turn/end') return
      const sid = String(session.id)
      if (this.roster.ownerOf(sid)?.kind === 'task') this.turnEnded(sid, (event.data as { turn: number }).turn)
      // Any Bot-started turn ending frees room under the cap: held hand-overs and ready tasks may go.
      const agent = this.ctx.agents.get(SessionId(sid))
      if (agent) this.track(agent.whenIdle().then(() => this.capacity()))
    })
    this.ctx.on('bot-team/work-released', () => this.capacity())
    this.ctx.on('bot-team/bot-deleted', ({ botId, by, reason }) => {
      const actor: Actor = by.kind === 'user' ? { kind: 'user' } : by.botId ? { kind: 'bot', botId: by.botId } : SYSTEM
      this.track(
        this.transact((view) =>
          release(view, botId, { now: this.now(), actor, reason: `${this.roster.state.bots[botId]?.name ?? botId} was deleted: ${reason}` }),
        ),
      )
    })
    this.ctx.on('bot-team/usage', (row) => this.addUsage(row))
    if (store.mode === 'writer') afterBoot(this.ctx, () => this.afterTakeover())
  }

  /** Resolves when dispatch, hand-overs and the work they started here are done (tests, benches, shutdown). */
  async settled(): Promise<void> {
    for (;;) {
      await this.pumping
      await Promise.allSettled([...this.background])
      await this.store.settled()
      if (!this.pumping && !this.background.size) return
    }
  }

  private track<T>(work: Promise<T>): void {
    const tracked: Promise<unknown> = work
      .catch((error: unknown) => {
        if (this.active) warn(this.ctx, 'a task ledger step failed', error, 'tasks')
      })
      .finally(() => this.background.delete(tracked))
    this.background.add(tracked)
  }

  /** One transition on the ledger (writer only; a refusal is returned as it is). */
  transact(fn: (view: TaskReader) => Result) {
    return this.store.transact(fn)
  }

  // ── reacting to the ledger ──────────────────────────────────────────────────────────────────

  private changed(change: TaskChange): void {
    this.roster.setTaskSessions(change.tasks.flatMap(sessionsOfTask), change.reloaded)
    this.ctx.emit('bot-team/tasks', { tasks: change.tasks, reloaded: change.reloaded })
    for (const task of change.tasks) {
      if (!isClosed(task) || this.closedIds.has(task.id)) continue
      this.closedIds.add(task.id)
      if (change.source === 'local' && !change.reloaded) this.closedHere(task)
    }
    this.planSweep()
    this.planExpiry()
    this.pump()
  }

  /** A task this process closed: its Bot's own chat gets the end line, and its task Sessions end once idle. */
  private closedHere(task: Task): void {
    const botId = assignedBot(task) ?? task.attempts.at(-1)?.botId
    if (botId && task.attempts.length) this.track(this.tellOwnChat(botId, task.id, taskLine(task, 'ended')))
    for (const s of sessionsOfTask(task)) {
      const agent = this.ctx.agents.get(SessionId(s.sessionId))
      this.track((agent?.whenIdle() ?? Promise.resolve()).then(() => this.roster.sessions.close(s.sessionId, `task ${task.id} ${task.status}`)))
    }
    // A project task's clone goes once its turn is over: uncommitted work kept as a WIP commit, the branch kept unless merged.
    if (task.worktree && this.inForce()) {
      const idle = sessionsOfTask(task).map((s) => this.ctx.agents.get(SessionId(s.sessionId))?.whenIdle())
      this.track(
        Promise.all(idle)
          .then(() => this.worktrees())
          .then((w) => w.removeClone(task.id, `task ${task.status}`, this.actAs(task)))
          .then((outcome) => this.removed(task.id, outcome))
          .catch((error) => warn(this.ctx, `The clone of ${task.id} could not be removed`, error, 'worktrees')),
      )
    }
  }

  /** A line in a Bot's own chat that starts no turn (injected: read at its next turn). */
  private async tellOwnChat(botId: string, taskId: string, text: string): Promise<void> {
    if (!this.roster.bot(botId) || !this.teamStore.isWriter()) return
    const agent = await this.roster.agentOf(botId)
    agent.inject(createUserMessage({ content: [{ type: 'text', text }], source: taskNoticeSource(taskId, text) }))
  }

  // ── dispatch ────────────────────────────────────────────────────────────────────────────────

  /** Dispatch what may go now (one pass at a time; a call during a pass runs another after it). */
  private pump(): void {
    if (this.pumping) {
      this.again = true
      return
    }
    const run = (async () => {
      do {
        this.again = false
        await this.pumpOnce()
      } while (this.again && this.active)
    })()
    this.pumping = run
      .catch((error: unknown) => {
        if (this.active) warn(this.ctx, 'dispatching tasks failed', error, 'tasks')
      })
      .finally(() => {
        this.pumping = undefined
      })
  }

  /** Bot-started turns running or handed over and about to run, with the dispatches not yet handed over. */
  private turnsInUse(): number {
    return this.roster.botTurnsRunning() + this.store.pending().filter((i) => i.kind === 'dispatch').length
  }

  private mayDispatch(): boolean {
    return this.active && this.store.mode === 'writer' && this.teamStore.isWriter()
  }

  private async pumpOnce(): Promise<void> {
    if (!this.mayDispatch()) return
    const pause = this.ctx.get('botPause')
    const candidates = this.roster
      .bots()
      .map((bot) => ({ bot, task: nextReady(this.board, bot.id) }))
      .filter((c): c is { bot: (typeof c)['bot']; task: Task } => c.task !== undefined)
      .sort((a, b) => taskNumber(a.task.id) - taskNumber(b.task.id))
    for (const { bot, task } of candidates) {
      if (!this.mayDispatch()) return
      if (this.turnsInUse() >= this.ctx.botLimits.inForce().botTurnsAtOnce) return
      if (pause?.holdsBotWork({ botId: bot.id })) continue
      // A project task waits while the project is held (until the person names it again).
      if (task.worktree && this.heldProject()) continue
      await this.dispatch(task.id, bot.id)
    }
  }

  /** The chain a task's attempts run on: the planning turn's, or (the person's task) its own budget at the assignee's preset. */
  private chainOf(task: Task): Chain {
    return task.creator.kind === 'user' ? { hop: 0, budget: `budget:${task.id}` } : task.chain
  }

  /** The person's task opens its own budget at its first draw; a Bot's task draws on the planning chain's, opened when it planned. */
  private budgetOpening(task: Task): { origin: string; by?: string; at: string } | undefined {
    return task.creator.kind === 'user' ? { origin: task.id, by: 'user', at: this.now() } : undefined
  }

  /**
   * One attempt of a ready task: one draw on its chain's budget (a spent budget cancels the task,
   * its creator told), its task Session (created for this Bot on the first attempt, then reused),
   * the claim with its lease — and the outbox hands the dispatch over.
   */
  private async dispatch(taskId: string, botId: string): Promise<void> {
    const task = this.board.get(taskId)
    const bot = this.roster.bot(botId)
    if (!task || !bot || task.status !== 'ready') return
    const chain = this.chainOf(task)
    let refused: string | undefined
    await this.teamStore.update((s) => {
      const verdict = drawOn(s, chain, { limit: this.ctx.botLimits.inForce(s.limits).workBudget, open: this.budgetOpening(task) })
      if (!verdict.ok) refused = verdict.reason
    })
    if (refused) {
      await this.transact((view) => cancelForBudget(view, taskId, refused!, this.now()))
      return
    }
    const reuse = task.sessionId && this.roster.ownerOf(task.sessionId)?.botId === botId ? task.sessionId : undefined
    const sessionId = reuse ?? `session-${randomUUID()}`
    // A project task works in its own clone, on its own branch: that folder is its Session's working folder.
    let cwd = this.roster.folderOf(bot)
    if (task.worktree && !reuse) {
      const clone = await this.cloneFor(task)
      if (!clone) return
      cwd = clone
    }
    const done = reuse ? () => {} : this.roster.opens(sessionId, { kind: 'task', botId, taskId })
    try {
      if (!reuse) {
        // A clone is no workspace in DSH Web's list: the archived Session lies in no workspace (see docs/worktrees.md).
        const title = `${bot.name}: ${clip(task.title, 60)}`
        await this.roster.sessions.create(sessionId, { title, model: bot.model, cwd, ...(task.worktree ? { workspace: false as const } : {}) })
      }
      const leaseMs = this.ctx.botLimits.inForce().taskLeaseMs
      const claimed = await this.transact((view) => claim(view, taskId, { now: this.now(), actor: SYSTEM, botId, sessionId, leaseMs }))
      if (!claimed.ok && !reuse) await this.roster.sessions.close(sessionId, `task ${taskId} was not claimed: ${claimed.refusal}`)
    } finally {
      done()
    }
    // Task Sessions are hidden from DSH Web's list (its client filters archived Sessions).
    if (!reuse) await this.roster.sessions.archive(sessionId)
  }

  /** The task's clone (made from the integration head on its branch, or the one it has), its branch recorded; `null`: the task failed. */
  private async cloneFor(task: Task): Promise<string | null> {
    try {
      // The branch's name is made from the title: masked first, so no secret becomes a ref name.
      const clone = await (await this.worktrees()).createClone(task.id, this.mask(task.title))
      if (task.worktree?.branch !== clone.branch)
        await this.transact((view) => setWorktree(view, task.id, { now: this.now(), worktree: { branch: clone.branch } }))
      return clone.dir
    } catch (error) {
      const reason = clip(this.mask(`Its clone of the project could not be made: ${errorText(error)}`), REASON_MAX)
      await this.transact((view) => cancel(view, task.id, { now: this.now(), actor: SYSTEM, reason }))
      return null
    }
  }

  /** Room under the cap, or work released: held hand-overs go (the outbox asks again), then ready tasks. */
  private capacity(): void {
    if (!this.mayDispatch() || !this.store.pending().length) {
      this.pump()
      return
    }
    this.track(this.store.recover().then(() => this.pump()))
  }

  // ── the outbox's hand-over ──────────────────────────────────────────────────────────────────

  private async deliver(intent: Intent): Promise<'held' | undefined> {
    if (intent.kind === 'dispatch') {
      const r = await this.deliverDispatch(intent)
      // Once it is marked handed over, its lease is watched (a dispatch still waiting is not).
      this.track(this.store.settled().then(() => this.planSweep()))
      return r
    }
    if (intent.kind === 'notify') return this.deliverNotice(intent)
    if (intent.kind === 'answer') return this.deliverAnswer(intent)
    if (intent.kind === 'tell') return this.deliverTell(intent)
    const agent = this.ctx.agents.get(SessionId(intent.sessionId))
    if (agent && agent.status !== 'idle') agent.cancel({ kind: 'hook', reason: intent.reason })
  }

  private async deliverDispatch(intent: Extract<Intent, { kind: 'dispatch' }>): Promise<'held' | undefined> {
    const task = this.board.get(intent.taskId)
    // The attempt is over already (cancelled, reassigned, its Bot deleted): nothing to start.
    if (task?.status !== 'working' || task.lease?.attempt !== intent.attempt) return
    const bot = this.roster.bot(intent.botId)
    if (!bot) return
    if (this.ctx.get('botPause')?.holdsBotWork({ botId: bot.id })) return 'held'
    if (this.roster.botTurnsRunning() >= this.ctx.botLimits.inForce().botTurnsAtOnce) return 'held'
    const agent = await this.roster.sessions.resume(task.lease.sessionId, bot.model)
    dropStale(agent, task.id, intent.attempt)
    // A dispatch held for a while starts with a lease of its own length.
    const leaseMs = this.ctx.botLimits.inForce().taskLeaseMs
    if (Date.parse(task.lease.expiresAt) - this.clock.now() < leaseMs / 2)
      await this.transact((view) => renew(view, task.id, { now: this.now(), actor: SYSTEM, sessionId: task.lease!.sessionId, leaseMs }))
    const current = this.board.get(task.id)!
    agent.followup(
      createUserMessage({
        content: [{ type: 'text', text: attemptText(current) }],
        source: taskSource({ taskId: task.id, attempt: intent.attempt, intentId: intent.id, byPerson: task.creator.kind === 'user' }, this.chainOf(task)),
      }),
    )
    await this.ctx.sessions.flush(agent.session)
    if (intent.attempt === 1 || !current.attempts.some((a) => a.n < intent.attempt && (a.botId ?? intent.botId) === intent.botId))
      this.track(this.tellOwnChat(bot.id, task.id, taskLine(current, 'started')))
  }

  /**
   * A notice to a task's creator: a Bot's own chat gets it as a turn on the task's chain (drawn on
   * its budget like a reply: it always goes, and counts); the person's in the Main Bot's chat, as
   * a line that starts no turn.
   */
  private async deliverNotice(intent: Extract<Intent, { kind: 'notify' }>): Promise<'held' | undefined> {
    const task = this.board.get(intent.taskId)
    if (intent.to.kind === 'bot') {
      const bot = this.roster.bot(intent.to.botId)
      if (!bot) return
      if (this.ctx.get('botPause')?.holdsBotWork({ botId: bot.id })) return 'held'
      const chain = task ? this.chainOf(task) : { hop: 0 }
      await this.teamStore.update((s) => {
        drawOn(s, chain, { limit: this.ctx.botLimits.inForce(s.limits).workBudget, force: true, open: task && this.budgetOpening(task) })
      })
      const agent = await this.roster.agentOf(bot.id)
      const message = createUserMessage({
        content: [{ type: 'text', text: intent.text }],
        source: taskReportSource({ taskId: intent.taskId, intentId: intent.id }, chain),
      })
      // Into a turn that reports on tasks already (a review under way), else after the current turn.
      if (agent.status === 'running' && this.roster.turnOf(String(agent.id))?.who.startsWith('task ')) agent.steer(message)
      else agent.followup(message)
      await this.ctx.sessions.flush(agent.session)
      return
    }
    const main = this.roster.bots().find((b) => b.main)
    if (!main) return
    const agent = await this.roster.agentOf(main.id)
    agent.inject(createUserMessage({ content: [{ type: 'text', text: intent.text }], source: taskNoticeSource(intent.taskId, intent.text, intent.id) }))
    await this.ctx.sessions.flush(agent.session)
  }

  /**
   * The person's answer into the asking Session: a turn on the asking chain (drawn on its budget like
   * a reply: it always goes, and counts); an allowed approval's turn carries the one-shot grant.
   */
  private async deliverAnswer(intent: Extract<Intent, { kind: 'answer' }>): Promise<'held' | undefined> {
    const task = this.board.get(intent.taskId)
    const bot = this.roster.bot(intent.botId)
    if (!task?.ask || !bot) return
    if (this.ctx.get('botPause')?.holdsBotWork({ botId: bot.id })) return 'held'
    // Drawn, never opened: the budget was opened when the Bot asked; one dropped since is gone.
    await this.teamStore.update((s) => {
      drawOn(s, task.chain, { limit: this.ctx.botLimits.inForce(s.limits).workBudget, force: true })
    })
    const agent = await this.answerAgent(intent)
    const approval = task.ask.approval
    let grant = intent.grant && approval ? { tool: approval.tool, key: approval.key } : undefined
    let text = intent.text
    // The attempt or Session that asked ended after the allow: the grant goes nowhere else.
    const gone = grant ? this.askGone(task.ask) : undefined
    if (gone) {
      grant = undefined
      text = grantCancelledWords(task, gone)
      await this.transact((view) => cancelGrant(view, task.id, { now: this.now(), reason: gone }))
    }
    agent.followup(
      createUserMessage({
        content: [{ type: 'text', text }],
        source: answerSource({ taskId: task.id, intentId: intent.id, ...(grant ? { grant } : {}) }, task.chain),
      }),
    )
    await this.ctx.sessions.flush(agent.session)
  }

  /** A line for a Bot's own chat (its current part) that starts no turn: it reads it at its next turn. */
  private async deliverTell(intent: Extract<Intent, { kind: 'tell' }>): Promise<undefined> {
    if (!this.roster.bot(intent.botId)) return
    const agent = await this.roster.agentOf(intent.botId)
    agent.inject(createUserMessage({ content: [{ type: 'text', text: intent.text }], source: taskNoticeSource(intent.taskId, intent.text, intent.id) }))
    await this.ctx.sessions.flush(agent.session)
  }

  /**
   * The Session an answer goes to: a task Session while its task is being worked on there (the
   * attempt goes on with the answer); anything else — the own chat, a group Session, a task that
   * moved on — the Bot's own chat, its current part.
   */
  private async answerAgent(intent: Extract<Intent, { kind: 'answer' }>): Promise<Agent> {
    const owner = this.roster.ownerOf(intent.sessionId)
    const bot = this.roster.bot(intent.botId)!
    const task = owner?.kind === 'task' ? this.board.get(owner.taskId) : undefined
    const stays = owner?.botId === bot.id && task?.status === 'working' && task.lease?.sessionId === intent.sessionId
    if (!stays) return this.roster.agentOf(bot.id)
    return this.roster.sessions.resume(intent.sessionId, bot.model)
  }

  /** Whether an intent was handed over before a crash: its id in a message source of the Session it went to. */
  private async delivered(intent: Intent): Promise<boolean> {
    if (intent.kind === 'stop') return false
    let agent: Agent | undefined
    try {
      if (intent.kind === 'answer') {
        if (!this.roster.bot(intent.botId)) return false
        agent = await this.answerAgent(intent)
      } else if (intent.kind === 'dispatch') {
        if (!this.roster.bot(intent.botId)) return false
        agent = await this.roster.sessions.resume(intent.sessionId, this.roster.bot(intent.botId)?.model)
      } else {
        const botId = intent.kind === 'tell' ? intent.botId : intent.to.kind === 'bot' ? intent.to.botId : this.roster.bots().find((b) => b.main)?.id
        if (!botId || !this.roster.bot(botId)) return false
        agent = await this.roster.agentOf(botId)
      }
    } catch {
      return false
    }
    const names = (m: { source: unknown }) => (readSource(m.source) as { intentId?: string } | undefined)?.intentId === intent.id
    if (agent.session.events.some((e) => e.type === 'user/message' && names(e.data as UserMessage))) return true
    if (![...agent.inbox.nextStep, ...agent.inbox.nextTurn].some(names)) return false
    // A line (for the person in the Main Bot's chat, or a Bot's `tell`) waits for the next turn; a turn's message is woken.
    if (intent.kind === 'answer' || intent.kind === 'dispatch' || (intent.kind === 'notify' && intent.to.kind === 'bot')) redriveInbox(agent)
    return true
  }

  // ── attempts: their turns, leases, the crash check ──────────────────────────────────────────

  private attach(agent: Agent, taskId: string): void {
    const sessionId = String(agent.id)
    // Which turn runs which attempt: the dispatch message the turn claimed (read only).
    this.onAgents.add(
      agent,
      agent.ctx.on('agent/inbox/claimed', ({ message, turn }) => {
        const s = readSource(message.source)
        if ((s?.type === 'task' || s?.type === 'person-task') && s.taskId === taskId) this.attemptTurns.set(sessionId, { turn, attempt: s.attempt })
        // A move's package goes on with the attempt that moved here.
        const lease = this.board.get(taskId)?.lease
        if (s?.type === 'handoff' && lease?.sessionId === sessionId) this.attemptTurns.set(sessionId, { turn, attempt: lease.attempt })
      }),
    )
    // The lease is renewed at the turn's steps (at most once per half lease); never vetoes.
    this.onAgents.add(
      agent,
      agent.ctx.on('agent/pre-step', async (_payload, next) => {
        this.renewAt(sessionId, taskId)
        return next()
      }),
    )
  }

  private renewAt(sessionId: string, taskId: string): void {
    const task = this.board.get(taskId)
    if (!task?.lease || task.lease.sessionId !== sessionId || !this.mayDispatch()) return
    const leaseMs = this.ctx.botLimits.inForce().taskLeaseMs
    if (Date.parse(task.lease.expiresAt) - this.clock.now() >= leaseMs / 2) return
    this.track(this.transact((view) => renew(view, taskId, { now: this.now(), actor: SYSTEM, sessionId, leaseMs })))
  }

  /** A task Session's turn ended: its tokens are added, and an attempt still running there ended without a submit. */
  private turnEnded(sessionId: string, turn: number): void {
    const owner = this.roster.ownerOf(sessionId)
    if (owner?.kind !== 'task' || !this.mayDispatch()) return
    const taskId = owner.taskId
    this.track(this.flushTokens(taskId))
    const ran = this.attemptTurns.get(sessionId)
    if (!ran || ran.turn !== turn || this.moving.has(sessionId)) return
    // Its Bot is being deleted (its Sessions close first): `release` withdraws the attempt.
    if (!this.roster.bot(owner.botId)) return
    this.attemptTurns.delete(sessionId)
    const task = this.board.get(taskId)
    if (task?.status !== 'working' || task.lease?.sessionId !== sessionId || task.lease.attempt !== ran.attempt) return
    this.track(this.transact((view) => endAttempt(view, taskId, { now: this.now(), actor: SYSTEM, outcome: 'ended-without-submit', attempt: ran.attempt })))
  }

  /**
   * After this process became the writer (start, takeover): pending hand-overs are recovered
   * first; then an attempt whose turn is neither running nor about to run here was cut by the
   * crash (`crash`: back to ready, or failed at the third).
   */
  private afterTakeover(): void {
    this.track(
      (async () => {
        await this.roster.ensureTeam()
        await this.store.recover()
        await this.store.settled()
        await this.importQuestions()
        await this.holdMisplacedProject()
        // Start-up reconciliation of the project's clones (those of tasks no longer open go, their work kept).
        if (this.inForce() && this.config.worktrees && [...this.board.all()].some((t) => t.worktree))
          await this.worktrees().catch((error) => warn(this.ctx, "The project's clones could not be opened", error, 'worktrees'))
        const pending = new Set(this.store.pending().flatMap((i) => (i.kind === 'dispatch' ? [`${i.taskId}#${i.attempt}`] : [])))
        for (const task of this.board.working()) {
          const lease = task.lease
          if (!lease || pending.has(`${task.id}#${lease.attempt}`)) continue
          const agent = this.ctx.agents.get(SessionId(lease.sessionId))
          if (agent && (agent.status === 'running' || agent.inbox.hasPending)) continue
          const r = await this.transact((view) => endAttempt(view, task.id, { now: this.now(), actor: SYSTEM, outcome: 'crash', attempt: lease.attempt }))
          if (r.ok) this.crashed++
        }
        this.planExpiry()
        this.pump()
      })(),
    )
  }

  /** The questions a v5 team file held (`ledgerImport`): into the ledger once, then out of team state. */
  private async importQuestions(): Promise<void> {
    const list = this.teamStore.state.ledgerImport
    if (!list?.length) return
    const r = await this.transact((view) =>
      importQuestions(view, list, { now: this.now(), sessionOf: (botId) => this.roster.bot(botId)?.sessionParts.at(-1)?.sessionId }),
    )
    if (!r.ok) {
      warn(this.ctx, 'the questions of the older team file could not be moved into the task ledger', new Error(r.refusal), 'tasks')
      return
    }
    await this.teamStore.update((s) => {
      delete s.ledgerImport
    })
  }

  /** Tasks whose lease ran out and whose attempt is being ended now. */
  private readonly expiring = new Set<string>()

  /**
   * One timer for the next lease to run out (a dispatch still waiting to be handed over has not
   * started its lease; an attempt being ended is not watched again).
   */
  private planSweep(): void {
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer)
    this.sweepTimer = undefined
    if (!this.active || this.store.mode !== 'writer') return
    const waiting = this.waitingDispatches()
    let next = Number.POSITIVE_INFINITY
    for (const t of this.board.working()) if (t.lease && !waiting.has(t.id) && !this.expiring.has(t.id)) next = Math.min(next, Date.parse(t.lease.expiresAt))
    if (!Number.isFinite(next)) return
    this.sweepTimer = this.clock.setTimeout(() => this.sweep(), Math.max(0, next - this.clock.now()))
  }

  private waitingDispatches(): Set<string> {
    return new Set(this.store.pending().flatMap((i) => (i.kind === 'dispatch' ? [i.taskId] : [])))
  }

  /** Leases that ran out: the attempt ends (`lease-expired`) and its turn, if it still runs, is cancelled. */
  private sweep(): void {
    this.sweepTimer = undefined
    if (!this.mayDispatch()) return
    const waiting = this.waitingDispatches()
    for (const task of expiredLeases(this.board, this.now())) {
      if (waiting.has(task.id) || this.expiring.has(task.id)) continue
      const lease = task.lease!
      this.expiring.add(task.id)
      this.track(
        this.transact((view) => endAttempt(view, task.id, { now: this.now(), actor: SYSTEM, outcome: 'lease-expired', attempt: lease.attempt }))
          .then((r) => {
            if (!r.ok) return
            const agent = this.ctx.agents.get(SessionId(lease.sessionId))
            if (agent && agent.status !== 'idle') agent.cancel({ kind: 'hook', reason: `the lease of task ${task.id} ran out` })
          })
          .finally(() => {
            this.expiring.delete(task.id)
            this.planSweep()
          }),
      )
    }
    this.planSweep()
  }

  // ── tokens per task ─────────────────────────────────────────────────────────────────────────

  private addUsage(row: UsageRow): void {
    if (!row.task) return
    const t = this.tokens.get(row.task) ?? { input: 0, cached: 0, output: 0 }
    this.tokens.set(row.task, { input: t.input + row.input, cached: t.cached + row.cached, output: t.output + row.output })
  }

  private async flushTokens(taskId: string): Promise<void> {
    const t = this.tokens.get(taskId)
    if (!t) return
    this.tokens.delete(taskId)
    await this.transact((view) => addTokens(view, taskId, { now: this.now(), tokens: t }))
  }

  // ── the team's actions (tools and routes are thin adapters over these) ─────────────────────

  private actorOf(caller: Caller): Actor {
    return caller.kind === 'user' ? { kind: 'user' } : { kind: 'bot', botId: caller.botId ?? 'unknown' }
  }

  private creatorOf(caller: Caller): Creator {
    return caller.kind === 'user' ? { kind: 'user' } : { kind: 'bot', botId: caller.botId ?? 'unknown' }
  }

  /** A task by id, or a refusal naming what to do. */
  private taskOf(ref: unknown): Task {
    const id = typeof ref === 'string' ? ref.trim() : ''
    const task = id ? this.board.get(id) : undefined
    if (!task) throw new TeamRefusal('not-found', `No task ${JSON.stringify(id || String(ref))} exists. list_tasks shows the team's tasks. Nothing changed.`)
    return task
  }

  /** `decide` on a task action, with the caller's relation to the task filled in; refused → thrown. */
  private require(caller: Caller, action: TaskAction, task?: Task, extra: Target = {}): void {
    const facts: Target = { ...extra }
    if (task) {
      facts.taskId = task.id
      facts.callerCreatedTask = task.creator.kind === 'bot' ? task.creator.botId === caller.botId : caller.kind === 'user'
      facts.callerIsAssignee = caller.botId !== undefined && assignedBot(task) === caller.botId
      facts.assignedToOther = task.assignee !== null && assignedBot(task) !== caller.botId
      facts.personReviews = personReviews(task)
    }
    const verdict = this.roster.check(caller, action, facts)
    if (!verdict.allowed) throw new TeamRefusal('forbidden', verdict.reason)
  }

  private async writable(): Promise<void> {
    await this.teamStore.claim()
    if (!this.teamStore.isWriter() || (await this.store.refresh()) !== 'writer')
      throw new TeamRefusal('unavailable', `The tasks cannot be changed from this process: ${this.teamStore.status().message}`)
  }

  private async apply(fn: (view: TaskReader) => Result): Promise<Task[]> {
    await this.writable()
    const r = await this.transact(fn)
    if (!r.ok) throw new TeamRefusal('invalid', r.refusal)
    return r.tasks
  }

  /** What `plan` needs for project tasks: the project's path, or why this chain may not plan them. */
  private projectFacts(chain: Chain): { project?: string; projectRefusal?: string } {
    const held = this.heldProject()
    if (held)
      return {
        projectRefusal: `The team's project ${held.path} is held until the person names it again on the team page${held.problem ? ` (${held.problem})` : ''}. Nothing was created.`,
      }
    const project = this.inForce()
    if (!project || !this.config.worktrees)
      return { projectRefusal: 'The team has no project: the person names one on the team page (PUT /bot-team/api/project). Nothing was created.' }
    const mode = projectTaskModeProblem(chain.mode)
    return mode ? { projectRefusal: mode } : { project: project.path }
  }

  /**
   * The project's worktrees (one root per project under the configured folder), opened once:
   * the integration clone made on first use, clones of tasks no longer open removed (work kept).
   */
  private worktrees(): Promise<Worktrees> {
    const project = this.inForce()
    if (!project || !this.config.worktrees) return Promise.reject(new Error('the team has no project'))
    this.worktreesValue ??= (async () => {
      const root = join(this.config.worktrees!, createHash('sha256').update(project.path).digest('hex').slice(0, 12))
      const active = new Set([...this.board.all()].filter((t) => t.worktree && !isClosed(t)).map((t) => t.id))
      // The root may not lie in or hold a Bot's folder, the project, the team's folders or a shared temp folder.
      const forbidden = (await this.projectForbidden()).filter((f) => f.label !== WORKTREES_LABEL)
      forbidden.push(...(await realForbidden([{ label: 'the project', path: project.path }])))
      const { worktrees, reconciled } = await Worktrees.open(
        { root, project: { gitDir: project.gitDir, branch: project.branch }, forbidden, observe: (run) => this.ctx.emit('bot-team/git', run) },
        active,
        (taskId) => {
          const task = taskId ? this.board.get(taskId) : undefined
          // A folder no task owns (a clone nobody knows, a leftover): the plugin's own set at `none`.
          return task ? this.actAs(task) : { confine: this.confined(() => PLUGIN_AT_NONE), mode: 'workspace-write' }
        },
      )
      for (const item of reconciled) {
        if (item.kind === 'kept-unknown') warn(this.ctx, `A task clone nobody knows was kept: ${item.dir} (${item.why}).`, undefined, 'worktrees')
        if (item.kind === 'kept') this.track(this.removed(item.taskId, { kind: 'kept', dir: item.dir, why: item.why }))
        if (item.kind === 'removed') this.track(this.removed(item.taskId, item.outcome))
        if (item.kind === 'leftover') warn(this.ctx, `A folder could not be removed through the sandbox: ${item.dir} (${item.why}).`, undefined, 'worktrees')
      }
      return worktrees
    })()
    this.worktreesValue.catch(() => {
      this.worktreesValue = undefined
    })
    return this.worktreesValue
  }

  /** The project's worktrees when this process has opened them (a read: never opens, creates or reconciles). */
  async openedWorktrees(): Promise<Worktrees | undefined> {
    return this.worktreesValue?.catch(() => undefined)
  }

  /** The team's project (the repository and target branch project tasks work on), or `null` (none, or held). */
  project(): TeamProject | null {
    return this.inForce()
  }

  /** The named project unless it is held for the person (state v7: named where a Bot may write, or restored). */
  private inForce(): TeamProject | null {
    return this.heldProject() ? null : this.projectValue
  }

  /** The held project, when one waits for the person to name it again. */
  heldProject(): HeldProject | undefined {
    return this.teamStore.state.held?.find((h): h is HeldProject => h.kind === 'project')
  }

  /** The folders a project may not lie in or hold, real paths (`projectForbidden`). */
  private projectForbidden(): Promise<Forbidden[]> {
    return projectForbidden({ protectedFolders: this.config.protectedFolders, worktrees: this.config.worktrees, bots: this.roster.bots() })
  }

  /**
   * At the writer's start: a project named where a Bot may write (before v7 nothing refused it)
   * is held for the person — no project task is planned or cloned from it until they name it again.
   */
  private async holdMisplacedProject(): Promise<void> {
    const project = this.projectValue
    if (!project || this.heldProject()) return
    const problem = await placementProblem(project, await this.projectForbidden())
    if (!problem) return
    const at = this.now()
    await this.teamStore.update((s) => {
      const item: HeldProject = { id: allocateId(s, 'held'), why: 'upgrade', at, kind: 'project', path: project.path, branch: project.branch, problem }
      s.held = [...(s.held ?? []), item]
    })
    warn(this.ctx, `The team's project is held until the person names it again: ${problem}`, undefined, 'project')
  }

  /**
   * The person settles the held project (paired team page only): confirming names it again — the
   * whole check of `PUT /project` — and letting it go forgets it (no project). Either is refused
   * while project tasks are open on it, changing nothing.
   */
  async settleHeldProject(req: Requester, id: string, confirm: boolean): Promise<HeldProject> {
    if (req.kind !== 'user' || req.paired === false)
      throw new TeamRefusal('forbidden', 'Only the person, on the paired team page, settles a held project. Nothing was changed.')
    const item = this.heldProject()
    if (!item || item.id !== id) throw new TeamRefusal('not-found', `No held project with id "${id}". Nothing was changed.`)
    if (confirm) {
      await this.setProject(req, { path: item.path, branch: item.branch })
      return item
    }
    const run = this.projectQueue.then(async () => {
      await this.writable()
      this.refuseWhileProjectTasks('letting the project go')
      await forgetProject(join(this.config.dir, PROJECT_FILE))
      this.projectValue = null
      this.roster.protectProject(null)
      this.worktreesValue = undefined
      await this.dropHeldProject()
      return item
    })
    this.projectQueue = run.catch(() => {})
    return run
  }

  /** Remove every held project item (the person named or let go the project). */
  private async dropHeldProject(): Promise<void> {
    if (!this.heldProject()) return
    await this.teamStore.update((s) => {
      const rest = (s.held ?? []).filter((h) => h.kind !== 'project')
      if (rest.length) s.held = rest
      else delete s.held
    })
    this.pump()
  }

  private refuseWhileProjectTasks(what: string, samePath = false): void {
    const open = [...this.board.all()].filter((t) => t.worktree && !isClosed(t)).map((t) => t.id)
    if (open.length && !samePath)
      throw new TeamRefusal(
        'unavailable',
        `Project tasks are open (${open.slice(0, 10).join(', ')}); finish or cancel them before ${what}. Nothing was changed.`,
      )
  }

  /**
   * Name the team's project (`{ path, branch }`): the person through a paired browser only. The
   * repository is validated by the git layer and written to `<dir>/project.json`; a bad one is
   * refused with the reason and changes nothing.
   */
  setProject(req: Requester, input: unknown): Promise<TeamProject> {
    const run = this.projectQueue.then(async () => {
      if (req.kind !== 'user' || req.paired === false)
        throw new TeamRefusal('forbidden', "The team's project is named only by the person, from the paired team page. Nothing was changed.")
      await this.writable()
      // Confirming the held project (same repository, same branch) keeps the open tasks' clones where they are.
      const named = (input ?? {}) as { path?: unknown; branch?: unknown }
      const held = this.heldProject()
      const same =
        held !== undefined &&
        typeof named.path === 'string' &&
        named.branch === held.branch &&
        held.path === this.projectValue?.path &&
        (await realpath(named.path).catch(() => named.path)) === held.path
      this.refuseWhileProjectTasks('naming the project again', same)
      const r = await nameProject(this.config.dir, input, await this.projectForbidden(), this.now())
      if (!r.ok) throw new TeamRefusal('invalid', r.problem)
      this.projectValue = r.project
      this.roster.protectProject(r.project)
      // The next project work opens the new project's own root.
      this.worktreesValue = undefined
      await this.dropHeldProject()
      return r.project
    })
    this.projectQueue = run.catch(() => {})
    return run
  }

  /**
   * Plan several tasks with their dependencies (`plan_tasks`, the person's create). Assignees are
   * named by name or id; the chain of the planning turn is recorded (a Bot's plan runs at its
   * mode and on its budget; a spent budget, a turn nobody opened or a chain at the hop limit plans nothing).
   */
  async plan(req: Requester, raw: unknown): Promise<{ ids: string[]; tasks: Task[] }> {
    const caller = this.roster.caller(req)
    const input = resolveAssignees(raw, (ref) => this.roster.find(ref)?.id)
    this.require(caller, 'plan_tasks')
    const chain: Chain = req.kind === 'user' ? { hop: 0 } : this.roster.chainFrom(req.sessionId)
    if (req.kind === 'bot') {
      const start = canStart(this.teamStore.state, chain)
      if (!start.ok) throw new TeamRefusal('limit', `No task was planned: ${start.reason}`)
      const { hopLimit } = this.ctx.botLimits.inForce()
      if (chain.hop > hopLimit)
        throw new TeamRefusal(
          'limit',
          `No task was planned: the hop limit (${hopLimit}) is reached; this turn is ${chain.hop - 1} Bot-to-Bot steps deep. Do the work yourself or report back.`,
        )
      // Opened now: its tasks only draw on it, so a budget dropped before a dispatch is gone, never new.
      await this.openAskingBudget(chain, caller.botId!)
    }
    const bots = new Set(this.roster.bots().map((b) => b.id))
    let ids: string[] = []
    const tasks = await this.apply((view) => {
      const r = plan(view, input, { now: this.now(), creator: this.creatorOf(caller), chain, bots, ...this.projectFacts(chain) })
      if (r.ok) ids = r.ids
      return r
    })
    return { ids, tasks }
  }

  /** Add a progress note or artifacts to an open task (`update_task`): its creator, assignee, a Main Bot or the person. */
  async update(req: Requester, ref: unknown, input: { note?: unknown; artifacts?: unknown }): Promise<Task> {
    const caller = this.roster.caller(req)
    const task = this.taskOf(ref)
    this.require(caller, 'update_task', task)
    const artifacts = withNote(input.artifacts, input.note)
    const [changed] = await this.apply((view) => addArtifacts(view, task.id, { now: this.now(), actor: this.actorOf(caller), artifacts }))
    return changed ?? this.board.get(task.id)!
  }

  /** `submit_task`: the lease holder's Session hands its work in for review. */
  async submit(req: Requester, ref: unknown, input: { note?: unknown; artifacts?: unknown }): Promise<Task> {
    const caller = this.roster.caller(req)
    const task = this.taskOf(ref)
    this.require(caller, 'submit_task', task)
    const artifacts = withNote(input.artifacts, input.note)
    const sessionId = req.kind === 'bot' ? req.sessionId : ''
    if (task.worktree && task.status === 'working' && task.lease?.sessionId === sessionId) {
      // One commit from check to merge: the task branch's head as fetched now (a clean clone on that branch only).
      // The check's clone is made meanwhile (it needs no commit yet).
      const shell = task.worktree.command ? (await this.worktrees()).checkShell() : undefined
      shell?.catch(() => {})
      const commit = await this.handIn(task, sessionId).catch(async (error: unknown) => {
        await shell?.then((s) => s.drop()).catch(() => {})
        throw error
      })
      if (task.worktree.command) {
        const failed = await this.runTaskCheck(task, task.worktree.command, sessionId, commit, shell)
        if (failed) return failed
        if (mergesOnCheck(task)) return this.landUnreviewed(task.id, commit, { actor: this.actorOf(caller), sessionId, artifacts })
      }
    }
    const [changed] = await this.apply((view) => submit(view, task.id, { now: this.now(), actor: this.actorOf(caller), sessionId, artifacts }))
    return changed!
  }

  /**
   * What a project task hands in: a confined `git status` in its clone refuses uncommitted changes
   * ("commit first") or a `HEAD` off the task branch; then the branch's head is fetched and
   * recorded as the submitted commit — what the check runs on, the review shows and a merge takes.
   */
  private async handIn(task: Task, sessionId: string): Promise<string> {
    await this.writable()
    const r = await (await this.worktrees()).submitted(task.id, this.actAs(task, sessionId))
    // git status lists paths a Bot chose: masked before the Bot or a log reads them.
    if (!r.ok) throw new TeamRefusal('invalid', this.mask(r.reason))
    await this.transact((view) => setWorktree(view, task.id, { now: this.now(), worktree: { submitted: r.commit } }))
    return r.commit
  }

  /** A task that asked for no review, its check passed: the checked commit merges now; a conflict sends it back like a rejection. */
  private async landUnreviewed(taskId: string, commit: string, who: { actor: Actor; sessionId: string; artifacts: unknown }): Promise<Task> {
    // The check took time: a cancel, a reassignment or a lapsed lease meanwhile refuses the merge (a dry run on the ledger as it is now).
    const act = { ...who, now: this.now() }
    const still = land(this.board, taskId, act)
    if (!still.ok) throw new TeamRefusal('invalid', still.refusal)
    const merged = this.maskedMerge(await (await this.worktrees()).merge(taskId, commit))
    await this.transact((view) => setWorktree(view, taskId, { now: act.now, worktree: mergeFacts(merged) }))
    const [changed] = await this.apply((view) => land(view, taskId, { ...act, ...(merged.kind === 'conflict' ? { conflict: conflictReason(merged) } : {}) }))
    return changed!
  }

  /**
   * Run a project task's check on a fresh checkout of exactly `commit`, in the task Session's
   * sandbox (its mode: the lowest along the chain) with that checkout its only writable root,
   * masked. Passing: `null` (the submit goes on). Failing: the attempt ends `check-failed` with the
   * output's tail as its reason and the next starts (or the task fails).
   */
  private async runTaskCheck(task: Task, command: string, sessionId: string, commit: string, shell?: Promise<CheckShell>): Promise<Task | null> {
    await this.writable()
    const as = this.actAs(task, sessionId)
    const mask = (text: string) => this.mask(text)
    const result = await this.checkOn(await this.worktrees(), commit, command, as, mask, shell)
    const now = this.now()
    const tail = result.lastLines.slice(-CHECK_TAIL_MAX)
    const check = { ok: result.ok, at: now, summary: clip(result.summary, REASON_MAX), commit, ...(tail ? { tail } : {}) }
    await this.transact((view) => setWorktree(view, task.id, { now, worktree: { check } }))
    if (result.ok) return null
    const head = `The check \`${clip(mask(command), 80)}\` ${result.summary} on ${commit.slice(0, 12)}:\n`
    const reasonTail = result.lastLines.slice(-Math.max(0, REASON_MAX - head.length - 1))
    const leaseMs = this.ctx.botLimits.inForce().taskLeaseMs
    const [changed] = await this.apply((view) => checkFailed(view, task.id, { now, actor: SYSTEM, sessionId, reason: head + reasonTail, leaseMs }))
    return changed!
  }

  /** `command` on a fresh checkout of `commit` (`checks/<id>/tree`), confined as `as` says; the checkout is removed through the sandbox after. */
  private async checkOn(
    w: Worktrees,
    commit: string,
    command: string,
    as: ActAs,
    mask: (text: string) => string,
    shell?: Promise<CheckShell>,
  ): Promise<{ ok: boolean; summary: string; lastLines: string }> {
    const missing = as.confine.unavailable(as.mode)
    if (missing) {
      await shell?.then((s) => s.drop()).catch(() => {})
      return { ok: false, summary: `failed (${missing})`, lastLines: '' }
    }
    const tree = await w.checkTree(commit, shell)
    try {
      let run: string[]
      try {
        // The Bot's namespace set is made here when it is not up yet (its level, as the seam says).
        run = await as.confine.argvFor(['/bin/sh', '-c', command], { mode: as.mode, root: tree.dir, cwd: tree.dir })
      } catch (error) {
        return { ok: false, summary: `failed (${errorText(error)})`, lastLines: '' }
      }
      // Its own process group: the time limit and the end kill the whole check.
      const spawner: CheckSpawner = (_cmd, { cwd, env }) => spawn(run[0]!, run.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      const capped = this.ctx.get('botSecrets')?.capped
      return await runCheck({ command, cwd: tree.dir, mask, spawner, ...(capped ? { capped } : {}) })
    } finally {
      // Removed beside the work that follows (nothing reads it again); a failure is swept at the next start.
      this.track(tree.done(as.confine).catch((error) => warn(this.ctx, `The check's checkout ${tree.dir} could not be removed`, error, 'worktrees')))
    }
  }

  /**
   * THE seam for every process the plugin runs in a folder a Bot can write — a clone's status,
   * work-in-progress commits, checks, removals — and for the release check: `botNetwork.confine`,
   * i.e. DSH's sandbox at the caller's mode with the caller's only writable root, inside the
   * owner's namespace set at its level (made on the first command). At `full` it is DSH's sandbox
   * alone (`danger-full-access`: unconfined, as that Bot's shell runs it); `danger-full-access`
   * below `full` is refused. Where the set cannot be made the step fails closed (its caller keeps
   * the clone and says why). `who` is asked at each command: a level changed meanwhile is never
   * widened, and a Bot deleted meanwhile leaves no set behind (the plugin's own, at `none`).
   */
  private confined(who: () => { owner: string; level: NetworkLevel; keep?: readonly string[] }): Confine {
    return confineWith({
      unavailable: (mode) => {
        const { level } = who()
        if (mode === 'danger-full-access')
          return level === 'full' ? null : `it would run unconfined at danger-full-access, which its network level "${level}" does not allow`
        if (!this.ctx.get('sandbox')) return `no sandbox here to run it at ${mode}`
        if (level === 'full') return null
        const network = this.ctx.get('botNetwork')
        if (!network) return `no network service here to run it at its network level "${level}"`
        const probe = network.probe()
        return probe.state === 'unavailable' ? `this machine cannot run it at its network level "${level}" (${probe.reason}; fix: ${probe.fix})` : null
      },
      wrap: async (argv, { mode, workspaceRoot, cwd }) => {
        const { owner, level, keep = [] } = who()
        const network = this.ctx.get('botNetwork')
        if (network) return (await network.confine({ owner, level, argv, mode, workspaceRoot, cwd, keep: [...keep, workspaceRoot] })).argv
        // No network service (only `full` gets here): DSH's sandbox alone.
        if (mode === 'danger-full-access') return argv
        const sandbox = this.ctx.get('sandbox')
        if (!sandbox) throw new ConfineUnavailable(`no sandbox here to run it at ${mode}`)
        return sandbox.confine(argv, { mode, workspaceRoot }).argv
      },
    })
  }

  /**
   * Whose authority a step in the task's clone runs with: its Bot's sandbox and namespace set. The
   * mode is the lower of the chain it was planned on and what its Session runs at (read-only when
   * unknown); the level, by the same rule, the strictest of the chain's and the Session's turn's
   * (its Bot's own once the turn is over). A Bot deleted or unknown: the plugin's own set at `none`.
   */
  private actAs(task: Task, sessionId = task.lease?.sessionId ?? task.sessionId ?? task.attempts.at(-1)?.sessionId): ActAs {
    const botId = assignedBot(task) ?? task.attempts.at(-1)?.botId
    const session = sessionId ? this.roster.modeOf(sessionId) : undefined
    const confine = this.confined(() => {
      const own = botId ? this.roster.ownNetwork(botId) : undefined
      if (!botId || !own) return PLUGIN_AT_NONE
      const live = (sessionId ? this.roster.networkOf(sessionId) : undefined) ?? own
      return { owner: botOwner(botId), level: strictestLevel(task.chain.network, live) ?? live, keep: this.roster.networkKeep(botId) }
    })
    return { confine, mode: lowerMode(task.chain.mode, session) ?? 'read-only' }
  }

  /** What a clone's removal left: a kept clone is recorded on its task and the person told where it is. */
  private async removed(taskId: string, outcome: RemoveOutcome | null): Promise<void> {
    if (!outcome) return
    if (outcome.kind === 'removed') {
      if (outcome.leftover)
        warn(this.ctx, `${taskId}'s clone could not be removed through the sandbox; it waits in ${outcome.leftover}`, undefined, 'worktrees')
      return
    }
    const text = `The clone of ${taskId} was kept in ${outcome.dir}: ${outcome.why}. Its work is there; commit or copy what you need, then delete the folder.`
    warn(this.ctx, text, undefined, 'worktrees')
    this.ctx.get('botDiagnostics')?.note({ kind: 'tasks', level: 'warn', message: text })
    if (this.board.get(taskId)?.worktree)
      await this.transact((view) =>
        setWorktree(view, taskId, { now: this.now(), worktree: { kept: { dir: clip(outcome.dir, 1000), why: clip(outcome.why, REASON_MAX) } } }),
      )
  }

  /**
   * Release the integration branch into the project's target branch: the person through a paired
   * browser only, after `check` (the project's full check, the person's command, confined at
   * workspace-write to its checkout) passed on a checkout of the integration head; refused with the reason (a failing check, the target checked
   * out with changes, a conflict), changing nothing.
   */
  async releaseProject(req: Requester, check: string): Promise<{ from: string; to: string; fastForward: boolean; check: string }> {
    if (req.kind !== 'user' || req.paired === false)
      throw new TeamRefusal('forbidden', "Only the person releases the team's work, from the paired team page. Nothing was changed.")
    const project = this.inForce()
    if (!project) throw new TeamRefusal('invalid', 'The team has no project to release into. Nothing was changed.')
    await this.writable()
    const w = await this.worktrees()
    const head = await w.integrationHead()
    // The person's command runs the team's code: confined like a task's check, writing only its fresh
    // checkout, in a namespace set of its own at the strictest level among the Bots whose work it holds.
    const as: ActAs = { confine: this.confined(() => ({ owner: RELEASE_OWNER, level: this.releaseLevel() })), mode: 'workspace-write' }
    const missing = as.confine.unavailable(as.mode)
    if (missing) throw new TeamRefusal('invalid', `The full check cannot run: ${missing}. Nothing was released.`)
    let result: Awaited<ReturnType<typeof this.checkOn>>
    try {
      result = await this.checkOn(w, head, check, as, (text) => this.mask(text))
    } catch (error) {
      throw new TeamRefusal('invalid', this.mask(errorText(error)))
    }
    if (!result.ok) throw new TeamRefusal('invalid', `The full check ${result.summary} on ${head.slice(0, 12)}, so nothing was released:\n${result.lastLines}`)
    const r = await releaseInto(w.git, w.integration, { gitDir: project.gitDir, branch: project.branch }, head)
    if (!r.ok) throw new TeamRefusal('invalid', this.mask(r.reason))
    return { from: r.from, to: r.to, fastForward: r.fastForward, check: result.summary }
  }

  /**
   * The network level of the release check: never `full` — `none` if any Bot whose work was merged
   * into the integration branch (or that is deleted now) is at `none`, else `internet`.
   */
  private releaseLevel(): NetworkLevel {
    const bots = new Set<string>()
    for (const t of this.board.all()) {
      if (t.worktree?.merge !== 'merged') continue
      for (const a of t.attempts) bots.add(a.botId ?? assignedBot(t) ?? '')
    }
    const levels = [...bots].map((id) => this.roster.ownNetwork(id) ?? 'none')
    return levels.includes('none') ? 'none' : 'internet'
  }

  /** `review_task`: accept, or reject with a reason (never by the task's own assignee). */
  async review(req: Requester, ref: unknown, verdict: unknown, reason?: unknown): Promise<Task[]> {
    const caller = this.roster.caller(req)
    const task = this.taskOf(ref)
    this.require(caller, 'review_task', task)
    if (verdict !== 'accept' && verdict !== 'reject') throw new TeamRefusal('invalid', 'A review is "accept" or "reject" (with a reason). Nothing changed.')
    const act = { now: this.now(), actor: this.actorOf(caller) }
    if (verdict === 'accept' && task.worktree && task.status === 'review') {
      await this.writable()
      const w = await this.worktrees()
      // Accepting merges the submitted (checked) commit — only while the branch still points at it.
      const submitted = task.worktree.submitted
      const moved = async (why: string) => this.apply((view) => review(view, task.id, { ...act, verdict: 'reject', reason: clip(why, REASON_MAX) }))
      if (!submitted) return moved('This task was submitted before its commit was recorded; submit again so the commit that is reviewed is the one merged.')
      let head: string
      try {
        head = await w.branchHead(task.id)
      } catch (error) {
        throw new TeamRefusal('unavailable', `${task.worktree.branch ?? 'The branch'} could not be fetched again (${errorText(error)}); nothing was merged.`)
      }
      if (head !== submitted)
        return moved(
          `The branch moved after the check; submit again: ${task.worktree.branch ?? 'the branch'} is at ${head.slice(0, 12)}, the submitted${task.worktree.check ? ' and checked' : ''} commit was ${submitted.slice(0, 12)}. Nothing was merged.`,
        )
      // Accepting a project task merges that commit; a conflict sends it back to its assignee instead.
      const merged = this.maskedMerge(await w.merge(task.id, submitted))
      if (merged.kind === 'conflict') {
        await this.transact((view) => setWorktree(view, task.id, { now: act.now, worktree: mergeFacts(merged) }))
        return this.apply((view) => review(view, task.id, { ...act, verdict: 'reject', reason: conflictReason(merged) }))
      }
      await this.transact((view) => setWorktree(view, task.id, { now: act.now, worktree: mergeFacts(merged) }))
    }
    return this.apply((view) => review(view, task.id, { ...act, verdict, reason }))
  }

  /** `cancel_task`: its creator, a Main Bot or the person. */
  async cancel(req: Requester, ref: unknown, reason?: unknown): Promise<Task> {
    const caller = this.roster.caller(req)
    const task = this.taskOf(ref)
    this.require(caller, 'cancel_task', task)
    const [changed] = await this.apply((view) => cancel(view, task.id, { now: this.now(), actor: this.actorOf(caller), reason }))
    return changed!
  }

  /** Give a task to another Bot, or to nobody (`to: null`): its creator, a Main Bot or the person. */
  async reassign(req: Requester, ref: unknown, to: unknown, reason?: unknown): Promise<Task> {
    const caller = this.roster.caller(req)
    const task = this.taskOf(ref)
    this.require(caller, 'reassign_task', task)
    let botId: string | null = null
    if (to !== null) {
      const bot = typeof to === 'string' ? this.roster.find(to.trim()) : undefined
      if (!bot) throw new TeamRefusal('not-found', `No Bot named or with id ${JSON.stringify(String(to))}. Call list_bots to see the team. Nothing changed.`)
      botId = bot.id
    }
    const bots = new Set(this.roster.bots().map((b) => b.id))
    const [changed] = await this.apply((view) => reassign(view, task.id, { now: this.now(), actor: this.actorOf(caller), to: botId, bots, reason }))
    return changed!
  }

  // ── the person's inbox: questions, approvals that wait, reviews ───────────────────────────

  /** What waits for the person, oldest first. */
  inbox(): Task[] {
    return this.board.inbox()
  }

  /** The asking turn's own chain (what the answer's turn carries): its hop, budget and mode. */
  private askingChain(sessionId: string): Chain {
    const c = this.roster.chainFrom(sessionId)
    return { ...c, hop: Math.max(0, c.hop - 1) }
  }

  /**
   * `ask_person`: a question (optional choices, a deadline in hours, 24 by default) for the person,
   * from a Bot's Session; the answer comes back into that Session as a turn on this turn's chain.
   */
  /** A Bot's chain's budget, opened now for work that draws on it later (an answer, a planned task). */
  private async openAskingBudget(chain: Chain, botId: string): Promise<void> {
    await this.teamStore.update((s) =>
      openBudget(s, chain, { limit: this.ctx.botLimits.inForce(s.limits).workBudget, open: { origin: botId, at: this.now() } }),
    )
  }

  async askPerson(req: Requester, raw: unknown): Promise<Task> {
    const caller = this.roster.caller(req)
    this.require(caller, 'ask_person')
    const sessionId = req.kind === 'bot' ? req.sessionId : ''
    const chain = this.askingChain(sessionId)
    await this.openAskingBudget(chain, caller.botId!)
    let id = ''
    await this.apply((view) => {
      const r = ask(view, raw, { now: this.now(), botId: caller.botId!, sessionId, chain, ...this.askedFrom(sessionId) })
      if (r.ok) id = r.id
      return r
    })
    return this.board.get(id)!
  }

  /**
   * A DSH tool call that needs approval in a Bot-started turn (the roster's guard asks): recorded as
   * an approval for the person — the tool, its arguments masked, the Bot, why — or refused (at most
   * 5 waiting per Bot). Returns the sentence the Bot reads instead of the call's result.
   */
  async approvalWaits(input: {
    sessionId: string
    botId: string
    tool: string
    callId: string
    args: string
    key: string
    reason: string | undefined
    /** The asking Session's turn. */
    turn?: number | undefined
  }): Promise<string> {
    const chain = this.askingChain(input.sessionId)
    await this.openAskingBudget(chain, input.botId)
    // The reason comes with the call (a Bot may write it): masked like the arguments.
    const reason = input.reason?.trim() || `${input.tool} needs approval`
    const question = clip(this.mask(reason), 2_000)
    try {
      let id = ''
      await this.apply((view) => {
        const r = ask(
          view,
          { question },
          {
            now: this.now(),
            botId: input.botId,
            sessionId: input.sessionId,
            chain,
            approval: { tool: input.tool, args: input.args, key: input.key, callId: input.callId },
            ...this.askedFrom(input.sessionId, input.turn),
          },
        )
        if (r.ok) id = r.id
        return r
      })
      return `Not run yet: this turn was not opened by the user, so the call waits for the user's approval as ${id} in their inbox (default deadline 24 h). It is refused in this turn, and so is every later ${input.tool} call in it. If the user allows it, you get a new turn to make exactly this call once; if they deny it or it expires, you are told. End this turn or go on without it.`
    } catch (error) {
      const why = error instanceof TeamRefusal ? error.message : 'the inbox could not record it'
      return `Not approved: this turn was not opened by the user, and the call could not wait for approval (${why}). It is refused in this turn, and so is every later ${input.tool} call in it.`
    }
  }

  /** Where a Bot asks from, as its ask records it: the attempt working in its task Session, if any, and the Session's turn. */
  private askedFrom(sessionId: string, turn?: number): { attempt?: NonNullable<Ask['attempt']>; turn?: number } {
    const owner = this.roster.ownerOf(sessionId)
    const task = owner?.kind === 'task' ? this.board.get(owner.taskId) : undefined
    const n = task?.status === 'working' && task.lease?.sessionId === sessionId ? task.lease.attempt : undefined
    const at = turn ?? this.roster.turnOf(sessionId)?.turn
    return { ...(task && n !== undefined ? { attempt: { taskId: task.id, n } } : {}), ...(at !== undefined ? { turn: at } : {}) }
  }

  /**
   * Why the Session that asked can no longer take the answer's grant (undefined: it can). A grant
   * holds while that Session is open — the Bot's current own-chat part — and, in a task Session,
   * while the same attempt works there; never in a group Session, where no answer's turn runs.
   */
  private askGone(a: Ask): string | undefined {
    const bot = this.roster.bot(a.botId)
    if (!bot) return 'the Bot that asked was deleted'
    const owner = this.roster.ownerOf(a.sessionId)
    if (owner?.botId !== a.botId) return `the Session that asked is no longer ${bot.name}'s`
    if (owner.kind === 'own') return bot.sessionParts.at(-1)?.sessionId === a.sessionId ? undefined : `${bot.name}'s chat moved to a new part since it asked`
    // An answer's turn never runs in a group Session (rooms drive those): it would run the call in the own chat instead.
    if (owner.kind === 'member') return `it was asked in ${bot.name}'s Session in a group, and an allowed call runs only where it was asked`
    if (a.attempt?.taskId !== owner.taskId) return `it was asked in a task Session of ${owner.taskId} whose attempt was not recorded`
    const task = this.board.get(owner.taskId)
    if (task?.status === 'working' && task.lease?.attempt === a.attempt.n && task.lease.sessionId === a.sessionId) return undefined
    return `it was asked in attempt ${a.attempt.n} of ${owner.taskId}, which is over (the task ${task ? `is ${task.status}` : 'is gone'})`
  }

  /**
   * Use the one-shot grant a turn carries for a call (tool and argument key): true once, only in
   * the Session that asked while it may still take it (`askGone`), while the approval was allowed
   * and its grant is unused and not cancelled; the use is recorded in the ledger.
   */
  useGrant(
    grant: { taskId: string; tool: string; key: string },
    call: { tool: string; key: string; callId: string; botId: string; sessionId: string },
  ): boolean {
    const task = this.board.get(grant.taskId)
    const a = task?.ask
    if (!a?.approval || a.botId !== call.botId || a.answer?.verdict !== 'allowed' || a.grant?.used !== false || a.grant.cancelled) return false
    if (a.sessionId !== call.sessionId || this.askGone(a)) return false
    if (this.usedGrants.has(grant.taskId) || a.approval.tool !== call.tool || a.approval.key !== call.key || grant.key !== call.key) return false
    this.usedGrants.add(grant.taskId)
    this.track(this.transact((view) => useGrant(view, grant.taskId, { now: this.now(), callId: call.callId })))
    return true
  }

  private readonly usedGrants = new Set<string>()

  /** The person answers a question (text, or one of its choices). */
  async answer(req: Requester, ref: unknown, body: { text?: string | undefined; choice?: number | undefined }): Promise<Task> {
    return this.settleAs(req, ref, { verdict: 'answered', text: body.text, choice: body.choice })
  }

  /** The person allows or denies a call waiting for approval. */
  async decideApproval(req: Requester, ref: unknown, verdict: 'allowed' | 'denied', reason?: string): Promise<Task> {
    return this.settleAs(req, ref, verdict === 'allowed' ? { verdict } : { verdict, reason })
  }

  private async settleAs(req: Requester, ref: unknown, s: Settlement): Promise<Task> {
    const caller = this.roster.caller(req)
    const task = this.taskOf(ref)
    this.require(caller, 'answer_task', task)
    const gone = s.verdict === 'allowed' && task.status === 'ready' && task.ask?.kind === 'approval' ? this.askGone(task.ask) : undefined
    if (gone)
      throw new TeamRefusal(
        'invalid',
        `${task.id} can no longer be allowed: ${gone}. An allow now would run the call somewhere other than where it was asked, so nothing was allowed. Deny it (the Bot is told) or let it expire.`,
      )
    const [changed] = await this.apply((view) => settle(view, task.id, { now: this.now(), actor: this.actorOf(caller), ...s }))
    return changed!
  }

  private askTimer: unknown

  /** One timer for the next deadline of a waiting question or approval (writer only). */
  private planExpiry(atLeastMs = 0): void {
    if (this.askTimer !== undefined) this.clock.clearTimeout(this.askTimer)
    this.askTimer = undefined
    if (!this.active || this.store.mode !== 'writer') return
    const next = nextDeadline(this.board)
    if (next === undefined) return
    // A timer waits at most ~24.8 days (2^31 - 1 ms); a later deadline is planned again when it fires.
    this.askTimer = this.clock.setTimeout(() => this.expireAsks(), Math.min(2 ** 31 - 1, Math.max(atLeastMs, next - this.clock.now())))
  }

  private expireAsks(): void {
    this.askTimer = undefined
    if (!this.mayDispatch()) return
    const due = expiredAsks(this.board, this.now()).map((t) =>
      this.transact((view) => settle(view, t.id, { now: this.now(), actor: SYSTEM, verdict: 'expired' })),
    )
    // The next deadline is planned again whatever came of these; one that could not be settled is
    // tried again in a minute, not at once.
    this.track(Promise.allSettled(due).then((rs) => this.planExpiry(rs.some((r) => r.status === 'rejected' || !r.value.ok) ? 60_000 : 0)))
  }

  /** The team's tasks, newest first, filtered (a status, a Bot), at most `limit`. */
  list(filter: { status?: TaskStatus | 'open' | undefined; botId?: string | undefined; limit?: number } = {}): Task[] {
    const out: Task[] = []
    for (const t of this.board.all()) {
      if (filter.status === 'open' ? isClosed(t) : filter.status !== undefined && t.status !== filter.status) continue
      if (filter.botId !== undefined && assignedBot(t) !== filter.botId && !(t.creator.kind === 'bot' && t.creator.botId === filter.botId)) continue
      out.push(t)
    }
    return out.sort((a, b) => taskNumber(b.id) - taskNumber(a.id)).slice(0, filter.limit ?? 200)
  }

  /** Why a blocked task waits (its blockers), in words. */
  waitsFor(task: Task): string | undefined {
    const r = readiness(task, this.board)
    return r.ready ? undefined : r.reason
  }

  /**
   * The running attempt of a task goes on in a new task Session of the same Bot (the context
   * steward's move in the middle of its turn): the Session is created like the first one, the
   * lease moves to it in one transition, and it is hidden. Undefined when the attempt is no longer
   * the one `from` holds (it ended, or moved already).
   */
  async renewSession(taskId: string, from: string): Promise<{ agent: Agent; sessionId: string } | undefined> {
    const task = this.board.get(taskId)
    const botId = task ? assignedBot(task) : undefined
    const bot = botId ? this.roster.bot(botId) : undefined
    if (!task || !bot || task.lease?.sessionId !== from || !this.mayDispatch()) return undefined
    const sessionId = `session-${randomUUID()}`
    const done = this.roster.opens(sessionId, { kind: 'task', botId: bot.id, taskId })
    let agent: Agent
    try {
      agent = await this.roster.sessions.create(sessionId, { title: `${bot.name}: ${clip(task.title, 60)}`, model: bot.model, cwd: this.roster.folderOf(bot) })
      const moved = await this.transact((view) => moveSession(view, taskId, { now: this.now(), from, to: sessionId }))
      if (!moved.ok) {
        await this.roster.sessions.close(sessionId, `task ${taskId} did not move: ${moved.refusal}`)
        return undefined
      }
    } finally {
      done()
    }
    await this.roster.sessions.archive(sessionId)
    return { agent, sessionId }
  }

  /** Mark a task Session as leaving mid-turn (a context move): its turn's end does not end the attempt. */
  leaving(sessionId: string): () => void {
    this.moving.add(sessionId)
    return () => this.moving.delete(sessionId)
  }
}

/** A task whose budget is spent cannot start: the team cancels it, and its creator is told (pure over the view). */
function cancelForBudget(view: TaskReader, taskId: string, reason: string, now: string): Result {
  return cancel(view, taskId, { now, actor: SYSTEM, reason: clip(`it could not start: ${reason}`, REASON_MAX) })
}

/** The plan with assignees named by name resolved to Bot ids (an unknown name is left for the validator to refuse). */
function resolveAssignees(raw: unknown, idOf: (ref: string) => string | undefined): { tasks?: unknown[] } | undefined {
  if (!raw || typeof raw !== 'object' || !Array.isArray((raw as { tasks?: unknown }).tasks)) return raw as { tasks?: unknown[] } | undefined
  const tasks = (raw as { tasks: unknown[] }).tasks.map((t) => {
    if (!t || typeof t !== 'object') return t
    const a = (t as { assignee?: unknown }).assignee
    return typeof a === 'string' ? { ...(t as object), assignee: idOf(a.trim()) ?? a } : t
  })
  return { ...(raw as object), tasks }
}

/** The artifacts with a note added as one (`note` is the short form of a note artifact). */
function withNote(artifacts: unknown, note: unknown): unknown {
  if (note === undefined || note === null || note === '') return artifacts ?? []
  const list = Array.isArray(artifacts) ? artifacts : artifacts === undefined ? [] : [artifacts]
  return [...list, { kind: 'note', value: note }]
}

/** Drop messages of older attempts of the task from a restored inbox (a crash left them; their attempt is over). */
function dropStale(agent: Agent, taskId: string, attempt: number): void {
  for (const m of [...agent.inbox.nextStep, ...agent.inbox.nextTurn]) {
    const s = readSource(m.source)
    if ((s?.type === 'task' || s?.type === 'person-task') && s.taskId === taskId && s.attempt < attempt) agent.inbox.remove(m.id)
  }
}
