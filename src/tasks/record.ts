/**
 * The task record — the shape of one task of the team's shared ledger, as zod schemas and types,
 * the limits of every field, and the one history append (the last 50 entries kept, older counted).
 *
 * The disk schema is looser than the input rules on purpose (lengths in UTF-16 units at twice the
 * code-point limits, unknown fields dropped), so any record a build wrote loads; what the policy
 * produces always fits it. Deliberately narrow: no transitions (`policy.ts`), no I/O (`store.ts`).
 */
import { z } from 'zod'
import { SANDBOX_MODES, type Chain } from '../core/sources.ts'
import { NETWORK_LEVELS } from '../core/network.ts'
import { APPROVAL_ARGS_MAX, REASON_MAX } from '../core/text-limits.ts'

/** Every limit of the ledger (characters are code points). */
export const TASK_LIMITS = Object.freeze({
  title: 120,
  brief: 8_000,
  acceptance: 2_000,
  reason: REASON_MAX,
  /** Blockers of one task. */
  blockedBy: 50,
  artifacts: 50,
  artifactValue: 2_000,
  artifactLabel: 200,
  /** History entries kept per task; older ones are counted in `historyDropped`. */
  history: 50,
  /** Attempts kept per task (the give-up comes far earlier; room for a larger setting later). */
  attempts: 20,
  /** Unsuccessful attempts after which a task is `failed`. */
  maxAttempts: 3,
  perPlan: 50,
  /** Open tasks (not done, failed or cancelled) in the team. */
  openTasks: 500,
  /** A plan's local key for one of its tasks. */
  key: 40,
  /** A notice to a creator. */
  notice: 2_000,
  /** Sessions one attempt may move to (context moves in the middle of its turn). */
  moves: 10,
  /** A question to the person, an answer, and why an approval is asked. */
  question: 2_000,
  choices: 10,
  choice: 200,
  /** The masked arguments of a call waiting for approval (JSON, whole: a longer call does not wait). */
  approvalArgs: APPROVAL_ARGS_MAX,
  /** Open approvals one Bot may have waiting. */
  approvalsPerBot: 5,
  /** Open questions one Bot may have waiting (all its Sessions together; one per turn). */
  questionsPerBot: 5,
  /** Open tasks kept for the person: Bots' questions and approvals never take the team above `openTasks` minus this. */
  personReserve: 50,
  /** A question's or approval's deadline when none is given, and the longest one (ms). */
  askDefaultMs: 24 * 3_600_000,
  askMaxMs: 30 * 24 * 3_600_000,
})

/** Statuses in the order a task usually moves; the last three are closed. (A `waiting` status can join here.) */
export const TASK_STATUSES = ['blocked', 'ready', 'working', 'review', 'done', 'failed', 'cancelled'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]
export const CLOSED_STATUSES: ReadonlySet<TaskStatus> = new Set(['done', 'failed', 'cancelled'])

/** How an attempt ended. `withdrawn`: the task was taken away (cancelled, reassigned, the Bot deleted); it does not count. */
export const ATTEMPT_OUTCOMES = ['submitted', 'ended-without-submit', 'crash', 'lease-expired', 'rejected', 'check-failed', 'withdrawn'] as const
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number]
/** Outcomes that count towards `maxAttempts`. */
export const FAILED_OUTCOMES: ReadonlySet<AttemptOutcome> = new Set(['ended-without-submit', 'crash', 'lease-expired', 'rejected', 'check-failed'])

export const ARTIFACT_KINDS = ['file', 'commit', 'branch', 'link', 'note'] as const

// Disk rules: UTF-16 units at twice the code-point limits (a code point is at most two units).
const units = (n: number) => z.string().max(2 * n)
const id = z.string().min(1).max(200)
const time = z.string().min(1).max(40)
const count = z.int().min(0)
const sha = z.string().regex(/^[0-9a-f]{40,64}$/)

export const botRefSchema = z.object({ kind: z.literal('bot'), botId: id })
/** Who created a task: the person or a Bot. */
export const creatorSchema = z.discriminatedUnion('kind', [z.object({ kind: z.literal('user') }), botRefSchema])
/** Who works on it: a Bot, or the person (questions and approvals: the inbox). */
export const assigneeSchema = z.discriminatedUnion('kind', [botRefSchema, z.object({ kind: z.literal('user') })])
/** Who made a transition: the person, a Bot, or the team itself (a lease ran out, blockers finished). */
export const actorSchema = z.discriminatedUnion('kind', [z.object({ kind: z.literal('user') }), botRefSchema, z.object({ kind: z.literal('system') })])

