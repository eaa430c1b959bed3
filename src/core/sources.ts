/**
 * Message sources: the one format for every message the plugin puts into a Session (a union on
 * `type`), its JSON-only builders and `readSource`, the one reader — the durable half of a message
 * (delivery id, sender, the chain) that is never parsed back from text. Reads the older shapes too.
 * Deliberately no I/O, no DSH calls, no wording.
 */
import { z } from 'zod'
import { NETWORK_LEVELS, type NetworkLevel } from './network.ts'

/** The plugin id in every source this plugin writes. */
export const SOURCE_PLUGIN = 'bot-team'
/** The bootstrap turn's plugin id before sources were consolidated (read only). */
const LEGACY_BOOTSTRAP_PLUGIN = 'bot-team-bootstrap'

/** Sandbox modes ranked lowest first (an unknown or custom mode ranks lowest). */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]

/**
 * What a Bot-started message carries about the chain that caused it: how many Bot-to-Bot steps
 * deep it is, which work budget it draws from (one per user message), and the lowest sandbox mode
 * along the chain (delegation never amplifies authority).
 */
export interface Chain {
  hop: number
  /** The work budget this chain draws from (absent in logs written before budgets existed). */
  budget?: string
  /** The lowest sandbox mode along the chain (absent: the chain's authority is the target's own). */
  mode?: SandboxMode
  /** The strictest network level along the chain (absent: the target's own; chains written before levels). */
  network?: NetworkLevel
}

export type DeliveryType = 'message' | 'interrupt' | 'stop' | 'reply'

interface Base {
  kind: 'plugin'
  plugin: typeof SOURCE_PLUGIN
}

/** A recorded inter-Bot message (outbox record `deliveryId`). */
export interface DeliverySource extends Base, Chain {
  form: 'relay'
  type: DeliveryType
  deliveryId: string
  fromBot: string
  fromName: string
  /** `message` only: where the answer goes. */
  replyTo?: 'sender' | 'user'
  /** `reply` only: the delivery it answers (a message, or a discarded one). */
  answers?: string
}

/** A post entered into a room Session (by a Bot's `post_to_group`, or the user through the API). */
export interface RoomPostSource extends Base, Chain {
  form: 'relay'
  type: 'room-post'
  groupId: string
  groupName: string
  postId: string
  /** The post's text (the message text also carries a name prefix for DSH's own display). */
  said: string
  /** The posting Bot; absent when the user posted through the API. */
  fromBot?: string
  fromName?: string
  /** Send the round's replies back to the posting Bot's own chat. */
  report?: boolean
}

/** A member's turn in a round, entered into its group Session. */
export interface RoomTurnSource extends Base, Chain {
  form: 'relay'
  type: 'room-turn'
  groupId: string
  groupName: string
}

/** The replies of a round, sent back to the poster's own chat. */
export interface RoomReportSource extends Base, Chain {
  form: 'relay'
  type: 'room-report'
  groupId: string
  groupName: string
  /** Its outbox record (absent in logs written before reports went through the outbox). */
  deliveryId?: string
}

/** A one-line notice shown in a room (not a post; starts no round). */
export interface RoomNoticeSource extends Base {
  form: 'notice'
  type: 'room-notice'
  summary: string
  groupId: string
  groupName: string
}

/** The room's first turn (makes the room visible in DSH Web; answered without a model). */
export interface RoomOpenSource extends Base {
  form: 'notice'
  type: 'room-open'
  summary: string
  groupId: string
  groupName: string
}

/** The zero-model-call first turn of a fresh Session in DSH Web (entered as nothing). */
export interface BootstrapSource extends Base {
  form: 'notice'
  type: 'bootstrap'
  summary: string
}

/** A notice for the person in the Main Bot's chat (a daily spending cap reached); starts no turn. */
export interface UsageNoticeSource extends Base {
  form: 'notice'
  type: 'usage-notice'
  summary: string
}

/** A Bot's role changed mid-part (it takes effect at the next part); injected, starts no turn. */
export interface RoleNoticeSource extends Base {
  form: 'notice'
  type: 'role-notice'
  summary: string
}

/** The network levels changed (an upgrade, or the person to or from `full`); injected, starts no turn. */
export interface NetworkNoticeSource extends Base {
  form: 'notice'
  type: 'network-notice'
  summary: string
}

