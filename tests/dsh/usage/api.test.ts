// The usage screen's HTTP API on a real DSH web server, in-process: views, today's spending against
// caps, settings (prices, caps) validated with zod; bad input gets a clear 4xx and changes nothing.
import { describe, expect, it } from 'vitest'
import { prompt } from '../../support/dsh-host.ts'
import { webTeamHostPerTest, type WebTeamHost } from '../../support/web-host.ts'

const current = webTeamHostPerTest()
const send: WebTeamHost['send'] = (method, path, body, headers) => current().send(method, path, body, headers)

async function mainTurn(): Promise<string> {
  const { host } = current()
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'hello')
  await host.ctx.botMemory.settled()
  return main.id
}

describe('the usage API (acting as the person)', () => {
  it('views a Bot turn by Bot and purpose, prices it once prices are set, and shows today against a cap set by Bot name', async () => {
    const mainId = await mainTurn()
    const byBot = await send('GET', '/usage?by=bot')
    expect(byBot.status).toBe(200)
    expect(byBot.body.rows).toEqual([expect.objectContaining({ key: mainId, requests: 2 })]) // the turn and its memory review
    expect((await send('GET', '/usage?by=purpose&bot=Main')).body.rows.map((r: any) => r.key)).toEqual(['memory-review', 'turn'])
    const put = await send('PUT', '/usage/settings', {
      currency: 'USD',
      prices: { 'mock/mock': { input: 1, cached: 0, output: 1 } },
      caps: { bots: { Main: { tokens: 1_000_000 } } },
    })
    expect(put).toMatchObject({ status: 200, body: { settings: { currency: 'USD', caps: { bots: { [mainId]: { tokens: 1_000_000 } } } } } })
    const priced = (await send('GET', '/usage?by=day')).body
    expect(priced.currency).toBe('USD')
    expect(priced.rows[0].money).toBeGreaterThan(0)
    const today = await send('GET', '/usage/today')
    expect(today.body.bots.find((b: any) => b.id === mainId)).toMatchObject({ name: 'Main', cap: { tokens: 1_000_000 }, reached: false })
    expect(today.body.status).toMatchObject({ driver: expect.stringMatching(/sqlite/) })
  })

  it('answers bad input with a clear 4xx and changes nothing', async () => {
    const cases: [string, string, unknown, number, RegExp, Record<string, string>?][] = [
      ['PUT', '/usage/settings', { caps: { team: { tokens: 5 } } }, 403, /Origin/, { 'content-type': 'application/json', origin: 'http://evil.example' }],
      ['GET', '/usage?by=week', undefined, 400, /by/],
      ['GET', '/usage?from=yesterday', undefined, 400, /YYYY-MM-DD/],
      ['GET', '/usage?bot=Nobody', undefined, 404, /No Bot/],
      ['GET', '/usage?group=Nowhere', undefined, 404, /No group/],
      ['GET', '/usage?colour=red', undefined, 400, /colour/],
      ['PUT', '/usage/settings', { caps: { team: { tokens: 0 } } }, 400, /tokens/],
      ['PUT', '/usage/settings', { prices: { 'mock/mock': { input: -1, cached: 0, output: 0 } } }, 400, /input/],
      ['PUT', '/usage/settings', { notified: [] }, 400, /notified: is not a field here/],
      ['PUT', '/usage/settings', { caps: { bots: { Nobody: { tokens: 5 } } } }, 404, /No Bot/],
      ['POST', '/usage/settings', {}, 405, /not allowed/],
      ['GET', '/usage/nothing', undefined, 404, /no such route/],
    ]
    for (const [method, path, body, status, error, headers] of cases) {
      const res = await send(method, path, body, headers)
      expect({ method, path, status: res.status }).toEqual({ method, path, status })
      expect(res.body.error).toMatch(error)
    }
    expect((await send('GET', '/usage/today')).body.settings).toEqual({})
  })

  it('rebuilds only for a paired browser (a shell gets 403), and a second rebuild while one runs joins it', async () => {
    await mainTurn()
    const refused = await send('POST', '/usage/rebuild', {})
    expect(refused).toMatchObject({ status: 403, body: { error: expect.stringMatching(/paired team page/) } })
    const headers = await current().pairedHeaders()
    const [a, b] = await Promise.all([send('POST', '/usage/rebuild', {}, headers), send('POST', '/usage/rebuild', {}, headers)])
    expect([a.status, b.status]).toEqual([200, 200])
    expect(a.body.rows).toBe(b.body.rows)
    const usage = current().host.ctx.botUsage
    const first = usage.rebuild()
    expect(usage.rebuild()).toBe(first)
    await first
    expect(usage.rebuild()).not.toBe(first)
  })
})
