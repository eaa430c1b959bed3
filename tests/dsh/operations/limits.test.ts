// Team settings over HTTP on DSH's real web server, in-process: GET /limits shows the limits in
// force, the config values and the person's overrides; PUT sets or clears overrides; raising a
// limit needs a paired browser, lowering only the fence; bad input is a 400 naming the field that
// changes nothing; and a lowered hop limit applies to the next message_bot without a restart.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { lastToolResults, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { PAIRING_HEADER } from '../../../src/web/pairing.ts'
import { captureTerminal, pairBrowser, startWebTeamHost, type WebTeamHost } from '../../support/web-host.ts'
import { quiesce, toolResults, user, userPrompt } from '../delivery/helpers.ts'

let web: WebTeamHost | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await web?.host.dispose()
  web = undefined
})

const JSON_TYPE = { 'content-type': 'application/json' }
const browser = { ...JSON_TYPE, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' }

describe('the limits API', () => {
  it('GET shows the config values as the limits in force while nothing is overridden', async () => {
    web = await startWebTeamHost()
    const r = await web.send('GET', '/limits')
    expect(r.status).toBe(200)
    expect(r.body.overrides).toEqual({})
    expect(r.body.config).toMatchObject({ hopLimit: 6, sendsPerTurn: 5, workBudget: 40, maxBots: 50, turnTimeoutMs: 120_000 })
    expect(r.body.limits).toEqual(r.body.config)
  })

  it('lowering needs only the fence; raising needs a paired browser, and an unpaired raise changes nothing', async () => {
    const terminal = captureTerminal()
    web = await startWebTeamHost()
    const lowered = await web.send('PUT', '/limits', { hopLimit: 2, turnTimeoutMs: 5_000 })
    expect(lowered).toMatchObject({
      status: 200,
      body: { overrides: { hopLimit: 2, turnTimeoutMs: 5_000 }, limits: { hopLimit: 2, turnTimeoutMs: 5_000 }, config: { hopLimit: 6 } },
    })
    expect(web.host.ctx.botStore.state.limits).toEqual({ hopLimit: 2, turnTimeoutMs: 5_000 })

    const revision = web.host.ctx.botStore.state.revision
    // up from 2 to 4 (still below the config's 6) and clearing (back to 6) both raise
    for (const body of [{ hopLimit: 4 }, { hopLimit: null }, { workBudget: 41 }]) {
      const r = await web.send('PUT', '/limits', body)
      expect({ body, status: r.status }).toEqual({ body, status: 403 })
      expect(r.body.error).toMatch(/paired team page/)
    }
    expect(web.host.ctx.botStore.state.revision).toBe(revision)

    const paired = { ...JSON_TYPE, [PAIRING_HEADER]: await pairBrowser(web, terminal, browser) }
    expect(await web.send('PUT', '/limits', { hopLimit: null, workBudget: 80 }, paired)).toMatchObject({
      status: 200,
      body: { overrides: { turnTimeoutMs: 5_000, workBudget: 80 }, limits: { hopLimit: 6, workBudget: 80 } },
    })
    // clearing the last overrides removes the field from team state
    expect(await web.send('PUT', '/limits', { turnTimeoutMs: null, workBudget: null }, paired)).toMatchObject({ status: 200, body: { overrides: {} } })
    expect(web.host.ctx.botStore.state.limits).toBeUndefined()
  })

  it('bad input is a 400 naming each bad field, and changes nothing', async () => {
    web = await startWebTeamHost()
    const revision = web.host.ctx.botStore.state.revision
    const bad: [unknown, RegExp][] = [
      [{ hopLimit: 0 }, /^hopLimit: /],
      [{ hopLimit: 51 }, /^hopLimit: /],
      [{ sendsPerTurn: 2.5 }, /^sendsPerTurn: /],
      [{ workBudget: 'ten' }, /^workBudget: /],
      [{ turnTimeoutMs: 1 }, /^turnTimeoutMs: /],
      [{ hops: 3 }, /hops: is not a field here/],
      [{ hopLimit: 0, maxBots: 0 }, /^hopLimit: .*; maxBots: /],
      ['[]', /./],
    ]
    for (const [body, message] of bad) {
      const r = await web.send('PUT', '/limits', body)
      expect({ body, status: r.status }).toEqual({ body, status: 400 })
      expect(r.body.error).toMatch(message)
    }
    expect(web.host.ctx.botStore.state.revision).toBe(revision)
    expect(web.host.ctx.botStore.state.limits).toBeUndefined()
  })
})

describe('a limit changed over HTTP applies at the next check, without a restart', () => {
  it('lowering the hop limit makes the next over-limit message_bot refuse', async () => {
    const delegate =
      (to: string) =>
      (req: RecordedRequest): Reply =>
        lastToolResults(req).length
          ? { text: `gave up: ${lastToolResults(req)[0]!.text.slice(0, 40)}` }
          : { toolCalls: [{ name: 'message_bot', args: { to, message: 'please handle this for me', reply_to: 'user' } }] }
    web = await startWebTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: delegate('Bob') }, bob: { fallback: delegate('Ada') } })
    const host = web.host
    await host.ctx.botDelivery.ready
    const roster = host.ctx.botRoster
    const ada = await roster.create(user, { name: 'Ada', model: 'mock/ada' })
    const bob = await roster.create(user, { name: 'Bob', model: 'mock/bob' })
    const refusals = async () =>
      [...toolResults(await roster.agentOf(ada.id)), ...toolResults(await roster.agentOf(bob.id))].filter((r) => r.includes('hop limit'))

    expect((await web.send('PUT', '/limits', { hopLimit: 3 })).status).toBe(200)
    userPrompt(await roster.agentOf(ada.id), 'start the ping-pong')
    await quiesce(host)
    expect(host.ctx.botDelivery.log().map((d) => d.hop)).toEqual([1, 2, 3])
    expect(await refusals()).toEqual([expect.stringMatching(/^Refused: Not sent: the hop limit \(3\) is reached/)])

    expect((await web.send('PUT', '/limits', { hopLimit: 1 })).status).toBe(200)
    userPrompt(await roster.agentOf(ada.id), 'once more')
    await quiesce(host)
    // the new chain stops after one message; the config value (6) is unchanged
    expect(host.ctx.botDelivery.log().map((d) => d.hop)).toEqual([1, 2, 3, 1])
    expect((await refusals()).at(-1)).toMatch(/^Refused: Not sent: the hop limit \(1\) is reached/)
    expect(host.ctx.botLimits.view().config.hopLimit).toBe(6)
  })
})
