// The team page on a real DSH web server, in-process: served with a Content-Security-Policy that
// forbids inline script and style, its one script the browser half's build, and — in Debian's
// Chromium, which enforces that policy — it still renders the team, pairs this browser with the
// code printed on DSH's terminal, and pauses the team.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { root } from '../../../scripts/pack.ts'
import { axeFindings, axeSource } from '../../support/axe.ts'
import { launchChromium } from '../../support/browser.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { terminalPairingCode, webTeamHostPerTest } from '../../support/web-host.ts'

let browser: Browser

beforeAll(async () => {
  browser = await launchChromium()
})
afterAll(() => browser?.close())

const web = webTeamHostPerTest()
const terminalCode = () => terminalPairingCode(web().terminal)

describe('the team page', () => {
  it('is served with a CSP that forbids inline script and style, and has none', async () => {
    const res = await fetch(`${web().origin}/bot-team`)
    expect(res.status).toBe(200)
    const csp = res.headers.get('content-security-policy')!
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    )
    expect(directives['script-src']).toEqual(["'self'"])
    expect(directives['style-src']).toEqual(["'self'"])
    expect(directives['default-src']).toEqual(["'none'"])
    const html = await res.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/) // every script element loads a file
    expect(html).not.toMatch(/<style|\son\w+=|style=/) // no inline style, no inline handlers
    // Its one script is the browser half's build of src/client/page.ts, served as a file.
    expect(html).toContain('"/bot-team/page.js"')
    const asset = await fetch(`${web().origin}/bot-team/page.js`)
    expect({ status: asset.status, type: asset.headers.get('content-type') }).toEqual({ status: 200, type: 'text/javascript; charset=utf-8' })
    expect(await asset.text()).toBe(readFileSync(join(root, 'dist-client', 'page.js'), 'utf8'))
    const api = await fetch(`${web().origin}/bot-team/api/status`)
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'")
  })

  it('renders in Chromium under its CSP and pairs this browser with the terminal code', async () => {
    const page = await browser.newPage({ locale: 'en-US' })
    const violations: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
    })
    await page.goto(`${web().origin}/bot-team`)
    await page.waitForSelector('#summary[data-state="ready"]')
    expect(await page.textContent('#summary')).toBe('The team has 1 Bot.')
    expect(await page.textContent('#bots')).toBe('Main — Lead ★')
    await page.waitForSelector('#pairing-state[data-state="unpaired"]')
    expect(await page.textContent('#pairing-state')).toMatch(/no browser is yet/)

    await page.click('#pairing-start')
    await page.waitForSelector('#pairing-code-input', { state: 'visible' })
    expect(await page.textContent('#pairing-code')).toMatch(/shown in the terminal/)
    await page.fill('#pairing-code-input', terminalCode()!)
    await page.click('#pairing-submit')
    await page.waitForSelector('#pairing-state[data-state="paired"]')
    expect(await page.textContent('#devices')).toMatch(/^Headless Chrome on Linux \(this browser\) — paired .*Unpair$/)
    const token = await page.evaluate(() => localStorage.getItem('bot-team:pairing-token'))
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)

    // The paired page shows a code for the next browser.
    await page.click('#pairing-new-code')
    await page.waitForSelector('#pairing-code:not([hidden])')
    expect(await page.textContent('#pairing-code')).toMatch(/^Pairing code: \w{4}-\w{4} \(valid until/)
    expect(violations).toEqual([])
    await page.close()
  })
})

