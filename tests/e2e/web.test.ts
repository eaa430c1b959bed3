// e2e (Web + browser): the bundle in a `web` profile, `dsh web --no-open --port 0`, the plugin's
// routes behind the trust fence, DSH Web's own /api answering a chat through the scripted model,
// and Debian's Chromium (driven by playwright-core, no browser download) rendering the team page.
// Each test has its own DSH_HOME, DSH Web, model and (where it needs one) browser.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../support/browser.ts'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, offersTool } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import {
  answeredLastPrompt,
  api,
  listBotsScript,
  homeWithBundle,
  sessionEvents,
  startWeb,
  teamStatus,
  untilEvents,
  untilTeamReady,
  type E2eHome,
  type WebProcess,
} from '../support/e2e.ts'
import { teamToolNames, teamToolsIn } from '../support/team-tools.ts'

let model: ScriptedServer
let web: WebProcess
let browser: Browser | undefined
let home: E2eHome

/** Debian's Chromium for this test (closed after it). */
async function launchBrowser(): Promise<Browser> {
  browser = await launchChromium()
  return browser
}

beforeEach(async () => {
  model = await startScriptedServer(listBotsScript())
  home = await homeWithBundle('web', inject('bundleTarball'), [{ name: 'web' }])
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  // The Main Bot is created once DSH's whole plugin tree is up (its chat goes through DSH Web's api proxy).
  await untilTeamReady(web.url)
})
afterEach(async () => {
  await browser?.close()
  browser = undefined
  await web?.stop()
  await model?.close()
})

const waitForTurnEnd = (sessionId: string) => untilEvents(web.url, sessionId, answeredLastPrompt, 'the answer')

