/**
 * Task policy — the ledger's rules as pure functions: the plan validator (`plan`), readiness, and
 * every transition (claim with a lease, renew, submit, a move of Session, review, an attempt's end,
 * a failed check, cancel, reassign, release, artifacts, tokens). Each returns the changed tasks with their history
 * entries and the deliveries they cause (outbox intents), or a refusal sentence; bad input
 * changes nothing. Deliberately narrow: who may act is `decide()`'s; no I/O, no clock (callers
 * pass `now`), no wording beyond refusals, notices and the attempt brief.
 */
import { z } from 'zod'
import type { Chain } from '../core/sources.ts'
import { charCount, clip } from '../core/text-limits.ts'
import { formatIssues } from '../core/zod-issues.ts'
import type { TaskView } from './board.ts'
import {
  type Actor,
  type Artifact,
  type Creator,
  type HistoryEntry,
  type IntentDraft,
  type Task,
  type TaskStatus,
  type Tokens,
  ARTIFACT_KINDS,
  TASK_ID,
  TASK_LIMITS,
  appendAttempt,
  appendHistory,
  assignedBot,
  personReviews,
  failedAttempts,
  isClosed,
  mergesOnCheck,
  newTask,
} from './record.ts'

/** One changed task and the history entry its transition added (`null`: no transition, e.g. tokens). */
export interface Change {
  task: Task
  entry: HistoryEntry | null
}

/** A transition's outcome: the changed tasks and the intents they cause (`drop`: pending intents removed unsent), or a refusal. */
export type Result = { ok: true; changes: Change[]; intents: IntentDraft[]; drop?: string[] } | { ok: false; refusal: string }
export type PlanResult = (Extract<Result, { ok: true }> & { ids: string[] }) | Extract<Result, { ok: false }>

/** What every transition is given: when, and who acts. */
export interface Act {
  /** ISO time. */
  now: string
  actor: Actor
}

/** The numbers a transition enforces (the limits source may set them later). */
export interface TaskRules {
  maxAttempts: number
  perPlan: number
  openTasks: number
}

export const DEFAULT_RULES: Readonly<TaskRules> = Object.freeze({
  maxAttempts: TASK_LIMITS.maxAttempts,
  perPlan: TASK_LIMITS.perPlan,
  openTasks: TASK_LIMITS.openTasks,
})

/** Bounds of a lease (ms). */
export const LEASE_MS = Object.freeze({ min: 1_000, max: 24 * 3_600_000 })

const refuse = (refusal: string): Extract<Result, { ok: false }> => ({ ok: false, refusal })
const ok = (changes: Change[], intents: IntentDraft[] = []): Extract<Result, { ok: true }> => ({ ok: true, changes, intents })

// ── input rules ────────────────────────────────────────────────────────────────────────────────

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a title may not hold.
const LINE_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters other than tab and line breaks.
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/u

/** A text field: trimmed, at most `max` characters, one line or several. */
export function text(max: number, opts: { required?: boolean; oneLine?: boolean } = {}) {
  return z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be text') }).transform((raw, ctx) => {
    const value = raw.trim()
    const n = charCount(value)
    if (opts.required && value === '') ctx.addIssue({ code: 'custom', message: 'must not be empty', input: raw })
    if (n > max) ctx.addIssue({ code: 'custom', message: `must be at most ${max} characters (it has ${n})`, input: raw })
    if ((opts.oneLine ? LINE_CONTROL : TEXT_CONTROL).test(value))
      ctx.addIssue({
        code: 'custom',
        message: opts.oneLine ? 'must be one line without control characters' : 'must not contain control characters',
        input: raw,
      })
    return value
  })
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/
/** Acceptance criteria saying the person reviews (this only narrows who may review, never widens). */
const PERSON_REVIEWS = /\b(?:the )?(?:user|person|human) (?:reviews|must review|will review|approves)\b/i
const ref = z.string().min(1).max(200)

export const planTaskInput = z
  .object({
    /** The task's name inside this plan, for `blockedBy` of the plan's other tasks. */
    key: z
      .string()
      .max(TASK_LIMITS.key, { error: `must be at most ${TASK_LIMITS.key} characters` })
      .regex(KEY, { error: 'must be letters, digits, _ . - (starting with a letter or digit)' })
      .refine((k) => !TASK_ID.test(k), { error: 'looks like a task id; pick another key' })
      .optional(),
    title: text(TASK_LIMITS.title, { required: true, oneLine: true }),
    brief: text(TASK_LIMITS.brief, { required: true }),
    acceptance: text(TASK_LIMITS.acceptance).default(''),
    /** A Bot id (the service resolves names first). */
    assignee: ref.optional(),
    /** `user`: the person reviews it (its submit lands in the inbox). */
    reviewer: z.literal('user', { error: 'is "user" or absent' }).optional(),
    /** Keys of this plan's tasks or ids of existing tasks. */
    blockedBy: z
      .array(ref)
      .max(TASK_LIMITS.blockedBy, { error: `at most ${TASK_LIMITS.blockedBy} blockers per task` })
      .default([]),
    /** Work in its own clone of the team's project (on a branch merged when it is accepted). */
    project: z.boolean().optional(),
    /** A project task's check command, run in its clone on submit. */
    check: text(4000).optional(),
    /** `false`: a passing check merges it with no review (a project task with a check only). */
    review: z.literal(false, { error: 'is false (a passing check merges it) or absent' }).optional(),
  })
  .strict()

