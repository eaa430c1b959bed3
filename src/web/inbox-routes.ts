/**
 * The person's inbox under `/bot-team/api/inbox`: GET `/inbox` (what waits for the person: questions,
 * approvals, reviews), POST `/inbox/<task>/answer` `{text?, choice?}`, `/inbox/<task>/allow` `{}`
 * and `/inbox/<task>/deny` `{reason?}` — answers from a paired browser only (`decide()` refuses an
 * unpaired one: a Bot's shell must not approve its own call). Bodies are bounded and read whole.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import { TASK_LIMITS, inboxKind, type Task } from '../tasks/record.ts'
import type { BotTasks } from '../tasks/service.ts'
import { SMALL_BODY_BYTES } from './bots-routes.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

const words = z
  .string()
  .max(4 * TASK_LIMITS.question, `at most ${TASK_LIMITS.question} characters`)
  .optional()
const AnswerBody = z.strictObject({
  text: words,
  choice: z
    .int()
    .min(0)
    .max(TASK_LIMITS.choices - 1)
    .optional(),
})
const AllowBody = z.strictObject({})
const DenyBody = z.strictObject({ reason: words })

/** One task as the inbox shows it: the task, and what it waits for from the person. */
export interface InboxItem extends Task {
  inbox: { kind: 'question' | 'approval' | 'review'; since: string; deadline?: string }
}

function item(task: Task): InboxItem | undefined {
  const kind = inboxKind(task)
  if (!kind) return undefined
  const since = kind === 'review' ? (task.history.findLast((h) => h.to === 'review')?.at ?? task.updatedAt) : task.createdAt
  return { ...task, inbox: { kind, since, ...(task.ask ? { deadline: task.ask.deadline } : {}) } }
}

export async function inboxApi(
  { method, rest, req }: { method: string; rest: readonly string[]; req: IncomingMessage },
  tasks: BotTasks,
  pairing: Pairing,
): Promise<[number, unknown]> {
  const [ref, action, ...more] = rest
  if (more.length) throw new HttpError(404, 'no such inbox route')
  if (ref === undefined) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /inbox`)
    const items = tasks.inbox().flatMap((t) => item(t) ?? [])
    items.sort((a, b) => Date.parse(a.inbox.since) - Date.parse(b.inbox.since))
    return [200, { items, count: items.length, ledger: tasks.status() }]
  }
  const task = tasks.board.get(ref)
  if (!task) throw new HttpError(404, `No task "${ref.slice(0, 60)}". GET /bot-team/api/inbox lists what waits for you.`)
  if (action === undefined) throw new HttpError(404, `no such route: /inbox/${task.id}`)
  if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /inbox/${task.id}/${action.slice(0, 40)}`)
  const person = await pairing.person(req)
  const body = await readJsonBody(req, SMALL_BODY_BYTES)
  if (action === 'answer') {
    const b = parseBody(AnswerBody, body)
    return [200, { task: await tasks.answer(person, task.id, { text: b.text, choice: b.choice }) }]
  }
  if (action === 'allow') {
    parseBody(AllowBody, body ?? {})
    return [200, { task: await tasks.decideApproval(person, task.id, 'allowed') }]
  }
  if (action === 'deny') {
    const b = parseBody(DenyBody, body ?? {})
    return [200, { task: await tasks.decideApproval(person, task.id, 'denied', b.reason) }]
  }
  throw new HttpError(404, `no such route: /inbox/${task.id}/${action.slice(0, 40)}`)
}
