// e2e (DSH Web + Chromium + the packed bundle): a Bot's settings in the Bot dialog inside DSH Web —
// the working folder set from the form (paired browser) and "Start a new part now": the Bot's new
// chat Session is created in that folder (DSH's own session.list says so); the ended part is listed
// in the Bot's details and opens read-only inside DSH Web; the Main Bot switch shows the roster's refusal next
// to it; axe finds nothing serious in the dialog; Chinese strings under the Chinese locale.
// Only the model is scripted.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { api, teamStatus } from '../support/e2e.ts'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { openDshWeb, screenshot, sendInComposer, useSurface } from '../support/surface.ts'

const surface = useSurface('surface-bots', () => ({ fallback: { text: 'noted' } }))
let folder: string | undefined
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true })
})

const adaOf = async (url: string) => ((await (await fetch(`${url}/bot-team/api/team`)).json()) as { bots: any[] }).bots.find((b) => b.name === 'Ada')

describe("a Bot's settings inside DSH Web", () => {
  it('sets the working folder from the form, starts a new part there, lists the ended part and opens it read-only; the Main Bot switch shows its refusal', async () => {
    const url = surface().web.url
    folder = realpathSync(mkdtempSync(join(tmpdir(), 'bot-team-folder-')))
    expect(
      (
        await fetch(`${url}/bot-team/api/bots`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Ada', role: 'Coder' }),
        })
      ).status,
    ).toBe(201)
    const page = await surface().browser.newPage()
    await openDshWeb(page, url)
    const ada = page.locator('[data-bot="Ada"]')
    await ada.locator('.bt-row').click()
    await page.getByTestId('bt-session-badge').getByText('Ada', { exact: true }).waitFor()
    await sendInComposer(page, 'Remember the word MARMALADE')
    await page.getByText('noted').first().waitFor({ timeout: 30_000 })
    await ada.locator('[data-status="idle"]').waitFor({ timeout: 30_000 })
    const first = (await adaOf(url)).chatSessionId as string

    // Unpaired: the API's refusal next to the field, nothing changed.
    await ada.getByRole('button', { name: 'Edit Ada' }).click()
    const dialog = page.getByTestId('bt-bot-dialog')
    await dialog.getByLabel('Working folder', { exact: true }).fill(folder)
    await dialog.getByTestId('bt-set-folder').click()
    await expect(dialog.locator('[data-field-error="workFolder"]').textContent()).resolves.toMatch(/paired/)
    expect((await adaOf(url)).workFolder).toBeUndefined()

    // Paired (the token the team page keeps): set, then a new part at once.
    const token = await pairWithTerminalCode(surface().web)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await dialog.getByTestId('bt-set-folder').click()
    await expect(dialog.getByTestId('bt-settings-done').textContent()).resolves.toMatch(/applies from the next part/)
    expect((await adaOf(url)).workFolder).toBe(folder)
    expect((await adaOf(url)).chatSessionId).toBe(first) // the current part keeps its folder
    await dialog.getByTestId('bt-new-part').click()
    await expect(dialog.getByTestId('bt-settings-done').textContent()).resolves.toMatch(/new part started/)
    const second = (await adaOf(url)).chatSessionId as string
    expect(second).not.toBe(first)
    const rows = (await api(url, 'session.list', {})).items as any[]
    const row = rows.find((s) => s.sessionId === second || s.id === second)
    expect(row, `Ada's new part in session.list: ${JSON.stringify(rows.map((s) => Object.keys(s)))}`).toBeDefined()
    expect(realpathSync(row.cwd)).toBe(folder)

    // The ended part is listed in her details; axe on the dialog; a screenshot for people.
    const earlier = dialog.getByTestId('bt-earlier-parts').locator(`[data-session-id="${first}"]`)
    await earlier.waitFor()
    const findings = await pluginAxeFindings(page, axeSource())
    expect(findings).toEqual([])
    await screenshot(page, 'surface-bot-details')

    // Clicking it opens that Session, read-only, inside DSH Web (DSH Web itself never shows an
    // archived Session as the current chat): the part's own conversation, from DSH's history.
    await earlier.click()
    const part = page.getByTestId('bt-part-dialog')
    await expect(part.getAttribute('data-session-id')).resolves.toBe(first)
    await part.locator('li[data-who="person"]').getByText('Remember the word MARMALADE').waitFor({ timeout: 15_000 })
    await part.locator('li[data-who="bot"]').getByText('noted').first().waitFor()
    expect(await pluginAxeFindings(page, axeSource())).toEqual([])
    await page.keyboard.press('Escape')
    await part.waitFor({ state: 'detached' })

    // The Main Bot switch: taking it from the last Main Bot is refused, with the roster's words next to it.
    await page.locator('[data-bot="Main"]').getByRole('button', { name: 'Edit Main' }).click()
    const mainSwitch = dialog.getByLabel('Main Bot', { exact: true })
    await expect(mainSwitch.isChecked()).resolves.toBe(true)
    await mainSwitch.click()
    await expect(dialog.locator('[data-field-error="main"]').textContent()).resolves.toMatch(/without a Main Bot/)
    expect((await teamStatus(url)).bots.find((b: any) => b.name === 'Main').main).toBe(true)
    await expect(mainSwitch.isChecked()).resolves.toBe(true)
    await page.keyboard.press('Escape')

    // Chinese strings under the Chinese locale.
    const zh = await (await surface().browser.newContext({ locale: 'zh-CN' })).newPage()
    await zh.goto(url) // DSH Web's first-visit notice was dismissed above, for this DSH Web
    await zh.getByRole('navigation', { name: 'Bot 团队' }).waitFor()
    await zh.locator('[data-bot="Ada"] .bt-btn').first().click()
    await zh.getByTestId('bt-new-part').getByText('立即开始新的一段').waitFor()
    await zh.getByText('工作文件夹', { exact: true }).waitFor()
  })
})
