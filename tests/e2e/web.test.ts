// e2e (Web + browser): the bundle in a `web` profile, `dsh web --no-open --port 0`, the plugin's
// routes behind the trust fence, DSH Web's own /api answering a chat through the scripted model,
// and Debian's Chromium (driven by playwright-core, no browser download) rendering the team page.
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { lastToolResults } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { api, installBundle, makeHome, startWeb, type E2eHome, type WebProcess } from '../support/e2e.ts'

let model: ScriptedServer
let web: WebProcess
let browser: Browser | undefined
let home: E2eHome

beforeAll(async () => {
  model = await startScriptedServer({
    fallback: (req) => {
      const results = lastToolResults(req)
      return results.length ? { text: `Tool said: ${results[0]!.text}` } : { toolCalls: [{ name: 'list_bots', args: {} }] }
    },
  })
  home = makeHome('web')
  await installBundle('web', inject('bundleTarball'), home)
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
})
afterAll(async () => {
  await browser?.close()
  await web?.stop()
  await model?.close()
})

describe('DSH Web with the bundle', () => {
  it('serves the status route on loopback and refuses foreign origins and non-JSON writes', async () => {
    const status = await fetch(`${web.url}/bot-team/api/status`)
    expect(status.status).toBe(200)
    // DSH Web is a long-lived host: it takes the team lock and becomes the writer.
    expect(await status.json()).toMatchObject({ plugin: 'dsh-bot-team', bots: [], store: { mode: 'writer' }, archive: { driver: 'better-sqlite3' } })

    const foreign = await fetch(`${web.url}/bot-team/api/status`, { headers: { origin: 'http://evil.example' } })
    expect(foreign.status).toBe(403)
    const crossSite = await fetch(`${web.url}/bot-team`, { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(crossSite.status).toBe(403)
    const form = await fetch(`${web.url}/bot-team/api/status`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })
    expect(form.status).toBe(415)
  })

  it('answers a chat in DSH Web through the model, with the team tool', async () => {
    const { sessionId } = await api(web.url, 'session.create', { cwd: home.cwd })
    await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: 'who is on the team?' }] })
    let finalText: string | undefined
    for (let i = 0; i < 100 && finalText === undefined; i++) {
      const history = await api(web.url, 'session.history', { sessionId, maxMessages: 1000 })
      const events = history.events.map((e: any) => e.event ?? e)
      if (events.some((e: any) => e.type === 'turn/end')) {
        finalText = JSON.stringify(events.filter((e: any) => e.type === 'assistant/message').at(-1)?.data)
      } else await new Promise((r) => setTimeout(r, 100))
    }
    expect(finalText).toContain('Tool said: The team has no Bots yet.')
  })

  it('renders the team page in Chromium', async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    const page = await browser.newPage({ locale: 'en-US' })
    await page.goto(`${web.url}/bot-team`)
    await page.waitForSelector('#summary[data-state="ready"]', { timeout: 15_000 })
    expect(await page.textContent('h1')).toBe('Bot Team')
    expect(await page.textContent('#summary')).toBe('The team has no Bots yet.')
    expect(await page.textContent('#archive')).toBe('Archive index: better-sqlite3')

    const zh = await browser.newPage({ locale: 'zh-CN' })
    await zh.goto(`${web.url}/bot-team`)
    await zh.waitForSelector('#summary[data-state="ready"]', { timeout: 15_000 })
    expect(await zh.textContent('#summary')).toBe('团队里还没有机器人。')
  })
})
