/**
 * The plugin's HTTP surface on DSH Web's server, under `/bot-team`: `ROUTES` lists every route it
 * serves — the router answers nothing else (404 for another path, 405 for another method) — and
 * the handlers behind them. Every request passes the trust fence (`fence.ts`) first; routes that
 * raise a Bot's authority also ask for a paired browser (`pairing.ts`). Refusals are 4xx with
 * `{ error }`; anything else is a bug (500). Registration is a Cordis effect.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-host-webserver'
import { reportRefusal, TeamRefusal, type RefusalCode } from '../core/refusal.ts'
import type { BotRoster } from '../roster/service.ts'
import { memoryApi } from './memory-routes.ts'
import type { BotMemory } from '../memory/service.ts'
import type { BotSecrets } from '../secrets/service.ts'
import { isStoreError } from '../store/index.ts'
import { backupApi, type BackupRouteOptions } from './backup-routes.ts'
import type { BotUsage } from '../usage/service.ts'
import { botsApi, type PartStarter } from './bots-routes.ts'
import { groupsApi } from './groups-routes.ts'
import { heldApi } from './held-routes.ts'
import type { BotRooms } from '../rooms/service.ts'
import { operationsApi, type OperationsServices } from './operations-routes.ts'
import { checkRequestTrust } from './fence.ts'
import { decodeSegment, HttpError, send, sendJson } from './http.ts'
import { PAGE_CSP, PAGE_SCRIPT_PATH, TEAM_PAGE_HTML, teamPageScript } from './page.ts'
import { Pairing, type QuietPort } from './pairing.ts'
import { pairingApi } from './pairing-routes.ts'
import { usageApi } from './usage-routes.ts'
import { secretsApi } from './secrets-routes.ts'
import { inboxApi } from './inbox-routes.ts'
import { projectApi, tasksApi } from './tasks-routes.ts'
import type { BotTasks } from '../tasks/service.ts'
import { teamApi, type TeamFeed } from './team-api-routes.ts'
import { errorText } from '../core/errors.ts'

export { MAX_BODY_BYTES } from './bots-routes.ts'

export const ROUTE_PREFIX = '/bot-team'

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
  /** The rooms service, for the groups API; absent: `/groups` answers 503. */
  rooms?: () => BotRooms | undefined
  /** Starts a Bot's next own-chat part on the person's request (`POST /bots/<id>/new-part`). */
  parts?: () => PartStarter | undefined
  memory?: () => BotMemory | undefined
  /** Where the team lives, for the backup download; absent: no backup route. */
  backup?: BackupRouteOptions
  usage?: () => BotUsage | undefined
  /** A live group's id from its id or name (the usage API's group filter). */
  groupId?: (ref: string) => string | undefined
  /** The pause switch, scheduled tasks and the diagnostics log. */
  operations?: () => OperationsServices
  secrets?: () => BotSecrets | undefined
  /** The task ledger; absent: `/tasks` answers 503. */
  tasks?: () => BotTasks | undefined
  /** The client half's live team view (`team-api-routes.ts`). */
  feed?: TeamFeed
  /** Absolute path of `bot/pairing.json`. */
  pairingFile: string
  /** Shows the first pairing code to the person at DSH's terminal (stderr by default). */
  announce?: (line: string) => void
  /** What the one-time pairing window asks of DSH (`quiet.ts`); absent: no pairing window. */
  quiet?: QuietPort
}

const REFUSAL_STATUS: Record<RefusalCode, number> = { forbidden: 403, invalid: 400, 'not-found': 404, unavailable: 409, limit: 429 }

/**
 * Every route the plugin serves, as `[method, path]`; `<name>` stands for one path segment. The
 * router refuses anything else before a handler runs, and the docs name every row (the doc test
 * reads this table).
 */