export const planInput = z.object({ tasks: z.array(planTaskInput).min(1, { error: 'a plan needs at least one task' }) }).strict()

const reasonText = text(TASK_LIMITS.reason)

export const artifactInput = z
  .object({
    kind: z.enum(ARTIFACT_KINDS),
    value: z.string().min(1, { error: 'must not be empty' }),
    label: text(TASK_LIMITS.artifactLabel, { oneLine: true }).optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const bad = (message: string) => ctx.addIssue({ code: 'custom', path: ['value'], message, input: a.value })
    const n = charCount(a.value)
    if (n > TASK_LIMITS.artifactValue) return bad(`must be at most ${TASK_LIMITS.artifactValue} characters (it has ${n})`)
    if (a.kind === 'note') return TEXT_CONTROL.test(a.value) ? bad('must not contain control characters') : undefined
    if (LINE_CONTROL.test(a.value)) return bad('must be one line without control characters')
    if (a.kind === 'file' && n > 1000) return bad('a file path must be at most 1000 characters')
    if (a.kind === 'commit' && !/^[0-9a-f]{7,64}$/i.test(a.value)) return bad('a commit is 7 to 64 hexadecimal digits')
    if (a.kind === 'branch' && (n > 250 || /[\s~^:?*[\\]/.test(a.value))) return bad('a branch name is at most 250 characters without spaces or ~ ^ : ? * [ \\')
    if (a.kind === 'link') {
      let url: URL | undefined
      try {
        url = new URL(a.value)
      } catch {}
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return bad('a link is an http:// or https:// address')
    }
  })
export const artifactsInput = z.array(artifactInput)

const REASON_REQUIRED = 'A reason is required: say in a sentence why. Nothing changed.'

function parseReason(raw: unknown, required: boolean): { ok: true; reason: string | undefined } | { ok: false; refusal: string } {
  if (raw === undefined || raw === null) return required ? { ok: false, refusal: REASON_REQUIRED } : { ok: true, reason: undefined }
  const r = reasonText.safeParse(raw)
  if (!r.success) return { ok: false, refusal: `The reason was not accepted: ${formatIssues(r.error, { root: 'reason' })}. Nothing changed.` }
  if (required && r.data === '') return { ok: false, refusal: REASON_REQUIRED }
  return { ok: true, reason: r.data || undefined }
}

// ── helpers ────────────────────────────────────────────────────────────────────────────────────

const asActor = (c: Creator): Actor => (c.kind === 'user' ? { kind: 'user' } : { kind: 'bot', botId: c.botId })
const SYSTEM: Actor = Object.freeze({ kind: 'system' })

/** The task after a transition: the patch, the time, and the entry appended to its history. */
export function moved(task: Task, patch: Partial<Task>, entry: HistoryEntry | null, now: string): Change {
  const next: Task = { ...task, ...patch, updatedAt: now }
  return { task: entry ? { ...next, ...appendHistory(task, entry) } : next, entry }
}

export function entryOf(act: Act, what: string, from: TaskStatus | null, to: TaskStatus, reason?: string): HistoryEntry {
  return { at: act.now, actor: act.actor, what, from, to, ...(reason ? { reason } : {}) }
}

export function find(view: TaskView, taskId: unknown): { ok: true; task: Task } | { ok: false; refusal: string } {
  const id = typeof taskId === 'string' ? taskId.trim() : ''
  const task = id ? view.get(id) : undefined
  if (!task) return refuse(`No task ${JSON.stringify(id || String(taskId))} exists. list_tasks shows the team's tasks.`)
  return { ok: true, task }
}

export function statusRefusal(task: Task, doing: string): string {
  const where: Record<TaskStatus, string> = {
    blocked: 'is blocked (waiting for its blockers)',
    ready: 'is ready and not being worked on',
    working: `is being worked on (attempt ${task.lease?.attempt ?? '?'})`,
    review: 'was submitted and waits for review',
    done: 'is done',
    failed: 'has failed',
    cancelled: 'was cancelled',
  }
  return `Task ${task.id} ${where[task.status]}, so it cannot ${doing}. Nothing changed.`
}

function leaseMs(ms: number): string | undefined {
  if (!Number.isInteger(ms) || ms < LEASE_MS.min || ms > LEASE_MS.max) return `A lease lasts ${LEASE_MS.min} to ${LEASE_MS.max} ms (asked: ${ms}).`
  return undefined
}

const plus = (now: string, ms: number) => new Date(Date.parse(now) + ms).toISOString()
const past = (now: string, iso: string) => Date.parse(now) >= Date.parse(iso)

/** The attempts with the running one ended. */
function endRunning(task: Task, outcome: Task['attempts'][number]['outcome'], reason: string | null, now: string): Task['attempts'] {
  const n = task.lease?.attempt
  return task.attempts.map((a) => (a.n === n && a.outcome === null ? { ...a, endedAt: now, outcome, reason } : a))
}

function holderRefusal(task: Task, sessionId: string, doing: string): string | undefined {
  if (task.status !== 'working' || !task.lease) return statusRefusal(task, doing)
  if (task.lease.sessionId !== sessionId)
    return `Only the Session holding the lease of task ${task.id} (attempt ${task.lease.attempt}) may ${doing}; this Session does not hold it. Nothing changed.`
  return undefined
}

function failedNotice(task: Task, view: TaskView, reason: string): IntentDraft {
  const blocked = view
    .dependents(task.id)
    .filter((d) => !isClosed(d))
    .map((d) => d.id)
  const tail = blocked.length ? ` It blocks ${blocked.join(', ')}: cancel them, or plan the work again.` : ''
  return {
    kind: 'notify',
    taskId: task.id,
    to: task.creator,
    text: clipNotice(`Task ${task.id} "${task.title}" failed after ${failedAttempts(task)} unsuccessful attempts. The last: ${reason}.${tail}`),
  }
}

const clipNotice = (s: string) => clip(s, TASK_LIMITS.notice)

/**
 * After an unsuccessful attempt: back to `ready` with the attempt and its reason, or `failed`
 * once `maxAttempts` attempts were unsuccessful (and the creator is told).
 */
function afterFailure(view: TaskView, task: Task, attempts: Task['attempts'], act: Act, what: string, reason: string, rules: TaskRules): Result {
  const ended: Task = { ...task, attempts, lease: null }
  if (failedAttempts(ended) >= rules.maxAttempts) {
    const c = moved(ended, { status: 'failed' }, entryOf(act, 'failed', task.status, 'failed', reason), act.now)
    return ok([c], [failedNotice(c.task, view, reason)])
  }
  const c = moved(ended, { status: 'ready' }, entryOf(act, what, task.status, 'ready', reason), act.now)
  return ok([c])
}

// ── readiness ──────────────────────────────────────────────────────────────────────────────────

export type Readiness = { ready: true } | { ready: false; waitingOn: string[]; stuckOn: string[]; reason: string }

/** Whether all of a task's blockers are done; if not, which it waits for and which can never finish. */
export function readiness(task: Pick<Task, 'blockedBy'>, view: Pick<TaskView, 'get'>): Readiness {
  const waiting: string[] = []
  const stuck: string[] = []
  for (const id of task.blockedBy) {
    const b = view.get(id)
    if (!b || b.status === 'cancelled' || b.status === 'failed') stuck.push(b ? `${id} (${b.status})` : `${id} (gone)`)
    else if (b.status !== 'done') waiting.push(`${id} (${b.status})`)
  }
  if (!waiting.length && !stuck.length) return { ready: true }
  const parts: string[] = []
  if (stuck.length)
    parts.push(`blocked by ${stuck.join(', ')}, which will not be done: cancel this task or plan it again without ${stuck.length > 1 ? 'them' : 'it'}`)
  if (waiting.length) parts.push(`waits for ${waiting.join(', ')}`)
  return { ready: false, waitingOn: waiting.map((w) => w.split(' ')[0]!), stuckOn: stuck.map((s) => s.split(' ')[0]!), reason: parts.join('; ') }
}

/** The dependents of `doneId` that become ready now that it is done (`done` already in `view` or given). */
function unblocked(view: TaskView, doneId: string, act: Act): Change[] {
  const out: Change[] = []
  for (const d of view.dependents(doneId)) {
    if (d.status !== 'blocked') continue
    const r = readiness(d, { get: (id) => (id === doneId ? ({ status: 'done' } as Task) : view.get(id)) })
    if (!r.ready) continue
    const reason = d.blockedBy.length > 1 ? `its blockers are done: ${d.blockedBy.join(', ')}` : `${doneId} is done`
    out.push(moved(d, { status: 'ready' }, entryOf({ now: act.now, actor: SYSTEM }, 'unblocked', 'blocked', 'ready', reason), act.now))
  }
  return out
}

// ── plan ───────────────────────────────────────────────────────────────────────────────────────

export interface PlanContext {
  now: string
  creator: Creator
  /** The chain facts of the turn that plans (hop, budget, mode). */
  chain: Chain
  /** The live Bots' ids: an assignee must be one. */
  bots: ReadonlySet<string>
  rules?: TaskRules
  /** The team's project (its path), for tasks planned with `project: true`. */
  project?: string
  /** Why this plan may not hold project tasks (no project, a read-only chain); absent: it may. */
  projectRefusal?: string
}

/** A cycle among the plan's keys (the first found, as a path that ends where it starts), or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 1 | 2>()
  const stack: string[] = []
  const visit = (k: string): string[] | null => {
    state.set(k, 1)
    stack.push(k)
    for (const next of edges.get(k) ?? []) {
      const s = state.get(next)
      if (s === 1) return [...stack.slice(stack.indexOf(next)), next]
      if (s === undefined) {
        const found = visit(next)
        if (found) return found
      }
    }
    stack.pop()
    state.set(k, 2)
    return null
  }
  for (const k of edges.keys()) {
    if (state.has(k)) continue
    const found = visit(k)
    if (found) return found
  }
  return null
}

/**
 * Several tasks with their dependencies in one call (`plan_tasks`). `blockedBy` names keys of this
 * plan or ids of existing tasks. Refused whole, naming every offender: over `perPlan` tasks or the
 * team's open-task limit, invalid fields, duplicate keys, unknown blockers, a task blocked by itself,
 * a cycle, an existing blocker that will never be done, an assignee that is not a live Bot.
 */
export function plan(view: TaskView, input: unknown, ctx: PlanContext): PlanResult {
  const rules = ctx.rules ?? DEFAULT_RULES
  const raw = (input as { tasks?: unknown } | null)?.tasks
  if (Array.isArray(raw) && raw.length > rules.perPlan)
    return refuse(`A plan holds at most ${rules.perPlan} tasks; this one has ${raw.length}. Split it into smaller plans. Nothing was created.`)
  const parsed = planInput.safeParse(input)
  if (!parsed.success) return refuse(`The plan was not accepted: ${formatIssues(parsed.error, { root: 'plan' })}. Nothing was created.`)
  const tasks = parsed.data.tasks
  // The person's plans never wait on Bots' questions and approvals: those are left out of the person's count.
  const open = ctx.creator.kind === 'user' ? view.openCount - view.openAskCount : view.openCount
  if (open + tasks.length > rules.openTasks)
    return refuse(
      `The team has ${open} open tasks${open === view.openCount ? '' : " (the Bots' questions and approvals not counted)"} and at most ${rules.openTasks} may be open; this plan adds ${tasks.length}. Finish or cancel tasks first. Nothing was created.`,
    )

  const name = (i: number) => (tasks[i]!.key ? `'${tasks[i]!.key}'` : `task #${i + 1}`)
  const keys = new Map<string, number>()
  const problems: string[] = []
  tasks.forEach((t, i) => {
    if (!t.key) return
    if (keys.has(t.key)) problems.push(`the key '${t.key}' is used twice (tasks #${keys.get(t.key)! + 1} and #${i + 1})`)
    else keys.set(t.key, i)
  })
  const edges = new Map<string, string[]>()
  tasks.forEach((t, i) => {
    const local: string[] = []
    for (const r of t.blockedBy) {
      const b = r.trim()
      if (t.key && b === t.key) problems.push(`${name(i)} is blocked by itself`)
      else if (keys.has(b)) local.push(b)
      else {
        const existing = TASK_ID.test(b) ? view.get(b) : undefined
        if (!existing) problems.push(`${name(i)} is blocked by ${JSON.stringify(b)}, which is neither a key of this plan nor an existing task`)
        else if (existing.status === 'cancelled' || existing.status === 'failed')
          problems.push(`${name(i)} is blocked by ${b}, which ${existing.status === 'failed' ? 'has failed' : 'was cancelled'} and will never be done`)
      }
    }
    if (t.key) edges.set(t.key, local)
    if (t.assignee !== undefined && !ctx.bots.has(t.assignee))
      problems.push(`${name(i)} is assigned to ${JSON.stringify(t.assignee)}, which is not a Bot of the team`)
  })
  if (problems.length) return refuse(`The plan was not accepted: ${problems.join('; ')}. Nothing was created.`)
  tasks.forEach((t, i) => {
    if (t.check && !t.project) problems.push(`${name(i)} has a check but is not a project task (add project: true)`)
    else if (t.review === false && !(t.project && t.check))
      problems.push(`${name(i)} asks for no review but has no check to stand for it (a project task with a check only)`)
    else if (t.review === false && (t.reviewer || PERSON_REVIEWS.test(t.acceptance)))
      problems.push(`${name(i)} asks for no review but says the user reviews it`)
    else if (t.review === false && ctx.creator.kind === 'bot' && t.assignee === ctx.creator.botId)
      problems.push(`${name(i)} asks for no review but is assigned to the Bot planning it (its own work is reviewed by another)`)
  })
  if (problems.length) return refuse(`The plan was not accepted: ${problems.join('; ')}. Nothing was created.`)
  if (tasks.some((t) => t.project)) {
    if (ctx.projectRefusal || !ctx.project) return refuse(ctx.projectRefusal ?? 'The team has no project. Nothing was created.')
  }
  const cycle = findCycle(edges)
  if (cycle) return refuse(`The plan has a cycle: ${cycle.map((k) => `'${k}'`).join(' → ')}. A task cannot wait for itself. Nothing was created.`)

  const ids = tasks.map((_, i) => `task-${view.nextId + i}`)
  const idOf = (r: string) => {
    const b = r.trim()
    return keys.has(b) ? ids[keys.get(b)!]! : b
  }
  const actor = asActor(ctx.creator)
  const changes = tasks.map((t, i): Change => {
    const blockedBy = [...new Set(t.blockedBy.map(idOf))]
    const ready = blockedBy.every((b) => view.get(b)?.status === 'done')
    const status: TaskStatus = ready ? 'ready' : 'blocked'
    const entry = entryOf({ now: ctx.now, actor }, 'created', null, status)
    const task = newTask(
      {
        id: ids[i]!,
        title: t.title,
        brief: t.brief,
        acceptance: t.acceptance,
        creator: ctx.creator,
        assignee: t.assignee === undefined ? null : { kind: 'bot', botId: t.assignee },
        blockedBy,
        ...(t.reviewer || PERSON_REVIEWS.test(t.acceptance) ? { reviewer: 'user' as const } : {}),
        ...(t.project && ctx.project
          ? {
              worktree: {
                project: ctx.project,
                ...(t.check ? { command: t.check } : {}),
                ...(t.review === false ? { review: false as const } : {}),
                merge: 'none' as const,
              },
            }
          : {}),
      },
      entry,
      ctx.chain,
    )
    return { task, entry }
  })
  return { ...ok(changes), ids }
}

// ── the attempt: claim, renew, submit, its end ─────────────────────────────────────────────────

export interface ClaimInput extends Act {
  botId: string
  /** The task Session the attempt runs in. */
  sessionId: string
  leaseMs: number
}

/**
 * `ready → working`: attempt n+1 starts with a lease held by `sessionId`, and its dispatch is
 * recorded with it. An unassigned task is taken by `botId`; one assigned to another Bot is refused;
 * a Bot already working on a task gets no second one (the next waits).
 */
export function claim(view: TaskView, taskId: string, input: ClaimInput): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const bad = leaseMs(input.leaseMs)
  if (bad) return refuse(bad)
  if (!input.botId || !input.sessionId) return refuse('A claim names the Bot and the task Session. Nothing changed.')
  if (task.status === 'blocked') {
    const r = readiness(task, view)
    return refuse(`Task ${task.id} cannot start yet: it ${r.ready ? 'is blocked' : r.reason}.`)
  }
  if (task.status === 'working')
    return refuse(`Task ${task.id} is already being worked on (attempt ${task.lease?.attempt}, by ${assignedBot(task)}). One attempt runs at a time.`)
  if (task.status !== 'ready') return refuse(statusRefusal(task, 'be claimed'))
  if (task.assignee && assignedBot(task) !== input.botId)
    return refuse(`Task ${task.id} is assigned to ${assignedBot(task) ?? 'the user'}, not ${input.botId}. Nothing changed.`)
  const busy = view.running(input.botId)
  if (busy) return refuse(`${input.botId} is already working on ${busy.id}; ${task.id} waits until that attempt ends (one running task per Bot).`)
  const n = (task.attempts.at(-1)?.n ?? 0) + 1
  const attempt = { n, sessionId: input.sessionId, botId: input.botId, startedAt: input.now, endedAt: null, outcome: null, reason: null }
  const c = moved(
    task,
    {
      status: 'working',
      assignee: task.assignee ?? { kind: 'bot', botId: input.botId },
      attempts: appendAttempt(task.attempts, attempt),
      lease: { attempt: n, sessionId: input.sessionId, expiresAt: plus(input.now, input.leaseMs) },
      sessionId: input.sessionId,
    },
    entryOf(input, 'claimed', 'ready', 'working', `attempt ${n}`),
    input.now,
  )
  return ok([c], [{ kind: 'dispatch', taskId: task.id, attempt: n, botId: input.botId, sessionId: input.sessionId }])
}