export const historyEntrySchema = z.object({
  at: time,
  actor: actorSchema,
  /** The transition's name (`created`, `claimed`, `submitted`, …). */
  what: z.string().min(1).max(40),
  /** `null` for the entry that created the task. */
  from: z.enum(TASK_STATUSES).nullable(),
  to: z.enum(TASK_STATUSES),
  reason: units(TASK_LIMITS.reason + 100).optional(),
})

export const attemptSchema = z.object({
  n: z.int().min(1),
  sessionId: id,
  /** The Bot that made the attempt (absent in records written before it was kept: the assignee). */
  botId: id.optional(),
  /** Sessions the attempt moved to after `sessionId` (a context move in the middle of its turn). */
  moved: z.array(id).max(10).optional(),
  startedAt: time,
  endedAt: time.nullable(),
  outcome: z.enum(ATTEMPT_OUTCOMES).nullable(),
  reason: units(TASK_LIMITS.reason + 100).nullable(),
})

export const leaseSchema = z.object({ attempt: z.int().min(1), sessionId: id, expiresAt: time })

export const artifactSchema = z.object({
  kind: z.enum(ARTIFACT_KINDS),
  value: units(TASK_LIMITS.artifactValue),
  label: units(TASK_LIMITS.artifactLabel).optional(),
  at: time,
  by: actorSchema,
})

export const tokensSchema = z.object({ input: count, cached: count, output: count })

/** A task's chain; `network` (the strictest level along it, format 2: `docs/upgrades.md`) is absent in format-1 records. */
export const chainSchema = z.object({
  hop: count.max(1000),
  budget: id.optional(),
  mode: z.enum(SANDBOX_MODES).optional(),
  network: z.enum(NETWORK_LEVELS).optional(),
})

/** Characters of a check's output tail a task keeps. */
export const CHECK_TAIL_MAX = 2000

/** The longest conflicting path a task record keeps (code points; a longer one is clipped). */
export const CONFLICT_PATH_MAX = 1000

/** A project task's worktree: the project, its check command, branch, last check and merge state. */
export const worktreeSchema = z.object({
  project: units(1000).optional(),
  /** The check run in the task's clone on submit. */
  command: units(4000).optional(),
  branch: units(250).optional(),
  check: z
    .object({
      ok: z.boolean(),
      at: time,
      summary: units(TASK_LIMITS.reason).optional(),
      /** The output's last lines, masked (at most `CHECK_TAIL_MAX` characters). */
      tail: units(CHECK_TAIL_MAX).optional(),
      /** The commit the check ran on (ledger format 2). */
      commit: sha.optional(),
    })
    .optional(),
  /** The task branch's head the last submit fetched: what the check ran on, the review shows and accepting merges (ledger format 2). */
  submitted: sha.optional(),
  /** The clone was kept, not removed (no sandbox, a read-only task with uncommitted work, a failed step): where, and why (ledger format 2). */
  kept: z.object({ dir: units(1000), why: units(TASK_LIMITS.reason) }).optional(),
  merge: z.enum(['none', 'pending', 'merged', 'conflict']).optional(),
  /** `false`: a passing check merges it with no review. */
  review: z.literal(false).optional(),
  /** The merge commit on the integration branch, once merged. */
  commit: sha.optional(),
  /** The last merge's conflict: the paths (at most 50, `pathCount` all) and both sides' commits. */
  conflict: z.object({ paths: z.array(units(CONFLICT_PATH_MAX)).max(50), pathCount: count, ours: sha, theirs: sha }).optional(),
})

export const TASK_ID = /^task-[1-9][0-9]{0,9}$/

/** How a question or an approval was settled (`cancelled`: by the team — a restore, an upgrade — never by the person). */
export const ASK_VERDICTS = ['answered', 'allowed', 'denied', 'expired', 'cancelled'] as const

/**
 * What a question or an approval holds: who asked from which Session (where the answer goes), the
 * question (for an approval: why it was asked), the choices, the deadline, the call waiting for
 * approval (its arguments masked, the key of its one-shot grant), the answer and the grant's use.
 */