export const ROUTES = [
  ['GET', '/bot-team'],
  ['GET', '/bot-team/page.js'],
  ['GET', '/bot-team/api/status'],
  ['GET', '/bot-team/api/team'],
  ['GET', '/bot-team/api/events'],
  ['POST', '/bot-team/api/events/ticket'],
  ['GET', '/bot-team/api/deliveries'],
  ['GET', '/bot-team/api/rooms/<group>/posts'],
  ['GET', '/bot-team/api/pairing'],
  ['POST', '/bot-team/api/pairing'],
  ['POST', '/bot-team/api/pairing/codes'],
  ['POST', '/bot-team/api/pairing/window'],
  ['DELETE', '/bot-team/api/pairing/devices/<device>'],
  ['GET', '/bot-team/api/bots'],
  ['POST', '/bot-team/api/bots'],
  ['PATCH', '/bot-team/api/bots/<bot>'],
  ['DELETE', '/bot-team/api/bots/<bot>'],
  ['PUT', '/bot-team/api/bots/<bot>/delegated-work'],
  ['PUT', '/bot-team/api/bots/<bot>/network'],
  ['POST', '/bot-team/api/bots/<bot>/new-part'],
  ['GET', '/bot-team/api/groups'],
  ['POST', '/bot-team/api/groups'],
  ['GET', '/bot-team/api/groups/<group>'],
  ['PATCH', '/bot-team/api/groups/<group>'],
  ['DELETE', '/bot-team/api/groups/<group>'],
  ['GET', '/bot-team/api/held'],
  ['POST', '/bot-team/api/held/<held>/confirm'],
  ['POST', '/bot-team/api/held/<held>/dismiss'],
  ['GET', '/bot-team/api/memory/<bot>'],
  ['POST', '/bot-team/api/memory/<bot>'],
  ['DELETE', '/bot-team/api/memory/<bot>'],
  ['POST', '/bot-team/api/backup'],
  ['GET', '/bot-team/api/usage'],
  ['GET', '/bot-team/api/usage/today'],
  ['PUT', '/bot-team/api/usage/settings'],
  ['POST', '/bot-team/api/usage/rebuild'],
  ['GET', '/bot-team/api/pause'],
  ['PUT', '/bot-team/api/pause'],
  ['GET', '/bot-team/api/limits'],
  ['PUT', '/bot-team/api/limits'],
  ['GET', '/bot-team/api/schedules'],
  ['POST', '/bot-team/api/schedules'],
  ['DELETE', '/bot-team/api/schedules/<schedule>'],
  ['GET', '/bot-team/api/diagnostics'],
  ['GET', '/bot-team/api/secrets'],
  ['POST', '/bot-team/api/secrets/requests/<request>'],
  ['DELETE', '/bot-team/api/secrets/requests/<request>'],
  ['PUT', '/bot-team/api/secrets/<name>'],
  ['DELETE', '/bot-team/api/secrets/<name>'],
  ['GET', '/bot-team/api/tasks'],
  ['GET', '/bot-team/api/tasks/board'],
  ['POST', '/bot-team/api/tasks'],
  ['GET', '/bot-team/api/tasks/<task>'],
  ['POST', '/bot-team/api/tasks/<task>/cancel'],
  ['POST', '/bot-team/api/tasks/<task>/reassign'],
  ['POST', '/bot-team/api/tasks/<task>/review'],
  ['GET', '/bot-team/api/inbox'],
  ['POST', '/bot-team/api/inbox/<task>/answer'],
  ['POST', '/bot-team/api/inbox/<task>/allow'],
  ['POST', '/bot-team/api/inbox/<task>/deny'],
  ['GET', '/bot-team/api/project'],
  ['PUT', '/bot-team/api/project'],
  ['GET', '/bot-team/api/project/log'],
  ['POST', '/bot-team/api/project/release'],
] as const

const segments = (path: string) => path.split('/').slice(1)
const ROUTE_SEGMENTS = ROUTES.map(([method, path]) => ({ method, parts: segments(path) }))

/** Does a route of the table have this path (its decoded segments), and this method? Pure. */
export function routeOf(method: string, parts: readonly string[]): 'route' | 'method' | 'none' {
  const same = ROUTE_SEGMENTS.filter((r) => r.parts.length === parts.length && r.parts.every((p, i) => p.startsWith('<') || p === parts[i]))
  if (same.length === 0) return 'none'
  const asked = method === 'HEAD' ? 'GET' : method
  return same.some((r) => r.method === asked) ? 'route' : 'method'
}