/** Extend the running attempt's lease (its holder only); no history entry. */
export function renew(view: TaskView, taskId: string, input: Act & { sessionId: string; leaseMs: number }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const bad = leaseMs(input.leaseMs) ?? holderRefusal(task, input.sessionId, 'renew its lease')
  if (bad) return refuse(bad)
  if (past(input.now, task.lease!.expiresAt))
    return refuse(`The lease of attempt ${task.lease!.attempt} of ${task.id} ran out at ${task.lease!.expiresAt}; the attempt is over.`)
  return ok([moved(task, { lease: { ...task.lease!, expiresAt: plus(input.now, input.leaseMs) } }, null, input.now)])
}

/** `working → review`, by the lease holder only, with the attempt's artifacts (`submit_task`). */
export function submit(view: TaskView, taskId: string, input: Act & { sessionId: string; artifacts?: unknown }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const bad = holderRefusal(task, input.sessionId, 'submit it')
  if (bad) return refuse(bad)
  if (past(input.now, task.lease!.expiresAt))
    return refuse(`The lease of attempt ${task.lease!.attempt} of ${task.id} ran out at ${task.lease!.expiresAt}; it can no longer be submitted.`)
  const artifacts = withArtifacts(task, input.artifacts ?? [], input)
  if (!artifacts.ok) return artifacts
  const by = assignedBot(task) ?? 'its assignee'
  const n = task.lease!.attempt
  // A project task: the review is of exactly the submitted commit (what its check ran on, what accepting merges).
  const wt = task.worktree
  const commit = wt?.submitted
    ? ` Its commit ${wt.submitted.slice(0, 12)} on ${wt.branch ?? 'its branch'}${wt.check?.commit === wt.submitted && wt.check.ok ? ' (its check passed on it)' : ''} is what accepting merges.`
    : ''
  return ok(
    [
      moved(
        task,
        { status: 'review', lease: null, attempts: endRunning(task, 'submitted', null, input.now), artifacts: artifacts.artifacts },
        entryOf(input, 'submitted', 'working', 'review', `attempt ${n}`),
        input.now,
      ),
    ],
    [
      {
        kind: 'notify',
        taskId: task.id,
        to: task.creator,
        text: clipNotice(
          personReviews(task) && task.creator.kind === 'bot'
            ? `Task ${task.id} "${task.title}" was submitted by ${by} (attempt ${n}); the user reviews it (it waits in their inbox).${commit}`
            : `Task ${task.id} "${task.title}" was submitted by ${by} (attempt ${n}) and waits for your review: review_task with accept, or reject with a reason.${commit}`,
        ),
      },
    ],
  )
}