export const askSchema = z.object({
  kind: z.enum(['question', 'approval']),
  botId: id,
  sessionId: id,
  question: units(TASK_LIMITS.question),
  choices: z.array(units(TASK_LIMITS.choice)).max(TASK_LIMITS.choices).optional(),
  deadline: time,
  approval: z
    .object({
      tool: units(200),
      args: units(TASK_LIMITS.approvalArgs),
      /** The grant's key: sha-256 of the tool and its arguments without free-text ones. */
      key: z.string().regex(/^[0-9a-f]{64}$/),
      callId: id,
    })
    .optional(),
  answer: z
    .object({ at: time, verdict: z.enum(ASK_VERDICTS), text: units(TASK_LIMITS.question).optional(), choice: z.int().min(0).max(100).optional() })
    .optional(),
  /** The one-shot grant of an allowed approval: used once, or cancelled unused (a restore, an older ledger). */
  grant: z
    .object({
      used: z.boolean(),
      usedAt: time.optional(),
      callId: id.optional(),
      cancelled: z.object({ at: time, reason: units(TASK_LIMITS.reason) }).optional(),
    })
    .optional(),
  /** The id it had in team state before v6 (`question-<n>`), when it was moved from there. */
  imported: id.optional(),
  /** Asked in a task Session: the task and the attempt working there (format 2; a grant holds only while it works). */
  attempt: z.object({ taskId: z.string().regex(TASK_ID), n: z.int().min(1) }).optional(),
  /** The asking Session's turn (format 2; a Bot asks at most one question per turn). */
  turn: z.int().min(0).optional(),
})

export const taskSchema = z.object({
  id: z.string().regex(TASK_ID),
  title: units(TASK_LIMITS.title).min(1),
  brief: units(TASK_LIMITS.brief).min(1),
  acceptance: units(TASK_LIMITS.acceptance),
  creator: creatorSchema,
  assignee: assigneeSchema.nullable(),
  status: z.enum(TASK_STATUSES),
  blockedBy: z.array(z.string().regex(TASK_ID)).max(TASK_LIMITS.blockedBy),
  artifacts: z.array(artifactSchema).max(TASK_LIMITS.artifacts),
  attempts: z.array(attemptSchema).max(TASK_LIMITS.attempts),
  chain: chainSchema,
  tokens: tokensSchema,
  history: z.array(historyEntrySchema).max(TASK_LIMITS.history),
  historyDropped: count,
  lease: leaseSchema.nullable(),
  /** The task's own Session (set at the first dispatch). */
  sessionId: id.nullable(),
  createdAt: time,
  updatedAt: time,
  worktree: worktreeSchema.optional(),
  /** Only the person reviews it (a submit lands in the inbox); absent: its creator, a Main Bot or the person. */
  reviewer: z.literal('user').optional(),
  /** A question or an approval waiting for the person. */
  ask: askSchema.optional(),
})

export type Creator = z.infer<typeof creatorSchema>
export type Actor = z.infer<typeof actorSchema>
export type HistoryEntry = z.infer<typeof historyEntrySchema>
export type Attempt = z.infer<typeof attemptSchema>
export type Artifact = z.infer<typeof artifactSchema>
export type Tokens = z.infer<typeof tokensSchema>
export type Ask = z.infer<typeof askSchema>
export type Task = z.infer<typeof taskSchema> & { chain: Chain }

/** The one history append: the entry after the others, the oldest beyond the limit dropped and counted (pure). */
export function appendHistory(task: Pick<Task, 'history' | 'historyDropped'>, entry: HistoryEntry): Pick<Task, 'history' | 'historyDropped'> {
  const all = [...task.history, entry]
  const drop = Math.max(0, all.length - TASK_LIMITS.history)
  return { history: drop ? all.slice(drop) : all, historyDropped: task.historyDropped + drop }
}

/**
 * The attempts with `next` added (pure). At the limit the oldest `withdrawn` attempt makes room
 * (withdrawn ones do not count, so the count of unsuccessful attempts stays right).
 */
export function appendAttempt(attempts: readonly Attempt[], next: Attempt): Attempt[] {
  const all = [...attempts, next]
  if (all.length <= TASK_LIMITS.attempts) return all
  const i = all.findIndex((a) => a.outcome === 'withdrawn')
  return i >= 0 ? [...all.slice(0, i), ...all.slice(i + 1)] : all.slice(1)
}

/** What a new task is made of; the rest starts empty: no artifacts, attempts, tokens, lease or Session. */
export type NewTask = Pick<Task, 'id' | 'title' | 'brief' | 'acceptance' | 'creator' | 'assignee' | 'blockedBy'> &
  Partial<Pick<Task, 'reviewer' | 'worktree' | 'ask'>>

/** A new task whose first history line is `entry` (its status is the entry's), on the chain facts `chain` (pure). */
export function newTask(fields: NewTask, entry: HistoryEntry, chain: Chain): Task {
  const { id, title, brief, acceptance, creator, assignee, blockedBy, ...rest } = fields
  return {
    id,
    title,
    brief,
    acceptance,
    creator,
    assignee,
    status: entry.to,
    blockedBy,
    artifacts: [],
    attempts: [],
    chain: {
      hop: chain.hop,
      ...(chain.budget ? { budget: chain.budget } : {}),
      ...(chain.mode ? { mode: chain.mode } : {}),
      ...(chain.network ? { network: chain.network } : {}),
    },
    tokens: { input: 0, cached: 0, output: 0 },
    history: [entry],
    historyDropped: 0,
    lease: null,
    sessionId: null,
    createdAt: entry.at,
    updatedAt: entry.at,
    ...rest,
  }
}