/** A due scheduled task, entered into its Bot's own chat; the chain opens its own budget. */
export interface ScheduleSource extends Base, Chain {
  form: 'relay'
  type: 'schedule'
  scheduleId: string
  /** `user` or the id of the Bot that created the task. */
  createdBy: string
}

/**
 * The handoff package: the first message of a new part of a Bot's conversation (its note and the
 * messages it received in the previous part; `recall` = material lifted out of another Session).
 * It carries the previous part's last chain (absent in packages written before chains rode it),
 * so the new part runs under the same chain; the package text never states it.
 */
export interface HandoffSource extends Base, Partial<Chain> {
  form: 'recall'
  type: 'handoff'
  /** The part this package opens. */
  part: number
  /** A turn was cut off by the move and goes on in this part. */
  resume: boolean
}

/** A note to a Bot about its secret request (saved, declined, revoked); never carries a value. */
export interface SecretNoteSource extends Base {
  form: 'notice'
  type: 'secret-note'
  summary: string
  name: string
}

/**
 * One attempt of a task, entered into its task Session: `task` for a task a Bot planned (it runs
 * at the planning chain's mode and on its budget), `person-task` for one the person created (the
 * assignee's own preset, the task's own budget). `intentId` is the outbox intent that handed it
 * over (the ledger's recovery finds it by this id).
 */
export interface TaskSource extends Base, Chain {
  form: 'relay'
  type: 'task' | 'person-task'
  taskId: string
  attempt: number
  intentId: string
}

/** What the ledger tells a task's creator (submitted for review, failed, cancelled, no assignee); it opens a turn on the task's chain. */
export interface TaskReportSource extends Base, Chain {
  form: 'relay'
  type: 'task-report'
  taskId: string
  intentId: string
}

/**
 * The person's answer to a Bot's question or approval (from the inbox), entered into the asking
 * Session: a turn on the asking chain, never a turn the person opened. `grant`: an allowed
 * approval, the one-shot grant for exactly that call (tool and the key of its arguments).
 */
export interface AnswerSource extends Base, Chain {
  form: 'relay'
  type: 'answer'
  taskId: string
  intentId: string
  grant?: { tool: string; key: string }
}

/** One line about a task in a Bot's own chat (it started, it ended) or for the person; starts no turn. */
export interface TaskNoticeSource extends Base {
  form: 'notice'
  type: 'task-notice'
  summary: string
  taskId: string
  /** The outbox intent it delivers (a notice for the person); absent for the start and end lines. */
  intentId?: string
}

export type TeamSource =
  | DeliverySource
  | RoomPostSource
  | RoomTurnSource
  | RoomReportSource
  | RoomNoticeSource
  | RoomOpenSource
  | BootstrapSource
  | UsageNoticeSource
  | ScheduleSource
  | HandoffSource
  | SecretNoteSource
  | RoleNoticeSource
  | NetworkNoticeSource
  | TaskSource
  | TaskReportSource
  | AnswerSource
  | TaskNoticeSource

export type TeamSourceType = TeamSource['type']

// ── builders (JSON-only: no undefined values) ───────────────────────────────────────────────────

function chainFields(chain: Chain): Chain {
  return {
    hop: chain.hop,
    ...(chain.budget ? { budget: chain.budget } : {}),
    ...(chain.mode ? { mode: chain.mode } : {}),
    ...(chain.network ? { network: chain.network } : {}),
  }
}

const base: Base = { kind: 'plugin', plugin: SOURCE_PLUGIN }

export function deliverySource(
  /** A delivery record (a `report` gets `roomReportSource` instead, never this). */
  d: { id: string; from: string; kind: DeliveryType | 'report'; replyMode?: 'sender' | 'user' | undefined; replyTo?: string | null | undefined },
  fromName: string,
  chain: Chain,
): DeliverySource {
  return {
    ...base,
    form: 'relay',
    type: d.kind === 'report' ? 'reply' : d.kind,
    deliveryId: d.id,
    fromBot: d.from,
    fromName,
    ...chainFields(chain),
    ...(d.kind === 'message' && d.replyMode ? { replyTo: d.replyMode } : {}),
    ...(d.kind === 'reply' && d.replyTo ? { answers: d.replyTo } : {}),
  }
}

