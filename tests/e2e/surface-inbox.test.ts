// e2e (DSH Web + Chromium + the packed bundle): the person's inbox on the task board. A non-Main
// Bot's scripted model calls ask_person with choices; the question's card waits in the board's
// Inbox column and the sidebar's badge counts it; an unpaired browser's answer is refused on screen
// and changes nothing; once paired, the person picks a choice, the card leaves the inbox and the
// asking Bot's chat gets the answer as a turn that is not the person's (read through DSH's /api).
// Axe finds nothing serious on the inbox screen. Screenshot: .tmp/surface-inbox.png.
import { describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool } from '../../scripts/scripted-model/format.ts'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { answeredLastPrompt, api, untilEvents } from '../support/e2e.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { openDshWeb, screenshot, useSurface } from '../support/surface.ts'

const surface = useSurface('surface-inbox', () => ({
  fallback: (req) => {
    const said = lastUserText(req) ?? ''
    if (said.startsWith('The user answered your question')) return { text: `Going with ${/: "([^"]+)"/.exec(said)?.[1] ?? '?'}.` }
    if (!offersTool(req, 'ask_person') || !/ask the person/.test(said)) return { text: 'ok' }
    if (lastToolResults(req).some((r) => r.name === 'ask_person')) return { text: 'I asked the person; waiting.' }
    return { toolCalls: [{ name: 'ask_person', args: { question: 'Which licence should the release use?', choices: ['MIT', 'Apache-2.0'] } }] }
  },
}))

const inboxIds = async (url: string) => ((await (await fetch(`${url}/bot-team/api/inbox`)).json()) as { items: { id: string }[] }).items.map((t) => t.id)

describe("the person's inbox on the task board", () => {
  it("shows a non-Main Bot's question in the Inbox column with the badge, refuses an unpaired answer, and delivers the paired answer to the asking chat", async () => {
    const { web, browser } = surface()
    const token = await pairWithTerminalCode(web)
    const created = await fetch(`${web.url}/bot-team/api/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
      body: JSON.stringify({ name: 'Scout' }),
    })
    expect(created.status).toBe(201)
    const scout = (await api(web.url, 'session.list', {})).items.find((s: any) => s.projections?.values?.title === 'Scout')
    await api(web.url, 'session.prompt', { sessionId: scout.sessionId, mode: 'queue', content: [{ type: 'text', text: 'ask the person about the licence' }] })
    await untilEvents(web.url, scout.sessionId, answeredLastPrompt, "Scout's question turn")
    expect(await inboxIds(web.url)).toEqual(['task-1'])

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    const page = await context.newPage()
    await openDshWeb(page, web.url)
    await page.locator('[data-testid="bt-tasks-waiting"][data-count="1"]').waitFor({ timeout: 30_000 })
    await page.getByTestId('bt-tasks').click()
    const board = page.getByTestId('bt-board')
    const card = board.locator('[data-column="inbox"] [data-task="task-1"]')
    await card.waitFor({ timeout: 30_000 })
    await expect(card.textContent()).resolves.toContain('Which licence should the release use?')
    await screenshot(page, 'surface-inbox')
    expect(await pluginAxeFindings(page, axeSource())).toEqual([])

    // Unpaired: the answer is refused where it was given, and the question still waits.
    await card.locator('button').click()
    const detail = page.getByTestId('bt-task-detail')
    const question = detail.getByTestId('bt-task-question')
    await expect(question.textContent()).resolves.toContain('Which licence should the release use?')
    await question.getByRole('button', { name: 'Apache-2.0' }).click()
    await expect(detail.getByTestId('bt-task-error').textContent()).resolves.toMatch(/pair/i)
    await detail.getByRole('button', { name: 'Pair this browser' }).waitFor()
    expect(await inboxIds(web.url)).toEqual(['task-1'])

    // Paired (the token this browser would keep): the choice answers it, and the card leaves the inbox.
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await question.getByRole('button', { name: 'Apache-2.0' }).click()
    await page.locator('[data-testid="bt-task-detail"][data-status="done"]').waitFor({ timeout: 15_000 })
    await page.keyboard.press('Escape')
    await board.locator('[data-column="done"] [data-task="task-1"]').waitFor({ timeout: 15_000 })
    await expect(board.locator('[data-column="inbox"]').textContent()).resolves.toContain('Nothing waits for you here.')
    await page.getByTestId('bt-tasks-waiting').waitFor({ state: 'detached', timeout: 15_000 })
    expect(await inboxIds(web.url)).toEqual([])

    // The asking chat gets the answer as a turn of its own (not one the person opened), and reads it.
    const events = await untilEvents(
      web.url,
      scout.sessionId,
      (evs) => evs.some((e) => e.type === 'assistant/message' && JSON.stringify(e.data).includes('Going with Apache-2.0.')),
      "Scout's answer turn",
    )
    const answer = events.filter((e) => e.type === 'user/message' && JSON.stringify(e.data).includes('The user answered your question task-1'))
    expect(answer).toHaveLength(1)
    expect(answer[0].data.source?.kind).not.toBe('user')
    await context.close()
  })
})
