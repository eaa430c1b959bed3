// The router's table is the truth about the plugin's HTTP surface, on DSH's real web server: every
// row of ROUTES reaches a handler that serves that method (never the "no such route" / "not
// allowed" answers a path or method without a handler gets), and a path or method outside the
// table is refused before any handler runs.
import { describe, expect, it } from 'vitest'
import { ROUTES } from '../../../src/web/routes.ts'
import { webTeamHostPerTest } from '../../support/web-host.ts'

const web = webTeamHostPerTest()

/** One request to a route with each `<segment>` filled in; its status and error, if any. */
async function ask(method: string, path: string): Promise<{ status: number; error: string }> {
  const controller = new AbortController()
  const res = await fetch(`${web().origin}${path.replace(/<[^>]+>/g, 'x')}`, {
    method,
    signal: controller.signal,
    headers: { 'content-type': 'application/json' },
    ...(method === 'GET' ? {} : { body: '{}' }),
  })
  const streams = res.headers.get('content-type')?.startsWith('text/event-stream')
  const text = streams ? '' : await res.text()
  controller.abort()
  let error = ''
  try {
    error = String(JSON.parse(text).error ?? '')
  } catch {
    // not JSON: the page or its script
  }
  return { status: res.status, error }
}

describe("the router's table of routes", () => {
  it('sends every row to a handler that serves its method', async () => {
    const unserved: string[] = []
    for (const [method, path] of ROUTES) {
      const { status, error } = await ask(method, path)
      if (status === 405 || /no such route|not allowed/.test(error)) unserved.push(`${method} ${path}: ${status} ${error}`)
    }
    expect(unserved).toEqual([])
  })

  it('refuses a path or a method outside the table before any handler runs', async () => {
    expect(await ask('GET', '/bot-team/api/nothing-here')).toMatchObject({ status: 404, error: 'no such route: /bot-team/api/nothing-here' })
    expect(await ask('GET', '/bot-team/page.css')).toMatchObject({ status: 404 })
    expect(await ask('PUT', '/bot-team/api/status')).toMatchObject({ status: 405, error: 'PUT not allowed on /bot-team/api/status' })
    expect(await ask('DELETE', '/bot-team/api/bots/x/new-part')).toMatchObject({ status: 405 })
  })
})
