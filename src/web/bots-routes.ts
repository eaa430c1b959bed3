/**
 * The bots API under `/bot-team/api/bots`, acting as the person: list, create, change, delete, the
 * delegated-work flag, the network level, a new part (paired: it spends a model call). Bodies are
 * read whole first; the roster decides inside its save whether a change raises (an unpaired request
 * is refused it). Deliberately only bounded bodies and the lookup; no rules here.
 */
import { REASON_MAX } from '../core/text-limits.ts'
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import { NETWORK_LEVELS } from '../core/network.ts'
import { probeView } from '../network/probe.ts'
import type { BotRoster } from '../roster/service.ts'
import { summary } from '../roster/tools.ts'
import type { Bot } from '../store/index.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

/** Bodies that carry Bot fields (instructions up to 8000 characters) are refused above this (413). */
export const MAX_BODY_BYTES = 64 * 1024
/** Every other body (a reason, a flag) is small. */
export const SMALL_BODY_BYTES = 4 * 1024

/** A delete's body: why, in a sentence (Bots and groups alike). */
export const DeleteBody = z.strictObject({
  reason: z.string({ error: 'say why, in a sentence' }).trim().min(1, 'say why, in a sentence').max(REASON_MAX, `at most ${REASON_MAX} characters`),
})
const DelegatedWorkBody = z.strictObject({ accepts: z.boolean({ error: 'must be true or false' }) })
const NetworkBody = z.strictObject({ level: z.enum(NETWORK_LEVELS, { error: `must be one of ${NETWORK_LEVELS.join(', ')}` }) })

/** A live Bot by id or name (`botRoster.find`: own properties only, one name key); 404 otherwise. */
export function resolveBot(roster: BotRoster, ref: string): Bot {
  const bot = roster.find(ref)
  if (!bot) throw new HttpError(404, `No Bot named or with id "${ref}". GET /bot-team/api/bots lists the team.`)
  return bot
}

export interface BotsRequest {
  method: string
  /** The decoded `<id|name>` segment, when the path has one. */
  ref?: string
  /** The sub-resource after it (`delegated-work`), when the path has one. */
  sub?: string
  req: IncomingMessage
}

/** Starts a Bot's next own-chat part on the person's request (`botContext.newPart`). */
export interface PartStarter {
  newPart(botId: string, opts?: { paired?: boolean }): Promise<string>
}

const NewPartBody = z.strictObject({}, { error: 'takes no fields (send {} or nothing)' })

export async function botsApi({ method, ref, sub, req }: BotsRequest, roster: BotRoster, pairing: Pairing, parts?: PartStarter): Promise<[number, unknown]> {
  if (ref === undefined) {
    if (method === 'GET') return [200, { bots: roster.bots().map(summary) }]
    if (method === 'POST') {
      const body = await readJsonBody(req, MAX_BODY_BYTES)
      return [201, { bot: summary(await roster.create(await pairing.person(req), body)) }]
    }
    throw new HttpError(405, `${method} not allowed on /bots`)
  }
  const bot = resolveBot(roster, ref)
  if (sub === 'delegated-work') {
    if (method !== 'PUT') throw new HttpError(405, `${method} not allowed on /bots/${ref}/delegated-work`)
    const { accepts } = parseBody(DelegatedWorkBody, await readJsonBody(req, SMALL_BODY_BYTES))
    const updated = await roster.setAcceptsDelegatedWork(await pairing.person(req), bot.id, accepts)
    return [200, { bot: summary(updated), acceptsDelegatedWork: updated.acceptsDelegatedWork }]
  }
  if (sub === 'network') {
    if (method !== 'PUT') throw new HttpError(405, `${method} not allowed on /bots/${ref}/network`)
    const { level } = parseBody(NetworkBody, await readJsonBody(req, SMALL_BODY_BYTES))
    // Either way it moves what the Bot's shell can reach: the paired page's alone.
    await pairing.requirePaired(req)
    const updated = await roster.setNetwork(await pairing.person(req), bot.id, level)
    const problem = roster.networkProblem(updated)
    return [200, { bot: summary(updated), network: roster.levelOfBot(updated), ...(problem ? { problem } : {}), probe: probeView(roster.networkProbe()) }]
  }
  if (sub === 'new-part') {
    if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /bots/${ref}/new-part`)
    parseBody(NewPartBody, await readJsonBody(req, SMALL_BODY_BYTES))
    if (!parts) throw new HttpError(503, 'new parts are not available here (the context service is not loaded)')
    // A new part spends a model call (its note): the person's, from the paired page — and its
    // opening says the user started it.
    await pairing.requirePaired(req)
    const sessionId = await parts.newPart(bot.id, { paired: true })
    return [201, { bot: summary(roster.bot(bot.id) ?? bot), sessionId }]
  }
  if (sub !== undefined) throw new HttpError(404, `no such route: /bots/${ref}/${sub}`)
  if (method === 'PATCH') {
    const body = await readJsonBody(req, MAX_BODY_BYTES)
    return [200, { bot: summary(await roster.update(await pairing.person(req), bot.id, body)) }]
  }
  if (method === 'DELETE') {
    const { reason } = parseBody(DeleteBody, await readJsonBody(req, SMALL_BODY_BYTES))
    return [200, { bot: summary(await roster.delete(await pairing.person(req), bot.id, reason)) }]
  }
  throw new HttpError(405, `${method} not allowed on /bots/${ref}`)
}