/**
 * A task that asked for no review, its check passed and its branch merged (or not): `working → done`
 * by the lease holder, in time, with the attempt's artifacts (its dependents whose blockers are all
 * done become `ready`, a Bot creator is told); with `conflict` (the merge's reason) the attempt is
 * `rejected` and the task `ready` again for its assignee, or `failed` after `maxAttempts`.
 */
export function land(
  view: TaskView,
  taskId: string,
  input: Act & { sessionId: string; artifacts?: unknown; conflict?: string },
  rules = DEFAULT_RULES,
): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  if (!mergesOnCheck(task)) return refuse(`${task.id} waits for a review; it is submitted, not merged on its own. Nothing changed.`)
  const bad = holderRefusal(task, input.sessionId, 'merge it')
  if (bad) return refuse(bad)
  if (past(input.now, task.lease!.expiresAt))
    return refuse(`The lease of attempt ${task.lease!.attempt} of ${task.id} ran out at ${task.lease!.expiresAt}; it can no longer be merged.`)
  const artifacts = withArtifacts(task, input.artifacts ?? [], input)
  if (!artifacts.ok) return artifacts
  const n = task.lease!.attempt
  if (input.conflict !== undefined) {
    const r = parseReason(input.conflict, true)
    if (!r.ok) return r
    const ended = { ...task, artifacts: artifacts.artifacts }
    return afterFailure(view, ended, endRunning(task, 'rejected', r.reason!, input.now), input, 'rejected', r.reason!, rules)
  }
  const done = moved(
    task,
    { status: 'done', lease: null, attempts: endRunning(task, 'submitted', null, input.now), artifacts: artifacts.artifacts },
    entryOf(input, 'merged', 'working', 'done', `attempt ${n}, its check passed`),
    input.now,
  )
  const told: IntentDraft[] =
    task.creator.kind === 'bot'
      ? [
          {
            kind: 'notify',
            taskId: task.id,
            to: task.creator,
            text: clipNotice(`Task ${task.id} "${task.title}" passed its check and was merged (no review asked).`),
          },
        ]
      : []
  return ok([done, ...unblocked(view, task.id, input)], told)
}