describe('DSH Web with the bundle', () => {
  it('serves the status route on loopback and refuses foreign origins and non-JSON writes', async () => {
    const status = await fetch(`${web.url}/bot-team/api/status`)
    expect(status.status).toBe(200)
    // DSH Web is a long-lived host: it takes the team lock, becomes the writer and creates the Main Bot.
    expect(await status.json()).toMatchObject({
      plugin: 'dsh-bot-team',
      bots: [{ name: 'Main', main: true }],
      store: { mode: 'writer' },
      archive: { driver: 'better-sqlite3' },
    })

    const foreign = await fetch(`${web.url}/bot-team/api/status`, { headers: { origin: 'http://evil.example' } })
    expect(foreign.status).toBe(403)
    const crossSite = await fetch(`${web.url}/bot-team`, { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(crossSite.status).toBe(403)
    const form = await fetch(`${web.url}/bot-team/api/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    })
    expect(form.status).toBe(415)
  })

  it("lists the Main Bot's Session in DSH Web and answers it with the Main Bot's persona and team tool", async () => {
    const status = (await (await fetch(`${web.url}/bot-team/api/status`)).json()) as any
    const main = status.bots[0]
    let sessions: any[] = []
    let status2: any
    for (let i = 0; i < 100 && !sessions.some((s) => s.projections?.values?.title === 'Main'); i++) {
      await new Promise((r) => setTimeout(r, 100))
      sessions = (await api(web.url, 'session.list', {})).items
      status2 = await (await fetch(`${web.url}/bot-team/api/status`)).json()
    }
    const row = sessions.find((s) => s.projections?.values?.title === 'Main')
    expect(row, JSON.stringify({ sessions, status2 })).toBeDefined()
    const sessionId: string = row.sessionId ?? row.id
    expect(row.blank).toBe(false) // visible in the sidebar…
    expect(model.model.requests.filter((r) => r.sessionId === sessionId)).toEqual([]) // …without any model call
    await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: 'who is on the team?' }] })
    const events = await waitForTurnEnd(sessionId)
    expect(events.find((e: any) => e.type === 'tool/call')?.data).toMatchObject({ name: 'list_bots' })
    const final = events.filter((e: any) => e.type === 'assistant/message').at(-1)?.data
    expect(final.message.content[0].text).toBe(`Tool said: The team has 1 Bot:\n- Main (id ${main.id}; Lead, Main Bot)`)
    const request = model.model.loopRequests().find((r) => r.toolNames.includes('list_bots'))!
    expect(request.system).toContain("You are Main, the team's Lead")

    // A plain DSH Web chat gets no team tools.
    const plain = await api(web.url, 'session.create', { cwd: home.cwd })
    await api(web.url, 'session.prompt', { sessionId: plain.sessionId, mode: 'queue', content: [{ type: 'text', text: 'hello' }] })
    await waitForTurnEnd(plain.sessionId)
    expect(await teamToolsIn(request.toolNames)).toEqual([...(await teamToolNames())].filter((t) => t !== 'ask_person')) // the Main Bot: every team tool but ask_person…
    expect(await teamToolsIn(model.model.loopRequests().at(-1)!.toolNames)).toEqual([]) // …the plain chat: none
  })

  it('renders the team page in Chromium', async () => {
    const browser = await launchBrowser()
    const page = await browser.newPage({ locale: 'en-US' })
    await page.goto(`${web.url}/bot-team`)
    await page.waitForSelector('#summary[data-state="ready"]', { timeout: 15_000 })
    expect(await page.textContent('h1')).toBe('Bot Team')
    expect(await page.textContent('#summary')).toBe('The team has 1 Bot.')
    expect(await page.textContent('#bots')).toBe('Main — Lead ★')
    expect(await page.textContent('#archive')).toBe('Archive index: better-sqlite3')
    expect(await page.locator('#store-problem').count()).toBe(0) // this process writes the team
    expect(await page.textContent('#activity')).toContain('created the first Main Bot, Main')

    const zh = await browser.newPage({ locale: 'zh-CN' })
    await zh.goto(`${web.url}/bot-team`)
    await zh.waitForSelector('#summary[data-state="ready"]', { timeout: 15_000 })
    expect(await zh.textContent('#summary')).toBe('团队共有 1 个机器人。')
  })

  it('a second DSH Web on the same home only follows the team, refuses to open Bot chats, and takes over when the first exits', async () => {
    const second = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
    try {
      // It serves first and asks for the lock a moment later (once DSH's web app is up in it).
      await expect.poll(async () => (await teamStatus(second.url)).store.reason, { timeout: 10_000 }).toBe('lock-held')
      const status = await teamStatus(second.url)
      expect(status.store.mode).toBe('follower')
      expect(status.store.message).toMatch(/pid \d+/)
      expect(status.bots.map((b: any) => b.name)).toEqual(['Main']) // it shows the team…
      const page = await (await launchBrowser()).newPage({ locale: 'en-US' })
      await page.goto(`${second.url}/bot-team`)
      await page.waitForSelector('#summary[data-state="ready"]', { timeout: 15_000 })
      expect(await page.textContent('#store-problem')).toMatch(/Another DSH process \(pid \d+/)

      // …but will not open a Bot's chat while the first process drives it.
      const mainSession = (await api(second.url, 'session.list', {})).items.find((s: any) => s.projections?.values?.title === 'Main').sessionId
      const before = model.model.requests.length
      await expect(
        api(second.url, 'session.prompt', { sessionId: mainSession, mode: 'queue', content: [{ type: 'text', text: 'from the second window' }] }),
      ).rejects.toThrow()
      const refused = (await (await fetch(`${second.url}/bot-team/api/status`)).json()) as any
      expect(refused.activity.at(-1).text).toMatch(/not opened in this process.*another DSH process writes the team/)
      expect(model.model.requests.length).toBe(before)
      // Changing the team from the second window is refused with the reason.
      const late = await fetch(`${second.url}/bot-team/api/bots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Late' }),
      })
      expect(late.status).toBe(409)

      // The first window exits: the second takes over on its next request.
      await web.stop()
      const created = await fetch(`${second.url}/bot-team/api/bots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Late' }),
      })
      expect(created.status).toBe(201)
      const after = (await (await fetch(`${second.url}/bot-team/api/status`)).json()) as any
      expect(after.store.mode).toBe('writer')
      expect(after.bots.map((b: any) => b.name).sort()).toEqual(['Late', 'Main'])
    } finally {
      await second.stop()
    }
  })

  it('a message still queued when the first DSH Web exits is delivered exactly once by the second, which takes over without a restart', async () => {
    // Ada is busy with a slow turn; Main's message_bot to her waits in her inbox (outbox record pending).
    model.model.setScript('*', {
      fallback: (req) => {
        const said = req.messages
          .filter((m) => m.role === 'user' && !m.runtimeContext)
          .map((m) => m.text)
          .join('\n')
        if (lastToolResults(req).length) return { text: 'sent it' }
        if (said.includes('SLOW-WORK') && !said.includes('PENDING-AT-EXIT')) return { text: 'slow work done', delayMs: 60_000 }
        if (said.includes('TELL-ADA') && offersTool(req, 'message_bot'))
          return { toolCalls: [{ name: 'message_bot', args: { to: 'Ada', message: 'PENDING-AT-EXIT', reply_to: 'user' } }] }
        return { text: 'plain answer' }
      },
    })
    const ada = await fetch(`${web.url}/bot-team/api/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    })
    expect(ada.status).toBe(201)
    const sessions = (await api(web.url, 'session.list', {})).items as any[]
    const sessionOf = (title: string) => sessions.find((x) => x.projections?.values?.title === title).sessionId as string
    const adaSession = sessionOf('Ada')
    await api(web.url, 'session.prompt', { sessionId: adaSession, mode: 'queue', content: [{ type: 'text', text: 'SLOW-WORK please' }] })
    await untilEvents(web.url, adaSession, (events) => events.some((e) => e.type === 'turn/start'), "Ada's slow turn")
    await api(web.url, 'session.prompt', { sessionId: sessionOf('Main'), mode: 'queue', content: [{ type: 'text', text: 'TELL-ADA something' }] })
    await untilEvents(web.url, sessionOf('Main'), answeredLastPrompt, "Main's send")
    const pending = () =>
      (JSON.parse(readFileSync(join(home.home, 'bot', 'state.json'), 'utf8')).deliveries as any[]).filter((d) => d.body === 'PENDING-AT-EXIT')
    expect(pending().map((d) => d.status)).toEqual(['pending'])

    // A second DSH Web on the same home follows; the first exits with the message still queued.
    const second = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
    try {
      await expect.poll(async () => (await teamStatus(second.url)).store.reason, { timeout: 10_000 }).toBe('lock-held')
      await web.stop()
      // Its next request takes over; becoming the writer runs the outbox recovery, no restart.
      const poke = await fetch(`${second.url}/bot-team/api/bots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Late' }),
      })
      expect(poke.status).toBe(201)
      await expect.poll(() => pending().map((d) => d.status), { timeout: 30_000 }).toEqual(['delivered'])
      const events = await sessionEvents(second.url, adaSession)
      expect(events.filter((e) => e.type === 'user/message' && JSON.stringify(e.data).includes('PENDING-AT-EXIT'))).toHaveLength(1)
    } finally {
      await second.stop()
    }
  })
})
