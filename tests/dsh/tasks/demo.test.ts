// The offline demo model on real DSH in-process: told "make a plan to …", the Main Bot creates Scout
// (a non-Main Bot) and asks it to ask the person one question; the question waits in the inbox and
// nothing is planned until the person answers; the answer's turn has Scout tell Main, which plans
// three tasks in a row for itself (the answer in their briefs); its task Session hands the first in
// with submit_task; once the person accepts, the next starts and is handed in too. The greeting
// plan runs in the demo repository (real git) to two merges on the integration branch.
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { prepareDemoProject } from '../../../scripts/demo-project.ts'
import { demoReply } from '../../../scripts/demo-script.ts'
import { disposedAfterEach, prompt } from '../../support/dsh-host.ts'
import { type GitHome, makeGitHome, probeGit } from '../../support/git-project.ts'
import { calm, taskTeam, taskWhere, user } from './helpers.ts'

const track = disposedAfterEach()
let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})

it('the demo asks the person one question through Scout on "make a plan to …"; the answer starts a three-task plan that moves across the board', async () => {
  const { host } = await taskTeam([], {}, { main: demoReply })
  track(host)
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'make a plan to write a launch note')
  const question = await taskWhere(host, 'task-1', (t) => t.status === 'ready')
  const scout = host.ctx.botRoster.find('Scout')!
  expect(scout.main).toBeFalsy()
  expect(question).toMatchObject({
    assignee: { kind: 'user' },
    creator: { kind: 'bot', botId: scout.id },
    ask: { kind: 'question', question: 'Before I plan "write a launch note": which tone should it take?', choices: ['Friendly', 'Formal'] },
  })
  await calm(host)
  // Nothing is planned while the question waits.
  expect(host.ctx.botTasks.inbox().map((t) => t.id)).toEqual(['task-1'])
  expect(host.ctx.botTasks.board.get('task-2')).toBeUndefined()

  await host.ctx.botTasks.answer(user, 'task-1', { choice: 0 })
  const first = await taskWhere(host, 'task-2', (t) => t.status === 'review')
  expect(first).toMatchObject({ title: 'Outline: write a launch note', assignee: { kind: 'bot', botId: main.id } })
  expect(first.brief).toBe('Write a three-point outline for: write a launch note. The person answered: "Friendly".')
  expect(host.ctx.botTasks.board.get('task-3')).toMatchObject({ status: 'blocked', blockedBy: ['task-2'], title: 'Draft: write a launch note' })
  expect(host.ctx.botTasks.board.get('task-4')).toMatchObject({ status: 'blocked', blockedBy: ['task-3'] })
  expect(host.ctx.botTasks.inbox().map((t) => t.id)).toEqual([])
  await host.ctx.botTasks.review(user, 'task-2', 'accept')
  const second = await taskWhere(host, 'task-3', (t) => t.status === 'review')
  expect(second.artifacts.map((a) => a.value)).toEqual(['Done by the offline demo model.'])
  await calm(host)
})

it('the demo names its own repository as the project, and "make a plan to add a greeting module with tests" ends with both tasks merged on the integration branch', async () => {
  const g = makeGitHome()
  homes.push(g)
  expect(await prepareDemoProject(g.project, g.teamDir, g.forbidden)).toContain("is the team's project (branch main)")
  const worktrees = path.dirname(g.pluginRoot)
  const { host } = await taskTeam([], {}, { main: demoReply, shell: true, home: g.dshHome, config: { worktrees } })
  track(host)
  expect(host.ctx.botTasks.project()).toMatchObject({ branch: 'main' })
  const main = host.ctx.botRoster.bots().find((b) => b.main)!
  await prompt(host, await host.ctx.botRoster.agentOf(main.id), 'make a plan to add a greeting module with tests')
  const coder = host.ctx.botRoster.find('Coder')!
  const first = await taskWhere(host, 'task-1', (t) => t.status === 'done', 60_000)
  const second = await taskWhere(host, 'task-2', (t) => t.status === 'done', 60_000)
  for (const t of [first, second]) {
    expect(t.assignee).toEqual({ kind: 'bot', botId: coder.id })
    expect(t.history.some((h) => h.to === 'done' && h.actor.kind === 'bot' && h.actor.botId === main.id)).toBe(true)
    expect(t.worktree).toMatchObject({ merge: 'merged', check: { ok: true } })
  }
  expect(second.blockedBy).toEqual(['task-1'])
  await calm(host)
  const [root] = readdirSync(worktrees)
  const gitDir = path.join(worktrees, root!, 'integration.git')
  const files = (await probeGit(g).run(['ls-tree', '-r', '--name-only', 'team/integration'], { cwd: gitDir, gitDir })).stdout.trim().split('\n')
  expect(files.sort()).toEqual(['README.md', 'greeting.mjs', 'greeting.test.mjs'])
})
