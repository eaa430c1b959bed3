// The secret card on the team page, in Debian's Chromium under the page's CSP, against a real DSH
// web server with DSH's real bash tool: a Bot asks, the card appears (masked text input outside
// any form, password managers told to ignore it, no insecure-origin warning on loopback), the
// person enters the value for all Bots, the card goes, the Bot's shell gets the value, and the
// value is never left in the page.
import type { Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { launchChromium } from '../../support/browser.ts'
import { disposedAfterEach, prompt } from '../../support/dsh-host.ts'
import { captureTerminal } from '../../support/web-host.ts'
import { quiesce, toolResults } from '../delivery/helpers.ts'
import { bots } from '../rooms/helpers.ts'
import { asker, secretsTeam, SHOW } from './helpers.ts'

const track = disposedAfterEach()
let browser: Browser
beforeAll(async () => {
  browser = await launchChromium()
})
afterAll(() => browser?.close())
afterEach(() => vi.restoreAllMocks())

const VALUE = 'ghp_PageCardValue_0123456789'

describe('the secret card on the team page', () => {
  it("takes the value outside the chat, for all Bots, and the asking Bot's shell gets it", async () => {
    const terminal = captureTerminal()
    const t = await secretsTeam({ ada: asker(SHOW), bob: asker(SHOW) }, terminal)
    track(t.host)
    const { Ada, Bob } = await bots(t.host, ['Ada', 'Bob'])
    await prompt(t.host, await t.host.ctx.botRoster.agentOf(Ada!), 'I need the token for the release')
    await quiesce(t.host)

    const page = await browser.newPage({ locale: 'en-US' })
    const violations: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
    })
    await page.addInitScript((token) => localStorage.setItem('bot-team:pairing-token', token), t.token)
    await page.goto(`${t.origin}/bot-team`)
    const card = page.getByTestId('bt-secret-card')
    await card.waitFor()
    expect(await card.locator('h3').textContent()).toBe('Ada asks for $DSH_SECRET_GH_TOKEN')
    expect(await card.textContent()).toContain('push to GitHub')
    expect(await card.textContent()).toMatch(/not a file permission/)
    const input = card.getByTestId('bt-secret-value')
    expect(
      await input.evaluate((e: any) => ({
        type: e.type,
        autocomplete: e.autocomplete,
        inForm: e.closest('form') !== null,
        lp: e.dataset.lpignore,
        masked: (globalThis as any).getComputedStyle(e).getPropertyValue('-webkit-text-security'),
      })),
    ).toEqual({ type: 'text', autocomplete: 'off', inForm: false, lp: 'true', masked: 'disc' })
    expect(await page.getByTestId('bt-secret-insecure').count()).toBe(0)

    await input.fill(VALUE)
    await card.locator('input[value="all"]').check()
    await card.getByTestId('bt-secret-save').click()
    await page.locator('#secret-list li[data-name="GH_TOKEN"]').waitFor()
    expect(await page.getByTestId('bt-secret-card').count()).toBe(0)
    expect(await page.textContent('#secret-list')).toContain('GH_TOKEN ($DSH_SECRET_GH_TOKEN) — all Bots')
    expect(await page.content()).not.toContain('PageCardValue')
    expect(violations).toEqual([])

    await quiesce(t.host)
    const ada = await t.host.ctx.botRoster.agentOf(Ada!)
    expect(toolResults(ada, 'bash').at(-1)).toBe(`len=${VALUE.length} [[secret:GH_TOKEN]]\n`)
    const bob = await t.host.ctx.botRoster.agentOf(Bob!)
    await prompt(t.host, bob, 'run it')
    expect(toolResults(bob, 'bash').at(-1)).toBe(`len=${VALUE.length} [[secret:GH_TOKEN]]\n`)
    await page.close()
  })
})
