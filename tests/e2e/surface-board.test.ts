// e2e (DSH Web + Chromium + the packed bundle): the task board inside DSH Web. The person plans
// three tasks through the tasks API (a paired client); the board opened from the team sidebar shows
// them by status, the first moving to Review once its task Session hands it in, the second blocked
// behind it; the sidebar's badge counts the review waiting for the person. The detail shows the
// brief, history, artifacts and the task Session's transcript read-only; accepting from an unpaired
// browser is refused on screen and changes nothing; once paired, accepting moves the next task
// across the board and the opt-in notification fires. Screenshots: .tmp/surface-board.png,
// .tmp/surface-task-detail.png. Only the model is scripted.
import { describe, expect, it } from 'vitest'
import { lastToolResults, offersTool } from '../../scripts/scripted-model/format.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { openDshWeb, screenshot, useSurface } from '../support/surface.ts'

const surface = useSurface('surface-board', () => ({
  fallback: (req) => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    if (lastToolResults(req).length) return { text: 'handed in' }
    return { toolCalls: [{ name: 'submit_task', args: { note: 'outline written', artifacts: [{ kind: 'file', value: 'notes/outline.md' }] } }] }
  },
}))

describe('the task board inside DSH Web', () => {
  it('shows planned tasks moving across the columns, a detail with history and transcript, refuses an unpaired accept and moves the next task once accepted', async () => {
    const { web, browser } = surface()
    const token = await pairWithTerminalCode(web)
    const plan = await fetch(`${web.url}/bot-team/api/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
      body: JSON.stringify({
        tasks: [
          {
            key: 'outline',
            title: 'Outline the launch note',
            brief: 'Write a three-point outline of the launch note.',
            acceptance: 'Three points.',
            assignee: 'Main',
          },
          { key: 'draft', title: 'Draft the launch note', brief: 'Draft the note from the outline.', assignee: 'Main', blockedBy: ['outline'] },
          { title: 'Pick a name', brief: 'Pick a name for the release.' },
        ],
      }),
    })
    expect(plan.status).toBe(201)
    expect(((await plan.json()) as { ids: string[] }).ids).toEqual(['task-1', 'task-2', 'task-3'])

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    await context.grantPermissions(['notifications'])
    // Notifications shown by the page, recorded (the browser's own still shows them).
    await context.addInitScript(() => {
      const g = globalThis as any
      const Native = g.Notification
      g.__notes = []
      g.Notification = class extends Native {
        constructor(title: string, options?: { body?: string }) {
          super(title, options)
          g.__notes.push(`${title}: ${options?.body ?? ''}`)
        }
      }
    })
    const page = await context.newPage()
    await openDshWeb(page, web.url)
    // task-1 is handed in by its task Session: it waits for the person's review (the badge).
    await page.locator('[data-testid="bt-tasks-waiting"][data-count="1"]').waitFor({ timeout: 30_000 })
    await page.getByTestId('bt-tasks').click()
    const board = page.getByTestId('bt-board')
    await board.locator('[data-column="review"] [data-task="task-1"]').waitFor({ timeout: 30_000 })
    await board.locator('[data-column="blocked"] [data-task="task-2"]').waitFor()
    await board.locator('[data-column="ready"] [data-task="task-3"]').waitFor()
    await expect(board.locator('[data-task="task-2"]').textContent()).resolves.toContain('after task-1')
    await expect(board.locator('[data-task="task-1"]').textContent()).resolves.toMatch(/Main · attempts 1 · [\d.]+k? tokens/)
    await expect(board.locator('[data-column="inbox"]').textContent()).resolves.toContain('Nothing waits for you here.')
    await screenshot(page, 'surface-board')
    // The opt-in notification, on before anything new waits.
    await board.getByTestId('bt-notify').click()
    await board.locator('[data-testid="bt-notify"][aria-pressed="true"]').waitFor()

    // The detail: brief, acceptance, history, artifacts, and the task Session's transcript.
    await board.locator('[data-task="task-1"] button').click()
    const detail = page.getByTestId('bt-task-detail')
    await expect(detail.getByTestId('bt-task-brief').textContent()).resolves.toBe('Write a three-point outline of the launch note.')
    await expect(detail.getByTestId('bt-task-history').textContent()).resolves.toMatch(/created[\s\S]*claimed[\s\S]*submitted/)
    await expect(detail.getByTestId('bt-task-artifacts').textContent()).resolves.toContain('file: notes/outline.md')
    await detail.getByTestId('bt-task-transcript').click()
    const transcript = detail.getByRole('list', { name: 'Transcript (read-only)' })
    await transcript.locator('li[data-who="task"]').waitFor()
    await expect(transcript.locator('li[data-who="task"]').first().textContent()).resolves.toContain('Write a three-point outline of the launch note.')
    await expect(transcript.locator('li[data-who="bot"]').last().textContent()).resolves.toContain('handed in')
    await screenshot(page, 'surface-task-detail')

    // Unpaired: the accept is refused where it was asked, and nothing changes.
    await detail.getByRole('button', { name: 'Accept' }).click()
    await expect(detail.getByTestId('bt-task-error').textContent()).resolves.toMatch(/pair/i)
    await detail.getByRole('button', { name: 'Pair this browser' }).waitFor()
    expect(((await (await fetch(`${web.url}/bot-team/api/tasks/task-1`)).json()) as { task: { status: string } }).task.status).toBe('review')

    // Paired (the token this browser would keep): accept moves task-2 on, and the notification fires.
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await detail.getByRole('button', { name: 'Accept' }).click()
    await page.locator('[data-testid="bt-task-detail"][data-status="done"]').waitFor({ timeout: 15_000 })
    await page.keyboard.press('Escape')
    await detail.waitFor({ state: 'detached' })
    await board.locator('[data-column="done"] [data-task="task-1"]').waitFor({ timeout: 15_000 })
    await board.locator('[data-column="review"] [data-task="task-2"]').waitFor({ timeout: 30_000 })
    await expect.poll(() => page.evaluate(() => (globalThis as any).__notes as string[]), { timeout: 15_000 }).toContain('Bot team: Tasks waiting for you: 1.')

    // Assign the unassigned task to Main from its detail: it starts and is handed in too.
    await board.locator('[data-task="task-3"] button').click()
    await detail.getByLabel('Assign to').selectOption({ label: 'Main' })
    await detail.getByRole('button', { name: 'Assign', exact: true }).click()
    await board.locator('[data-column="review"] [data-task="task-3"]').waitFor({ timeout: 30_000 })
    await context.close()
  })
})