export function roomPostSource(
  p: { groupId: string; groupName: string; postId: string; said: string; from?: { id: string; name: string } | undefined; report?: boolean | undefined },
  chain: Chain,
): RoomPostSource {
  return {
    ...base,
    form: 'relay',
    type: 'room-post',
    groupId: p.groupId,
    groupName: p.groupName,
    postId: p.postId,
    said: p.said,
    ...(p.from ? { fromBot: p.from.id, fromName: p.from.name } : {}),
    ...(p.report && p.from ? { report: true } : {}),
    ...chainFields(chain),
  }
}

export function roomTurnSource(g: { groupId: string; groupName: string }, chain: Chain): RoomTurnSource {
  return { ...base, form: 'relay', type: 'room-turn', groupId: g.groupId, groupName: g.groupName, ...chainFields(chain) }
}

export function roomReportSource(g: { groupId: string; groupName: string }, chain: Chain, deliveryId?: string): RoomReportSource {
  return {
    ...base,
    form: 'relay',
    type: 'room-report',
    groupId: g.groupId,
    groupName: g.groupName,
    ...chainFields(chain),
    ...(deliveryId ? { deliveryId } : {}),
  }
}

/** The outbox record a message source names: a delivery, or a room report sent through the outbox (pure). */
export function outboxIdOf(source: unknown): string | undefined {
  const s = readSourceOf(source, 'message', 'interrupt', 'stop', 'reply', 'room-report')
  return s?.deliveryId
}

export function roomNoticeSource(g: { groupId: string; groupName: string }, summary: string): RoomNoticeSource {
  return { ...base, form: 'notice', type: 'room-notice', summary: oneLine(summary), groupId: g.groupId, groupName: g.groupName }
}

export function roomOpenSource(g: { groupId: string; groupName: string }): RoomOpenSource {
  return { ...base, form: 'notice', type: 'room-open', summary: oneLine(`Group ${g.groupName} opened`), groupId: g.groupId, groupName: g.groupName }
}

export function scheduleSource(t: { scheduleId: string; createdBy: string }, chain: Chain): ScheduleSource {
  return { ...base, form: 'relay', type: 'schedule', scheduleId: t.scheduleId, createdBy: t.createdBy, ...chainFields(chain) }
}

export function bootstrapSource(name: string): BootstrapSource {
  return { ...base, form: 'notice', type: 'bootstrap', summary: oneLine(`${name} joined the team`) }
}

export function usageNoticeSource(summary: string): UsageNoticeSource {
  return { ...base, form: 'notice', type: 'usage-notice', summary: oneLine(summary) }
}

export function handoffSource(part: number, resume: boolean, chain?: Chain): HandoffSource {
  return { ...base, form: 'recall', type: 'handoff', part, resume, ...(chain ? chainFields(chain) : {}) }
}

export function roleNoticeSource(summary: string): RoleNoticeSource {
  return { ...base, form: 'notice', type: 'role-notice', summary: oneLine(summary) }
}

export function networkNoticeSource(summary: string): NetworkNoticeSource {
  return { ...base, form: 'notice', type: 'network-notice', summary: oneLine(summary) }
}

export function secretNoteSource(name: string, summary: string): SecretNoteSource {
  return { ...base, form: 'notice', type: 'secret-note', summary: oneLine(summary), name }
}

export function taskSource(t: { taskId: string; attempt: number; intentId: string; byPerson: boolean }, chain: Chain): TaskSource {
  return {
    ...base,
    form: 'relay',
    type: t.byPerson ? 'person-task' : 'task',
    taskId: t.taskId,
    attempt: t.attempt,
    intentId: t.intentId,
    ...chainFields(chain),
  }
}

export function taskReportSource(t: { taskId: string; intentId: string }, chain: Chain): TaskReportSource {
  return { ...base, form: 'relay', type: 'task-report', taskId: t.taskId, intentId: t.intentId, ...chainFields(chain) }
}

export function answerSource(t: { taskId: string; intentId: string; grant?: { tool: string; key: string } }, chain: Chain): AnswerSource {
  return { ...base, form: 'relay', type: 'answer', taskId: t.taskId, intentId: t.intentId, ...(t.grant ? { grant: t.grant } : {}), ...chainFields(chain) }
}

export function taskNoticeSource(taskId: string, summary: string, intentId?: string): TaskNoticeSource {
  return { ...base, form: 'notice', type: 'task-notice', summary: oneLine(summary), taskId, ...(intentId ? { intentId } : {}) }
}

