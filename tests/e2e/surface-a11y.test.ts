// e2e (DSH Web + Chromium + the packed bundle): axe-core over the plugin's own DOM on each screen
// of the team surface — the sidebar with a chat's badge, the Bot form, the delivery log, the memory
// panel, a secret card, the usage screen, team settings, this browser's pairing, the saved
// secrets, the task board and a task's detail: no serious or critical finding (the inbox with a
// question and its detail: tests/e2e/surface-inbox.test.ts). DSH's own DOM is not checked (its findings are not ours).
import { describe, expect, it } from 'vitest'
import { openDshWeb, secretAskingScript, sendInComposer, useSurface } from '../support/surface.ts'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'

const AXE = axeSource()

const surface = useSurface('surface-a11y', secretAskingScript)

describe('accessibility of the team surface (axe-core)', () => {
  it("has no serious or critical axe finding in the plugin's own DOM on each screen", async () => {
    const page = await surface().browser.newPage()
    const findings: Record<string, unknown> = {}
    const check = async (screen: string) => {
      const found = await pluginAxeFindings(page, AXE)
      if (found.length) findings[screen] = found
    }
    await openDshWeb(page, surface().web.url)
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

    await sendInComposer(page, 'we need a token to publish')
    await page.getByTestId('bt-secret-card').waitFor({ timeout: 30_000 })
    await page.locator('[data-bot="Main"] [data-status="idle"]').waitFor({ timeout: 30_000 })
    await check('secret card')

    await page.getByTestId('bt-usage').click()
    await page.getByTestId('bt-usage-table').waitFor({ timeout: 15_000 })
    await check('usage screen')
    await page.getByTestId('bt-usage-dialog').getByRole('button', { name: 'Close' }).click()

    await page.getByTestId('bt-settings').click()
    await page.getByTestId('bt-settings-running').waitFor()
    await check('team settings')
    await page.getByTestId('bt-settings-dialog').getByRole('button', { name: 'Close' }).click()

    await page.getByTestId('bt-pairing').click()
    await page.locator('#pairing-state[data-state="unpaired"]').waitFor()
    await check('this browser')
    await page.getByTestId('bt-pairing-dialog').getByRole('button', { name: 'Close' }).click()

    await page.getByTestId('bt-secrets').click()
    await page.getByTestId('bt-secrets-dialog').getByText('No secret is saved.').waitFor()
    await check('saved secrets')
    await page.getByTestId('bt-secrets-dialog').getByRole('button', { name: 'Close' }).click()

    // The board with a task in each of a few columns (planned by the person through the API).
    const token = await pairWithTerminalCode(surface().web)
    const plan = await fetch(`${surface().web.url}/bot-team/api/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token },
      body: JSON.stringify({
        tasks: [
          { key: 'a', title: 'Outline the note', brief: 'Outline it.', assignee: 'Main' },
          { title: 'Draft the note', brief: 'Draft it.', assignee: 'Main', blockedBy: ['a'] },
          { title: 'Pick a name', brief: 'Pick one.' },
        ],
      }),
    })
    expect(plan.status).toBe(201)
    await page.getByTestId('bt-tasks').click()
    await page.getByTestId('bt-board').locator('[data-task="task-2"]').waitFor()
    await check('task board')
    await page.getByTestId('bt-board').locator('[data-task="task-3"] button').click()
    await page.getByTestId('bt-task-detail').getByRole('button', { name: 'Assign', exact: true }).waitFor()
    await check('task detail')

    expect(findings).toEqual({})
  })
})
