/**
 * The person's inbox as transitions (pure): a Bot's question or a call waiting for approval becomes
 * a task assigned to the person (`ask`), settled by an answer, an allow, a deny or its deadline
 * (`settle`, `expiredAsks`), each telling the asking Session through an `answer` intent; an
 * allowed call's one-shot grant is used once (`useGrant`). The answer text is words for a model;
 * the authority to answer is `decide()`'s, the grant's matching the guard's.
 */
import { z } from 'zod'
import type { Chain } from '../core/sources.ts'
import { clip } from '../core/text-limits.ts'
import { formatIssues } from '../core/zod-issues.ts'
import type { TaskView } from './board.ts'
import { type Act, type Change, type Result, entryOf, find, moved, statusRefusal, text } from './policy.ts'
import { type Ask, type HistoryEntry, newTask, type Task, TASK_LIMITS } from './record.ts'

const refuse = (refusal: string): Extract<Result, { ok: false }> => ({ ok: false, refusal })

/** What `ask_person` (or the approval guard) gives; the deadline in hours from now. */
export const askInput = z
  .object({
    question: text(TASK_LIMITS.question, { required: true }),
    choices: z
      .array(text(TASK_LIMITS.choice, { required: true, oneLine: true }))
      .max(TASK_LIMITS.choices, { error: `at most ${TASK_LIMITS.choices} choices` })
      .optional(),
    deadlineHours: z
      .number({ error: 'must be a number of hours' })
      .positive({ error: 'must be more than 0 hours' })
      .max(TASK_LIMITS.askMaxMs / 3_600_000, { error: `must be at most ${TASK_LIMITS.askMaxMs / 3_600_000} hours` })
      .optional(),
  })
  .strict()

export interface AskContext {
  now: string
  botId: string
  sessionId: string
  /** The asking turn's chain: what the answer's turn carries. */
  chain: Chain
  /** Present for a call waiting for approval (its arguments masked, the grant's key). */
  approval?: NonNullable<Ask['approval']>
  /** Asked in a task Session: the attempt working there. */
  attempt?: NonNullable<Ask['attempt']> | undefined
  /** The asking Session's turn. */
  turn?: number | undefined
}

/** Open questions or approvals of one Bot. */
export function openAsks(view: TaskView, botId: string, kind: Ask['kind']): Task[] {
  return view.inbox().filter((t) => t.ask?.kind === kind && t.ask.botId === botId)
}

/** A question or an approval for the person: a task assigned to the person, `ready` (waiting). */
export function ask(view: TaskView, input: unknown, ctx: AskContext): (Extract<Result, { ok: true }> & { id: string }) | Extract<Result, { ok: false }> {
  const parsed = askInput.safeParse(input)
  if (!parsed.success) return refuse(`The question was not accepted: ${formatIssues(parsed.error, { root: 'question' })}. Nothing was asked.`)
  const kind: Ask['kind'] = ctx.approval ? 'approval' : 'question'
  const most = TASK_LIMITS.openTasks - TASK_LIMITS.personReserve
  if (view.openCount + 1 > most)
    return refuse(
      `The team has ${view.openCount} open tasks; Bots' questions and approvals may bring it to at most ${most} (the last ${TASK_LIMITS.personReserve} are the user's). Nothing was asked.`,
    )
  if (kind === 'approval' && openAsks(view, ctx.botId, 'approval').length >= TASK_LIMITS.approvalsPerBot)
    return refuse(
      `This Bot already has ${TASK_LIMITS.approvalsPerBot} approvals waiting for the user, the most there may be; nothing new was asked. Wait for the user's answers.`,
    )
  if (kind === 'question') {
    if (openAsks(view, ctx.botId, 'question').length >= TASK_LIMITS.questionsPerBot)
      return refuse(
        `This Bot already has ${TASK_LIMITS.questionsPerBot} questions waiting for the user (from all its chats), the most there may be; nothing new was asked. Wait for the answers, or decide without them.`,
      )
    // A Session's turns only go up: its newest question tells whether this turn asked one, whatever
    // the Bot asked meanwhile from its other Sessions.
    const last = view.lastAsk(ctx.botId, 'question', ctx.sessionId)
    if (ctx.turn !== undefined && last?.ask?.turn === ctx.turn)
      return refuse(`This turn already asked the user (${last.id}); a Bot asks at most one question per turn. Nothing new was asked.`)
  }
  const { question, choices, deadlineHours } = parsed.data
  const deadline = new Date(Date.parse(ctx.now) + (deadlineHours ? deadlineHours * 3_600_000 : TASK_LIMITS.askDefaultMs)).toISOString()
  const id = `task-${view.nextId}`
  const record: Ask = {
    kind,
    botId: ctx.botId,
    sessionId: ctx.sessionId,
    question,
    ...(choices?.length ? { choices } : {}),
    deadline,
    ...(ctx.approval ? { approval: ctx.approval } : {}),
    ...(ctx.attempt ? { attempt: ctx.attempt } : {}),
    ...(ctx.turn !== undefined ? { turn: ctx.turn } : {}),
  }
  const entry = entryOf({ now: ctx.now, actor: { kind: 'bot', botId: ctx.botId } }, kind === 'approval' ? 'approval-asked' : 'asked', null, 'ready')
  const task = askTask(id, record, entry, ctx.chain)
  return { ok: true, changes: [{ task, entry }], intents: [], id }
}

