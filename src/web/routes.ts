/**
 * The plugin's HTTP surface on DSH Web's server, under the prefix `/bot-team`:
 *   GET    /bot-team                the team page
 *   GET    /bot-team/api/status     roster + health as JSON
 *   GET    /bot-team/api/bots       the live Bots
 *   POST   /bot-team/api/bots       create a Bot           body: Bot fields (name required)
 *   PATCH  /bot-team/api/bots/<id>  change a Bot            body: the fields to change
 *   DELETE /bot-team/api/bots/<id>  delete a Bot            body: { "reason": "…" }
 *
 * Every request passes the trust fence (`fence.ts`) before any handler runs, because DSH does
 * not guard custom routes. Writes act as the user (the authority caller `user`) through the
 * roster, which validates every field with zod; bad input gets a 4xx with a readable message and
 * changes nothing. Registration is a Cordis effect: unloading the plugin removes the routes.
 * Deliberately narrow: handlers go through services; they never touch files.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-host-webserver'
import { z } from 'zod'
import { TeamRefusal, type RefusalCode } from '../refusal.ts'
import type { BotRoster } from '../roster/service.ts'
import { isStoreError } from '../store/index.ts'
import { summary } from '../roster/tools.ts'
import { checkRequestTrust } from './fence.ts'
import { TEAM_PAGE_HTML } from './page.ts'

export const ROUTE_PREFIX = '/bot-team'
/** Request bodies above this size are refused (413) before parsing. */
export const MAX_BODY_BYTES = 64 * 1024

export interface TeamStatus {
  plugin: string
  version: string
  bots: unknown[]
  store: unknown
  activity: unknown
  archive: unknown
}

export interface WebRoutesOptions {
  trustedHosts: readonly string[]
  status: () => TeamStatus
  roster: () => BotRoster | undefined
}

class HttpError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
  })
  res.end(body)
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value))
}

/** Read a JSON body (bounded); an empty body is `{}`. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `request body is larger than ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (!text) return {}
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `request body is not valid JSON (${error instanceof Error ? error.message : String(error)})`)
  }
}

const DeleteBody = z.strictObject({ reason: z.string().trim().min(1, 'reason: say why, in a sentence').max(500) })

const REFUSAL_STATUS: Record<RefusalCode, number> = { forbidden: 403, invalid: 400, 'not-found': 404, unavailable: 409, limit: 429 }

const USER = { kind: 'user' } as const

async function botsApi(method: string, id: string | undefined, req: IncomingMessage, roster: BotRoster): Promise<[number, unknown]> {
  if (id === undefined) {
    if (method === 'GET') return [200, { bots: roster.bots().map(summary) }]
    if (method === 'POST') return [201, { bot: summary(await roster.create(USER, await readJsonBody(req))) }]
    throw new HttpError(405, `${method} not allowed on /bots`)
  }
  if (method === 'PATCH') return [200, { bot: summary(await roster.update(USER, id, await readJsonBody(req))) }]
  if (method === 'DELETE') {
    const body = DeleteBody.safeParse(await readJsonBody(req))
    if (!body.success) throw new HttpError(400, body.error.issues.map((i) => i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message).join('; '))
    return [200, { bot: summary(await roster.delete(USER, id, body.data.reason)) }]
  }
  throw new HttpError(405, `${method} not allowed on /bots/${id}`)
}

export async function handleRequest(req: IncomingMessage, res: ServerResponse, options: WebRoutesOptions): Promise<void> {
  const verdict = checkRequestTrust(req, options.trustedHosts)
  if (!verdict.ok) return sendJson(res, verdict.status, { error: verdict.reason })
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '')
  const method = req.method ?? 'GET'
  try {
    if (path === ROUTE_PREFIX) {
      if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `${method} not allowed`)
      return send(res, 200, 'text/html; charset=utf-8', TEAM_PAGE_HTML)
    }
    if (path === `${ROUTE_PREFIX}/api/status`) {
      if (method !== 'GET') throw new HttpError(405, `${method} not allowed`)
      return sendJson(res, 200, options.status())
    }
    const bots = /^\/bot-team\/api\/bots(?:\/([^/]+))?$/.exec(path)
    if (bots) {
      const roster = options.roster()
      if (!roster) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
      const [status, body] = await botsApi(method, bots[1] ? decodeURIComponent(bots[1]) : undefined, req, roster)
      return sendJson(res, status, body)
    }
    throw new HttpError(404, `no such route: ${path}`)
  } catch (error) {
    if (error instanceof HttpError) return sendJson(res, error.status, { error: error.message })
    if (error instanceof TeamRefusal) return sendJson(res, REFUSAL_STATUS[error.code], { error: error.message })
    if (isStoreError(error)) return sendJson(res, 409, { error: error.message, code: error.code })
    return sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) })
  }
}

/** DSH's `webServer.register` returns a bare disposer (not an effect), so wrap it in one. */
export function registerWebRoutes(ctx: Context, options: WebRoutesOptions): void {
  ctx.effect(() => ctx.webServer.register({
    kind: 'prefix',
    path: ROUTE_PREFIX,
    handler: (req, res) => handleRequest(req, res, options),
  }), 'bot-team:web-routes')
}
