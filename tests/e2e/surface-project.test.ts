// e2e (the dsh CLI, DSH Web, Chromium, the packed bundle, real git): a project task on the board.
// The person names a project and plans a project task with a check; the task Session commits in
// its own clone and submits, and the card shows its branch, commits and passed check; accepting
// merges it (the card's merge state and the integration log's line); Release from the paired page
// moves the target branch, while an unpaired page is told why it cannot; axe finds nothing serious
// on the board with its project panel. The plugin's clones live outside temp (`bot.worktrees` in
// the profile). Screenshot: .tmp/screenshots/board-project.png.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { lastToolResults, offersTool, type Script } from '../../scripts/scripted-model/format.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { launchChromium } from '../support/browser.ts'
import { homeWithBundle, startWeb, untilTeamReady, type WebProcess } from '../support/e2e.ts'
import { pairWithTerminalCode } from '../support/e2e-pairing.ts'
import { personParent, pluginParent } from '../support/git-project.ts'
import { openDshWeb } from '../support/surface.ts'
import { axeSource, pluginAxeFindings } from '../support/axe.ts'

const COMMIT = "git add -A && git -c user.name=Bot -c user.email=bot@example.com -c core.hooksPath=/dev/null commit -qm 'Add greet.js'"

/** A task Session writes greet.js and commits it in its clone, then submits; every other turn says ok. */
const script = (): Script => ({
  fallback: (req) => {
    if (!offersTool(req, 'submit_task')) return { text: 'ok' }
    const last = lastToolResults(req)
    if (last.some((r) => r.name === 'submit_task')) return { text: 'handed in' }
    if (last.some((r) => r.name === 'bash')) return { toolCalls: [{ name: 'submit_task', args: { note: 'greet.js committed' } }] }
    return { toolCalls: [{ name: 'bash', args: { command: `printf 'export const hi = 1\\n' > greet.js && ${COMMIT}`, description: 'write greet.js' } }] }
  },
})

let cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {})
  cleanup = []
})

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: cwd },
  }).trim()

