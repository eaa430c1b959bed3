// Project tasks on the real DSH core and real git: each attempt runs in the task's own clone (its
// Session's working folder) on `team/<id>-<slug>`; accepting merges the branch into the
// integration branch, so a dependent task's clone starts from a head holding its blocker's work;
// a conflict sends the task back with the paths and both commits; an ended task's clone goes.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { lastToolResults, lastUserText, type RecordedRequest, type Reply, type Rule } from '../../../scripts/scripted-model/format.ts'
import { type DshHost, prompt } from '../../support/dsh-host.ts'
import { type GitHome, initProject, makeGitHome, probeGit } from '../../support/git-project.ts'
import { calm, taskTeam, taskWhere, user } from './helpers.ts'
import { COMMIT, projectTeamOf, works } from './project-helpers.ts'

let hosts: DshHost[] = []
let homes: GitHome[] = []
let cleanups: (() => void)[] = []
afterEach(async () => {
  for (const h of hosts) await h.dispose()
  for (const h of homes) h.cleanup()
  for (const c of cleanups) c()
  hosts = []
  homes = []
  cleanups = []
})

const projectTeam = (rules: Record<string, Rule>, home?: string) => projectTeamOf(rules, { homes, hosts }, home)

const integration = (worktrees: string) => {
  const [root] = readdirSync(worktrees)
  return path.join(worktrees, root!, 'integration.git')
}