/** A new task for the person holding `record` (pure). */
function askTask(id: string, record: Ask, entry: HistoryEntry, chain: Chain): Task {
  const firstLine = record.question.split('\n')[0]!.trim()
  const title = clip(record.kind === 'approval' ? `Approve ${record.approval!.tool}: ${firstLine}` : firstLine, TASK_LIMITS.title)
  const creator = { kind: 'bot' as const, botId: record.botId }
  const fields = { id, title: title || 'A question', brief: record.question, acceptance: '', creator, assignee: { kind: 'user' as const }, blockedBy: [] }
  return newTask({ ...fields, ask: record }, entry, chain)
}

/** The person's answer: to a question (text or one of its choices), or allow / deny to an approval. */
export type Settlement =
  | { verdict: 'answered'; text?: string | undefined; choice?: number | undefined }
  | { verdict: 'allowed' }
  | { verdict: 'denied'; reason?: string | undefined }
  | { verdict: 'expired' }

const answerText = text(TASK_LIMITS.question)

/** What the asking Session reads (pure): the answer, the call allowed, a deny, or the deadline passing. */
export function answerWords(task: Task, s: Settlement, answer: string | undefined): string {
  const a = task.ask!
  const q = clip(a.question, 300)
  if (a.kind === 'question') {
    if (s.verdict === 'expired')
      return `Your question ${task.id} to the user ("${q}") got no answer by its deadline (${a.deadline}); decide without it or ask again later.`
    return `The user answered your question ${task.id} ("${q}"): ${answer}`
  }
  const call = `${a.approval!.tool} (call ${a.approval!.callId}) with ${clip(a.approval!.args, 600)}`
  if (s.verdict === 'allowed')
    return `The user allowed ${call}. Make exactly that call again now, with the same arguments: it is allowed once, in this turn only; any other call that needs approval is still refused.`
  if (s.verdict === 'denied')
    return `The user denied ${call}${answer ? ` (they said: ${answer})` : ''}. Do not try it again; go on without it or tell whoever asked.`
  return `Nobody answered the approval of ${call} by its deadline (${a.deadline}); it was not run. Go on without it, or ask the user in your own chat.`
}

/**
 * Settle a waiting question or approval (`ready` → `done`; `expired` → `cancelled`) and tell the
 * asking Session (an `answer` intent; an allowed approval carries its one-shot grant).
 */