describe('a project task on the board in DSH Web', () => {
  it('shows the branch, commits and check on its card, merges on accept with an integration log line, releases only from the paired page, with no serious axe finding', async () => {
    const model: ScriptedServer = await startScriptedServer(script())
    cleanup.push(() => model.close())
    const home = await homeWithBundle('surface-project', inject('bundleTarball'), [{ name: 'web' }])
    mkdirSync(pluginParent(), { recursive: true })
    const worktrees = mkdtempSync(path.join(pluginParent(), 'e2e-'))
    cleanup.push(async () => rmSync(worktrees, { recursive: true, force: true }))
    writeFileSync(path.join(home.home, 'profiles', 'web', 'cordis.patch.yml'), `- id: bot-team\n  config:\n    worktrees: ${JSON.stringify(worktrees)}\n`)
    const project = mkdtempSync(path.join(personParent(), 'bot-team-e2e-project-'))
    cleanup.push(async () => rmSync(project, { recursive: true, force: true }))
    git(project, 'init', '-q', '-b', 'main')
    writeFileSync(path.join(project, 'README.md'), '# greeting\n')
    git(project, 'add', '-A')
    git(project, '-c', 'user.name=Person', '-c', 'user.email=p@example.com', 'commit', '-qm', 'initial')
    const web: WebProcess = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'mock-key' })
    cleanup.push(() => web.stop())
    await untilTeamReady(web.url)
    const token = await pairWithTerminalCode(web)
    const call = (method: string, p: string, body: unknown) =>
      fetch(`${web.url}/bot-team/api${p}`, { method, headers: { 'content-type': 'application/json', 'x-bot-team-pairing': token }, body: JSON.stringify(body) })
    expect((await call('PUT', '/project', { path: project, branch: 'main' })).status).toBe(200)
    const plan = await call('POST', '/tasks', {
      tasks: [
        {
          title: 'Add greeting module',
          brief: 'Write greet.js and commit it.',
          assignee: 'Main',
          project: true,
          check: 'echo greet-checked; test -f greet.js',
        },
      ],
    })
    expect(plan.status).toBe(201)

    const browser = await launchChromium()
    cleanup.push(() => browser.close())
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } })
    const page = await context.newPage()
    await openDshWeb(page, web.url)
    await page.evaluate((t) => localStorage.setItem('bot-team:pairing-token', t), token)
    await page.goto(`${web.url}/?bt-board`)
    const board = page.getByTestId('bt-board')
    const card = board.locator('[data-column="review"] [data-task="task-1"]')
    await card.locator('[data-testid="bt-card-check"][data-check="passed"]').waitFor({ timeout: 60_000 })
    await card.getByTestId('bt-card-commits').waitFor()
    await expect(card.getByTestId('bt-card-branch').textContent()).resolves.toBe('team/task-1-add-greeting-module · commits: 1')
    await expect(card.getByTestId('bt-card-commits').textContent()).resolves.toMatch(/^[0-9a-f]{7} Add greet\.js$/)
    await expect(card.getByTestId('bt-card-check').textContent()).resolves.toMatch(/^check passed \(exit 0, /)
    await expect(card.getByTestId('bt-card-tail').textContent()).resolves.toBe('greet-checked')
    await expect(card.getByTestId('bt-card-merge').textContent()).resolves.toBe('not merged')
    // The board with its project panel and a project card: no serious or critical axe finding.
    await board.getByTestId('bt-project').waitFor()
    expect(await pluginAxeFindings(page, axeSource())).toEqual([])
    const shot = path.resolve('.tmp', 'screenshots', 'board-project.png')
    mkdirSync(path.dirname(shot), { recursive: true })
    await card.screenshot({ path: shot })
    console.log(`screenshot of a project task's card: ${shot}`)

    await card.locator('button.bt-card-open').click()
    const detail = page.getByTestId('bt-task-detail')
    await detail.getByRole('button', { name: 'Accept' }).click()
    await page.locator('[data-testid="bt-task-detail"][data-status="done"]').waitFor({ timeout: 30_000 })
    await detail.getByRole('button', { name: 'Close' }).click()
    const done = board.locator('[data-column="done"] [data-task="task-1"]')
    await done.locator('[data-testid="bt-card-merge"][data-merge="merged"]').waitFor({ timeout: 30_000 })
    const panel = board.getByTestId('bt-project')
    const logLine = panel.locator('[data-testid="bt-integration-log"] li[data-task="task-1"]')
    await logLine.waitFor({ timeout: 30_000 })
    const merge = await logLine.getAttribute('data-commit')
    await expect(done.getByTestId('bt-card-merge').textContent()).resolves.toBe(`merged at ${merge!.slice(0, 12)}`)
    await expect(logLine.textContent()).resolves.toContain('task-1 Add greeting module')

    // An unpaired page sees why it cannot release, and its button stays disabled.
    const stranger = await (await browser.newContext()).newPage()
    // DSH Web's first-visit notice does not come back for a second browser here: the board opens at once.
    await stranger.goto(`${web.url}/?bt-board`)
    await stranger.getByTestId('bt-release-unpaired').waitFor({ timeout: 30_000 })
    await stranger.locator('#bt-release-check').fill('test -f greet.js')
    await expect(stranger.getByTestId('bt-release').isDisabled()).resolves.toBe(true)
    expect(git(project, 'rev-parse', 'main')).not.toBe(merge)

    await panel.locator('#bt-release-check').fill('test -f greet.js')
    await panel.getByTestId('bt-release').click()
    await panel.getByTestId('bt-release-result').waitFor({ timeout: 60_000 })
    await expect(panel.getByTestId('bt-release-result').textContent()).resolves.toMatch(
      /^Released: main moved from [0-9a-f]{12} to [0-9a-f]{12} \(fast-forward\)\.$/,
    )
    expect(git(project, 'rev-parse', 'main')).toBe(merge)
    await panel.locator(`[data-testid="bt-project-target"][data-head="${merge}"]`).waitFor()
  })
})
