// e2e (DSH Web + Chromium + the packed bundle): the person's inbox on the task board. A non-Main
// Bot's question (ask_person with choices) waits in the Inbox column with the sidebar's badge; an
// unpaired answer is refused on screen and changes nothing; the paired choice leaves the inbox and
// reaches the asking chat as a turn on the asking chain, not the person's; axe finds nothing serious
// on the inbox or the question's detail. A real DSH approval (a shell escalation in a Bot-started
// turn) waits as a card: Allow once runs one new turn whose call runs; Deny tells the Bot.
// Screenshot: .tmp/surface-inbox.png.
import { describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, offersTool } from '../../scripts/scripted-model/format.ts'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { answeredLastPrompt, api, sessionEvents, untilEvents } from '../support/e2e.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { openDshWeb, screenshot, useSurface } from '../support/surface.ts'

/** Scout's shell command that needs the person's approval (a sandbox escalation). */
const RELEASE = { command: 'echo released-by-scout', description: 'release', sandbox_permissions: 'danger-full-access', justification: 'the release needs it' }

const surface = useSurface('surface-inbox', () => ({
  fallback: (req) => {
    const said = lastUserText(req) ?? ''
    const results = lastToolResults(req)
    // Main passes the person's request on: Scout's turn is then Bot-started (nobody at its screen).
    if (said === 'tell Scout to release' && offersTool(req, 'message_bot'))
      return results.length
        ? { text: 'Passed on.' }
        : { toolCalls: [{ name: 'message_bot', args: { to: 'Scout', message: 'please release', reply_to: 'user' } }] }
    if (offersTool(req, 'ask_person') && (/please release/.test(said) || said.startsWith('The user allowed')))
      return results.some((r) => r.name === 'bash')
        ? { text: `bash said: ${results.at(-1)!.text.slice(0, 200)}` }
        : { toolCalls: [{ name: 'bash', args: RELEASE }] }
    if (said.startsWith('The user denied')) return { text: 'Understood, not releasing.' }
    if (said.startsWith('The user answered your question')) return { text: `Going with ${/: "([^"]+)"/.exec(said)?.[1] ?? '?'}.` }
    if (!offersTool(req, 'ask_person') || !/ask the person/.test(said)) return { text: 'ok' }
    if (lastToolResults(req).some((r) => r.name === 'ask_person')) return { text: 'I asked the person; waiting.' }
    return { toolCalls: [{ name: 'ask_person', args: { question: 'Which licence should the release use?', choices: ['MIT', 'Apache-2.0'] } }] }
  },
}))

const inboxIds = async (url: string) => ((await (await fetch(`${url}/bot-team/api/inbox`)).json()) as { items: { id: string }[] }).items.map((t) => t.id)

