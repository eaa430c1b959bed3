// e2e (DSH Web + Chromium + the packed bundle): pairing, the device list and the saved secrets
// inside DSH Web's own shell, drawn by the same panels as the /bot-team page. The browser pairs
// with the code DSH printed on its terminal, shows a code for the next browser, which a second
// client pairs with; both devices are listed, one is unpaired from the list; a saved secret is
// listed without its value and deleted there. axe finds nothing serious or critical in either
// dialog; `.tmp/surface-pairing.png` shows the pairing and the device list. Only the model is scripted.
import { describe, expect, it } from 'vitest'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { openDshWeb, screenshot, useSurface } from '../support/surface.ts'

const surface = useSurface('surface-pairing', () => ({ fallback: { text: 'ok' } }))

const CODE = /pairing code for the team page: (\S+)/

describe('pairing and saved secrets inside DSH Web', () => {
  it('pairs this browser with the terminal code, lists and unpairs devices, and lists and deletes a saved secret without its value', async () => {
    const { web, browser } = surface()
    const page = await browser.newPage()
    await openDshWeb(page, web.url)
    await page.getByTestId('bt-pairing').click()
    const dialog = page.getByTestId('bt-pairing-dialog')
    await dialog.locator('#pairing-state[data-state="unpaired"]').waitFor()
    expect(await dialog.locator('#pairing-state').textContent()).toMatch(/no browser is yet/)

    // The first code goes only to DSH's terminal: the browser never sees it over HTTP.
    await dialog.locator('#pairing-start').click()
    await dialog.locator('#pairing-code:not([hidden])').waitFor()
    await expect(dialog.locator('#pairing-code').textContent()).resolves.toMatch(/shown in the terminal where DSH runs/)
    const asked = await fetch(`${web.url}/bot-team/api/pairing/codes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).then((r) => r.json())
    expect(asked).not.toHaveProperty('code')
    await expect.poll(() => CODE.exec(web.output())?.[1]).toMatch(/^\w{4}-\w{4}$/)
    const terminalCode = CODE.exec(web.output())?.[1]
    await dialog.getByLabel('Pairing code').fill(terminalCode!)
    await dialog.getByRole('button', { name: 'Pair', exact: true }).click()
    await dialog.locator('#pairing-state[data-state="paired"]').waitFor()
    expect(await page.evaluate(() => localStorage.getItem('bot-team:pairing-token'))).toMatch(/^[A-Za-z0-9_-]{43}$/)

    // A code for the next browser, shown here; a second client pairs with it.
    await dialog.locator('#pairing-new-code').click()
    await dialog.locator('#pairing-code:not([hidden])').waitFor()
    const shown = /Pairing code: (\w{4}-\w{4})/.exec((await dialog.locator('#pairing-code').textContent()) ?? '')?.[1]
    expect(shown).toBeDefined()
    const second = await fetch(`${web.url}/bot-team/api/pairing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
      body: JSON.stringify({ code: shown }),
    })
    expect(second.status).toBe(201)
    const { token } = (await second.json()) as { token: string }
    await dialog.getByRole('button', { name: 'Close' }).click()
    await page.getByTestId('bt-pairing').click()
    const devices = dialog.locator('#devices li')
    await expect.poll(() => devices.count()).toBe(2)
    expect(await devices.first().textContent()).toMatch(/\(this browser\) — paired .* last used .*Unpair$/)
    expect(await devices.nth(1).textContent()).toMatch(/^curl — paired /)
    await screenshot(page, 'surface-pairing')
    expect(await pluginAxeFindings(page, axeSource())).toEqual([])

    // Unpair the second device from the list: its token is worth nothing from then on.
    await dialog.getByRole('button', { name: 'Unpair curl' }).click()
    await expect.poll(() => devices.count()).toBe(1)
    const refused = await fetch(`${web.url}/bot-team/api/secrets/GH_TOKEN`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
      body: JSON.stringify({ value: 'ghp_Unpaired_0123456789', scope: 'all' }),
    })
    expect(refused.status).toBe(403)
    await dialog.getByRole('button', { name: 'Close' }).click()

    // A saved secret is listed (never its value) and deleted in the Secrets dialog.
    const mine = await page.evaluate(() => localStorage.getItem('bot-team:pairing-token'))
    const saved = await fetch(`${web.url}/bot-team/api/secrets/GH_TOKEN`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-bot-team-pairing': mine! },
      body: JSON.stringify({ value: 'ghp_SavedValue_0123456789abc', scope: 'all', purpose: 'publish' }),
    })
    expect(saved.status).toBe(200)
    await page.getByTestId('bt-secrets').click()
    const secrets = page.getByTestId('bt-secrets-dialog')
    const row = secrets.locator('li[data-name="GH_TOKEN"]')
    await row.waitFor()
    expect(await row.textContent()).toMatch(/^GH_TOKEN \(\$DSH_SECRET_GH_TOKEN\) — all Bots — never used/)
    expect(await page.content()).not.toContain('ghp_SavedValue')
    expect(await pluginAxeFindings(page, axeSource())).toEqual([])
    await secrets.getByRole('button', { name: 'Delete GH_TOKEN' }).click()
    await row.waitFor({ state: 'detached' })
    const after = (await fetch(`${web.url}/bot-team/api/secrets`).then((r) => r.json())) as { secrets: unknown[] }
    expect(after.secrets).toEqual([])
  })
})
