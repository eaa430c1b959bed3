// e2e helpers for the team surface inside DSH Web: one DSH Web (own DSH_HOME, packed bundle,
// scripted model) and one Chromium per test, a screenshot of every open page when a test fails,
// opening DSH Web past its first-visit notice, and typing into DSH's composer.
import { mkdirSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { afterEach, beforeEach, inject } from 'vitest'
import { lastToolResults, lastUserText, offersTool, type Script } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { launchChromium } from './browser.ts'
import { WEB_APP_BUNDLES, homeWithBundle, startWeb, untilTeamReady, type WebProcess } from './e2e.ts'

export interface Surface {
  web: WebProcess
  browser: Browser
}

/**
 * Registers the per-test DSH Web + browser. `desktop`: the DSH Desktop stand-in instead — a profile
 * named `desktop` that loads DSH's web-app bundle, as DSH Desktop's own profile does.
 */
export function useSurface(label: string, script: () => Script, opts: { desktop?: boolean } = {}): () => Surface {
  let model: ScriptedServer | undefined
  let web: WebProcess | undefined
  let browser: Browser | undefined
  beforeEach(async () => {
    model = await startScriptedServer(script())
    const profile = opts.desktop ? { name: 'desktop', bundles: WEB_APP_BUNDLES } : { name: 'web' }
    const home = await homeWithBundle(label, inject('bundleTarball'), [profile])
    web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' }, profile.name)
    await untilTeamReady(web.url)
    browser = await launchChromium()
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      for (const [i, p] of browser
        ?.contexts()
        .flatMap((c) => c.pages())
        .entries() ?? [])
        await screenshot(p, `${label}-failed-${i}`).catch(() => {})
    }
    await browser?.close()
    await web?.stop()
    await model?.close()
  })
  return () => ({ web: web!, browser: browser! })
}

/** Open DSH Web and dismiss its first-visit notice (it blocks every click). */
export async function openDshWeb(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await page.getByRole('button', { name: /^(Continue|继续)$/ }).click({ timeout: 30_000 })
}

/** A screenshot of the page as `.tmp/<name>.png`, for people to look at (never compared). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync('.tmp', { recursive: true })
  await page.screenshot({ path: `.tmp/${name}.png` })
}

/** Type into DSH's composer and send. */
export async function sendInComposer(page: Page, text: string): Promise<void> {
  const box = page.locator('textarea').last()
  await box.click()
  await box.fill(text)
  await page.keyboard.press('Enter')
}

/** The Main Bot asks for GH_TOKEN (`request_secret`) when told "… need a token …". */
export function secretAskingScript(): Script {
  return {
    fallback: (req) => {
      if (lastToolResults(req).length) return { text: 'I asked for it on a card.' }
      if (/need a token/i.test(lastUserText(req) ?? '') && offersTool(req, 'request_secret'))
        return { toolCalls: [{ name: 'request_secret', args: { name: 'GH_TOKEN', purpose: 'publish the release' } }] }
      return { text: 'plain answer' }
    },
  }
}
