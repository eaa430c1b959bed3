/**
 * The team as the browser half draws it (pure): every live Bot with its look and status (read-only /
 * follower, approval, working, stopped, queued, idle — first match wins), every live group, the
 * problems, whether the team is paused, how many tasks wait for the person, each Bot's network level. Deliberately no I/O and no DSH types.
 */
import { shownName } from '../core/names.ts'
import type { Bot, Group, TeamState } from '../store/index.ts'
import { clip } from '../core/text-limits.ts'
import { DEFAULT_NETWORK_LEVEL, type NetworkLevel } from '../core/network.ts'

export type BotStatus = 'idle' | 'working' | 'queued' | 'approval' | 'stopped' | 'read-only' | 'follower'

/** Every status, in the order `botStatus` tries them (for UIs and test matrices). */
export const BOT_STATUSES: readonly BotStatus[] = ['read-only', 'follower', 'approval', 'working', 'stopped', 'queued', 'idle']

export interface BotView {
  id: string
  name: string
  role: string
  main: boolean
  model?: string
  preset: string
  colour: string
  shape: string
  pinned: boolean
  hidden: boolean
  status: BotStatus
  queued: number
  /** The folder its next Sessions are created in; absent: the team workspace. */
  workFolder?: string
  /** What the Bot's shell reaches: `internet` (the default), `none` or `full` (the person's setting). */
  network: NetworkLevel
  /** Why this machine cannot run the Bot's shell commands at its level, and the fix (absent: it can). */
  networkProblem?: string
  /** The Bot's current own-chat Session (its part), if it has one. */
  chatSessionId?: string
  /** Its ended parts, newest first (at most `EARLIER_PARTS_MAX`): archived chats the person can still open. */
  earlierParts?: EarlierPart[]
  /** Its questions and approvals waiting for the person in the inbox ("waiting for the person"); absent: none. */
  asksWaiting?: number
}

export interface EarlierPart {
  part: number
  sessionId: string
  startedAt: string
  endedAt?: string
  endReason?: string
}

/** How many ended parts a Bot's entry lists (the rest are found with `read_own_chat`). */
export const EARLIER_PARTS_MAX = 20

export interface GroupView {
  id: string
  name: string
  members: string[]
  admin?: string
  mode: 'admin' | 'everyone'
  roomSessionId?: string
}

export interface Problem {
  kind: 'read-only' | 'lock-lost' | 'sqlite' | 'state'
  text: string
}

export interface TeamView {
  mode: string
  revision: number
  bots: BotView[]
  groups: GroupView[]
  problems: Problem[]
  /** Set while the person has paused Bot-started work (the sidebar's "Team paused" line). */
  paused?: { at: string; reason?: string }
  /** How many tasks wait for the person (the sidebar's badge); absent without the task ledger. */
  tasksWaiting?: number
}

export interface TeamFacts {
  state: Readonly<TeamState>
  store: { mode: string; message: string; lockLost: boolean; revision: number; reason: string | null }
  archive?: { driver: string; problem?: { message: string } | undefined } | undefined
  /** True when the Session's agent is running a turn. */
  running: (sessionId: string) => boolean
  /** True while one of the Bot's Sessions waits on DSH's approval prompt (absent: never). */
  awaitingApproval?: (botId: string) => boolean
  /** True when the Session's latest turn was stopped and none started since (`session-status.ts`; absent: never). */
  stopped?: (sessionId: string) => boolean
  /** Why Bot-started work for the Bot is held (team paused, a usage cap), if it is (absent: never). */
  held?: (botId: string) => string | undefined
  /** How many tasks wait for the person (absent: no task ledger). */
  tasksWaiting?: () => number | undefined
  /** How many of a Bot's questions and approvals wait for the person (absent: none). */
  asksWaiting?: (botId: string) => number
  /** A Bot's network level and, where the machine cannot give it, the one message naming the fix (absent: read from state). */
  network?: (bot: Bot) => { level: NetworkLevel; problem?: string | undefined }
}

/** The facts one Bot's status is decided from. */
export interface StatusFacts {
  /** The store's mode: `writer`, `follower` or `read-only`. */
  mode: string
  running: boolean
  queued: number
  awaitingApproval: boolean
  stopped: boolean
  held: boolean
}

function shapeOf(bot: Bot): string {
  return bot.avatar.kind === 'shape' ? bot.avatar.shape : 'circle'
}

/** Sort order of the sidebar: Main Bots first, then pinned, then by name. */
export function compareBots(a: BotView, b: BotView): number {
  if (a.main !== b.main) return a.main ? -1 : 1
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1
  return a.name.localeCompare(b.name)
}

/** A Bot's status (pure; first match wins, in `BOT_STATUSES` order). */
export function botStatus(f: StatusFacts): BotStatus {
  if (f.mode === 'read-only') return 'read-only'
  if (f.mode === 'follower') return 'follower'
  if (f.awaitingApproval) return 'approval'
  if (f.running) return 'working'
  if (f.stopped || f.held) return 'stopped'
  return f.queued > 0 ? 'queued' : 'idle'
}

