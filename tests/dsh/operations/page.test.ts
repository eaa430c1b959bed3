// The team page's operations section in Chromium under the page's CSP: the pause switch pauses and
// resumes the team from a paired browser, and refuses (saying why) in a browser that is not paired.
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { launchChromium } from '../../support/browser.ts'
import type { DshHost } from '../../support/dsh-host.ts'
import { captureTerminal, startWebTeamHost } from '../../support/web-host.ts'

let host: DshHost
let origin: string
let terminal: string[]
let browser: Browser

beforeAll(async () => {
  browser = await launchChromium()
})
afterAll(() => browser?.close())
beforeEach(async () => {
  terminal = captureTerminal()
  const web = await startWebTeamHost()
  host = web.host
  origin = web.origin
})
afterEach(async () => {
  vi.restoreAllMocks()
  await host.dispose()
})

async function pairPage(page: Page): Promise<void> {
  await page.waitForSelector('#pairing-state[data-state="unpaired"]')
  await page.click('#pairing-start')
  await page.waitForSelector('#pairing-code-input', { state: 'visible' })
  const code = terminal.map((line) => /pairing code for the team page: (\S+)/.exec(line)?.[1]).filter(Boolean).at(-1)!
  await page.fill('#pairing-code-input', code)
  await page.click('#pairing-submit')
  await page.waitForSelector('#pairing-state[data-state="paired"]')
}

describe('the team page: operations', () => {
  it('pauses and resumes the team from a paired browser; an unpaired one is told to pair', async () => {
    const page = await browser.newPage({ locale: 'en-US' })
    const violations: string[] = []
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()) })
    await page.goto(`${origin}/bot-team`)
    await page.waitForSelector('#pause-state[data-state="running"]')
    await page.click('#pause-toggle')
    await page.waitForSelector('#operations-problem:not([hidden])')
    expect(await page.textContent('#operations-problem')).toMatch(/need a paired browser/)
    expect(host.ctx.botPause.isPaused()).toBe(false)

    await pairPage(page)
    await page.click('#pause-toggle')
    await page.waitForSelector('#pause-state[data-state="paused"]')
    expect(await page.textContent('#pause-state')).toMatch(/^The team is paused \(since .*\)\. Bot-started work is held/)
    expect(host.ctx.botPause.isPaused()).toBe(true)
    await page.click('#pause-toggle')
    await page.waitForSelector('#pause-state[data-state="running"]')
    expect(host.ctx.botPause.isPaused()).toBe(false)
    expect(violations).toEqual([])
    await page.close()
  })
})
