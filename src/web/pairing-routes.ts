/**
 * The pairing API under `/bot-team/api/pairing`: this request's status and the devices, pairing with
 * a code or in the pairing window, a code for the next browser (printed on DSH's terminal while none
 * is paired), opening the one-time pairing window, unpairing. Deliberately shapes and statuses only.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'

export const PAIRING_BODY_BYTES = 1024

const PairBody = z
  .strictObject({
    code: z.string({ error: 'must be the pairing code, as text' }).min(1, 'must not be empty').max(32, 'is too long for a pairing code').optional(),
    window: z.string({ error: "must be the pairing window's id, as text" }).min(1, 'must not be empty').max(64, 'is too long for a window id').optional(),
  })
  .refine((b) => (b.code === undefined) !== (b.window === undefined), {
    error: 'send the pairing "code", or the "window" id of a pairing window (one of them)',
  })
const CodesBody = z.strictObject({})
const DEVICE_ID = /^[0-9a-f]{16}$/

export interface PairingRequest {
  method: string
  /** The path below `/pairing`, split: [] | ['codes'] | ['devices', id]. */
  rest: string[]
  req: IncomingMessage
}

export async function pairingApi({ method, rest, req }: PairingRequest, pairing: Pairing): Promise<[number, unknown]> {
  if (rest.length === 0) {
    if (method === 'GET') return [200, await pairing.status(req)]
    if (method === 'POST') {
      const body = parseBody(PairBody, await readJsonBody(req, PAIRING_BODY_BYTES))
      const agent = req.headers['user-agent']
      return [201, body.code !== undefined ? await pairing.pair(body.code, agent) : await pairing.pairInWindow(body.window!, agent)]
    }
    throw new HttpError(405, `${method} not allowed on /pairing`)
  }
  if (rest.length === 1 && rest[0] === 'codes') {
    if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /pairing/codes`)
    parseBody(CodesBody, await readJsonBody(req, PAIRING_BODY_BYTES))
    return [201, await pairing.createCode(req)]
  }
  if (rest.length === 1 && rest[0] === 'window') {
    if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /pairing/window`)
    parseBody(CodesBody, await readJsonBody(req, PAIRING_BODY_BYTES))
    return [201, await pairing.openWindow()]
  }
  if (rest.length === 2 && rest[0] === 'devices') {
    if (method !== 'DELETE') throw new HttpError(405, `${method} not allowed on /pairing/devices/<id>`)
    const id = rest[1]!
    if (!DEVICE_ID.test(id)) {
      await pairing.requirePaired(req)
      throw new HttpError(404, `No paired device with id "${id}".`)
    }
    return [200, { device: await pairing.unpair(req, id) }]
  }
  throw new HttpError(404, `no such route: /pairing/${rest.join('/')}`)
}
