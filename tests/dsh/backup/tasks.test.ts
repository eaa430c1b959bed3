// The task ledger in backup and restore (real DSH in-process): `bot/tasks/` is in the archive, and
// so are the task Sessions, which only the ledger names (a Bot with its own working folder keeps
// its task Sessions there, outside the team folder); a restored team has its tasks and their
// Sessions, and goes on numbering new tasks after them.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { takeBackup, type SessionReader } from '../../../src/backup/backup.ts'
import { openDshStores } from '../../../src/backup/dsh-runtime.ts'
import { decodeArchive } from '../../../src/backup/format.ts'
import { restoreBackup } from '../../../src/backup/restore.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { calm, submits, taskTeam, taskWhere, user } from '../tasks/helpers.ts'
import { tempDir } from '../../support/temp-dir.ts'

const track = disposedAfterEach()

it("backs up the ledger and every task Session, also one in a Bot's own working folder, which only the ledger names", async () => {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  const folder = join(tempDir('bot-team-ada-folder-'), 'ada')
  mkdirSync(folder)
  await host.ctx.botRoster.update(user, 'Ada', { workFolder: folder })
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'x', assignee: 'Ada' }] })
  const task = await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await calm(host)
  expect((await host.ctx.sessionPersistence.inspect(task.sessionId as never)).meta.cwd).toBe(folder)
  const { archive, manifest } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  expect(manifest.sessions.map((s) => s.id)).toContain(task.sessionId)
  const paths = decodeArchive(archive).map((e) => e.path)
  expect(paths).toEqual(expect.arrayContaining(['bot/tasks/journal.jsonl']))
})

it('a restored team has its tasks and their Sessions, and numbers new tasks after them', async () => {
  const { host } = await taskTeam(['Ada'], { Ada: submits })
  track(host)
  const { ids } = await host.ctx.botTasks.plan(user, { tasks: [{ title: 'Build', brief: 'x', assignee: 'Ada' }] })
  const task = await taskWhere(host, ids[0]!, (t) => t.status === 'review')
  await host.ctx.botTasks.review(user, ids[0]!, 'accept')
  await calm(host)
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  await host.dispose()

  const home = join(tempDir('bot-team-tasks-moved-'), 'home')
  mkdirSync(home)
  const stores = await openDshStores(home, { compression: 'none', workspaces: true })
  await restoreBackup({ archive, home, sessions: stores.sessions, workspaces: stores.workspaces! })
  await stores.close()
  const moved = track(await startTeamHost({ mock: { fallback: { text: 'ok' } }, ada: { fallback: submits } }, { home }))
  await moved.ctx.botTasks.settled()
  expect(moved.ctx.botTasks.board.get(ids[0]!)).toMatchObject({ status: 'done', sessionId: task.sessionId })
  expect(moved.ctx.botRoster.ownerOf(task.sessionId!)).toMatchObject({ kind: 'task', taskId: ids[0] })
  expect(JSON.stringify((await moved.ctx.sessionPersistence.inspect(task.sessionId as never)).events)).toContain('submit_task')
  const next = await moved.ctx.botTasks.plan(user, { tasks: [{ title: 'Next', brief: 'y', assignee: 'Ada' }] })
  expect(next.ids).toEqual(['task-2'])
})
