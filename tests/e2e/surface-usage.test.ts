// e2e (DSH Web + Chromium + the packed bundle): the usage screen inside DSH Web. After one turn of
// the Main Bot (the scripted model reports 1,234 uncached, 500 cached and 77 output tokens), the
// screen opened from the team sidebar shows Main's row by Bot with those tokens, its cost once
// prices are set, and a bar, and a "turn" row by purpose; today's section shows the team's cap;
// by group, a room's member turns show under the group's name (.tmp/surface-usage-group.png).
// Only the model is scripted.
import { describe, expect, it } from 'vitest'
import { api as dshApi } from '../support/e2e.ts'
import { openDshWeb, screenshot, sendInComposer, useSurface } from '../support/surface.ts'

const surface = useSurface('surface-usage', () => ({ fallback: () => ({ text: 'counted answer', usage: { input: 1234, cached: 500, output: 77 } }) }))

describe('the usage screen inside DSH Web', () => {
  it("shows the Main Bot's row with its turn's tokens and cost after a turn, by Bot and by purpose, today's cap, and a room's member turns by group", async () => {
    const page = await surface().browser.newPage()
    await openDshWeb(page, surface().web.url)
    await page.locator('[data-bot="Main"] .bt-row').click()
    await sendInComposer(page, 'hello')
    await page.getByText('counted answer').waitFor({ timeout: 30_000 })
    await page.locator('[data-bot="Main"] [data-status="idle"]').waitFor({ timeout: 30_000 })

    // Prices for the model the turn used (its route, from the ledger) and a team cap: the screen
    // then shows cost and the cap.
    const api = `${surface().web.url}/bot-team/api/usage`
    const routes = ((await (await fetch(`${api}?by=model`)).json()) as { rows: Array<{ key: string }> }).rows.map((r) => r.key)
    expect(routes.length).toBeGreaterThan(0)
    const prices = Object.fromEntries(routes.map((r) => [r, { input: 1000, cached: 100, output: 2000 }]))
    const put = await fetch(`${api}/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'USD', prices, caps: { team: { tokens: 1_000_000 } } }),
    })
    expect(put.status).toBe(200)

    // A group whose room the person writes in: its members' turns are the group's usage.
    const url = surface().web.url
    const post = (path: string, body: unknown) =>
      fetch(`${url}/bot-team/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect((await post('/bots', { name: 'Ada' })).status).toBe(201)
    // No admin (making a Bot admin needs a paired browser): in everyone mode each member answers.
    expect((await post('/groups', { name: 'Desk', members: ['Main', 'Ada'], mode: 'everyone' })).status).toBe(201)
    let room: string | undefined
    for (let i = 0; i < 100 && !room; i++) {
      room = ((await (await fetch(`${url}/bot-team/api/groups/Desk`)).json()) as { group: { roomSessionId?: string } }).group.roomSessionId
      if (!room) await new Promise((r) => setTimeout(r, 100))
    }
    expect(room).toBeDefined()
    await dshApi(url, 'session.prompt', { sessionId: room, mode: 'queue', content: [{ type: 'text', text: 'status?' }] })
    await expect
      .poll(async () => ((await (await fetch(`${api}?by=group`)).json()) as { rows: Array<{ key: string | null }> }).rows.some((r) => r.key !== null), {
        timeout: 30_000,
      })
      .toBe(true)

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
    // Cost: 1,234 × 1000 + 500 × 100 + 77 × 2000 per million = 1.438 USD for the turn's request, at least.
    const cost = /^(\d+\.\d{4}) USD$/.exec(cells[5]!)
    expect(cost).not.toBeNull()
    expect(Number(cost![1])).toBeGreaterThanOrEqual(1.438)
    await expect(dialog.getByTestId('bt-usage-today').textContent()).resolves.toMatch(/\/ 1,000,000/)

    await dialog.getByRole('button', { name: 'Purpose' }).click()
    await dialog.locator('tr[data-usage-row="turn"]').waitFor()
    await screenshot(page, 'surface-usage')

    // By group: a room's member turns under the group's name, the own chats apart.
    await dialog.getByRole('button', { name: 'Group' }).click()
    await dialog.locator('tr[data-usage-row="Desk"]').waitFor({ timeout: 15_000 })
    await dialog.locator('tr[data-usage-row="(own chats, no group)"]').waitFor()
    const desk = await dialog.locator('tr[data-usage-row="Desk"] td').allTextContents()
    expect(Number(desk[2]!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(1234)
    await expect(dialog.getByTestId('bt-usage-group-note').textContent()).resolves.toMatch(/A group's row counts its members' turns/)
    await screenshot(page, 'surface-usage-group')
    // Escape closes it, as the other dialogs.
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
  })
})