/**
 * The running attempt goes on in another Session of the same Bot (a context move in the middle of
 * its turn): the lease and the task's Session follow; no history entry. Only from the Session
 * holding the lease, at most `moves` times per attempt.
 */
export function moveSession(view: TaskView, taskId: string, input: { now: string; from: string; to: string }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const bad = holderRefusal(task, input.from, 'move to another Session')
  if (bad) return refuse(bad)
  if (!input.to || input.to === input.from) return refuse('A move names a new Session. Nothing changed.')
  const n = task.lease!.attempt
  const running = task.attempts.find((a) => a.n === n)
  if ((running?.moved?.length ?? 0) >= TASK_LIMITS.moves)
    return refuse(`Attempt ${n} of ${task.id} already moved ${TASK_LIMITS.moves} times; it ends where it is. Nothing changed.`)
  const attempts = task.attempts.map((a) => (a === running ? { ...a, moved: [...(a.moved ?? []), input.to] } : a))
  return ok([moved(task, { attempts, lease: { ...task.lease!, sessionId: input.to }, sessionId: input.to }, null, input.now)])
}

/** Ways an attempt ends without a submit. */
export type AttemptEnd = 'ended-without-submit' | 'crash' | 'lease-expired'

const END_REASON: Record<AttemptEnd, string> = {
  'ended-without-submit': 'the turn ended without submit_task',
  crash: 'DSH stopped during the attempt',
  'lease-expired': 'the lease ran out',
}

