// e2e (DSH Web + Chromium + the packed bundle): the team drawn inside DSH Web's own shell by the
// client half — the sidebar with live status, the Bot form, "Message from" lines, the Chinese
// locale — and DSH Web staying fully usable when the team API fails. Each test has its own
// DSH_HOME, DSH Web, scripted model and browser; screenshots go to .tmp/ for people to look at.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool, type Script } from '../../scripts/scripted-model/format.ts'
import { api, teamStatus } from '../support/e2e.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { openDshWeb, screenshot, sendInComposer, useSurface } from '../support/surface.ts'

/**
 * Main asks Writer when told to ("ask Writer …"); Writer answers slowly (so its working status can
 * be seen); a plain Session gets a plain answer.
 */
function teamScript(): Script {
  return {
    fallback: (req) => {
      const results = lastToolResults(req)
      if (results.length) return { text: `Tool said: ${results[0]!.text}` }
      const said = lastUserText(req) ?? ''
      if (req.system.includes('You are Writer')) return { text: 'Here is the draft.', delayMs: 2500 }
      if (/ask Writer/i.test(said) && offersTool(req, 'message_bot'))
        return { toolCalls: [{ name: 'message_bot', args: { to: 'Writer', message: 'Please draft a haiku about tea.', reply_to: 'user' } }] }
      return { text: 'plain answer' }
    },
  }
}

const surface = useSurface('surface', teamScript)

const shot = (page: Page, name: string) => screenshot(page, `surface-${name}`)