/** DSH bounds a notice's one-line summary (CONTEXT_SUMMARY_MAX_CHARS = 120). */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}

// ── the one reader ──────────────────────────────────────────────────────────────────────────────

const id = z.string().min(1).max(200)
const name = z.string().max(200)
const chain = {
  hop: z.int().min(0).max(1000),
  budget: id.optional(),
  mode: z.enum(SANDBOX_MODES).optional(),
  network: z.enum(NETWORK_LEVELS).optional(),
}
const plugin = { kind: z.literal('plugin'), plugin: z.literal(SOURCE_PLUGIN) }
const group = { groupId: id, groupName: name }

const readers = z.discriminatedUnion('type', [
  z.object({
    ...plugin,
    form: z.literal('relay'),
    type: z.enum(['message', 'interrupt', 'stop', 'reply']),
    deliveryId: id,
    fromBot: id,
    fromName: name,
    replyTo: z.enum(['sender', 'user']).optional(),
    answers: id.optional(),
    ...chain,
  }),
  z.object({
    ...plugin,
    form: z.literal('relay'),
    type: z.literal('room-post'),
    ...group,
    postId: id,
    said: z.string(),
    fromBot: id.optional(),
    fromName: name.optional(),
    report: z.boolean().optional(),
    ...chain,
  }),
  z.object({ ...plugin, form: z.literal('relay'), type: z.literal('room-turn'), ...group, ...chain }),
  z.object({ ...plugin, form: z.literal('relay'), type: z.literal('room-report'), ...group, deliveryId: id.optional(), ...chain }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('room-notice'), summary: z.string(), ...group }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('room-open'), summary: z.string(), ...group }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('bootstrap'), summary: z.string() }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('usage-notice'), summary: z.string() }),
  z.object({ ...plugin, form: z.literal('relay'), type: z.literal('schedule'), scheduleId: id, createdBy: id, ...chain }),
  z.object({
    ...plugin,
    form: z.literal('recall'),
    type: z.literal('handoff'),
    part: z.int().min(1).max(1_000_000),
    resume: z.boolean(),
    ...chain,
    hop: chain.hop.optional(),
  }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('secret-note'), summary: z.string(), name: z.string().max(64) }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('role-notice'), summary: z.string() }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('network-notice'), summary: z.string() }),
  z.object({
    ...plugin,
    form: z.literal('relay'),
    type: z.enum(['task', 'person-task']),
    taskId: id,
    attempt: z.int().min(1).max(1_000),
    intentId: id,
    ...chain,
  }),
  z.object({ ...plugin, form: z.literal('relay'), type: z.literal('task-report'), taskId: id, intentId: id, ...chain }),
  z.object({
    ...plugin,
    form: z.literal('relay'),
    type: z.literal('answer'),
    taskId: id,
    intentId: id,
    grant: z.object({ tool: z.string().min(1).max(200), key: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
    ...chain,
  }),
  z.object({ ...plugin, form: z.literal('notice'), type: z.literal('task-notice'), summary: z.string(), taskId: id, intentId: id.optional() }),
])

/** Rewrite a source written before consolidation into today's shape (pure; unknown input passes). */
function upgradeLegacy(s: Record<string, unknown>): Record<string, unknown> {
  if (s.kind === 'plugin' && s.plugin === LEGACY_BOOTSTRAP_PLUGIN) return { ...base, form: 'notice', type: 'bootstrap', summary: '' }
  if (s.type !== undefined || typeof s.delivery !== 'string') return s
  const { delivery, ...rest } = s
  const upgraded: Record<string, unknown> = { ...rest, type: delivery }
  if (delivery === 'room-post') {
    // Rooms wrote the poster as `fromId`; a post without `said` used its text.
    if (typeof s.fromId === 'string') upgraded.fromBot = s.fromId
    delete upgraded.fromId
    upgraded.postId ??= 'legacy'
    upgraded.said ??= ''
  }
  if (delivery === 'room-notice' || delivery === 'room-open') {
    upgraded.form = 'notice'
    upgraded.summary ??= ''
  }
  if (delivery === 'room-turn' || delivery === 'room-report' || delivery === 'room-post') {
    upgraded.hop ??= 0
    upgraded.groupId ??= 'unknown'
  }
  return upgraded
}

/**
 * What a message source is, if this plugin wrote it (pure; tolerant of any input: a source that is
 * not ours, or is malformed, reads as `undefined`).
 */
