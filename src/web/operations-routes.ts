/**
 * The operations API under `/bot-team/api`, acting as the person: the pause switch, scheduled tasks,
 * the limits in force and their overrides, the diagnostics log. Pausing, creating a task, raising a
 * limit and reading diagnostics need a paired browser. Deliberately validates and asks; the services
 * decide.
 */
import type { IncomingMessage } from 'node:http'
import { z } from 'zod'
import type { BotDiagnostics } from '../operations/diagnostics.ts'
import { LimitPatch, type BotLimits } from '../operations/limits-service.ts'
import type { BotPause } from '../operations/pause.ts'
import type { BotSchedules } from '../operations/schedules/service.ts'
import { SMALL_BODY_BYTES } from './bots-routes.ts'
import { HttpError, parseBody, readJsonBody } from './http.ts'
import type { Pairing } from './pairing.ts'
import { USER } from '../core/caller.ts'

export interface OperationsServices {
  pause?: BotPause | undefined
  schedules?: BotSchedules | undefined
  diagnostics?: BotDiagnostics | undefined
  limits?: BotLimits | undefined
}

export interface OperationsRequest {
  method: string
  head: 'pause' | 'schedules' | 'diagnostics' | 'limits'
  rest: string[]
  req: IncomingMessage
  query: URLSearchParams
}

/** A JSON answer, or a text file (the diagnostics). */
export type OperationsAnswer = { status: number; json: unknown } | { status: number; text: string; type: string; fileName?: string }

const PauseBody = z.strictObject({
  paused: z.boolean({ error: 'must be true or false' }),
  reason: z.string().trim().max(500, 'at most 500 characters').optional(),
})

const unavailable = (what: string) => new HttpError(503, `${what} is not available (see /bot-team/api/status)`)

export async function operationsApi(
  { method, head, rest, req, query }: OperationsRequest,
  services: OperationsServices,
  pairing: Pairing,
): Promise<OperationsAnswer> {
  if (head === 'pause') {
    const pause = services.pause
    if (!pause) throw unavailable('the pause switch')
    if (rest.length) throw new HttpError(404, `no such route: /pause/${rest.join('/')}`)
    if (method === 'GET') return { status: 200, json: { paused: pause.paused() ?? null } }
    if (method !== 'PUT') throw new HttpError(405, `${method} not allowed on /pause`)
    await pairing.requirePaired(req)
    const body = parseBody(PauseBody, await readJsonBody(req, SMALL_BODY_BYTES))
    if (body.paused) await pause.pause('user', body.reason)
    else await pause.resume()
    return { status: 200, json: { paused: pause.paused() ?? null } }
  }
  if (head === 'limits') {
    const limits = services.limits
    if (!limits) throw unavailable('team settings')
    if (rest.length) throw new HttpError(404, `no such route: /limits/${rest.join('/')}`)
    if (method === 'GET') return { status: 200, json: limits.view() }
    if (method !== 'PUT') throw new HttpError(405, `${method} not allowed on /limits`)
    const patch = parseBody(LimitPatch, await readJsonBody(req, SMALL_BODY_BYTES))
    // Whether the patch raises a limit is decided inside the save, against the limits as they are then.
    return { status: 200, json: await limits.set(patch, { mayRaise: (await pairing.check(req)).paired }) }
  }
  if (head === 'schedules') {
    const schedules = services.schedules
    if (!schedules) throw unavailable('scheduled tasks')
    if (rest.length === 0) {
      if (method === 'GET') return { status: 200, json: { schedules: schedules.list() } }
      if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /schedules`)
      await pairing.requirePaired(req)
      return { status: 201, json: { schedule: await schedules.create(USER, await readJsonBody(req, SMALL_BODY_BYTES)) } }
    }
    if (rest.length !== 1) throw new HttpError(404, `no such route: /schedules/${rest.join('/')}`)
    if (method !== 'DELETE') throw new HttpError(405, `${method} not allowed on /schedules/${rest[0]}`)
    return { status: 200, json: { deleted: await schedules.delete(USER, rest[0]!) } }
  }
  const diagnostics = services.diagnostics
  if (!diagnostics) throw unavailable('the diagnostics log')
  if (rest.length) throw new HttpError(404, `no such route: /diagnostics/${rest.join('/')}`)
  if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /diagnostics`)
  await pairing.requirePaired(req)
  const text = await diagnostics.read()
  return {
    status: 200,
    text,
    type: 'application/x-ndjson; charset=utf-8',
    ...(query.get('download') === '1' ? { fileName: 'bot-team-diagnostics.jsonl' } : {}),
  }
}