export function settle(view: TaskView, taskId: string, input: Act & Settlement): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const a = task.ask
  if (!a) return refuse(`Task ${taskId} is not a question or an approval for the user. Nothing changed.`)
  if (task.status !== 'ready') return refuse(statusRefusal(task, 'be answered'))
  if (a.kind === 'question' && (input.verdict === 'allowed' || input.verdict === 'denied'))
    return refuse(`Task ${task.id} is a question: answer it with text or one of its choices. Nothing changed.`)
  if (a.kind === 'approval' && input.verdict === 'answered') return refuse(`Task ${task.id} is an approval: allow or deny it. Nothing changed.`)
  let words: string | undefined
  let choice: number | undefined
  if (input.verdict === 'answered') {
    if (input.choice !== undefined) {
      if (!a.choices?.length) return refuse(`Question ${task.id} has no choices; answer it with text. Nothing changed.`)
      if (!Number.isInteger(input.choice) || input.choice < 0 || input.choice >= a.choices.length)
        return refuse(`Choice ${input.choice} is not one of question ${task.id}'s (0 to ${a.choices.length - 1}). Nothing changed.`)
      choice = input.choice
    }
    const t = answerText.safeParse(input.text ?? '')
    if (!t.success) return refuse(`The answer was not accepted: ${formatIssues(t.error, { root: 'answer' })}. Nothing changed.`)
    words = [choice !== undefined ? `"${a.choices![choice]}"` : '', t.data].filter(Boolean).join(' — ')
    if (!words) return refuse('An answer needs text or one of the choices. Nothing changed.')
  } else if (input.verdict === 'denied' && input.reason !== undefined) {
    const t = answerText.safeParse(input.reason)
    if (!t.success) return refuse(`The reason was not accepted: ${formatIssues(t.error, { root: 'reason' })}. Nothing changed.`)
    words = t.data || undefined
  }
  const status = input.verdict === 'expired' ? 'cancelled' : 'done'
  const answer: NonNullable<Ask['answer']> = {
    at: input.now,
    verdict: input.verdict,
    ...(words && input.verdict !== 'answered' ? { text: words } : {}),
    ...(input.verdict === 'answered' ? { text: words! } : {}),
    ...(choice !== undefined ? { choice } : {}),
  }
  const ask: Ask = { ...a, answer, ...(input.verdict === 'allowed' ? { grant: { used: false } } : {}) }
  const c: Change = moved(task, { status, ask }, entryOf(input, input.verdict, 'ready', status, words ? clip(words, TASK_LIMITS.reason) : undefined), input.now)
  const intent = {
    kind: 'answer' as const,
    taskId: task.id,
    botId: a.botId,
    sessionId: a.sessionId,
    text: clip(answerWords(task, input, words), TASK_LIMITS.notice + TASK_LIMITS.question),
    ...(input.verdict === 'allowed' ? { grant: true } : {}),
  }
  return { ok: true, changes: [c], intents: [intent] }
}

/** The allowed call's grant is used (once; a second use is refused). No history entry. */
export function useGrant(view: TaskView, taskId: string, input: { now: string; callId: string }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const grant = task.ask?.grant
  if (!grant) return refuse(`Task ${taskId} holds no grant. Nothing changed.`)
  if (grant.used) return refuse(`The grant of ${taskId} was used already (call ${grant.callId ?? '?'}); it is one-shot. Nothing changed.`)
  if (grant.cancelled) return refuse(`The grant of ${taskId} was cancelled (${grant.cancelled.reason}). Nothing changed.`)
  const ask: Ask = { ...task.ask!, grant: { used: true, usedAt: input.now, callId: input.callId } }
  return { ok: true, changes: [moved(task, { ask }, null, input.now)], intents: [] }
}

/** An allowed approval's unused grant is cancelled by the team (the asking Session or attempt is over): it never opens a call. */
export function cancelGrant(view: TaskView, taskId: string, input: { now: string; reason: string }): Result {
  const found = find(view, taskId)
  if (!found.ok) return found
  const task = found.task
  const grant = task.ask?.grant
  if (!grant || grant.used || grant.cancelled) return refuse(`Task ${taskId} holds no unused grant. Nothing changed.`)
  const reason = clip(input.reason, TASK_LIMITS.reason)
  const ask: Ask = { ...task.ask!, grant: { ...grant, cancelled: { at: input.now, reason } } }
  const entry = entryOf({ now: input.now, actor: { kind: 'system' } }, 'grant-cancelled', task.status, task.status, reason)
  return { ok: true, changes: [moved(task, { ask }, entry, input.now)], intents: [] }
}