/**
 * The running attempt ended without a submit (its turn ended, DSH crashed, its lease ran out):
 * `working → ready` with the attempt and its reason, or `failed` after `maxAttempts`. `attempt`,
 * when given, must be the running one (a late report of an older attempt is refused).
 */
export function endAttempt(
  view: TaskView,
  taskId: string,
  input: Act & { outcome: AttemptEnd; reason?: unknown; attempt?: number },
  rules = DEFAULT_RULES,
): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  if (task.status !== 'working' || !task.lease) return refuse(statusRefusal(task, 'end an attempt'))
  if (input.attempt !== undefined && input.attempt !== task.lease.attempt)
    return refuse(`Attempt ${input.attempt} of ${task.id} is not the running one (attempt ${task.lease.attempt} is). Nothing changed.`)
  if (input.outcome === 'lease-expired' && !past(input.now, task.lease.expiresAt))
    return refuse(`The lease of attempt ${task.lease.attempt} of ${task.id} runs until ${task.lease.expiresAt}. Nothing changed.`)
  const r = parseReason(input.reason, false)
  if (!r.ok) return r
  const reason = r.reason ?? END_REASON[input.outcome]
  return afterFailure(view, task, endRunning(task, input.outcome, reason, input.now), input, 'attempt-ended', reason, rules)
}

/**
 * A failed check (worktrees): `working → working`. The running attempt ends as `check-failed` and
 * the next starts at once in the same Session with a new lease and its dispatch — or the task
 * is `failed` after `maxAttempts`.
 */
export function checkFailed(
  view: TaskView,
  taskId: string,
  input: Act & { sessionId: string; reason: unknown; leaseMs: number },
  rules = DEFAULT_RULES,
): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const bad = leaseMs(input.leaseMs) ?? holderRefusal(task, input.sessionId, 'report a failed check')
  if (bad) return refuse(bad)
  const r = parseReason(input.reason, true)
  if (!r.ok) return r
  const attempts = endRunning(task, 'check-failed', r.reason!, input.now)
  const ended = { ...task, attempts }
  if (failedAttempts(ended) >= rules.maxAttempts) return afterFailure(view, task, attempts, input, 'check-failed', r.reason!, rules)
  const n = task.lease!.attempt + 1
  const c = moved(
    task,
    {
      attempts: appendAttempt(attempts, { n, sessionId: input.sessionId, startedAt: input.now, endedAt: null, outcome: null, reason: null }),
      lease: { attempt: n, sessionId: input.sessionId, expiresAt: plus(input.now, input.leaseMs) },
    },
    entryOf(input, 'check-failed', 'working', 'working', r.reason),
    input.now,
  )
  return ok([c], [{ kind: 'dispatch', taskId: task.id, attempt: n, botId: assignedBot(task)!, sessionId: input.sessionId }])
}

