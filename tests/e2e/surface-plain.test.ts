// e2e (DSH Web + Chromium): the bundle's replacement renderers draw only what is the team's. A plain
// DSH chat — the person's message, DSH's own context injection, a tool call, a Markdown answer with a
// code block — is opened in DSH Web with the bundle; then the same home is served by a profile that
// loads DSH's web app WITHOUT the bundle, and the chat's whole conversation pane (header, messages,
// composer) must be the very same markup both times.
import { mkdirSync, writeFileSync } from 'node:fs'
import { afterEach, expect, inject, it } from 'vitest'
import { lastToolResults, type Script } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { launchChromium } from '../support/browser.ts'
import {
  answeredLastPrompt,
  api,
  homeWithBundle,
  initProfile,
  startWeb,
  untilEvents,
  untilTeamReady,
  WEB_APP_BUNDLES,
  type WebProcess,
} from '../support/e2e.ts'

const script: Script = {
  title: 'Plain chat about tea',
  fallback: (req) =>
    lastToolResults(req).length
      ? { text: 'Here is **the list**:\n\n- green tea\n- black tea\n\n```sh\necho brewed\n```' }
      : { toolCalls: [{ name: 'bash', args: { command: 'echo brewing', description: 'brew' } }] },
}

let model: ScriptedServer | undefined
let web: WebProcess | undefined
afterEach(async () => {
  await web?.stop()
  await model?.close()
})

/** Open the plain chat from DSH's own session browser; the conversation pane's markup and the kinds of its chat nodes. */
async function conversationOf(url: string, label: 'with' | 'without'): Promise<{ html: string; kinds: string[] }> {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    await page.goto(url)
    // DSH Web's first-visit notice is remembered per home: only the first server shows it.
    const notice = page.getByRole('button', { name: /^(Continue|继续)$/ })
    const ready = page.getByText('Ungrouped')
    await notice.or(ready).first().waitFor({ timeout: 30_000 })
    if (await notice.count()) await notice.click()
    if (label === 'with') await page.getByTestId('bt-show-sessions').click()
    await ready.click()
    await page.getByText('Plain chat about tea').first().click()
    await page.getByText('green tea').waitFor({ timeout: 30_000 })
    await page.getByText('Context injection').waitFor()
    // DSH Web fills the model picker once the Session's models have loaded: compare settled panes.
    await page.locator('[aria-label^="Select model, current"]').waitFor({ timeout: 30_000 })
    const pane = page.locator('[data-slot="conversation"]').first()
    const html = await pane.evaluate((el) => el.outerHTML)
    const kinds = await page.locator('[data-chat-flow-kind]').evaluateAll((els) => els.map((e) => e.getAttribute('data-chat-flow-kind') ?? ''))
    mkdirSync('.tmp', { recursive: true })
    writeFileSync(`.tmp/plain-chat-${label}-bundle.html`, html)
    await page.screenshot({ path: `.tmp/plain-chat-${label}-bundle.png` })
    return { html, kinds }
  } finally {
    await browser.close()
  }
}

it('draws a plain DSH chat with exactly the markup DSH Web draws without the bundle', async () => {
  model = await startScriptedServer(script)
  const home = await homeWithBundle('plain', inject('bundleTarball'), [{ name: 'web' }])
  initProfile(home.home, 'plain', WEB_APP_BUNDLES)
  const env = { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' }
  web = await startWeb(home, env)
  await untilTeamReady(web.url)
  const { sessionId } = await api(web.url, 'session.create', { cwd: home.cwd })
  await api(web.url, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text: 'list some teas' }] })
  await untilEvents(web.url, sessionId, answeredLastPrompt, 'the answer')
  const withBundle = await conversationOf(web.url, 'with')
  await web.stop()
  web = await startWeb(home, env, 'plain')
  // Without the bundle: no team route (DSH Web answers its own page for unknown paths).
  expect(await (await fetch(`${web.url}/bot-team/api/status`)).text()).not.toContain('dsh-bot-team')
  const without = await conversationOf(web.url, 'without')
  // The chat holds every node the bundle replaces a renderer for (user, context, assistant step).
  expect(without.kinds).toEqual(expect.arrayContaining(['user']))
  expect(without.html).toContain('Context injection')
  expect(without.html).toContain('Bash')
  expect(withBundle.html).not.toMatch(/\bbt-/)
  expect(withBundle.html).toBe(without.html)
  expect(withBundle.kinds).toEqual(without.kinds)
})