describe('the team inside DSH Web', () => {
  it('keeps DSH Web and a plain chat working when the team API fails', async () => {
    const page = await surface().browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    // The network is the one thing faked: every team API call fails.
    await page.route('**/bot-team/api/**', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"deliberately failing"}' }))
    await openDshWeb(page, surface().web.url)
    // The team sidebar says so in one line; DSH's shell is there.
    await expect(page.getByTestId('bt-unavailable').textContent()).resolves.toMatch(/not reachable/)
    await page.getByRole('button', { name: 'New Session' }).first().waitFor()
    // DSH's own session browser is one click away, and a plain chat works.
    await page.getByTestId('bt-show-sessions').click()
    await page.getByText('Workspaces', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'New Session' }).first().click()
    await sendInComposer(page, 'hello plain DSH')
    await page.getByText('plain answer').waitFor({ timeout: 30_000 })
    // The person's own message is drawn by DSH's renderer, not ours.
    await page.locator('[data-chat-flow-kind]').getByText('hello plain DSH').waitFor()
    expect(await page.locator('.bt-line').count()).toBe(0)
    expect(errors).toEqual([])
    await shot(page, 'failing-api')
  })

  it('lists the team with live status, and creates, edits and deletes a Bot from the form', async () => {
    const page = await surface().browser.newPage()
    await openDshWeb(page, surface().web.url)
    const main = page.locator('[data-bot="Main"]')
    await expect(main.locator('[data-status]').getAttribute('data-status')).resolves.toBe('idle')
    await shot(page, 'sidebar')

    // Bad input: the service's own message next to the field; nothing is created.
    await page.getByTestId('bt-new-bot').click()
    await page.getByLabel('Name').fill('Writer')
    await page.getByLabel('Colour').fill('blue')
    await page.getByTestId('bt-save').click()
    await expect(page.locator('[data-field-error="colour"]').textContent()).resolves.toMatch(/#rrggbb/)
    await shot(page, 'bot-form-error')
    expect((await teamStatus(surface().web.url)).bots.map((b: any) => b.name)).toEqual(['Main'])

    await page.getByLabel('Colour').fill('#2b8a3e')
    await page.getByLabel('Role').fill('Writer of drafts')
    await page.getByTestId('bt-save').click()
    await page.locator('[data-bot="Writer"]').waitFor()
    expect((await teamStatus(surface().web.url)).bots.map((b: any) => b.name)).toEqual(['Main', 'Writer'])
    // Its chat is in DSH's own session list.
    let listed = false
    for (let i = 0; i < 100 && !listed; i++) {
      listed = (await api(surface().web.url, 'session.list', {})).items.some((s: any) => s.projections?.values?.title === 'Writer')
      if (!listed) await new Promise((r) => setTimeout(r, 100))
    }
    expect(listed).toBe(true)

    // Live status by push: Writer works while the model is slow, then is idle again.
    const writer = page.locator('[data-bot="Writer"]')
    await writer.locator('.bt-row').click()
    await page.getByTestId('bt-session-badge').getByText('Writer', { exact: true }).waitFor()
    await sendInComposer(page, 'write something')
    await writer.locator('[data-status="working"]').waitFor({ timeout: 15_000 })
    await shot(page, 'working')
    await writer.locator('[data-status="idle"]').waitFor({ timeout: 30_000 })

    // Its memory panel: remember an entry, then see it listed.
    await writer.getByRole('button', { name: 'Edit Writer' }).click()
    await page.getByTestId('bt-open-memory').click()
    await page.getByLabel('New entry').fill('Prefers short drafts')
    // Memory is frozen into a Bot's prompt: writing it is the paired browser's (the token the page keeps).
    const token = await pairWithTerminalCode(surface().web)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await page.getByTestId('bt-remember').click()
    await page.locator('[data-memory-entry="Prefers short drafts"]').waitFor()
    await shot(page, 'memory')
    await page.getByTestId('bt-memory-dialog').getByRole('button', { name: 'Close' }).click()

    // Edit, then delete.
    await writer.getByRole('button', { name: 'Edit Writer' }).click()
    await page.getByLabel('Role').fill('Poet')
    await page.getByTestId('bt-save').click()
    await writer.getByText('Poet').waitFor()
    await writer.getByRole('button', { name: 'Edit Writer' }).click()
    await page.getByLabel('Why delete it?').fill('not needed any more')
    await page.getByTestId('bt-delete').click()
    await writer.waitFor({ state: 'detached' })
    expect((await teamStatus(surface().web.url)).bots.map((b: any) => b.name)).toEqual(['Main'])
  })

  it('draws a Bot-to-Bot message as a "Message from" line that opens the exchange', async () => {
    const created = await fetch(`${surface().web.url}/bot-team/api/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Writer', role: 'Drafts' }),
    })
    expect(created.status).toBe(201)
    const page = await surface().browser.newPage()
    await openDshWeb(page, surface().web.url)
    await page.locator('[data-bot="Main"] .bt-row').click()
    await sendInComposer(page, 'ask Writer for a haiku')
    await page.getByText(/Tool said: Sent to Writer/).waitFor({ timeout: 30_000 })
    await page.locator('[data-bot="Writer"] .bt-row').click()
    const line = page.getByTestId('bt-relay')
    await line.waitFor({ timeout: 30_000 })
    await expect(line.locator('header').textContent()).resolves.toContain('Message from Main')
    await expect(line.locator('.bt-body').textContent()).resolves.toContain('Please draft a haiku about tea.')
    await page.getByText('Here is the draft.').waitFor({ timeout: 30_000 })
    await shot(page, 'message-from')
    // The delivery log lists the exchange.
    await page.getByTestId('bt-delivery-log').click()
    const row = page.getByTestId('bt-log-table').locator('tbody tr').first()
    await row.waitFor()
    await expect(row.locator('td').nth(0).textContent()).resolves.toBe('Main')
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('Writer')
    await shot(page, 'delivery-log')
    await page.getByTestId('bt-log-dialog').getByRole('button', { name: 'Close' }).click()
    // The line opens the sender's chat.
    await line.getByTestId('bt-open-exchange').click()
    await page.getByTestId('bt-session-badge').getByText('Main', { exact: true }).waitFor()
  })

  it('shows Chinese strings under the Chinese locale', async () => {
    const context = await surface().browser.newContext({ locale: 'zh-CN' })
    const page = await context.newPage()
    await openDshWeb(page, surface().web.url)
    await page.getByRole('navigation', { name: 'Bot 团队' }).waitFor()
    await expect(page.getByTestId('bt-new-bot').textContent()).resolves.toBe('+ 新建 Bot')
    await expect(page.locator('[data-bot="Main"] [data-status]').textContent()).resolves.toBe('空闲')
    await shot(page, 'zh')
  })
})
