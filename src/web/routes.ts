/**
 * The plugin's HTTP surface on DSH Web's server, under the prefix `/bot-team`:
 *   GET /bot-team             the team page
 *   GET /bot-team/api/status  roster + health as JSON
 *
 * Every request passes the trust fence (`fence.ts`) before any handler runs, because DSH does
 * not guard custom routes. Registration is a Cordis effect: unloading the plugin removes the
 * routes. Deliberately narrow: handlers read through services; they never touch files.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-host-webserver'
import { checkRequestTrust } from './fence.ts'
import { TEAM_PAGE_HTML } from './page.ts'

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

export function handleRequest(req: IncomingMessage, res: ServerResponse, options: WebRoutesOptions): void {
  const verdict = checkRequestTrust(req, options.trustedHosts)
  if (!verdict.ok) return sendJson(res, verdict.status, { error: verdict.reason })
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '')
  const method = req.method ?? 'GET'
  if (path === ROUTE_PREFIX) {
    if (method !== 'GET' && method !== 'HEAD') return sendJson(res, 405, { error: `${method} not allowed` })
    return send(res, 200, 'text/html; charset=utf-8', TEAM_PAGE_HTML)
  }
  if (path === `${ROUTE_PREFIX}/api/status`) {
    if (method !== 'GET') return sendJson(res, 405, { error: `${method} not allowed` })
    return sendJson(res, 200, options.status())
  }
  sendJson(res, 404, { error: `no such route: ${path}` })
}

/** DSH's `webServer.register` returns a bare disposer (not an effect), so wrap it in one. */
export function registerWebRoutes(ctx: Context, options: WebRoutesOptions): void {
  ctx.effect(() => ctx.webServer.register({
    kind: 'prefix',
    path: ROUTE_PREFIX,
    handler: (req, res) => handleRequest(req, res, options),
  }), 'bot-team:web-routes')
}