export function readSource(source: unknown): TeamSource | undefined {
  if (!source || typeof source !== 'object') return undefined
  const raw = source as Record<string, unknown>
  if (raw.kind !== 'plugin' || (raw.plugin !== SOURCE_PLUGIN && raw.plugin !== LEGACY_BOOTSTRAP_PLUGIN)) return undefined
  const parsed = readers.safeParse(upgradeLegacy(raw))
  return parsed.success ? (parsed.data as TeamSource) : undefined
}

/** The source if it is of one of `types` (pure). */
export function readSourceOf<T extends TeamSourceType>(source: unknown, ...types: T[]): (TeamSource & { type: T }) | undefined {
  const s = readSource(source)
  return s && (types as string[]).includes(s.type) ? (s as TeamSource & { type: T }) : undefined
}

/** The chain facts of a source that carries them (pure). */
export function chainOf(source: TeamSource | undefined): Chain | undefined {
  if (!source || !('hop' in source) || source.hop === undefined) return undefined
  return chainFields(source as Chain)
}

// ── the room's answer (assistant message) ───────────────────────────────────────────────────────

/**
 * The rounds one room answer ran (and the room's own lines in it, `notes`), carried where DSH keeps it with the assistant message: the
 * stream's `finish.replayState`, which DSH's assembler copies unchanged into the message's model
 * source (`{kind:'model', provider, model, replayState}`) and the Session log keeps. The room never
 * calls a provider, so no adapter ever reads it back. It is a `ReplayEnvelope` with response-level
 * data only (no `blocks`, so assembly passes it through whole), keyed under `botTeam`.
 */
export interface RoomAnswerState {
  response: { botTeam: { type: 'room-answer'; rounds: string[]; notes?: RoomNote[] } }
}

/**
 * A line the room itself says inside its answer (not a member's post, not a turn's outcome — those
 * are in the post log): `open` the opening line, `notice` the echo of a notice the room was handed
 * (already shown by its own message), `held` a round waiting for the team to resume (before the
 * round's turns), `turn-cap` a round cut at its turn limit (after them). `text` is plain, one line.
 */
export interface RoomNote {
  kind: 'open' | 'notice' | 'held' | 'turn-cap'
  text: string
  /** The round the line belongs to (held, turn-cap); absent: before every round of the answer. */
  round?: string
}

/** At most this many rounds are named on one answer (one per post the room read at once). */
export const ROOM_ANSWER_ROUNDS_MAX = 50
/** At most this many notes ride one answer, each at most `ROOM_NOTE_MAX` characters. */
export const ROOM_NOTES_MAX = 50
export const ROOM_NOTE_MAX = 300

export function roomAnswerState(rounds: readonly string[], notes: readonly RoomNote[] = []): RoomAnswerState {
  const kept = notes
    .slice(0, ROOM_NOTES_MAX)
    .map((n) => ({ kind: n.kind, text: n.text.replace(/\s+/g, ' ').trim().slice(0, ROOM_NOTE_MAX), ...(n.round ? { round: n.round } : {}) }))
  return { response: { botTeam: { type: 'room-answer', rounds: rounds.slice(0, ROOM_ANSWER_ROUNDS_MAX), ...(kept.length ? { notes: kept } : {}) } } }
}

const noteReader = z.object({ kind: z.enum(['open', 'notice', 'held', 'turn-cap']), text: z.string().max(ROOM_NOTE_MAX), round: id.optional() })
const roomAnswerReader = z.object({
  kind: z.literal('model'),
  replayState: z.object({
    response: z.object({
      botTeam: z.object({
        type: z.literal('room-answer'),
        rounds: z.array(id).max(ROOM_ANSWER_ROUNDS_MAX),
        notes: z.array(noteReader).max(ROOM_NOTES_MAX).optional(),
      }),
    }),
  }),
})

/** The rounds and the room's own notes an assistant message's source names, if a room wrote it (pure; any input). */
export function readRoomAnswerParts(source: unknown): { rounds: string[]; notes: RoomNote[] } | undefined {
  const parsed = roomAnswerReader.safeParse(source)
  if (!parsed.success) return undefined
  const { rounds, notes } = parsed.data.replayState.response.botTeam
  return { rounds, notes: (notes ?? []).map((n) => ({ kind: n.kind, text: n.text, ...(n.round ? { round: n.round } : {}) })) }
}
