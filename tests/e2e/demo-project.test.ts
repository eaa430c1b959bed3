// e2e (the offline demo's project in DSH Web): the demo's clone folder and repository set up the
// way `npm start` does it (`setUpDemo`), the demo model on loopback; "make a plan to add a greeting module with
// tests" in the Main Bot's chat runs both project tasks to merges, and no task clone becomes a
// workspace in the list DSH Web's session browser reads (`workspace.list`), nor shows a task Session.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, inject, it } from 'vitest'
import { setUpDemo } from '../../scripts/demo-project.ts'
import demoScript from '../../scripts/demo-script.ts'
import { startScriptedServer, type ScriptedServer } from '../../scripts/scripted-model/server.ts'
import { pluginParent } from '../support/git-project.ts'
import { api, homeWithBundle, startWeb, untilTeamReady, type E2eHome, type WebProcess } from '../support/e2e.ts'

let model: ScriptedServer
let web: WebProcess
let home: E2eHome
let beside: string

beforeEach(async () => {
  model = await startScriptedServer(demoScript)
  home = await homeWithBundle('demo-project', inject('bundleTarball'), [{ name: 'web' }])
  // The clones' folder must lie outside a shared temp folder, as a real install's data folder is (this repository's .tmp/ unless the checkout is in one).
  mkdirSync(pluginParent(), { recursive: true })
  beside = mkdtempSync(join(pluginParent(), 'demo-project-'))
  expect(await setUpDemo(home.home, beside)).toContain("is the team's project")
  web = await startWeb(home, { DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'offline-demo' })
  await untilTeamReady(web.url)
})
afterEach(async () => {
  await web?.stop()
  await model?.close()
  rmSync(beside, { recursive: true, force: true })
})

const board = async () => (await (await fetch(`${web.url}/bot-team/api/tasks`)).json()) as { tasks: any[] }

it("the greeting plan merges both project tasks in DSH Web, and no task clone is a workspace in DSH Web's list nor a visible Session", async () => {
  const sessions = (await api(web.url, 'session.list', {})).items
  const main = sessions.find((s: any) => s.projections?.values?.title === 'Main').sessionId
  await api(web.url, 'session.prompt', { sessionId: main, mode: 'queue', content: [{ type: 'text', text: 'make a plan to add a greeting module with tests' }] })
  let tasks: any[] = []
  for (let i = 0; i < 600 && !(tasks.length === 2 && tasks.every((t) => t.status === 'done')); i++) {
    await new Promise((r) => setTimeout(r, 200)) // polling DSH Web's board over HTTP: no event reaches this process
    tasks = (await board()).tasks
  }
  tasks.sort((a, b) => a.id.localeCompare(b.id))
  expect(tasks.map((t) => [t.title, t.status, t.worktree?.merge])).toEqual([
    ['Greeting module', 'done', 'merged'],
    ['Tests for the greeting module', 'done', 'merged'],
  ])
  const clones = realpathSync(join(beside, 'worktrees'))
  const list = await api(web.url, 'workspace.list', {})
  expect(list.items.map((w: any) => w.path).filter((p: string) => p.startsWith(clones))).toEqual([])
  const taskSessions = tasks.map((t) => t.sessionId)
  for (const sid of taskSessions) expect(list.archivedSessionIds).toContain(sid)
  for (const w of list.items) for (const sid of taskSessions) expect(w.sessionIds).not.toContain(sid)
})