describe('the team page: accessibility', () => {
  it('has no serious or critical axe finding, before and after pairing', async () => {
    // axe is injected as a script tag, which the page's policy forbids: this page bypasses the policy (tested above).
    const page = await browser.newPage({ locale: 'en-US', bypassCSP: true })
    await page.goto(`${web().origin}/bot-team`)
    await page.waitForSelector('#summary[data-state="ready"]')
    await page.waitForSelector('#pairing-state[data-state="unpaired"]')
    await page.getByTestId('bt-settings-running').waitFor()
    expect(await axeFindings(page, axeSource(), ['main'])).toEqual([])
    await page.click('#pairing-start')
    await page.waitForSelector('#pairing-code:not([hidden])')
    await page.fill('#pairing-code-input', terminalCode()!)
    await page.click('#pairing-submit')
    await page.waitForSelector('#pairing-state[data-state="paired"]')
    expect(await axeFindings(page, axeSource(), ['main'])).toEqual([])
    await page.close()
  })
})

describe('the team page: operations', () => {
  it('pauses with a reason and resumes the team from a paired browser; an unpaired one is told to pair', async () => {
    const page = await browser.newPage({ locale: 'en-US' })
    const violations: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
    })
    await page.goto(`${web().origin}/bot-team`)
    await page.getByTestId('bt-settings-running').waitFor()
    await page.getByTestId('bt-pause').click()
    await page.getByTestId('bt-pause-unpaired').waitFor()
    expect(await page.getByTestId('bt-pause-unpaired').textContent()).toMatch(/need this browser paired/)
    expect(web().host.ctx.botPause.isPaused()).toBe(false)

    await page.waitForSelector('#pairing-state[data-state="unpaired"]')
    await page.click('#pairing-start')
    await page.waitForSelector('#pairing-code-input', { state: 'visible' })
    await page.fill('#pairing-code-input', terminalCode()!)
    await page.click('#pairing-submit')
    await page.waitForSelector('#pairing-state[data-state="paired"]')
    await page.fill('#bt-pause-reason', 'lunch break')
    await page.getByTestId('bt-pause').click()
    await page.getByTestId('bt-settings-paused').waitFor()
    expect(await page.getByTestId('bt-settings-paused').textContent()).toMatch(/^Paused since .* — lunch break/)
    expect(web().host.ctx.botPause.paused()).toMatchObject({ by: 'user', reason: 'lunch break' })
    await page.getByTestId('bt-resume').click()
    await page.getByTestId('bt-settings-running').waitFor()
    expect(web().host.ctx.botPause.isPaused()).toBe(false)
    expect(violations).toEqual([])
    await page.close()
  })
})

describe('the team page: settings held for the person', () => {
  it('lists what a restore held, refuses to confirm from a shell, and confirms from the paired page: the Bot gets its preset back', async () => {
    const { host, send } = web()
    const ada = await host.ctx.botRoster.create({ kind: 'user' }, { name: 'Ada' })
    // What a restore leaves: the preset lowered, the saved one held (the restore's own path is tests/dsh/backup).
    await host.ctx.botStore.update((s) => {
      s.held = [{ id: 'held-1', why: 'restore', at: new Date().toISOString(), kind: 'preset', botId: ada.id, preset: 'danger-full-access' }]
    })
    expect((await send('POST', '/held/held-1/confirm', {})).status).toBe(403)
    const page = await browser.newPage({ locale: 'en-US' })
    await page.goto(`${web().origin}/bot-team`)
    await page.waitForSelector('#held:not([hidden]) li[data-held-id="held-1"]')
    expect(await page.textContent('#held-list')).toMatch(/^permission preset danger-full-access of Bot Ada \(workspace-write until confirmed\) ConfirmLet go$/)
    await page.waitForSelector('#pairing-state[data-state="unpaired"]')
    await page.click('#pairing-start')
    await page.waitForSelector('#pairing-code-input', { state: 'visible' })
    await page.fill('#pairing-code-input', terminalCode()!)
    await page.click('#pairing-submit')
    await page.waitForSelector('#pairing-state[data-state="paired"]')
    await page.click('li[data-held-id="held-1"] button[data-action="confirm"]')
    await page.waitForSelector('#held[hidden]', { state: 'attached' })
    expect(host.ctx.botRoster.find('Ada')!.permissionPreset).toBe('danger-full-access')
    expect(host.ctx.botRoster.held()).toEqual([])
    await page.close()
  })
})
