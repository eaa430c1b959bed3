// The team folder release 09edfa6 saved (state v6, task ledger format 1, a named project) opens in
// this build and is used: every later state step and ledger format starts from these files
// (`docs/upgrades.md`), and each adds its own test here.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path, { join } from 'node:path'
import { expect, it, onTestFinished } from 'vitest'
import { lastToolResults, lastUserText, type RecordedRequest, type Reply } from '../../../scripts/scripted-model/format.ts'
import { readSource } from '../../../src/core/sources.ts'
import { STATE_VERSION } from '../../../src/store/index.ts'
import { TASKS_FORMAT } from '../../../src/tasks/journal.ts'
import { disposedAfterEach, registerApprovalTool, startTeamHost } from '../../support/dsh-host.ts'
import { copyFixtureTeam } from '../../support/fixture-team.ts'
import { initProject, makeGitHome } from '../../support/git-project.ts'
import { tempDir } from '../../support/temp-dir.ts'
import { calm, user } from '../tasks/helpers.ts'

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

it('upgrades the 09edfa6 ledger (format 1) to format 2 and uses it: the unused grant of task-1 comes back cancelled, its queued grant turn becomes a turn saying so, and the call made again waits for approval instead of running', async () => {
  const g = makeGitHome()
  onTestFinished(() => g.cleanup())
  initProject(g)
  const home = tempDir('bot-team-fixture-v6-ledger-')
  copyFixtureTeam(FIXTURE, home, { project: g.project })
  // Ada makes the call again when told the allow no longer holds.
  const ada = (req: RecordedRequest): Reply =>
    /no longer holds/.test(lastUserText(req) ?? '') && lastToolResults(req).length === 0
      ? { toolCalls: [{ name: 'needs_approval', args: { path: 'a.txt', description: 'again' } }] }
      : { text: 'ok' }
  const host = track(
    await startTeamHost(
      { mock: { fallback: { text: 'ok' } }, ada: { fallback: ada } },
      { home, permissions: true, config: { worktrees: path.dirname(g.pluginRoot) } },
    ),
  )
  registerApprovalTool(host)
  const tasks = host.ctx.botTasks
  await tasks.settled()
  // the grant the person gave under format 1 is cancelled, said in its history; nothing else of task-1 changed
  const t1 = tasks.board.get('task-1')!
  expect(t1).toMatchObject({
    status: 'done',
    ask: {
      answer: { verdict: 'allowed' },
      grant: { used: false, cancelled: { reason: expect.stringMatching(/^it was allowed before the plugin recorded which Session and attempt asked/) } },
    },
  })
  expect(t1.history.at(-1)).toMatchObject({ what: 'grant-cancelled', actor: { kind: 'system' }, from: 'done', to: 'done' })
  // the queued grant turn is replaced by one without the grant (task-4's queued answer is untouched)
  const answers = tasks.store.pending().filter((i) => i.kind === 'answer')
  expect(answers.map((i) => [i.taskId, 'grant' in i])).toEqual([
    ['task-4', false],
    ['task-1', false],
  ])
  expect(answers[1]!.text).toMatch(/^The user's allow of needs_approval \(call call_0_0\) with .* \(task-1\) no longer holds: /)
  // the files are format 2 now
  const dir = join(home, 'bot', 'tasks')
  for (const file of ['snapshot.jsonl', 'journal.jsonl']) expect(JSON.parse(readFileSync(join(dir, file), 'utf8').split('\n')[0]!).v).toBe(TASKS_FORMAT)
  expect(TASKS_FORMAT).toBe(2)
  // the person resumes the team: Ada reads both answers; the call she makes again waits for approval, it does not run
  await host.ctx.botPause.resume()
  await calm(host)
  const chat = host.ctx.agents.list().find((a) => String(a.id) === 'session-v6-ada')!
  const opened = (chat.session.events as any[]).filter((e) => e.type === 'user/message' && readSource(e.data.source)?.type === 'answer')
  expect(opened.map((e) => readSource(e.data.source))).toEqual([
    expect.objectContaining({ taskId: 'task-4' }),
    expect.not.objectContaining({ grant: expect.anything() }),
  ])
  expect((chat.session.events as any[]).filter((e) => e.type === 'approval/decided').map((e) => e.data.outcome)).toEqual(['rejected'])
  expect(tasks.inbox().map((t) => [t.id, t.ask?.approval?.args])).toEqual([
    ['task-2', '{"path":"b.txt","description":"second"}'],
    ['task-3', undefined],
    ['task-9', '{"path":"a.txt","description":"again"}'],
  ])
  expect(tasks.board.get('task-9')!.ask).toMatchObject({ botId: 'bot-2', sessionId: 'session-v6-ada' })
  expect(tasks.board.get('task-1')!.ask!.grant).toMatchObject({ used: false })
})

it('holds the project 09edfa6 named in a shared temporary folder (state v7): listed with the held settings, no project task is planned or dispatched from it, confirming it is refused while it lies there, and naming one elsewhere settles it', async () => {
  // The person's repository where every Bot at workspace-write may write (the OS temp folder).
  const repo = tempDir('bot-team-v6-project-in-tmp-')
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: repo, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    })
  git('init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\n')
  git('add', '-A')
  git('-c', 'user.name=P', '-c', 'user.email=p@example.com', 'commit', '-qm', 'initial')
  const g = makeGitHome()
  onTestFinished(() => g.cleanup())
  initProject(g)
  const home = tempDir('bot-team-fixture-v6-held-')
  copyFixtureTeam(FIXTURE, home, { project: repo })
  const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home, config: { worktrees: path.dirname(g.pluginRoot) } }))
  const tasks = host.ctx.botTasks
  await tasks.settled()
  const held = tasks.heldProject()
  expect(held).toMatchObject({
    why: 'upgrade',
    kind: 'project',
    path: repo,
    branch: 'main',
    problem: expect.stringMatching(/lies inside a shared temporary folder/),
  })
  expect(host.ctx.botRoster.held().map((h) => h.kind)).toContain('project')
  expect(tasks.project()).toBeNull()
  await host.ctx.botPause.resume()
  await expect(tasks.plan(user, { tasks: [{ title: 'Edit', brief: 'b', assignee: 'Ada', project: true }] })).rejects.toThrow(
    /project .* is held until the person names it again/,
  )
  await calm(host)
  // task-7 (a project task) waits: no clone, no attempt
  expect(tasks.board.get('task-7')).toMatchObject({ status: 'ready', attempts: [] })
  await expect(tasks.settleHeldProject(user, held!.id, true)).rejects.toThrow(/lies inside a shared temporary folder/)
  expect(tasks.heldProject()).toBeDefined()
  // Naming another repository needs the open project tasks gone; then the hold is settled.
  await tasks.cancel(user, 'task-8', 'moving the project')
  await tasks.cancel(user, 'task-7', 'moving the project')
  await tasks.setProject(user, { path: g.project, branch: 'main' })
  expect(tasks.heldProject()).toBeUndefined()
  expect(host.ctx.botRoster.held().map((h) => h.kind)).not.toContain('project')
  expect(tasks.project()).toMatchObject({ path: g.project })
})

