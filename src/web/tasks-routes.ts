/**
 * The tasks API under `/bot-team/api/tasks`, acting as the person: GET `/tasks[?status=&bot=]`,
 * GET `/tasks/board` (the board's cards), POST `/tasks` (a plan, paired only), GET `/tasks/<id>`, POST
 * `/tasks/<id>/cancel` `{reason?}`, `/tasks/<id>/reassign` `{to, reason?}` and `/tasks/<id>/review`
 * `{verdict, reason?}` (all three paired); GET and PUT `/project` `{path, branch}`, GET `/project/log` (the board's project panel), POST
 * `/project/release` `{check}` (paired). Bodies are bounded and read whole; the task service checks
 * them and `decide()` refuses an unpaired plan, cancel, review or reassign. Deliberately narrow: no rules.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import { REASON_MAX } from '../core/text-limits.ts'
import type { BotRoster } from '../roster/service.ts'
import { TASK_STATUSES, type Task } from '../tasks/record.ts'
import type { BotTasks } from '../tasks/service.ts'
import { SMALL_BODY_BYTES } from './bots-routes.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'
import { projectPanel } from './project-view.ts'
import { boardView } from './task-cards.ts'

/** A plan of 50 tasks with the longest briefs and criteria fits (the service refuses more tasks). */
export const PLAN_BODY_BYTES = 2 * 1024 * 1024

const reason = z
  .string()
  .max(4 * REASON_MAX, `at most ${REASON_MAX} characters`)
  .optional()
const CancelBody = z.strictObject({ reason })
const ReassignBody = z.strictObject({ to: z.string().trim().min(1).max(200).nullable(), reason })
const ReviewBody = z.strictObject({ verdict: z.enum(['accept', 'reject']), reason })
const ListQuery = z.strictObject({ status: z.enum([...TASK_STATUSES, 'open']).optional(), bot: z.string().trim().min(1).max(200).optional() })

/** A task as the API shows it, with why a blocked one waits. */
function view(tasks: BotTasks, task: Task): Task & { waitsFor?: string } {
  const waits = task.status === 'blocked' ? tasks.waitsFor(task) : undefined
  return waits ? { ...task, waitsFor: waits } : task
}

const ProjectBody = z.strictObject({ path: z.string().min(1).max(4096), branch: z.string().min(1).max(200) })
const ReleaseBody = z.strictObject({ check: z.string().trim().min(1).max(4000) })

/** The team's project: GET shows it (`null` when none), PUT names it — paired only, asked before the body is read. */
export async function projectApi(
  { method, req, sub }: { method: string; req: IncomingMessage; sub?: string },
  tasks: BotTasks,
  pairing: Pairing,
): Promise<[number, unknown]> {
  if (sub === 'release') {
    if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /project/release`)
    await pairing.requirePaired(req)
    const body = parseBody(ReleaseBody, await readJsonBody(req, SMALL_BODY_BYTES))
    return [200, { release: await tasks.releaseProject(await pairing.person(req), body.check) }]
  }
  if (sub === 'log') {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /project/log`)
    return [200, await projectPanel(tasks, (await pairing.check(req)).paired)]
  }
  if (sub !== undefined) throw new HttpError(404, 'no such project route')
  if (method === 'GET') {
    const held = tasks.heldProject()
    return [200, { project: tasks.project(), ...(held ? { held: { id: held.id, path: held.path, branch: held.branch, problem: held.problem ?? null } } : {}) }]
  }
  if (method !== 'PUT') throw new HttpError(405, `${method} not allowed on /project`)
  await pairing.requirePaired(req)
  const body = parseBody(ProjectBody, await readJsonBody(req, SMALL_BODY_BYTES))
  return [200, { project: await tasks.setProject(await pairing.person(req), body) }]
}

export async function tasksApi(
  { method, rest, req, url }: { method: string; rest: readonly string[]; req: IncomingMessage; url: URL },
  tasks: BotTasks,
  roster: BotRoster,
  pairing: Pairing,
): Promise<[number, unknown]> {
  const [ref, action, ...more] = rest
  if (more.length) throw new HttpError(404, 'no such tasks route')
  if (ref === undefined) {
    if (method === 'GET') {
      const q = parseBody(ListQuery, Object.fromEntries(url.searchParams))
      const bot = q.bot === undefined ? undefined : roster.find(q.bot)
      if (q.bot !== undefined && !bot) throw new HttpError(404, `No Bot named or with id "${q.bot}".`)
      return [200, { tasks: tasks.list({ status: q.status, botId: bot?.id }).map((t) => view(tasks, t)), ledger: tasks.status() }]
    }
    if (method === 'POST') {
      const body = await readJsonBody(req, PLAN_BODY_BYTES)
      const { ids, tasks: made } = await tasks.plan(await pairing.person(req), body)
      return [201, { ids, tasks: made.map((t) => view(tasks, t)) }]
    }
    throw new HttpError(405, `${method} not allowed on /tasks`)
  }
  if (ref === 'board' && action === undefined) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /tasks/board`)
    return [200, boardView(tasks.board.all(), (t) => tasks.waitsFor(t))]
  }
  const task = tasks.board.get(ref)
  if (!task) throw new HttpError(404, `No task "${ref.slice(0, 60)}". GET /bot-team/api/tasks lists the tasks.`)
  if (action === undefined) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /tasks/${task.id}`)
    return [200, { task: view(tasks, task) }]
  }
  if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /tasks/${task.id}/${action}`)
  const person = await pairing.person(req)
  if (action === 'cancel') {
    const body = parseBody(CancelBody, await readJsonBody(req, SMALL_BODY_BYTES))
    return [200, { task: view(tasks, await tasks.cancel(person, task.id, body.reason)) }]
  }
  if (action === 'reassign') {
    const body = parseBody(ReassignBody, await readJsonBody(req, SMALL_BODY_BYTES))
    return [200, { task: view(tasks, await tasks.reassign(person, task.id, body.to, body.reason)) }]
  }
  if (action === 'review') {
    const body = parseBody(ReviewBody, await readJsonBody(req, SMALL_BODY_BYTES))
    const changed = await tasks.review(person, task.id, body.verdict, body.reason)
    return [200, { tasks: changed.map((t) => view(tasks, t)) }]
  }
  throw new HttpError(404, `no such route: /tasks/${task.id}/${action.slice(0, 40)}`)
}