// ── review ─────────────────────────────────────────────────────────────────────────────────────

/**
 * `review → done` (its dependents whose blockers are now all done become `ready`), or a rejection
 * with a reason: the attempt is `rejected`, the task `ready` again, or `failed` after `maxAttempts`.
 * Whether the caller may review (never its own task) is `decide()`'s.
 */
export function review(view: TaskView, taskId: string, input: Act & { verdict: 'accept' | 'reject'; reason?: unknown }, rules = DEFAULT_RULES): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  if (task.status !== 'review') return refuse(statusRefusal(task, 'be reviewed'))
  if (input.verdict !== 'accept' && input.verdict !== 'reject') return refuse('A review is accept or reject. Nothing changed.')
  const r = parseReason(input.reason, input.verdict === 'reject')
  if (!r.ok) return r
  if (input.verdict === 'accept') {
    const done = moved(task, { status: 'done' }, entryOf(input, 'accepted', 'review', 'done', r.reason), input.now)
    return ok([done, ...unblocked(view, task.id, input)])
  }
  const last = task.attempts.at(-1)
  const attempts = task.attempts.map((a) => (a === last ? { ...a, outcome: 'rejected' as const, reason: r.reason! } : a))
  return afterFailure(view, task, attempts, input, 'rejected', r.reason!, rules)
}

// ── cancel, reassign, release ──────────────────────────────────────────────────────────────────

/** Take a running attempt away: the attempt is `withdrawn` (it does not count) and its turn is stopped. */
function withdraw(task: Task, reason: string, now: string): { patch: Partial<Task>; intents: IntentDraft[] } {
  if (task.status !== 'working' || !task.lease) return { patch: {}, intents: [] }
  return {
    patch: { lease: null, attempts: endRunning(task, 'withdrawn', reason, now) },
    intents: [{ kind: 'stop', taskId: task.id, sessionId: task.lease.sessionId, reason }],
  }
}

const sameParty = (a: Actor, c: Creator) => a.kind === c.kind && (a.kind !== 'bot' || (c.kind === 'bot' && a.botId === c.botId))

/** Any open task → `cancelled` (a running attempt is withdrawn and stopped); its creator is told when someone else cancelled. */
export function cancel(view: TaskView, taskId: string, input: Act & { reason?: unknown }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  if (isClosed(task)) return refuse(statusRefusal(task, 'be cancelled'))
  const r = parseReason(input.reason, false)
  if (!r.ok) return r
  const why = r.reason ?? 'cancelled'
  const w = withdraw(task, `the task was cancelled: ${why}`, input.now)
  const c = moved(task, { ...w.patch, status: 'cancelled' }, entryOf(input, 'cancelled', task.status, 'cancelled', r.reason), input.now)
  const intents = [...w.intents]
  if (!sameParty(input.actor, task.creator)) {
    const blocked = view
      .dependents(task.id)
      .filter((d) => !isClosed(d))
      .map((d) => d.id)
    intents.push({
      kind: 'notify',
      taskId: task.id,
      to: task.creator,
      text: clipNotice(
        `Task ${task.id} "${task.title}" was cancelled: ${why}.${blocked.length ? ` It blocked ${blocked.join(', ')}, which cannot start now.` : ''}`,
      ),
    })
  }
  return ok([c], intents)
}

/**
 * Give a task to another Bot (or to nobody: `to: null`) in `blocked`, `ready` or `working`; a
 * running attempt is withdrawn (the task is `ready` for its new assignee). `review` and closed
 * tasks are refused. Whether `to` is a live Bot is checked against `bots`.
 */
export function reassign(view: TaskView, taskId: string, input: Act & { to: string | null; bots: ReadonlySet<string>; reason?: unknown }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  if (task.status === 'review' || isClosed(task)) return refuse(statusRefusal(task, 'be reassigned'))
  if (input.to !== null && !input.bots.has(input.to)) return refuse(`${JSON.stringify(input.to)} is not a Bot of the team. Nothing changed.`)
  if (task.assignee?.kind === 'user') return refuse(`Task ${task.id} waits for the user; it is answered, not reassigned. Nothing changed.`)
  if ((assignedBot(task) ?? null) === input.to)
    return refuse(`Task ${task.id} is already ${input.to ? `assigned to ${input.to}` : 'unassigned'}. Nothing changed.`)
  const r = parseReason(input.reason, false)
  if (!r.ok) return r
  const to = input.to === null ? 'nobody' : input.to
  const w = withdraw(task, `the task was reassigned to ${to}`, input.now)
  const status: TaskStatus = task.status === 'working' ? 'ready' : task.status
  const reason = r.reason ? `to ${to}: ${r.reason}` : `to ${to}`
  const c = moved(
    task,
    { ...w.patch, status, assignee: input.to === null ? null : { kind: 'bot', botId: input.to } },
    entryOf(input, 'reassigned', task.status, status, reason),
    input.now,
  )
  return ok([c], w.intents)
}

/**
 * A Bot is gone (deleted): each of its open tasks becomes unassigned — a running one `ready` with
 * its attempt withdrawn and stopped, one in review stays in review — and each creator is told.
 */