/** Pair, then create Scout (a non-Main Bot) from the paired client; the pairing token. */
async function withScout(url: string, token: string): Promise<string> {
  const created = await fetch(`${url}/bot-team/api/bots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
    body: JSON.stringify({ name: 'Scout' }),
  })
  expect(created.status).toBe(201)
  return token
}

describe("the person's inbox on the task board", () => {
  it("shows a non-Main Bot's question in the Inbox column with the badge, refuses an unpaired answer, and delivers the paired answer to the asking chat", async () => {
    const { web, browser } = surface()
    const token = await withScout(web.url, await pairWithTerminalCode(web))
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
    await expect(card.textContent()).resolves.toMatch(/^Which licence should the release use\?task-1 · asked by Scout$/)
    await screenshot(page, 'surface-inbox')
    const axe = axeSource()
    expect(await pluginAxeFindings(page, axe)).toEqual([])

    // Unpaired: the answer is refused where it was given, and the question still waits.
    await card.locator('button').click()
    const detail = page.getByTestId('bt-task-detail')
    const question = detail.getByTestId('bt-task-question')
    await expect(question.textContent()).resolves.toContain('Which licence should the release use?')
    expect(await pluginAxeFindings(page, axe)).toEqual([])
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
    // A plugin relay on the asking turn's chain (its hop and budget), not a turn the person opened.
    expect(answer[0].data.source).toMatchObject({ kind: 'plugin', plugin: 'bot-team', type: 'answer', taskId: 'task-1', hop: 0, mode: 'workspace-write' })
    expect(answer[0].data.source.budget).toMatch(new RegExp(`^budget:${scout.sessionId}#`))
    await context.close()
  })

  it('a call that needed approval in a Bot-started turn waits as an approval card; Allow once (paired) runs exactly one new turn that makes the call, Deny tells the Bot', async () => {
    const { web, browser } = surface()
    const token = await withScout(web.url, await pairWithTerminalCode(web))
    const sessions = (await api(web.url, 'session.list', {})).items
    const scout = sessions.find((s: any) => s.projections?.values?.title === 'Scout').sessionId
    const main = sessions.find((s: any) => s.projections?.values?.title === 'Main').sessionId
    // An escalation to danger-full-access runs unconfined: only Bots at `full` along the whole chain may ask for one.
    for (const bot of ['Main', 'Scout']) {
      const set = await fetch(`${web.url}/bot-team/api/bots/${bot}/network`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
        body: JSON.stringify({ level: 'full' }),
      })
      expect(set.status).toBe(200)
    }
    const released = (evs: any[]) => evs.filter((e) => e.type === 'tool/result' && JSON.stringify(e.data).includes('released-by-scout\\n')).length
    const ask = async (taskId: string) => {
      await api(web.url, 'session.prompt', { sessionId: main, mode: 'queue', content: [{ type: 'text', text: 'tell Scout to release' }] })
      for (let i = 0; i < 300 && !(await inboxIds(web.url)).includes(taskId); i++) await new Promise((r) => setTimeout(r, 100))
      expect(await inboxIds(web.url)).toEqual([taskId])
    }
    await ask('task-1')
    expect(released(await sessionEvents(web.url, scout))).toBe(0)

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    const page = await context.newPage()
    await openDshWeb(page, web.url)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await page.getByTestId('bt-tasks').click()
    const board = page.getByTestId('bt-board')
    const detail = page.getByTestId('bt-task-detail')
    await board.locator('[data-column="inbox"] [data-task="task-1"] button').click()
    const approval = detail.getByTestId('bt-task-approval')
    await expect(approval.textContent()).resolves.toContain('A Bot asks to run bash: escalate sandbox to danger-full-access: the release needs it')
    await expect(approval.locator('pre').textContent()).resolves.toContain('echo released-by-scout')
    const turnsBefore = (await sessionEvents(web.url, scout)).filter((e) => e.type === 'turn/start').length
    await approval.getByRole('button', { name: 'Allow once' }).click()
    await page.locator('[data-testid="bt-task-detail"][data-status="done"]').waitFor({ timeout: 15_000 })
    // One new turn in Scout's chat: the call is made again, allowed once, and runs.
    const after = await untilEvents(web.url, scout, (evs) => released(evs) === 1 && evs.at(-1)?.type === 'turn/end', 'the granted call')
    expect(after.filter((e) => e.type === 'turn/start').length).toBe(turnsBefore + 1)
    const granted = (await (await fetch(`${web.url}/bot-team/api/tasks/task-1`)).json()) as { task: any }
    expect(granted.task.ask).toMatchObject({ answer: { verdict: 'allowed' }, grant: { used: true } })
    await page.keyboard.press('Escape')

    // The same request again waits anew (a grant opens one call); Deny tells the Bot and runs nothing.
    await ask('task-2')
    await board.locator('[data-column="inbox"] [data-task="task-2"] button').click()
    await approval.getByRole('button', { name: 'Deny' }).click()
    await page.locator('[data-testid="bt-task-detail"][data-status="done"]').waitFor({ timeout: 15_000 })
    const denied = await untilEvents(
      web.url,
      scout,
      (evs) => evs.some((e) => e.type === 'assistant/message' && JSON.stringify(e.data).includes('Understood, not releasing.')),
      'the deny',
    )
    expect(released(denied)).toBe(1)
    expect(await inboxIds(web.url)).toEqual([])
    await context.close()
  })
})
