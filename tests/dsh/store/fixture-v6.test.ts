// The team folder release 09edfa6 saved (state v6, task ledger format 1, a named project) opens in
// this build and is used: every later state step and ledger format starts from these files
// (`docs/upgrades.md`), and each adds its own test here.
import { readFileSync, writeFileSync } from 'node:fs'
import path, { join } from 'node:path'
import { expect, it, onTestFinished } from 'vitest'
import { STATE_VERSION } from '../../../src/store/index.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { copyFixtureTeam } from '../../support/fixture-team.ts'
import { initProject, makeGitHome } from '../../support/git-project.ts'
import { tempDir } from '../../support/temp-dir.ts'
import { calm } from '../tasks/helpers.ts'

const track = disposedAfterEach()
const FIXTURE = 'team-v6-09edfa6'

it('opens the team 09edfa6 saved (state v6, ledger format 1): the Bots, the paused team, its schedule and usage settings hold, the inbox lists what waits, the project is the one named, and the team plans on after the person resumes', async () => {
  const g = makeGitHome()
  onTestFinished(() => g.cleanup())
  initProject(g)
  const home = tempDir('bot-team-fixture-v6-')
  copyFixtureTeam(FIXTURE, home, { project: g.project })
  const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home, config: { worktrees: path.dirname(g.pluginRoot) } }))
  expect(host.ctx.botStore.status().mode).toBe('writer')
  const roster = host.ctx.botRoster
  expect(roster.bots().map((b) => [b.id, b.name, b.main, b.permissionPreset])).toEqual([
    ['bot-1', 'Main', true, 'workspace-write'],
    ['bot-2', 'Ada', false, 'workspace-write'],
    ['bot-3', 'Dan', false, 'danger-full-access'],
    ['bot-4', 'Nix', false, 'workspace-write'],
  ])
  expect(roster.bot('bot-2')!.sessionParts.map((p) => p.sessionId)).toEqual(['session-v6-ada'])
  expect(host.ctx.botPause.isPaused()).toBe(true)
  expect(host.ctx.botSchedules.list().map((s) => [s.id, s.target, s.rule.kind])).toEqual([['schedule-1', { kind: 'bot', botId: 'bot-2' }, 'daily']])
  expect(host.ctx.botStore.state.usage?.caps?.team?.money).toBe(5)
  expect(host.ctx.botTasks.project()).toMatchObject({ path: g.project, branch: 'main' })
  // the ledger: eight tasks; the waiting approval and question are the person's
  await host.ctx.botTasks.settled()
  const board = host.ctx.botTasks.board
  expect([...board.all()].map((t) => [t.id, t.status])).toEqual([
    ['task-1', 'done'],
    ['task-2', 'ready'],
    ['task-3', 'ready'],
    ['task-4', 'done'],
    ['task-5', 'ready'],
    ['task-6', 'ready'],
    ['task-7', 'ready'],
    ['task-8', 'blocked'],
  ])
  expect(host.ctx.botTasks.inbox().map((t) => [t.id, t.ask?.kind])).toEqual([
    ['task-2', 'approval'],
    ['task-3', 'question'],
  ])
  // the team is usable: the person resumes it and plans a task; it is saved in this build's version
  await host.ctx.botPause.resume()
  const { ids } = await host.ctx.botTasks.plan({ kind: 'user' }, { tasks: [{ title: 'Write the changelog', brief: 'List the changes.', assignee: 'Ada' }] })
  expect(ids).toEqual(['task-9'])
  await calm(host)
  const saved = JSON.parse(readFileSync(join(home, 'bot', 'state.json'), 'utf8'))
  expect(saved.version).toBe(STATE_VERSION)
})

it("gives the 09edfa6 team's Bots their network levels — Dan (danger-full-access) full, Nix (switched off) none, the rest internet — and tells the person once, in the Main Bot's chat, with the reasons", async () => {
  const home = tempDir('bot-team-fixture-v6-net-')
  const dir = copyFixtureTeam(FIXTURE, home)
  // What the v8 step leaves for the person to be told (`migrationV7toV8`; the chain reaches it once v7 lands).
  const file = join(dir, 'state.json')
  const state = JSON.parse(readFileSync(file, 'utf8'))
  state.networkUpgrade = {
    at: state.writtenBy.at,
    bots: [
      { botId: 'bot-1', level: 'internet', why: 'default' },
      { botId: 'bot-2', level: 'internet', why: 'default' },
      { botId: 'bot-3', level: 'full', why: 'danger-full-access' },
      { botId: 'bot-4', level: 'none', why: 'no-network' },
    ],
  }
  writeFileSync(file, JSON.stringify(state))
  const notices = (h: { ctx: { agents: { get(id: unknown): { session: { events: readonly { type: string; data: unknown }[] } } | undefined } } }) =>
    (h.ctx.agents.get('session-v6-main')?.session.events ?? []).filter((e) => JSON.stringify(e.data).includes('"network-notice"'))
  const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home }))
  const roster = host.ctx.botRoster
  expect(roster.bots().map((b) => [b.name, roster.levelOfBot(b)])).toEqual([
    ['Main', 'internet'],
    ['Ada', 'internet'],
    ['Dan', 'full'],
    ['Nix', 'none'],
  ])
  await roster.ensureTeam()
  expect(host.ctx.botStore.state.networkUpgrade).toBeUndefined()
  const told = notices(host)
  expect(told).toHaveLength(1)
  expect(JSON.stringify(told[0]!.data)).toMatch(/Dan: full \(it runs at danger-full-access, unconfined\); Nix: none \(its network was switched off\)/)
  await host.dispose()
  const again = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home }))
  await again.ctx.botRoster.ensureTeam()
  expect(notices(again)).toHaveLength(0)
})