/** Questions and approvals whose deadline has passed (still waiting). */
export function expiredAsks(view: TaskView, now: string): Task[] {
  return view.inbox().filter((t) => t.ask && t.status === 'ready' && Date.parse(now) >= Date.parse(t.ask.deadline))
}

/** The earliest deadline of a waiting question or approval (ms), if any. */
export function nextDeadline(view: TaskView): number | undefined {
  let next = Number.POSITIVE_INFINITY
  for (const t of view.inbox()) if (t.ask && t.status === 'ready') next = Math.min(next, Date.parse(t.ask.deadline))
  return Number.isFinite(next) ? next : undefined
}

/** A question team state held before v6 (`pendingQuestions`), as the migration left it. */
export interface ImportedQuestion {
  id: string
  botId: string
  sessionId?: string | undefined
  question: string
  options?: string[] | undefined
  askedAt: string
  status: 'open' | 'answered' | 'cancelled'
  answer?: string | undefined
}

/**
 * The questions of a v5 team file into the ledger (once: one already taken, by its id, is skipped).
 * An open one waits for the person (its deadline 24 h from now) within the bounds of `ask`: at most
 * `questionsPerBot` of a Bot wait (those already in the ledger counted), and the team's open tasks
 * stay `personReserve` below the limit; one beyond them is `cancelled`, its history saying why. An
 * answered one is `done` with its answer, a cancelled one `cancelled` — none tells anyone. A
 * question of a Bot that is gone (or with no Session to answer into) is `cancelled`.
 */
export function importQuestions(
  view: TaskView & { all(): Iterable<Task> },
  questions: readonly ImportedQuestion[],
  ctx: { now: string; sessionOf: (botId: string) => string | undefined },
): Result {
  const taken = new Set<string>()
  for (const t of view.all()) if (t.ask?.imported) taken.add(t.ask.imported)
  const changes: Change[] = []
  let next = view.nextId
  let open = view.openCount
  const waiting = new Map<string, number>()
  const waitingOf = (botId: string) => waiting.get(botId) ?? openAsks(view, botId, 'question').length
  for (const q of questions) {
    if (taken.has(q.id)) continue
    taken.add(q.id)
    const sessionId = q.sessionId ?? ctx.sessionOf(q.botId)
    const choices = (q.options ?? []).slice(0, TASK_LIMITS.choices).map((o) => clip(o.replace(/\s+/g, ' ').trim() || '-', TASK_LIMITS.choice))
    let status: Task['status'] = q.status === 'answered' ? 'done' : q.status === 'cancelled' || !sessionId ? 'cancelled' : 'ready'
    let beyond = ''
    if (status === 'ready') {
      if (waitingOf(q.botId) >= TASK_LIMITS.questionsPerBot) beyond = `; cancelled: its Bot already has ${TASK_LIMITS.questionsPerBot} questions waiting`
      else if (open + 1 > TASK_LIMITS.openTasks - TASK_LIMITS.personReserve)
        beyond = `; cancelled: Bots' questions may bring the team to at most ${TASK_LIMITS.openTasks - TASK_LIMITS.personReserve} open tasks`
      if (beyond) status = 'cancelled'
      else {
        waiting.set(q.botId, waitingOf(q.botId) + 1)
        open++
      }
    }
    const record: Ask = {
      kind: 'question',
      botId: q.botId,
      sessionId: sessionId ?? 'none',
      question: clip(q.question.trim() || '(an empty question)', TASK_LIMITS.question),
      ...(choices.length ? { choices } : {}),
      deadline: new Date(Date.parse(ctx.now) + TASK_LIMITS.askDefaultMs).toISOString(),
      imported: q.id,
      ...(q.status === 'answered'
        ? { answer: { at: ctx.now, verdict: 'answered' as const, ...(q.answer ? { text: clip(q.answer, TASK_LIMITS.question) } : {}) } }
        : {}),
    }
    const why = clip(`from team state (${q.id}, asked ${q.askedAt})${beyond}`, TASK_LIMITS.reason)
    const entry = entryOf({ now: ctx.now, actor: { kind: 'system' } }, 'imported', null, status, why)
    changes.push({ task: askTask(`task-${next++}`, record, entry, { hop: 0 }), entry })
  }
  return { ok: true, changes, intents: [] }
}
