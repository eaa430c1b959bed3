// The memory panel's HTTP API on a real DSH web server, in-process: behind the trust fence, writes
// from a paired browser only, bodies validated with zod, the same caps and secret-like refusal as
// the tools; bad input changes nothing.
import { describe, expect, it } from 'vitest'
import { webTeamHostPerTest, type WebTeamHost } from '../../support/web-host.ts'

const current = webTeamHostPerTest()
const send: WebTeamHost['send'] = (method, path, body, headers) => current().send(method, path, body, headers)

describe('the memory API (acting as the user)', () => {
  it('adds, edits, lists with sizes and limits, and forgets entries of a Bot and of the team (from a paired browser)', async () => {
    const paired = await current().pairedHeaders()
    expect(await send('POST', '/memory/Main', { text: 'The user prefers tabs' }, paired)).toMatchObject({
      status: 201,
      body: { message: expect.stringMatching(/^Saved in Main's memory/) },
    })
    expect(await send('POST', '/memory/Main', { text: 'Deploys on Thursdays', team: true }, paired)).toMatchObject({ status: 201 })
    expect(await send('POST', '/memory/Main', { text: 'The user prefers spaces', replace: 'tabs' }, paired)).toMatchObject({
      status: 201,
      body: { message: expect.stringMatching(/^Replaced/) },
    })
    const listed = await send('GET', '/memory/Main')
    expect(listed.status).toBe(200)
    expect(listed.body.entries).toEqual([
      expect.objectContaining({ scope: 'own', text: 'The user prefers spaces', source: 'team page', by: 'user' }),
      expect.objectContaining({ scope: 'team', text: 'Deploys on Thursdays' }),
    ])
    expect(listed.body.sizes.own.memory).toBeGreaterThan(0)
    expect(listed.body.limits).toMatchObject({ entry: 300, memoryFile: 4000, scopeTotal: 64000 })
    expect(await send('DELETE', '/memory/Main', { entry: 'Deploys on Thursdays', team: true }, paired)).toMatchObject({ status: 200 })
    expect((await send('GET', '/memory/Main')).body.entries).toHaveLength(1)
  })

  it('answers bad input with a clear 4xx and changes nothing, from a paired browser too', async () => {
    const paired = await current().pairedHeaders()
    const cases: [string, string, unknown, number, RegExp, Record<string, string>?][] = [
      ['POST', '/memory/Main', { text: 'x' }, 403, /Origin/, { 'content-type': 'application/json', origin: 'http://evil.example' }],
      ['POST', '/memory/Nobody', { text: 'x' }, 404, /No Bot/],
      ['POST', '/memory/Main', { text: 'x', colour: 'red' }, 400, /colour: is not a field here/],
      ['POST', '/memory/Main', { text: '' }, 400, /text/],
      ['POST', '/memory/Main', { text: 'the password is hunter2' }, 400, /looks like a password/],
      ['POST', '/memory/Main', { text: 'x'.repeat(301) }, 429, /at most 300/],
      ['POST', '/memory/Main', { text: 'a fact', topic: '../x' }, 400, /not a usable topic name/],
      ['DELETE', '/memory/Main', { entry: 'nothing like this' }, 404, /no entry/],
      ['PUT', '/memory/Main', { text: 'x' }, 405, /not allowed/],
    ]
    for (const [method, path, body, status, error, headers] of cases) {
      const res = await send(method, path, body, headers ?? paired)
      expect({ method, path, status: res.status }).toEqual({ method, path, status })
      expect(res.body.error).toMatch(error)
    }
    expect((await send('GET', '/memory/Main')).body.entries).toEqual([])
  })
})