/**
 * Answer a refused request, and tell the refusal listeners (the diagnostics log) of every one: the
 * fence's, a handler's `HttpError`, a service's refusal, a store refusal — with the method, path
 * (no query) and status. A bug (500) is answered, not reported as a refusal.
 */
function answerError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const status = error instanceof HttpError ? error.status : error instanceof TeamRefusal ? REFUSAL_STATUS[error.code] : isStoreError(error) ? 409 : 500
  const message = errorText(error)
  if (status < 500) reportRefusal(refusalRecord(req, status, message, error instanceof TeamRefusal ? error.code : undefined), 'http')
  if (isStoreError(error)) sendJson(res, status, { error: error.message, code: error.code })
  else sendJson(res, status, { error: status === 500 ? message : (error as Error).message })
}

/** What the diagnostics log keeps of a refused request: `<METHOD> <path> → <status>: <why>` (its code kept). */
function refusalRecord(req: IncomingMessage, status: number, message: string, code: RefusalCode | undefined): Error {
  let path = '?'
  try {
    path = new URL(req.url ?? '/', 'http://x').pathname.slice(0, 200)
  } catch {
    // a malformed URL is named by its method and status only
  }
  const text = `${(req.method ?? 'GET').toUpperCase()} ${path} → ${status}: ${message}`
  return code ? new TeamRefusal(code, text) : new HttpError(status, text)
}

