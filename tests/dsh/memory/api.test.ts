// The memory panel's HTTP API on a real DSH web server, in-process: behind the trust fence, bodies
// validated with zod, the same caps and secret-like refusal as the tools; bad input changes nothing.
import { join } from 'node:path'
import WebServer from '@deepseek-ai/dsh-host-webserver'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as plugin from '../../../src/index.ts'
import { startDshHost, type DshHost } from '../../support/dsh-host.ts'

let host: DshHost
let base: string
beforeEach(async () => {
  host = await startDshHost({ fallback: { text: 'ok' } })
  await host.ctx.plugin(WebServer, { host: '127.0.0.1', port: 0 })
  await host.ctx.plugin(plugin, { dir: join(host.home, 'bot'), writer: 'always', defaultModel: 'mock/mock' } as plugin.Config)
  base = `http://127.0.0.1:${host.ctx.webServer.port}/bot-team/api`
})
afterEach(() => host.dispose())

const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) })
  return { status: res.status, body: await res.json() as any }
}

describe('the memory API (acting as the user)', () => {
  it('adds, edits, lists with sizes and limits, and forgets entries of a Bot and of the team', async () => {
    expect(await send('POST', '/memory/Main', { text: 'The user prefers tabs' })).toMatchObject({ status: 201, body: { message: expect.stringMatching(/^Saved in Main's memory/) } })
    expect(await send('POST', '/memory/Main', { text: 'Deploys on Thursdays', team: true })).toMatchObject({ status: 201 })
    expect(await send('POST', '/memory/Main', { text: 'The user prefers spaces', replace: 'tabs' })).toMatchObject({ status: 201, body: { message: expect.stringMatching(/^Replaced/) } })
    const listed = await send('GET', '/memory/Main')
    expect(listed.status).toBe(200)
    expect(listed.body.entries).toEqual([
      expect.objectContaining({ scope: 'own', text: 'The user prefers spaces', source: 'team page', by: 'user' }),
      expect.objectContaining({ scope: 'team', text: 'Deploys on Thursdays' }),
    ])
    expect(listed.body.sizes.own.memory).toBeGreaterThan(0)
    expect(listed.body.limits).toMatchObject({ entry: 300, memoryFile: 4000, scopeTotal: 64000 })
    expect(await send('DELETE', '/memory/Main', { entry: 'Deploys on Thursdays', team: true })).toMatchObject({ status: 200 })
    expect((await send('GET', '/memory/Main')).body.entries).toHaveLength(1)
  })

  it('answers bad input with a clear 4xx and changes nothing', async () => {
    const cases: [string, string, unknown, number, RegExp, Record<string, string>?][] = [
      ['POST', '/memory/Main', { text: 'x' }, 403, /Origin/, { 'content-type': 'application/json', origin: 'http://evil.example' }],
      ['POST', '/memory/Nobody', { text: 'x' }, 404, /No Bot/],
      ['POST', '/memory/Main', { text: 'x', colour: 'red' }, 400, /colour: is not a field here/],
      ['POST', '/memory/Main', { text: '' }, 400, /text/],
      ['POST', '/memory/Main', { text: 'the password is hunter2' }, 400, /gives a password/],
      ['POST', '/memory/Main', { text: 'x'.repeat(301) }, 429, /at most 300/],
      ['POST', '/memory/Main', { text: 'a fact', topic: '../x' }, 400, /not a usable topic name/],
      ['DELETE', '/memory/Main', { entry: 'nothing like this' }, 404, /no entry/],
      ['PUT', '/memory/Main', { text: 'x' }, 405, /not allowed/],
    ]
    for (const [method, path, body, status, error, headers] of cases) {
      const res = await send(method, path, body, headers)
      expect({ method, path, status: res.status }).toEqual({ method, path, status })
      expect(res.body.error).toMatch(error)
    }
    expect((await send('GET', '/memory/Main')).body.entries).toEqual([])
  })
})