describe('project tasks', () => {
  it('work in their own clones on their own branches; accepting merges, and the dependent task starts from the merged head', async () => {
    const { g, host, worktrees } = await projectTeam({
      Ada: works(`printf 'export const hi = 1\\n' > greet.js && ${COMMIT} && pwd && git branch --show-current`),
      Bob: works(`cat greet.js && printf 'test\\n' > greet.test.js && ${COMMIT} && pwd`),
    })
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [
        { key: 'mod', title: 'Add greeting module', brief: 'Write greet.js.', assignee: 'Ada', project: true },
        { title: 'Test greeting', brief: 'Test it.', assignee: 'Bob', blockedBy: ['mod'], project: true },
      ],
    })
    const a = await taskWhere(host, ids[0]!, (t) => t.status === 'review')
    expect(a.worktree).toMatchObject({ project: g.project, branch: 'team/task-1-add-greeting-module', merge: 'none' })
    const clone = path.join(worktrees, path.basename(path.dirname(integration(worktrees))), 'clones', 'task-1')
    expect(a.artifacts.at(-1)!.value).toContain(`${clone}\nteam/task-1-add-greeting-module`)
    await host.ctx.botTasks.review(user, ids[0]!, 'accept')
    expect(host.ctx.botTasks.board.get(ids[0]!)).toMatchObject({ status: 'done', worktree: { merge: 'merged' } })
    const b = await taskWhere(host, ids[1]!, (t) => t.status === 'review')
    // Bob's clone is his own folder and started from the integration head holding Ada's merge.
    expect(b.artifacts.at(-1)!.value).toContain('export const hi = 1')
    expect(b.artifacts.at(-1)!.value).toContain(path.join(path.dirname(clone), 'task-2'))
    await host.ctx.botTasks.review(user, ids[1]!, 'accept')
    await host.ctx.botTasks.settled()
    const git = probeGit(g)
    const gitDir = integration(worktrees)
    const files = (await git.run(['ls-tree', '-r', '--name-only', 'team/integration'], { cwd: gitDir, gitDir })).stdout.split('\n')
    expect(files).toEqual(expect.arrayContaining(['greet.js', 'greet.test.js', 'src/a.txt']))
    expect(existsSync(clone)).toBe(false)
    expect(existsSync(path.join(path.dirname(clone), 'task-2'))).toBe(false)
  })

  it('sends a task whose merge conflicts back to its assignee with the paths and both commits', async () => {
    const { host } = await projectTeam({
      Ada: works(`printf 'ada\\n' > src/a.txt && ${COMMIT}`),
      Bob: works(`printf 'bob\\n' > src/a.txt && ${COMMIT}`),
    })
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [
        { title: 'Ada edits a', brief: 'x', assignee: 'Ada', project: true },
        { title: 'Bob edits a', brief: 'x', assignee: 'Bob', project: true },
      ],
    })
    await taskWhere(host, ids[0]!, (t) => t.status === 'review')
    await taskWhere(host, ids[1]!, (t) => t.status === 'review')
    await host.ctx.botTasks.review(user, ids[0]!, 'accept')
    const [back] = await host.ctx.botTasks.review(user, ids[1]!, 'accept')
    expect(back!.worktree).toMatchObject({ merge: 'conflict' })
    const rejected = back!.attempts.find((x) => x.outcome === 'rejected')!
    expect(rejected.reason).toMatch(/conflicts in src\/a\.txt\. Integration head [0-9a-f]{40}, your head [0-9a-f]{40}\./)
    expect(back!.assignee).toEqual({ kind: 'bot', botId: host.ctx.botRoster.find('Bob')!.id })
  })

  it('merges a task planned with review: false on its passing check, with no review; its dependent starts from the merged head', async () => {
    const { g, host, worktrees } = await projectTeam({
      Ada: works(`printf 'export const hi = 1\\n' > greet.js && ${COMMIT}`),
      Bob: works(`cat greet.js && printf 'test\\n' > greet.test.js && ${COMMIT}`),
    })
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [
        { key: 'mod', title: 'Add greeting module', brief: 'Write greet.js.', assignee: 'Ada', project: true, check: 'test -f greet.js', review: false },
        { title: 'Test it', brief: 'Test it.', assignee: 'Bob', blockedBy: ['mod'], project: true, check: 'test -f greet.test.js', review: false },
      ],
    })
    const b = await taskWhere(host, ids[1]!, (t) => t.status === 'done')
    const a = host.ctx.botTasks.board.get(ids[0]!)!
    for (const t of [a, b]) {
      expect(t.worktree).toMatchObject({ merge: 'merged', review: false, check: { ok: true } })
      expect(t.history.map((h) => h.to)).not.toContain('review')
    }
    expect(b.artifacts.at(-1)!.value).toContain('export const hi = 1')
    await host.ctx.botTasks.settled()
    const gitDir = integration(worktrees)
    const files = (await probeGit(g).run(['ls-tree', '-r', '--name-only', 'team/integration'], { cwd: gitDir, gitDir })).stdout.split('\n')
    expect(files).toEqual(expect.arrayContaining(['greet.js', 'greet.test.js']))
  })

  it('sends a no-review task whose merge conflicts back to its assignee; resolved in its clone and submitted again, its check runs again and it merges', async () => {
    // Both edit the same line from the same base: whichever merges second conflicts, whatever the order.
    const resolving = (mine: string): Rule => {
      const first = works(`printf '${mine}\\n' > src/a.txt && ${COMMIT}`)
      return (req) => {
        const head = /Integration head ([0-9a-f]{40})/.exec(lastUserText(req) ?? '')?.[1]
        if (!head) return first(req)
        return works(`git fetch -q integration && (git merge -q --no-edit ${head} || true) && printf 'ada\\nbob\\n' > src/a.txt && ${COMMIT}`)(req)
      }
    }
    const { g, host, worktrees } = await projectTeam({ Ada: resolving('ada'), Bob: resolving('bob') })
    const check = "grep -q . src/a.txt && ! grep -q '<<<<<<<' src/a.txt"
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [
        { title: 'Ada edits a', brief: 'x', assignee: 'Ada', project: true, check, review: false },
        { title: 'Bob edits a', brief: 'x', assignee: 'Bob', project: true, check, review: false },
      ],
    })
    const done = await Promise.all(ids.map((id) => taskWhere(host, id, (t) => t.status === 'done')))
    const back = done.filter((t) => t.attempts.some((x) => x.outcome === 'rejected'))
    expect(back).toHaveLength(1)
    const [conflicted] = back
    expect(conflicted!.attempts.map((x) => x.outcome)).toEqual(['rejected', 'submitted'])
    expect(conflicted!.attempts[0]!.reason).toMatch(/conflicts in src\/a\.txt\. Integration head [0-9a-f]{40}, your head [0-9a-f]{40}\./)
    // the check ran again on the resubmit, after the conflict
    expect(Date.parse(conflicted!.worktree!.check!.at)).toBeGreaterThan(Date.parse(conflicted!.attempts[0]!.endedAt!))
    expect(conflicted!.worktree).toMatchObject({ merge: 'merged', check: { ok: true } })
    await host.ctx.botTasks.settled()
    const gitDir = integration(worktrees)
    expect((await probeGit(g).run(['show', 'team/integration:src/a.txt'], { cwd: gitDir, gitDir })).stdout).toBe('ada\nbob\n')
  })

  it('finding 4: a no-review task whose committed file differs from its working file never lands the commit its check did not see', async () => {
    const { g, host, worktrees } = await projectTeam({
      Ada: works(`printf 'bad\\n' > greet.js && ${COMMIT} && printf 'good\\n' > greet.js`),
    })
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true, check: 'grep -qx good greet.js', review: false }],
    })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'failed' || x.status === 'done')
    expect(t.worktree?.merge).not.toBe('merged')
    expect(t.status).toBe('failed')
    await host.ctx.botTasks.settled()
    const gitDir = integration(worktrees)
    const shown = await probeGit(g)
      .run(['show', 'team/integration:greet.js'], { cwd: gitDir, gitDir, okCodes: [0, 128] })
      .then((r) => r.stdout)
    expect(shown).not.toBe('bad\n')
  })

  it('accepting merges exactly the submitted, checked commit; a branch moved after the check goes back to its Bot ("the branch moved after the check; submit again")', async () => {
    const after: Reply = { toolCalls: [{ name: 'bash', args: { command: `printf 'v2 unchecked\\n' > greet.js && ${COMMIT}`, description: 'one more' } }] }
    // Attempt 1: commit v1 and submit; then, once, move the branch with a commit the check never saw.
    let stage: 'work' | 'moving' | 'moved' = 'work'
    let movedNow!: () => void
    const moved = new Promise<void>((resolve) => {
      movedNow = resolve
    })
    const first = works(`printf 'v1\\n' > greet.js && ${COMMIT}`)
    const ada = (req: RecordedRequest): Reply => {
      const last = lastToolResults(req)
      if (stage === 'work' && last.some((r) => r.name === 'submit_task')) {
        stage = 'moving'
        return after
      }
      if (stage === 'moving') {
        stage = 'moved'
        movedNow()
        return { text: 'Done.' }
      }
      return first(req)
    }
    const { g, host, worktrees } = await projectTeam({ Ada: ada })
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true, check: 'test -f greet.js' }] })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'review')
    expect(t.worktree?.check?.commit).toBe(t.worktree?.submitted)
    await moved
    const [back] = await host.ctx.botTasks.review(user, ids[0]!, 'accept')
    expect(back!.status).not.toBe('done')
    expect(back!.attempts.find((a) => a.outcome === 'rejected')?.reason).toMatch(
      /^The branch moved after the check; submit again: team\/task-1-greet is at [0-9a-f]{12}, the submitted and checked commit was [0-9a-f]{12}\. Nothing was merged\./,
    )
    const gitDir = integration(worktrees)
    const ls = (await probeGit(g).run(['ls-tree', '--name-only', 'team/integration'], { cwd: gitDir, gitDir })).stdout
    expect(ls).not.toContain('greet.js')
  })

  it("runs a task's check in its clone on submit, masked: failing starts the next attempt with the output, passing goes to review", async () => {
    const VALUE = 'tok-9f8e7d6c5b4a3210'
    const { host, ids: bots } = await projectTeam({
      // (the first attempt's marker lies in .git, so its clone is clean and the submit goes to the check)
      Ada: works(`if [ -f .git/tried ]; then printf 'hi\\n' > greet.js && ${COMMIT}; fi; touch .git/tried`),
    })
    await host.ctx.botSecrets.set('GH_TOKEN', { value: VALUE, scope: [bots.Ada!] })
    const { ids } = await host.ctx.botTasks.plan(user, {
      tasks: [{ title: 'Greet', brief: 'Write greet.js.', assignee: 'Ada', project: true, check: `echo ${VALUE}; test -f greet.js` }],
    })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'review')
    expect(t.attempts.map((a) => a.outcome)).toEqual(['check-failed', 'submitted'])
    expect(t.attempts[0]!.reason).toMatch(
      /^The check `echo \[secret:GH_TOKEN\]; test -f greet\.js` failed \(exit 1, .*\) on [0-9a-f]{12}:\n\[secret:GH_TOKEN\]$/,
    )
    expect(JSON.stringify([t.attempts, t.worktree?.check, t.history])).not.toContain(VALUE)
    expect(t.worktree?.check).toMatchObject({ ok: true, summary: expect.stringMatching(/^passed/), commit: t.worktree?.submitted })
  })

  it("runs the check in the task Session's sandbox: a write outside its clone is denied, and three failed checks fail the task", async () => {
    const { host, g } = await projectTeam({ Ada: works('true') })
    const outside = path.join(path.dirname(g.pluginRoot), 'outside.txt')
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Escape', brief: 'x', assignee: 'Ada', project: true, check: `touch ${outside}` }] })
    const t = await taskWhere(host, ids[0]!, (x) => x.status === 'failed')
    expect(t.attempts.map((a) => a.outcome)).toEqual(['check-failed', 'check-failed', 'check-failed'])
    expect(existsSync(outside)).toBe(false)
    expect(t.worktree?.check).toMatchObject({ ok: false })
  })

  it("refuses a submit with uncommitted changes (commit first); a cancelled task's uncommitted work is kept as a WIP commit on its branch and its clone removed", async () => {
    const submits: string[] = []
    const drafting = works(`printf 'draft\\n' > draft.txt`)
    const ada = (req: RecordedRequest): Reply => {
      for (const r of lastToolResults(req)) if (r.name === 'submit_task') submits.push(r.text)
      return drafting(req)
    }
    const { g, host, worktrees } = await projectTeam({ Ada: ada })
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Draft it', brief: 'x', assignee: 'Ada', project: true }] })
    const t = await taskWhere(host, ids[0]!, (x) => x.attempts[0]?.outcome === 'ended-without-submit')
    expect(t.history.map((h) => h.to)).not.toContain('review')
    expect(submits[0]).toMatch(/^Refused: Your clone has uncommitted changes: commit first/)
    const gitDir = integration(worktrees)
    const clone = path.join(path.dirname(gitDir), 'clones', 'task-1')
    expect(existsSync(path.join(clone, 'draft.txt'))).toBe(true)
    await host.ctx.botTasks.cancel(user, ids[0]!, 'not needed')
    await host.ctx.botTasks.settled()
    expect(existsSync(clone)).toBe(false)
    const git = probeGit(g)
    const log = (await git.run(['log', '-1', '--format=%s', 'team/task-1-draft-it'], { cwd: gitDir, gitDir })).stdout.trim()
    expect(log).toBe('WIP: task-1 — task cancelled')
    expect((await git.run(['show', 'team/task-1-draft-it:draft.txt'], { cwd: gitDir, gitDir })).stdout).toBe('draft\n')
  })

  it("reopens the project's clones at start-up: a half-made clone folder is swept, a clone made before the restart is still the task's", async () => {
    // The team's own home, kept across the restart (a host removes only a home it made).
    const home = mkdtempSync(path.join(tmpdir(), 'bot-team-project-restart-'))
    cleanups.push(() => rmSync(home, { recursive: true, force: true }))
    const { g, host, worktrees } = await projectTeam({ Ada: works(`printf 'x\\n' > x.txt && ${COMMIT}`) }, home)
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'X', brief: 'x', assignee: 'Ada', project: true }] })
    await taskWhere(host, ids[0]!, (t) => t.status === 'review')
    const clones = path.join(path.dirname(integration(worktrees)), 'clones')
    await host.dispose()
    hosts = hosts.filter((h) => h !== host)
    mkdirSync(path.join(clones, '.new-task-9'))
    const again = await taskTeam([], {}, { shell: true, home, config: { worktrees } })
    hosts.push(again.host)
    await calm(again.host)
    expect(readdirSync(clones)).toEqual(['task-1'])
    await again.host.ctx.botTasks.review(user, ids[0]!, 'accept')
    const gitDir = integration(worktrees)
    expect((await probeGit(g).run(['show', 'team/integration:x.txt'], { cwd: gitDir, gitDir })).stdout).toBe('x\n')
  })

  it('releases the integration branch into the target only for the paired person, after the full check passed; a failing check or the target checked out with changes refuses', async () => {
    const { g, host } = await projectTeam({ Ada: works(`printf 'hi\\n' > greet.js && ${COMMIT}`) })
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true }] })
    await taskWhere(host, ids[0]!, (t) => t.status === 'review')
    await host.ctx.botTasks.review(user, ids[0]!, 'accept')
    const before = g.sh(g.project, 'rev-parse', 'main').trim()
    const tasks = host.ctx.botTasks
    await expect(tasks.releaseProject({ kind: 'user', paired: false }, 'true')).rejects.toThrow(/paired team page/)
    await expect(tasks.releaseProject(user, 'test -f missing.txt')).rejects.toThrow(/The full check failed \(exit 1.*nothing was released/s)
    writeFileSync(path.join(g.project, 'README.md'), 'edited\n')
    await expect(tasks.releaseProject(user, 'test -f greet.js')).rejects.toThrow(/main is checked out in .* with uncommitted changes/)
    expect(g.sh(g.project, 'rev-parse', 'main').trim()).toBe(before)
    g.sh(g.project, 'checkout', '--', 'README.md')
    const released = await tasks.releaseProject(user, 'test -f greet.js')
    expect(released).toMatchObject({ from: before, fastForward: true, check: expect.stringMatching(/^passed/) })
    expect(g.sh(g.project, 'rev-parse', 'main').trim()).toBe(released.to)
    expect(readFileSync(path.join(g.project, 'greet.js'), 'utf8')).toBe('hi\n')
  })

  it("runs the release's full check confined to its checkout: the team's code cannot write outside it, and nothing is released", async () => {
    const { g, host } = await projectTeam({ Ada: works(`printf 'hi\\n' > greet.js && ${COMMIT}`) })
    const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Greet', brief: 'x', assignee: 'Ada', project: true }] })
    await taskWhere(host, ids[0]!, (t) => t.status === 'review')
    await host.ctx.botTasks.review(user, ids[0]!, 'accept')
    const before = g.sh(g.project, 'rev-parse', 'main').trim()
    const outside = path.join(path.dirname(g.pluginRoot), 'release-outside.txt')
    await expect(host.ctx.botTasks.releaseProject(user, `touch ${outside}`)).rejects.toThrow(/The full check failed.*nothing was released/s)
    expect(existsSync(outside)).toBe(false)
    expect(g.sh(g.project, 'rev-parse', 'main').trim()).toBe(before)
  })

  it('refuses naming the project again while project tasks are open', async () => {
    const { g, host } = await projectTeam({ Ada: works('true') })
    await host.ctx.botPause.pause('user')
    await host.ctx.botTasks.plan(user, { tasks: [{ title: 'T', brief: 'x', assignee: 'Ada', project: true }] })
    await expect(host.ctx.botTasks.setProject(user, { path: g.project, branch: 'main' })).rejects.toThrow(/Project tasks are open \(task-1\)/)
    await host.ctx.botTasks.cancel(user, 'task-1', 'stop')
    await expect(host.ctx.botTasks.setProject(user, { path: g.project, branch: 'main' })).resolves.toMatchObject({ branch: 'main' })
  })

  it("refuses a Bot's working folder inside or over the team's project or the plugin's worktrees folder", async () => {
    const { g, host, worktrees } = await projectTeam({ Ada: works('true') })
    const roster = host.ctx.botRoster
    const inWorktrees = path.join(worktrees, 'mine')
    mkdirSync(inWorktrees, { recursive: true })
    const src = path.join(g.project, 'src')
    await expect(roster.create(user, { name: 'In', workFolder: src })).rejects.toThrow(/lies inside the team's project/)
    await expect(roster.create(user, { name: 'Over', workFolder: path.dirname(g.project) })).rejects.toThrow(/holds the team's project/)
    await expect(roster.create(user, { name: 'Wt', workFolder: inWorktrees })).rejects.toThrow(/lies inside the plugin's worktrees folder/)
    await expect(roster.update(user, 'Ada', { workFolder: g.project })).rejects.toThrow(/team's project/)
    expect(roster.find('In')).toBeUndefined()
  })

  it('refuses a check on a task that is not a project task', async () => {
    const { host } = await projectTeam({ Ada: works('true') })
    await expect(host.ctx.botTasks.plan(user, { tasks: [{ title: 't', brief: 'b', check: 'true' }] })).rejects.toThrow(/has a check but is not a project task/)
    expect(host.ctx.botTasks.board.size).toBe(0)
  })

  it("refuses a read-only chain's plan of project tasks (they edit and commit), creating nothing", async () => {
    let host!: DshHost
    let planned: Promise<string> | undefined
    const main = (req: RecordedRequest): Reply => {
      if (lastUserText(req) === 'plan it')
        planned = host.ctx.botTasks
          .plan({ kind: 'bot', sessionId: req.sessionId! }, { tasks: [{ title: 'Edit', brief: 'b', assignee: 'Ada', project: true }] })
          .then(
            () => 'planned',
            (error: Error) => error.message,
          )
      return { text: 'ok' }
    }
    const g = makeGitHome()
    homes.push(g)
    initProject(g)
    const team = await taskTeam(['Ada'], {}, { permissions: true, main, config: { worktrees: path.dirname(g.pluginRoot) } })
    host = team.host
    hosts.push(host)
    await host.ctx.botTasks.setProject(user, { path: g.project, branch: 'main' })
    const mainBot = host.ctx.botRoster.bots().find((b) => b.main)!
    await host.ctx.botRoster.update(user, mainBot.id, { permissionPreset: 'read-only' })
    await prompt(host, await host.ctx.botRoster.agentOf(mainBot.id), 'plan it')
    expect(await planned).toMatch(/need workspace-write; this chain runs read-only\. Nothing was planned/)
    expect(host.ctx.botTasks.board.size).toBe(0)
  })

  it('refuses a plan of project tasks while the team has no project, creating nothing', async () => {
    const { host } = await taskTeam(['Ada'])
    hosts.push(host)
    await expect(host.ctx.botTasks.plan(user, { tasks: [{ title: 't', brief: 'b', project: true }] })).rejects.toThrow(/The team has no project/)
    expect(host.ctx.botTasks.board.size).toBe(0)
  })
})
