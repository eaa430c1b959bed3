// A restore carries no authority (real DSH runtime in-process, real backups, crafted archives):
// Session folders that are, hold or lie inside the new home's protected folders are refused with
// nothing written; presets above workspace-write, "accepts delegated work", working folders and
// schedules come back lowered, listed in the report, until the person confirms them; the archive
// is read as a stream and refused at its first bad entry; no folder outside the new home is
// created unless the person names it.
import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { takeBackup, type SessionReader } from '../../../src/backup/backup.ts'
import { openDshStores } from '../../../src/backup/dsh-runtime.ts'
import { ARCHIVE_MAGIC, decodeArchive, encodeArchive, readArchive, type ArchiveEntry } from '../../../src/backup/format.ts'
import { restoreBackup } from '../../../src/backup/restore.ts'
import { disposedAfterEach, prompt, startTeamHost, type DshHost } from '../../support/dsh-host.ts'
import { quiesce, user } from '../delivery/helpers.ts'
import { tempDir } from '../../support/temp-dir.ts'

const track = disposedAfterEach()

function freshHome(): string {
  const base = tempDir('bot-team-restore-')
  const home = join(base, 'home')
  mkdirSync(home)
  return realpathSync(home)
}

/** A team whose Ada has every raise a restore must hold: danger-full-access (so network `full`), delegated work, a folder, a schedule; Nia is at workspace-write with network `full`. */
async function raisedTeam(): Promise<{ host: DshHost; archive: Buffer; folder: string }> {
  const host = track(await startTeamHost({ fallback: { text: 'ok' } }))
  // The Bot's own folder is outside the DSH home (a restore refuses one inside the new home).
  const folder = join(freshHome(), 'code')
  mkdirSync(folder)
  const ada = await host.ctx.botRoster.create(user, { name: 'Ada', permissionPreset: 'danger-full-access', workFolder: folder })
  await host.ctx.botRoster.setAcceptsDelegatedWork(user, ada.id, true)
  await host.ctx.botSchedules.create(user, { bot: 'Ada', prompt: 'check the build', every_minutes: 30 })
  await host.ctx.botRoster.create(user, { name: 'Nia' })
  await host.ctx.botRoster.setNetwork(user, 'Nia', 'full')
  await prompt(host, await host.ctx.botRoster.agentOf(ada.id), 'hello')
  await quiesce(host)
  const { archive } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
  return { host, archive, folder }
}

/** The archive with each entry passed through `change` (manifest and Session logs as text). */
function crafted(archive: Buffer, change: (e: ArchiveEntry) => ArchiveEntry): Buffer {
  return encodeArchive(decodeArchive(archive).map(change))
}

const text = (e: ArchiveEntry) => Buffer.from(e.data).toString('utf8')

