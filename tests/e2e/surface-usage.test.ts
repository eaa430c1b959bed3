// e2e (DSH Web + Chromium + the packed bundle): the usage screen inside DSH Web. After one turn of
// the Main Bot (the scripted model reports 1,234 uncached, 500 cached and 77 output tokens), the
// screen opened from the team sidebar shows Main's row by Bot with those tokens and a bar, and a
// "turn" row by purpose; today's section shows the team's spending. Only the model is scripted.
import { mkdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { openDshWeb, sendInComposer, useSurface } from '../support/surface.ts'

const surface = useSurface('surface-usage', () => ({ fallback: () => ({ text: 'counted answer', usage: { input: 1234, cached: 500, output: 77 } }) }))

describe('the usage screen inside DSH Web', () => {
  it('shows the Main Bot\'s row with its turn\'s tokens after a turn, by Bot and by purpose', async () => {
    const page = await surface().browser.newPage()
    await openDshWeb(page, surface().web.url)
    await page.locator('[data-bot="Main"] .bt-row').click()
    await sendInComposer(page, 'hello')
    await page.getByText('counted answer').waitFor({ timeout: 30_000 })
    await page.locator('[data-bot="Main"] [data-status="idle"]').waitFor({ timeout: 30_000 })

    await page.getByTestId('bt-usage').click()
    const dialog = page.getByTestId('bt-usage-dialog')
    const main = dialog.locator('tr[data-usage-row="Main"]')
    await main.waitFor({ timeout: 15_000 })
    const cells = await main.locator('td').allTextContents()
    // Bot, requests, input uncached, cached, output: at least the turn's own request (DSH may add a title call).
    expect(Number(cells[1]!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(1)
    expect(Number(cells[2]!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(1234)
    expect(Number(cells[3]!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(500)
    expect(Number(cells[4]!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(77)
    await expect(main.locator('svg[role="img"] rect').count()).resolves.toBe(3)
    await dialog.getByTestId('bt-usage-today').waitFor()

    await dialog.getByRole('button', { name: 'Purpose' }).click()
    await dialog.locator('tr[data-usage-row="turn"]').waitFor()
    mkdirSync('.tmp', { recursive: true })
    await page.screenshot({ path: '.tmp/surface-usage.png' })
  })
})
