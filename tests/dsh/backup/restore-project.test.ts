// A restored project carries no authority (issue 32): the archive's `bot/project.json` comes back
// held, listed with the other held settings; no project task is planned from it until the person
// names it again, which runs every check of `PUT /project` — one inside the new home's team
// workspace is refused. Real DSH runtime in-process, real backups and git.
import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import path, { join } from 'node:path'
import { expect, it, onTestFinished } from 'vitest'
import { type SessionReader, takeBackup } from '../../../src/backup/backup.ts'
import { openDshStores } from '../../../src/backup/dsh-runtime.ts'
import { decodeArchive, encodeArchive } from '../../../src/backup/format.ts'
import { restoreBackup } from '../../../src/backup/restore.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { initProject, makeGitHome } from '../../support/git-project.ts'
import { tempDir } from '../../support/temp-dir.ts'
import { user } from '../tasks/helpers.ts'

const track = disposedAfterEach()

async function restored(change?: (project: Record<string, unknown>, home: string) => Record<string, unknown>) {
  const g = makeGitHome()
  onTestFinished(() => g.cleanup())
  initProject(g)
  const worktrees = path.dirname(g.pluginRoot)
  const host = track(await startTeamHost({ fallback: { text: 'ok' } }, { config: { worktrees } }))
  await host.ctx.botTasks.setProject(user, { path: g.project, branch: 'main' })
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  const home = join(tempDir('bot-team-restore-project-'), 'home')
  mkdirSync(home)
  const real = realpathSync(home)
  const entries = decodeArchive(archive).map((e) =>
    e.path === 'bot/project.json' && change
      ? { path: e.path, data: Buffer.from(JSON.stringify({ version: 1, project: change(JSON.parse(Buffer.from(e.data).toString('utf8')).project, real) })) }
      : e,
  )
  const stores = await openDshStores(real, { compression: 'none' })
  const report = await restoreBackup({ archive: encodeArchive(entries), home: real, sessions: stores.sessions })
  await stores.close()
  const again = track(await startTeamHost({ fallback: { text: 'ok' } }, { home: real, config: { worktrees } }))
  await again.ctx.botTasks.settled()
  return { g, report, host: again, home: real }
}

it('comes back held (listed in the report and with the held settings); no project task is planned until the person names it again, which checks it like PUT /project', async () => {
  const { g, report, host } = await restored()
  expect(report.held).toContainEqual(expect.stringMatching(/the team's project .* \(branch main; no project tasks until the person names it again/))
  const tasks = host.ctx.botTasks
  expect(tasks.project()).toBeNull()
  const held = tasks.heldProject()
  expect(held).toMatchObject({ why: 'restore', kind: 'project', path: g.project, branch: 'main' })
  expect(host.ctx.botRoster.held().map((h) => h.kind)).toContain('project')
  await expect(tasks.plan(user, { tasks: [{ title: 'Edit', brief: 'b', project: true }] })).rejects.toThrow(/is held until the person names it again/)
  await tasks.settleHeldProject(user, held!.id, true)
  expect(tasks.heldProject()).toBeUndefined()
  expect(tasks.project()).toMatchObject({ path: g.project, branch: 'main' })
})

it("a restored project inside the new home's team workspace is held and refused when the person confirms it; letting it go forgets it", async () => {
  const { host, home } = await restored((p, newHome) => {
    const inside = join(newHome, 'bot', 'workspace', 'repo')
    mkdirSync(inside, { recursive: true })
    execFileSync('git', ['init', '-q', '-b', 'main', inside])
    execFileSync('git', ['-C', inside, '-c', 'user.name=P', '-c', 'user.email=p@e', 'commit', '-q', '--allow-empty', '-m', 'x'])
    return { ...p, path: inside, gitDir: join(inside, '.git') }
  })
  const tasks = host.ctx.botTasks
  const held = tasks.heldProject()!
  expect(held.path).toBe(join(home, 'bot', 'workspace', 'repo'))
  await expect(tasks.settleHeldProject(user, held.id, true)).rejects.toThrow(/lies inside the (team folder|team workspace|DSH home)/)
  expect(tasks.project()).toBeNull()
  await tasks.settleHeldProject(user, held.id, false)
  expect(tasks.heldProject()).toBeUndefined()
  expect(tasks.project()).toBeNull()
})
