/**
 * Settings held for the person's confirmation under `/bot-team/api/held` (a restore's raises, working
 * folders set before v4, a project held by v7 — settled by the task service): the list in words, confirm, let go — each change from a paired browser.
 * Deliberately only bounded bodies and the pairing question; the roster checks and applies.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import type { BotRoster } from '../roster/service.ts'
import type { BotTasks } from '../tasks/service.ts'
import { heldText } from '../roster/held.ts'
import { SMALL_BODY_BYTES } from './bots-routes.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

const USER = { kind: 'user' } as const
const EmptyBody = z.strictObject({}, { error: 'takes no fields (send {} or nothing)' })

export async function heldApi(
  { method, rest, req }: { method: string; rest: readonly string[]; req: IncomingMessage },
  roster: BotRoster,
  pairing: Pairing,
  tasks?: BotTasks,
): Promise<[number, unknown]> {
  const words = (item: ReturnType<BotRoster['held']>[number]) => ({ ...item, text: heldText(item, (id) => roster.state.bots[id]?.name) })
  if (rest.length === 0) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /held`)
    return [200, { held: roster.held().map(words) }]
  }
  const [id, action] = rest
  if (rest.length !== 2 || (action !== 'confirm' && action !== 'dismiss')) throw new HttpError(404, `no such route: /held/${rest.join('/').slice(0, 100)}`)
  if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /held/${id}/${action}`)
  await pairing.requirePaired(req)
  parseBody(EmptyBody, await readJsonBody(req, SMALL_BODY_BYTES))
  // A held project is named again (or let go) by the task service: the whole check of PUT /project.
  const project = roster.held().find((h) => h.id === id && h.kind === 'project')
  if (project && !tasks) throw new HttpError(503, 'the task ledger is not available (see /bot-team/api/status)')
  const item =
    project && tasks
      ? await tasks.settleHeldProject(USER, id!, action === 'confirm')
      : action === 'confirm'
        ? await roster.confirmHeld(USER, id!)
        : await roster.dismissHeld(USER, id!)
  return [200, { [action === 'confirm' ? 'confirmed' : 'dismissed']: words(item), held: roster.held().map(words) }]
}
