// e2e (DSH Web + Chromium + the packed bundle): Team settings inside DSH Web. The common settings
// come first (the pause switch, the work budget, Bot turns at once, the team's size, the team's
// daily token cap) and every other limit is folded under "Advanced". A limit lowered from the form
// shows in GET /limits; a bad value shows the service's own message next to its field; raising a
// limit from an unpaired browser shows the pairing prompt and changes nothing; the daily cap saved
// from the form is the usage ledger's; pausing from the dialog (paired) puts the "Team paused" line
// in the sidebar and GET /pause says paused; resuming removes it. axe: 0 serious/critical in the
// plugin's DOM; Chinese strings under zh-CN. Screenshots: .tmp/surface-settings.png (the common
// settings) and .tmp/surface-settings-advanced.png. Only the model is scripted.
import { describe, expect, it } from 'vitest'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { openDshWeb, screenshot, useSurface } from '../support/surface.ts'

const AXE = axeSource()
const surface = useSurface('surface-settings', () => ({ fallback: { text: 'ok' } }))
const api = async (path: string) => (await fetch(`${surface().web.url}/bot-team/api${path}`)).json() as Promise<any>

describe('Team settings inside DSH Web', () => {
  it("changes a limit from the form, shows a bad value's message at its field, and pauses and resumes the team", async () => {
    const page = await surface().browser.newPage()
    await openDshWeb(page, surface().web.url)
    await page.getByTestId('bt-team-sidebar').waitFor()
    await page.getByTestId('bt-settings').click()
    const dialog = page.getByTestId('bt-settings-dialog')
    // The common settings first; the rest folded.
    const common = dialog.getByTestId('bt-limits-common')
    await common.locator('#bt-l-workBudget').waitFor({ timeout: 15_000 })
    await expect(common.locator('[data-limit]').evaluateAll((els) => els.map((e) => e.getAttribute('data-limit')))).resolves.toEqual([
      'workBudget',
      'maxBots',
      'botTurnsAtOnce',
      'teamTokenCap',
    ])
    const advanced = dialog.getByTestId('bt-limits-advanced')
    await expect(advanced.getAttribute('open')).resolves.toBeNull()
    await expect(dialog.locator('#bt-l-hopLimit').isVisible()).resolves.toBe(false)
    await screenshot(page, 'surface-settings')
    await advanced.locator('summary').click()
    const hops = dialog.locator('#bt-l-hopLimit')
    await expect(hops.inputValue({ timeout: 15_000 })).resolves.toBe('6')
    await screenshot(page, 'surface-settings-advanced')
    await expect(dialog.locator('[data-limit="hopLimit"] small').textContent()).resolves.toBe('Default: 6')

    // Lowering needs no pairing: the override shows in the API and at the field.
    await hops.fill('3')
    await dialog.getByTestId('bt-limits-save').click()
    await dialog.getByTestId('bt-reset-hopLimit').waitFor()
    const after = await api('/limits')
    expect(after.overrides).toEqual({ hopLimit: 3 })
    expect(after.limits.hopLimit).toBe(3)
    expect(after.config.hopLimit).toBe(6)
    await expect(hops.inputValue()).resolves.toBe('3')

    // A bad value: the service's message next to the field; nothing changes.
    await hops.fill('0')
    await dialog.getByTestId('bt-limits-save').click()
    const error = dialog.locator('[data-field-error="hopLimit"]')
    await error.waitFor()
    await expect(error.textContent()).resolves.toMatch(/>=1/)
    await expect(hops.getAttribute('aria-invalid')).resolves.toBe('true')
    expect((await api('/limits')).overrides).toEqual({ hopLimit: 3 })

    // Raising from an unpaired browser: the pairing prompt; nothing changes.
    await hops.fill('3')
    await dialog.locator('#bt-l-workBudget').fill('80')
    await dialog.getByTestId('bt-limits-save').click()
    await dialog.getByTestId('bt-settings-unpaired').waitFor()
    expect((await api('/limits')).overrides).toEqual({ hopLimit: 3 })

    const findings = await pluginAxeFindings(page, AXE)
    expect(findings).toEqual([])

    // The team's daily token cap, from the common section: the usage ledger's cap.
    await dialog.locator('#bt-l-workBudget').fill('40')
    await dialog.locator('#bt-cap-team').fill('1000000')
    await dialog.getByTestId('bt-limits-save').click()
    await expect.poll(async () => ((await api('/usage/today')) as any).settings?.caps?.team?.tokens, { timeout: 15_000 }).toBe(1_000_000)

    // Pair this browser as the person does, then pause from the dialog with a reason.
    const token = await pairWithTerminalCode(surface().web)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await dialog.locator('#bt-pause-reason').fill('lunch break')
    await dialog.getByTestId('bt-pause').click()
    await page.getByTestId('bt-paused').waitFor()
    await expect(page.getByTestId('bt-paused').textContent()).resolves.toMatch(/^Team paused/)
    await dialog.getByTestId('bt-settings-paused').waitFor()
    expect((await api('/pause')).paused).toMatchObject({ by: 'user', reason: 'lunch break' })
    expect(await pluginAxeFindings(page, AXE)).toEqual([])

    // Resume: the line goes (pushed by the team feed), the API says running.
    await dialog.getByTestId('bt-resume').click()
    await page.getByTestId('bt-paused').waitFor({ state: 'detached' })
    await dialog.getByTestId('bt-settings-running').waitFor()
    expect((await api('/pause')).paused).toBeNull()

    // Paired now, the raise goes through; reset to default clears an override.
    await dialog.locator('#bt-l-workBudget').fill('80')
    await dialog.getByTestId('bt-limits-save').click()
    await dialog.getByTestId('bt-reset-workBudget').waitFor()
    expect((await api('/limits')).overrides).toEqual({ hopLimit: 3, workBudget: 80 })
    await dialog.getByTestId('bt-reset-hopLimit').click()
    await dialog.getByTestId('bt-reset-hopLimit').waitFor({ state: 'detached' })
    expect((await api('/limits')).overrides).toEqual({ workBudget: 80 })
    await expect(hops.inputValue()).resolves.toBe('6')

    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
  })

  it('shows Chinese strings under the Chinese locale', async () => {
    const context = await surface().browser.newContext({ locale: 'zh-CN' })
    const page = await context.newPage()
    await openDshWeb(page, surface().web.url)
    await page.getByTestId('bt-settings').click()
    const dialog = page.getByTestId('bt-settings-dialog')
    await expect(dialog.locator('h2').textContent()).resolves.toBe('团队设置')
    await expect(dialog.locator('[data-limit="hopLimit"] label').textContent({ timeout: 15_000 })).resolves.toBe('Bot 之间消息链的最大跳数')
  })
})
