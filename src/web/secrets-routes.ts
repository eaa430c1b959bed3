/**
 * The secrets API under `/bot-team/api/secrets`, acting as the person: the saved secrets (never a
 * value) and open requests, a card's Save and Cancel, add, replace, re-scope, delete — every change
 * from a paired browser, asked before the body is read. Deliberately `botSecrets` does the work.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import type { BotRoster } from '../roster/service.ts'
import type { BotSecrets } from '../secrets/service.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

/** A value is at most 16,384 characters (up to 4 bytes each in UTF-8, escaped in JSON). */
export const SECRET_BODY_BYTES = 160 * 1024

const FulfilBody = z.strictObject({
  value: z.string({ error: 'the value must be text' }),
  scope: z.enum(['bot', 'all'], { error: 'scope must be "bot" (this Bot) or "all" (all Bots)' }),
})
const SetBody = z.strictObject({
  value: z.string({ error: 'the value must be text' }).optional(),
  scope: z.union([z.literal('all'), z.array(z.string().min(1).max(200)).max(1000)], { error: 'scope must be "all" or a list of Bot ids or names' }).optional(),
  purpose: z.string().max(2000).optional(),
})

async function readSecretBody(req: IncomingMessage): Promise<unknown> {
  try {
    return await readJsonBody(req, SECRET_BODY_BYTES)
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) throw new HttpError(400, 'request body is not valid JSON')
    throw error
  }
}

export interface SecretsRequest {
  method: string
  rest: readonly string[]
  req: IncomingMessage
}

export async function secretsApi({ method, rest, req }: SecretsRequest, secrets: BotSecrets, roster: BotRoster, pairing: Pairing): Promise<[number, unknown]> {
  if (rest.length === 0) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /secrets`)
    return [200, { secrets: secrets.list(), requests: secrets.requests(), status: secrets.status() }]
  }
  if (rest[0] === 'requests' && rest.length === 2) {
    const id = rest[1]!
    if (method === 'POST') {
      await pairing.requirePaired(req)
      const body = parseBody(FulfilBody, await readSecretBody(req))
      return [200, { secret: await secrets.fulfil(id, body.value, body.scope) }]
    }
    if (method === 'DELETE') {
      await pairing.requirePaired(req)
      await secrets.decline(id)
      return [200, { cancelled: id }]
    }
    throw new HttpError(405, `${method} not allowed on /secrets/requests/${id}`)
  }
  if (rest.length !== 1) throw new HttpError(404, 'no such route under /secrets')
  const name = rest[0]!
  if (method === 'PUT') {
    await pairing.requirePaired(req)
    const body = parseBody(SetBody, await readSecretBody(req))
    const scope =
      body.scope === undefined || body.scope === 'all'
        ? body.scope
        : body.scope.map((ref) => {
            const bot = roster.find(ref)
            if (!bot) throw new HttpError(404, `No Bot named or with id "${ref.slice(0, 80)}".`)
            return bot.id
          })
    return [200, { secret: await secrets.set(name, { value: body.value, purpose: body.purpose, ...(scope !== undefined ? { scope } : {}) }) }]
  }
  if (method === 'DELETE') {
    await pairing.requirePaired(req)
    await secrets.delete(name)
    return [200, { deleted: name }]
  }
  throw new HttpError(405, `${method} not allowed on /secrets/${name}`)
}
