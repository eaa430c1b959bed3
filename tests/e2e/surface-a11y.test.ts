// e2e (DSH Web + Chromium + the packed bundle): axe-core over the plugin's own DOM on each screen
// of the team surface — the sidebar with a chat's badge, the Bot form, the delivery log, the memory
// panel, the usage screen and a secret card: no serious or critical finding. DSH's own DOM is not
// checked (its findings are not ours). Skipped, saying so, when axe-core is not installed.
import { mkdirSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool, type Script } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { launchChromium } from '../support/browser.ts'
import { homeWithBundle, startWeb, untilTeamReady, type WebProcess } from '../support/e2e.ts'

const AXE = axeSource()

let model: ScriptedServer
let web: WebProcess
let browser: Browser

function script(): Script {
  return {
    fallback: (req) => {
      if (lastToolResults(req).length) return { text: 'I asked for it on a card.' }
      if (/need a token/i.test(lastUserText(req) ?? '') && offersTool(req, 'request_secret')) return { toolCalls: [{ name: 'request_secret', args: { name: 'GH_TOKEN', purpose: 'publish the release' } }] }
      return { text: 'plain answer' }
    },
  }
}

beforeEach(async () => {
  if (!AXE) return
  model = await startScriptedServer(script())
  const home = await homeWithBundle('surface-a11y', inject('bundleTarball'), [{ name: 'web' }])
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
  await untilTeamReady(web.url)
  browser = await launchChromium()
})
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') {
    mkdirSync('.tmp', { recursive: true })
    for (const [i, p] of browser?.contexts().flatMap((c) => c.pages()).entries() ?? []) await p.screenshot({ path: `.tmp/surface-a11y-failed-${i}.png` }).catch(() => {})
  }
  await browser?.close()
  await web?.stop()
  await model?.close()
})

async function openDshWeb(page: Page): Promise<void> {
  await page.goto(web.url)
  await page.getByRole('button', { name: /^(Continue|继续)$/ }).click({ timeout: 30_000 })
}

describe.skipIf(!AXE)('accessibility of the team surface (axe-core; skipped: axe-core is not installed)', () => {
  it('has no serious or critical axe finding in the plugin\'s own DOM on each screen', async () => {
    const page = await browser.newPage()
    const findings: Record<string, unknown> = {}
    const check = async (screen: string) => {
      const found = await pluginAxeFindings(page, AXE!)
      if (found.length) findings[screen] = found
    }
    await openDshWeb(page)
    await page.locator('[data-bot="Main"] .bt-row').click()
    await page.getByTestId('bt-session-badge').waitFor()
    await check('sidebar and badge')

    await page.getByTestId('bt-new-bot').click()
    await page.getByTestId('bt-bot-dialog').waitFor()
    await check('Bot form')
    await page.getByTestId('bt-bot-dialog').getByRole('button', { name: 'Cancel' }).click()

    await page.getByTestId('bt-delivery-log').click()
    await page.getByTestId('bt-log-dialog').waitFor()
    await check('delivery log')
    await page.getByTestId('bt-log-dialog').getByRole('button', { name: 'Close' }).click()

    await page.locator('[data-bot="Main"]').getByRole('button', { name: 'Edit Main' }).click()
    await page.getByTestId('bt-open-memory').click()
    await page.getByTestId('bt-memory-dialog').waitFor()
    await check('memory panel')
    await page.getByTestId('bt-memory-dialog').getByRole('button', { name: 'Close' }).click()

    const box = page.locator('textarea').last()
    await box.click()
    await box.fill('we need a token to publish')
    await page.keyboard.press('Enter')
    await page.getByTestId('bt-secret-card').waitFor({ timeout: 30_000 })
    await page.locator('[data-bot="Main"] [data-status="idle"]').waitFor({ timeout: 30_000 })
    await check('secret card')

    await page.getByTestId('bt-usage').click()
    await page.getByTestId('bt-usage-table').waitFor({ timeout: 15_000 })
    await check('usage screen')

    expect(findings).toEqual({})
  })
})