async function route(req: IncomingMessage, res: ServerResponse, options: WebRoutesOptions, pairing: Pairing): Promise<void> {
  let path: string
  let url: URL
  try {
    url = new URL(req.url ?? '/', 'http://x')
    path = url.pathname.replace(/\/+$/, '')
  } catch {
    throw new HttpError(400, 'malformed request path')
  }
  const method = (req.method ?? 'GET').toUpperCase()
  // Segments are decoded one by one first: a malformed `%` escape is a 400, not an unknown route.
  const known = routeOf(method, segments(path).map(decodeSegment))
  if (known === 'none') throw new HttpError(404, `no such route: ${path.slice(0, 200)}`)
  if (known === 'method') throw new HttpError(405, `${method} not allowed on ${path.slice(0, 200)}`)
  if (path === ROUTE_PREFIX) return send(res, 200, 'text/html; charset=utf-8', TEAM_PAGE_HTML, PAGE_CSP)
  if (path === PAGE_SCRIPT_PATH) {
    const script = await teamPageScript()
    if (script === undefined) throw new HttpError(503, "the team page's script is not built here (npm run build)")
    return send(res, 200, 'text/javascript; charset=utf-8', script)
  }
  const api = `${ROUTE_PREFIX}/api/`
  const [head, ...rest] = path.slice(api.length).split('/').map(decodeSegment)
  if (head === 'status' && rest.length === 0) {
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed`)
    return sendJson(res, 200, options.status())
  }
  if (head === 'events' && rest.length === 1 && rest[0] === 'ticket') {
    if (method !== 'POST') throw new HttpError(405, `${method} not allowed on /events/ticket`)
    if (!options.feed) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
    const device = await pairing.requirePaired(req)
    return sendJson(res, 201, options.feed.ticket(device.id))
  }
  if (head === 'team' || head === 'events' || head === 'deliveries' || head === 'rooms')
    return teamApi(method, head, rest, req, res, options.feed, () => options.roster()?.state)
  if (head === 'pairing') {
    const [status, body] = await pairingApi({ method, rest, req }, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'bots' && rest.length <= 2) {
    const roster = options.roster()
    if (!roster) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
    const [status, body] = await botsApi(
      { method, req, ...(rest[0] !== undefined ? { ref: rest[0] } : {}), ...(rest[1] !== undefined ? { sub: rest[1] } : {}) },
      roster,
      pairing,
      options.parts?.(),
    )
    return sendJson(res, status, body)
  }
  if (head === 'held') {
    const roster = options.roster()
    if (!roster) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
    const [status, body] = await heldApi({ method, rest, req }, roster, pairing, options.tasks?.())
    return sendJson(res, status, body)
  }
  if (head === 'groups' && rest.length <= 1) {
    const roster = options.roster()
    const rooms = options.rooms?.()
    if (!roster || !rooms) throw new HttpError(503, 'groups are not available (see /bot-team/api/status)')
    const [status, body] = await groupsApi({ method, req, ...(rest[0] !== undefined ? { ref: rest[0] } : {}) }, rooms, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'memory' && rest.length === 1) {
    const roster = options.roster()
    const memory = options.memory?.()
    if (!roster || !memory) throw new HttpError(503, 'memory is not available (see /bot-team/api/status)')
    const [status, body] = await memoryApi({ method, ref: rest[0]!, req }, roster, memory, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'backup' && rest.length === 0 && options.backup) return backupApi(req, res, options.backup, pairing)
  if (head === 'usage') {
    const roster = options.roster()
    const usage = options.usage?.()
    if (!roster || !usage) throw new HttpError(503, 'the usage ledger is not available (see /bot-team/api/status)')
    const [status, body] = await usageApi({ method, rest, req, url }, usage, roster, { groupId: options.groupId ?? (() => undefined) }, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'pause' || head === 'schedules' || head === 'diagnostics' || head === 'limits') {
    const query = new URL(req.url ?? '/', 'http://x').searchParams
    const answer = await operationsApi({ method, head, rest, req, query }, options.operations?.() ?? {}, pairing)
    if ('json' in answer) return sendJson(res, answer.status, answer.json)
    if (answer.fileName) res.setHeader('content-disposition', `attachment; filename="${answer.fileName}"`)
    return send(res, answer.status, answer.type, answer.text)
  }
  if (head === 'secrets') {
    const roster = options.roster()
    const secrets = options.secrets?.()
    if (!roster || !secrets) throw new HttpError(503, 'secrets are not available (see /bot-team/api/status)')
    const [status, body] = await secretsApi({ method, rest, req }, secrets, roster, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'tasks') {
    const roster = options.roster()
    const tasks = options.tasks?.()
    if (!roster || !tasks) throw new HttpError(503, 'the task ledger is not available (see /bot-team/api/status)')
    const [status, body] = await tasksApi({ method, rest, req, url }, tasks, roster, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'inbox') {
    const tasks = options.tasks?.()
    if (!tasks) throw new HttpError(503, 'the task ledger is not available (see /bot-team/api/status)')
    const [status, body] = await inboxApi({ method, rest, req }, tasks, pairing)
    return sendJson(res, status, body)
  }
  if (head === 'project' && rest.length <= 1) {
    const tasks = options.tasks?.()
    if (!tasks) throw new HttpError(503, 'the task ledger is not available (see /bot-team/api/status)')
    const [status, body] = await projectApi({ method, req, ...(rest[0] !== undefined ? { sub: rest[0] } : {}) }, tasks, pairing)
    return sendJson(res, status, body)
  }
  throw new HttpError(404, `no such route: ${path.slice(0, 200)}`)
}

/** The request handler for `/bot-team…`: fence first, then the routes. */
export function webHandler(options: WebRoutesOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const pairing = new Pairing({
    file: options.pairingFile,
    ...(options.announce ? { announce: options.announce } : {}),
    ...(options.quiet ? { quiet: options.quiet } : {}),
  })
  return async (req, res) => {
    const verdict = checkRequestTrust(req, options.trustedHosts)
    if (!verdict.ok) return answerError(req, res, new HttpError(verdict.status, verdict.reason))
    try {
      await route(req, res, options, pairing)
    } catch (error) {
      answerError(req, res, error)
    }
  }
}

/** DSH's `webServer.register` returns a bare disposer (not an effect), so wrap it in one. */
export function registerWebRoutes(ctx: Context, options: WebRoutesOptions): void {
  const handler = webHandler(options)
  ctx.effect(() => ctx.webServer.register({ kind: 'prefix', path: ROUTE_PREFIX, handler }), 'bot-team:web-routes')
}
