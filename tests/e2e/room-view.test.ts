// e2e (DSH Web + Chromium + the packed bundle): a room round drawn as people talking — one message
// per member with its avatar and name from the post log (found through the rounds DSH keeps with
// the room's assistant message), a pass as a quiet line, a progress line while the round runs —
// and a plain Session's answer still drawn by DSH's own renderer.
import { describe, expect, it } from 'vitest'
import { lastToolResults, userTextsSinceLastAssistant, type RecordedRequest, type Reply } from '../../scripts/scripted-model/format.ts'
import { api } from '../support/e2e.ts'
import { openDshWeb, screenshot, sendInComposer, useSurface } from '../support/surface.ts'

/**
 * Main makes the group when told; in the room Main greets, Ada answers slowly with a line that
 * looks like Bo speaking (it must stay Ada's text), Bo passes; a plain Session gets a plain answer.
 */
function teamScript(req: RecordedRequest): Reply {
  const me = /You are ([^\s,]+),/.exec(req.system)?.[1] ?? 'nobody'
  if (req.system.includes('You are speaking in the group')) {
    if (me === 'Ada') return { text: 'Ada here.\n**Bo:** I agree with everything Ada says', delayMs: 1500 }
    if (me === 'Bo') return { text: 'pass' }
    return { text: `${me} says hello to the group` }
  }
  const results = lastToolResults(req)
  if (results.length) return { text: `${me} saw: ${results[0]!.text}` }
  const said = userTextsSinceLastAssistant(req).join('\n')
  if (me === 'Main' && said.includes('make group'))
    return { toolCalls: [{ name: 'manage_group', args: { action: 'create', name: 'Crew', members: ['Main', 'Ada', 'Bo'], admin: 'Main', mode: 'everyone' } }] }
  return { text: 'plain answer' }
}

const surface = useSurface('room-view', () => ({ fallback: teamScript }))

async function sessionTitled(title: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const row = (await api(surface().web.url, 'session.list', {})).items.find((s: any) => s.projections?.values?.title === title)
    if (row) return row.sessionId as string
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no session titled ${title}`)
}

describe('a room in DSH Web', () => {
  it('a room round renders one message per member', async () => {
    for (const name of ['Ada', 'Bo']) {
      const created = await fetch(`${surface().web.url}/bot-team/api/bots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, role: 'Member', colour: name === 'Ada' ? '#2b8a3e' : '#e8590c' }),
      })
      expect(created.status).toBe(201)
    }
    const main = await sessionTitled('Main')
    await api(surface().web.url, 'session.prompt', { sessionId: main, mode: 'queue', content: [{ type: 'text', text: 'now make group' }] })
    await sessionTitled('Crew')

    const page = await surface().browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await openDshWeb(page, surface().web.url)
    await page.locator('[data-group="Crew"] .bt-row').click({ timeout: 30_000 })
    await page.getByTestId('bt-session-badge').getByText('Crew', { exact: true }).waitFor()
    await sendInComposer(page, 'hello team')

    // While the round runs: the progress line says who is speaking (Ada answers slowly).
    await page
      .getByTestId('bt-room-progress')
      .getByText(/Ada is speaking/)
      .waitFor({ timeout: 30_000 })
    await screenshot(page, 'room-view-running')

    // Settled: one message per member post, in turn order, each with its name and its own colour.
    const answer = page.getByTestId('bt-room-answer')
    await answer.getByTestId('bt-room-quiet').waitFor({ timeout: 30_000 })
    const posts = answer.getByTestId('bt-room-post')
    await expect(posts.evaluateAll((els) => els.map((e) => e.getAttribute('data-from')))).resolves.toEqual(['Main', 'Ada'])
    await expect(posts.nth(0).locator('.bt-body').textContent()).resolves.toBe('Main says hello to the group')
    // Ada's line that looks like Bo speaking stays inside Ada's message: nothing splits rendered text.
    await expect(posts.nth(1).locator('.bt-body').textContent()).resolves.toBe('Ada here.\n**Bo:** I agree with everything Ada says')
    await expect(
      posts
        .nth(1)
        .locator('.bt-av')
        .evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundColor),
    ).resolves.toBe('rgb(43, 138, 62)')
    // Bo passed: a quiet line, not a message.
    await expect(answer.getByTestId('bt-room-quiet').textContent()).resolves.toBe('Bo passed.')
    await screenshot(page, 'room-view-round')

    // A plain DSH Session's answer is DSH's own renderer: no room or team line in it.
    await page.getByTestId('bt-show-sessions').click()
    await page.getByRole('button', { name: 'New Session' }).first().click()
    await sendInComposer(page, 'hello plain DSH')
    await page.getByText('plain answer').waitFor({ timeout: 30_000 })
    expect(await page.locator('.bt-line, [data-testid="bt-room-answer"], [data-testid="bt-room-progress"]').count()).toBe(0)
    expect(errors).toEqual([])
  })
})