/** The Bot a task is assigned to (undefined: the person, or nobody). */
export function assignedBot(task: Pick<Task, 'assignee'>): string | undefined {
  return task.assignee?.kind === 'bot' ? task.assignee.botId : undefined
}

/** Whether only the person reviews a task (marked so: its acceptance says so). */
export function personReviews(task: Pick<Task, 'reviewer'>): boolean {
  return task.reviewer === 'user'
}

/** Whether a task's passing check merges it with no review: it asked for none, and its running attempt is not its creator Bot's own. */
export function mergesOnCheck(task: Pick<Task, 'worktree' | 'creator' | 'attempts'>): boolean {
  if (task.worktree?.review !== false) return false
  return !(task.creator.kind === 'bot' && task.attempts.at(-1)?.botId === task.creator.botId)
}

/** What a task waits for from the person, if anything: a question, an approval, a review. */
export function inboxKind(task: Task): 'question' | 'approval' | 'review' | undefined {
  if (task.ask && task.status === 'ready') return task.ask.kind
  // A task the person created is the person's to review too (a Main Bot may also review it).
  if (task.status === 'review' && (personReviews(task) || task.creator.kind === 'user')) return 'review'
  return undefined
}

/** Whether an open task waits for the person: assigned to them, or in their inbox (`inboxKind`). */
export function waitsForPerson(task: Task): boolean {
  return !isClosed(task) && (task.assignee?.kind === 'user' || inboxKind(task) !== undefined)
}

/** The number of a task id (`task-12` → 12). */
export function taskNumber(taskId: string): number {
  return Number(taskId.slice('task-'.length))
}

/** Whether the task is done, failed or cancelled. */
export function isClosed(task: Pick<Task, 'status'>): boolean {
  return CLOSED_STATUSES.has(task.status)
}

/** Unsuccessful attempts so far (those that count towards `maxAttempts`). */
export function failedAttempts(task: Pick<Task, 'attempts'>): number {
  let n = 0
  for (const a of task.attempts) if (a.outcome && FAILED_OUTCOMES.has(a.outcome)) n++
  return n
}

// ── the outbox: deliveries a transition causes, recorded with it ─────────────────────────────────

/** Start attempt `attempt` of the task in its Session (a turn of the task Session). */
const dispatchIntent = z.object({ kind: z.literal('dispatch'), taskId: z.string().regex(TASK_ID), attempt: z.int().min(1), botId: id, sessionId: id })
/** Tell someone (a task's creator) what happened to a task. */
const notifyIntent = z.object({ kind: z.literal('notify'), taskId: z.string().regex(TASK_ID), to: creatorSchema, text: units(TASK_LIMITS.notice) })
/** The person's answer to a question or an approval, entered into the asking Session (a turn on the asking chain). */
const answerIntent = z.object({
  kind: z.literal('answer'),
  taskId: z.string().regex(TASK_ID),
  botId: id,
  sessionId: id,
  text: units(TASK_LIMITS.notice + TASK_LIMITS.question),
  /** An allowed approval: the turn carries the one-shot grant. */
  grant: z.boolean().optional(),
})
/** A line for a Bot's own chat that starts no turn (it reads it at its next turn): an ask the team cancelled. */
const tellIntent = z.object({ kind: z.literal('tell'), taskId: z.string().regex(TASK_ID), botId: id, text: units(TASK_LIMITS.notice) })
/** End the running turn of a task Session (the task was cancelled or taken away). */
const stopIntent = z.object({ kind: z.literal('stop'), taskId: z.string().regex(TASK_ID), sessionId: id, reason: units(TASK_LIMITS.reason + 100) })

export const intentDraftSchema = z.discriminatedUnion('kind', [dispatchIntent, notifyIntent, answerIntent, tellIntent, stopIntent])
const meta = { id: z.string().min(1).max(40), at: time }
/** An intent in the outbox: the draft with its id (`<record seq>.<index>`) and when it was recorded. */
export const intentSchema = z.discriminatedUnion('kind', [
  dispatchIntent.extend(meta),
  notifyIntent.extend(meta),
  answerIntent.extend(meta),
  tellIntent.extend(meta),
  stopIntent.extend(meta),
])

export type IntentDraft = z.infer<typeof intentDraftSchema>
export type Intent = z.infer<typeof intentSchema>