describe('a restore carries no authority', () => {
  it('refuses an archive whose Session works in the old DSH home (it would become the new home, bot/ included), and writes nothing', async () => {
    const { host, archive } = await raisedTeam()
    const oldHome = host.home
    const evil = crafted(archive, (e) => {
      if (!e.path.startsWith('sessions/')) return e
      const [header, ...rest] = text(e).split('\n')
      const h = JSON.parse(header!)
      return { path: e.path, data: Buffer.from([JSON.stringify({ ...h, cwd: oldHome }), ...rest].join('\n')) }
    })
    const home = freshHome()
    const stores = await openDshStores(home, { compression: 'none' })
    await expect(restoreBackup({ archive: evil, home, sessions: stores.sessions })).rejects.toThrow(
      /Session .*'s folder .*home cannot be restored: it lies inside .*home, which holds the team's own files.*\. Nothing was restored\./,
    )
    expect((await stores.sessions.list()).length).toBe(0)
    await stores.close()
    expect(existsSync(join(home, 'bot'))).toBe(false)
  })

  it('refuses a team folder that would be the new home itself, or lie in bot/ outside its workspace', async () => {
    const { host, archive } = await raisedTeam()
    for (const teamFolder of [host.home, join(host.home, 'bot', 'memory')]) {
      const evil = crafted(archive, (e) =>
        e.path === 'manifest.json' ? { path: e.path, data: Buffer.from(JSON.stringify({ ...JSON.parse(text(e)), teamFolder })) } : e,
      )
      const home = freshHome()
      const stores = await openDshStores(home, { compression: 'none' })
      await expect(restoreBackup({ archive: evil, home, sessions: stores.sessions })).rejects.toThrow(/the team folder .* cannot be restored/)
      await stores.close()
      expect(readdirSync(home)).toEqual(['sessions'].filter((n) => existsSync(join(home, n))))
    }
  })

  it('restores presets above workspace-write, delegated work, working folders, schedules and the network level full lowered, lists them, and the person confirms each', async () => {
    const { archive, folder } = await raisedTeam()
    const home = freshHome()
    const stores = await openDshStores(home, { compression: 'none' })
    const report = await restoreBackup({ archive, home, sessions: stores.sessions })
    await stores.close()
    expect(report.held).toEqual([
      expect.stringMatching(/^permission preset danger-full-access of Bot Ada \(workspace-write until confirmed\)$/),
      expect.stringMatching(/^"accepts delegated work" of Bot Ada/),
      expect.stringMatching(new RegExp(`^working folder ${folder} of Bot Ada`)),
      expect.stringMatching(/^schedule schedule-1 \(not due until confirmed\)$/),
    ])
    // the machine's whole network (DSH's /api included) is not carried either: both come back at internet
    for (const name of ['Ada', 'Nia'])
      expect(report.warnings).toContainEqual(
        `Bot ${name}'s network was "full"; it is "internet" now (a restore carries no authority): set it again on the team page if you mean it`,
      )
    const host = track(await startTeamHost({ fallback: { text: 'ok' } }, { home }))
    const roster = host.ctx.botRoster
    const ada = roster.find('Ada')!
    expect([ada.permissionPreset, ada.acceptsDelegatedWork, ada.workFolder, ada.network]).toEqual(['workspace-write', false, undefined, 'internet'])
    expect(roster.find('Nia')!.network).toBe('internet')
    expect(host.ctx.botSchedules.list()[0]!.nextDueAt).toBeUndefined()
    for (const id of roster.held().map((h) => h.id)) await roster.confirmHeld(user, id)
    const after = roster.find('Ada')!
    expect([after.permissionPreset, after.acceptsDelegatedWork, after.workFolder, after.workFolderReal, after.network]).toEqual([
      'danger-full-access',
      true,
      folder,
      realpathSync(folder),
      'full',
    ])
    expect(roster.find('Nia')!.network).toBe('internet')
    expect(host.ctx.botSchedules.list()[0]!.nextDueAt).toEqual(expect.any(String))
    await expect(roster.confirmHeld({ kind: 'bot', sessionId: ada.sessionParts.at(-1)!.sessionId }, 'held-1')).rejects.toThrow(/Only the person/)
  })

  it('creates no folder outside the new home unless the person names it', async () => {
    const { archive } = await raisedTeam()
    const outside = join(freshHome(), 'elsewhere', 'work')
    const moved = crafted(archive, (e) => {
      if (!e.path.startsWith('sessions/')) return e
      const [header, ...rest] = text(e).split('\n')
      return { path: e.path, data: Buffer.from([JSON.stringify({ ...JSON.parse(header!), cwd: outside }), ...rest].join('\n')) }
    })
    const home = freshHome()
    let stores = await openDshStores(home, { compression: 'none' })
    const report = await restoreBackup({ archive: moved, home, sessions: stores.sessions })
    await stores.close()
    expect(existsSync(outside)).toBe(false)
    expect(report.warnings).toContainEqual(expect.stringMatching(/work is outside .* and was not created \(name it with --folder/))
    const again = freshHome()
    stores = await openDshStores(again, { compression: 'none' })
    await restoreBackup({ archive: moved, home: again, sessions: stores.sessions, createFolders: [join(outside, '..')] })
    await stores.close()
    expect(existsSync(outside)).toBe(true)
  })

  it('reads the archive as a stream and stops at the first bad entry, before the rest is read or inflated', async () => {
    let chunks = 0
    const head = Buffer.concat([Buffer.from(ARCHIVE_MAGIC), Buffer.from('{"path":"manifest.json","size":2}\n{}\n'), Buffer.from('x'.repeat(64 * 1024))])
    const letters = () => randomBytes(1024 * 1024).map((b) => 97 + (b % 26))
    async function* source() {
      // gzip members of 1 MiB of letters after an entry line that never ends: ~1 GiB if read whole.
      yield gzipSync(head)
      for (chunks = 0; chunks < 1000; chunks++) yield gzipSync(letters())
    }
    await expect(readArchive(source())).rejects.toThrow(/unterminated entry line/)
    // What the stream reads ahead (its buffers), not the archive: far fewer than its 1000 members.
    expect(chunks).toBeLessThan(40)
    await expect(restoreBackup({ archive: source(), home: freshHome(), sessions: {} as never })).rejects.toThrow(/unterminated entry line/)
  })
})