export function teamProblems(facts: Pick<TeamFacts, 'store' | 'archive'>): Problem[] {
  const problems: Problem[] = []
  if (facts.store.mode === 'read-only') problems.push({ kind: facts.store.reason === 'backup-failed' ? 'state' : 'read-only', text: facts.store.message })
  if (facts.store.lockLost)
    problems.push({ kind: 'lock-lost', text: 'The team lock was lost: another DSH process may be writing the team. Restart DSH Web to take it back.' })
  if (facts.archive?.driver === 'unavailable') {
    problems.push({
      kind: 'sqlite',
      text: facts.archive.problem?.message ?? 'The native SQLite module is missing: search of old conversations is off until it is rebuilt.',
    })
  }
  return problems
}

function earlierPartsOf(bot: Bot): { earlierParts?: EarlierPart[] } {
  const ended = bot.sessionParts.slice(0, -1).slice(-EARLIER_PARTS_MAX).reverse()
  if (ended.length === 0) return {}
  return {
    earlierParts: ended.map((p) => ({
      part: p.part,
      sessionId: p.sessionId,
      startedAt: p.startedAt,
      ...(p.endedAt ? { endedAt: p.endedAt } : {}),
      ...(p.endReason ? { endReason: clip(p.endReason, 120) } : {}),
    })),
  }
}

function networkOf(facts: TeamFacts, bot: Bot): { network: NetworkLevel; networkProblem?: string } {
  const n = facts.network?.(bot) ?? { level: bot.network ?? DEFAULT_NETWORK_LEVEL }
  return { network: n.level, ...(n.problem ? { networkProblem: n.problem } : {}) }
}

function asksOf(facts: TeamFacts, botId: string): { asksWaiting?: number } {
  const n = facts.asksWaiting?.(botId) ?? 0
  return n ? { asksWaiting: n } : {}
}

export function teamView(facts: TeamFacts): TeamView {
  const { state } = facts
  const pending = new Map<string, number>()
  for (const d of state.deliveries) if (d.status === 'pending') pending.set(d.to, (pending.get(d.to) ?? 0) + 1)
  const bots: BotView[] = []
  for (const bot of Object.values(state.bots)) {
    if (bot.deleted) continue
    const chat = bot.sessionParts.at(-1)?.sessionId
    const queued = pending.get(bot.id) ?? 0
    bots.push({
      id: bot.id,
      name: shownName(bot.name),
      role: bot.role,
      main: bot.main,
      ...(bot.model ? { model: bot.model } : {}),
      preset: bot.permissionPreset,
      colour: bot.colour,
      shape: shapeOf(bot),
      pinned: bot.pinned,
      hidden: bot.hidden,
      status: botStatus({
        mode: facts.store.mode,
        running: chat !== undefined && facts.running(chat),
        queued,
        awaitingApproval: facts.awaitingApproval?.(bot.id) ?? false,
        stopped: chat !== undefined && (facts.stopped?.(chat) ?? false),
        held: facts.held?.(bot.id) !== undefined,
      }),
      queued,
      ...(bot.workFolder ? { workFolder: bot.workFolder } : {}),
      ...networkOf(facts, bot),
      ...(chat ? { chatSessionId: chat } : {}),
      ...earlierPartsOf(bot),
      ...asksOf(facts, bot.id),
    })
  }
  bots.sort(compareBots)
  const groups: GroupView[] = Object.values(state.groups)
    .filter((g: Group) => !g.deleted)
    .map((g) => ({
      id: g.id,
      name: shownName(g.name),
      members: [...g.members],
      ...(g.admin ? { admin: g.admin } : {}),
      mode: g.mode,
      ...(g.roomSessionId ? { roomSessionId: g.roomSessionId } : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name))
  const paused = state.paused ? { paused: { at: state.paused.at, ...(state.paused.reason ? { reason: state.paused.reason } : {}) } } : {}
  const waiting = facts.tasksWaiting?.()
  return {
    mode: facts.store.mode,
    revision: facts.store.revision,
    bots,
    groups,
    problems: teamProblems(facts),
    ...paused,
    ...(waiting === undefined ? {} : { tasksWaiting: waiting }),
  }
}

export interface DeliveryRow {
  id: string
  from: string
  fromName: string
  to: string
  toName: string
  kind: string
  hop: number
  at: string
  status: string
  outcome?: string
}

/** Most rows one answer of the delivery log carries. */
export const DELIVERY_LOG_MAX = 200

/** The delivery log, newest first, optionally only what one Bot sent or got (pure, bounded). */
export function deliveryLog(state: Readonly<TeamState>, opts: { bot?: string; limit?: number } = {}): DeliveryRow[] {
  const limit = Math.max(1, Math.min(DELIVERY_LOG_MAX, opts.limit ?? DELIVERY_LOG_MAX))
  // A room's report comes from its group (`from` is the group's id).
  const nameOf = (id: string) => (Object.hasOwn(state.bots, id) ? state.bots[id]!.name : Object.hasOwn(state.groups, id) ? state.groups[id]!.name : id)
  const rows: DeliveryRow[] = []
  for (let i = state.deliveries.length - 1; i >= 0 && rows.length < limit; i--) {
    const d = state.deliveries[i]!
    if (opts.bot && d.from !== opts.bot && d.to !== opts.bot) continue
    rows.push({
      id: d.id,
      from: d.from,
      fromName: nameOf(d.from),
      to: d.to,
      toName: nameOf(d.to),
      kind: d.kind,
      hop: d.hop,
      at: d.updatedAt ?? d.createdAt,
      status: d.status,
      ...(d.outcome ? { outcome: d.outcome.slice(0, 300) } : {}),
    })
  }
  return rows
}