it("gives the 09edfa6 team's Bots their network levels through the state chain (v6 → v7 → v8) — Dan (danger-full-access) full, Nix (switched off) none, the rest internet — and tells the person once, in the Main Bot's chat, with the reasons", async () => {
  const home = tempDir('bot-team-fixture-v6-net-')
  const dir = copyFixtureTeam(FIXTURE, home)
  const notices = (h: { ctx: { agents: { get(id: unknown): { session: { events: readonly { type: string; data: unknown }[] } } | undefined } } }) =>
    (h.ctx.agents.get('session-v6-main')?.session.events ?? []).filter((e) => JSON.stringify(e.data).includes('"network-notice"'))
  const host = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home }))
  const roster = host.ctx.botRoster
  expect(roster.bots().map((b) => [b.name, b.network, roster.levelOfBot(b)])).toEqual([
    ['Main', 'internet', 'internet'],
    ['Ada', 'internet', 'internet'],
    ['Dan', 'full', 'full'],
    ['Nix', 'none', 'none'],
  ])
  await roster.ensureTeam()
  expect(host.ctx.botStore.state.networkUpgrade).toBeUndefined()
  const told = notices(host)
  expect(told).toHaveLength(1)
  expect(JSON.stringify(told[0]!.data)).toMatch(/Dan: full \(it runs at danger-full-access, unconfined\); Nix: none \(its network was switched off\)/)
  // saved at v8: every Bot's level is in the file, `noNetwork` gone
  const saved = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))
  expect(saved.version).toBe(8)
  expect(
    Object.values(saved.bots as Record<string, { name: string; network?: string; noNetwork?: boolean }>).map((b) => [b.name, b.network, b.noNetwork]),
  ).toEqual([
    ['Main', 'internet', undefined],
    ['Ada', 'internet', undefined],
    ['Dan', 'full', undefined],
    ['Nix', 'none', undefined],
    ['Old', 'internet', undefined],
  ])
  await host.dispose()
  const again = track(await startTeamHost({ mock: { fallback: { text: 'ok' } } }, { home }))
  await again.ctx.botRoster.ensureTeam()
  expect(notices(again)).toHaveLength(0)
})