export function release(view: TaskView, botId: string, input: Act & { reason?: unknown }): Result {
  const r = parseReason(input.reason, false)
  if (!r.ok) return r
  const why = r.reason ?? `${botId} was deleted`
  const changes: Change[] = []
  const intents: IntentDraft[] = []
  for (const task of view.openOf(botId)) {
    const w = withdraw(task, `the task was taken from ${botId}: ${why}`, input.now)
    const status: TaskStatus = task.status === 'working' ? 'ready' : task.status
    changes.push(moved(task, { ...w.patch, status, assignee: null }, entryOf(input, 'released', task.status, status, why), input.now))
    intents.push(...w.intents, {
      kind: 'notify',
      taskId: task.id,
      to: task.creator,
      text: clipNotice(
        `Task ${task.id} "${task.title}" no longer has an assignee (${why}); it is ${status}. ${task.creator.kind === 'user' ? 'Reassign it to another Bot.' : 'Cancel it and plan it again for another Bot, or ask the user to reassign it.'}`,
      ),
    })
  }
  return ok(changes, intents)
}

// ── artifacts and tokens ───────────────────────────────────────────────────────────────────────

function withArtifacts(task: Task, raw: unknown, act: Act): { ok: true; artifacts: Artifact[] } | { ok: false; refusal: string } {
  const parsed = artifactsInput.safeParse(raw)
  if (!parsed.success) return refuse(`The artifacts were not accepted: ${formatIssues(parsed.error, { root: 'artifacts' })}. Nothing changed.`)
  const total = task.artifacts.length + parsed.data.length
  if (total > TASK_LIMITS.artifacts)
    return refuse(
      `A task keeps at most ${TASK_LIMITS.artifacts} artifacts; ${task.id} has ${task.artifacts.length} and ${parsed.data.length} more were given. Nothing changed.`,
    )
  if (!parsed.data.length) return { ok: true, artifacts: task.artifacts }
  const added = parsed.data.map((a): Artifact => ({ kind: a.kind, value: a.value, ...(a.label ? { label: a.label } : {}), at: act.now, by: act.actor }))
  return { ok: true, artifacts: [...task.artifacts, ...added] }
}

/** Record artifacts (files, commits, branches, links, notes) on an open task; no history entry. */
export function addArtifacts(view: TaskView, taskId: string, input: Act & { artifacts: unknown }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  if (isClosed(task)) return refuse(statusRefusal(task, 'take artifacts'))
  const a = withArtifacts(task, input.artifacts, input)
  if (!a.ok) return a
  if (a.artifacts.length === task.artifacts.length) return ok([])
  return ok([moved(task, { artifacts: a.artifacts }, null, input.now)])
}

/** Add a model request's tokens to the task (in any status: a turn's last request may land after its end). */
export function addTokens(view: TaskView, taskId: string, input: { now: string; tokens: Tokens }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const t = input.tokens
  const good = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0
  if (!good(t?.input) || !good(t?.cached) || !good(t?.output)) return refuse('Tokens are whole numbers ≥ 0 (input, cached, output). Nothing changed.')
  const now = found.task.tokens
  return ok([moved(found.task, { tokens: { input: now.input + t.input, cached: now.cached + t.cached, output: now.output + t.output } }, null, input.now)])
}

/** The worktree fields of a project task (its branch, check result, merge state), merged into what it has; no history entry. */
export function setWorktree(view: TaskView, taskId: string, input: { now: string; worktree: NonNullable<Task['worktree']> }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  if (!found.task.worktree) return refuse(`${found.task.id} is not a project task. Nothing changed.`)
  return ok([moved(found.task, { worktree: { ...found.task.worktree, ...input.worktree } }, null, input.now)])
}

// ── what comes next ────────────────────────────────────────────────────────────────────────────

/** The task `botId` should start next: its oldest ready task, when it is not working on one. */
export function nextReady(view: TaskView, botId: string): Task | undefined {
  if (view.running(botId)) return undefined
  return view.openOf(botId).find((t) => t.status === 'ready')
}

/** Tasks whose running attempt's lease ran out by `now`. */
export function expiredLeases(view: TaskView, now: string): Task[] {
  return view.working().filter((t) => t.lease && past(now, t.lease.expiresAt))
}

const OUTCOME_WORDS: Record<string, string> = {
  'ended-without-submit': 'ended without a submit',
  crash: 'cut by a crash',
  'lease-expired': 'lease ran out',
  rejected: 'rejected in review',
  'check-failed': 'check failed',
  withdrawn: 'withdrawn',
}

/**
 * The brief the next attempt starts from: the task's own brief and acceptance criteria, then the
 * earlier unsuccessful attempts with their reasons (same task, same text: byte-stable).
 */
export function attemptBrief(task: Task, rules = DEFAULT_RULES): string {
  const lines = [`Task ${task.id}: ${task.title}`, '', task.brief]
  if (task.acceptance) lines.push('', 'Acceptance criteria:', task.acceptance)
  const earlier = task.attempts.filter((a) => a.outcome && a.outcome !== 'submitted')
  lines.push('', `This is attempt ${failedAttempts(task) + 1} of at most ${rules.maxAttempts}.`)
  if (earlier.length) {
    lines.push('Earlier attempts:')
    for (const a of earlier) lines.push(`- attempt ${a.n} (${OUTCOME_WORDS[a.outcome!] ?? a.outcome}): ${a.reason ?? 'no reason recorded'}`)
  }
  return lines.join('\n')
}
