// A backup reads what it listed (real files, real DSH runtime for the whole backup): a file swapped
// for a link, or a folder above it swapped for a link, between listing and reading is skipped and
// its target never read; a hard link to secrets.json in the workspace stays out of a backup
// "without secrets".
import { linkSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readListedFile, takeBackup, type SessionReader } from '../../../src/backup/backup.ts'
import { decodeArchive } from '../../../src/backup/format.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { tempDir } from '../../support/temp-dir.ts'

const track = disposedAfterEach()
function scratch(): string {
  const dir = tempDir('bot-team-listed-')
  return dir
}
const SECRET = 'the-secret-value-42'

describe('a backup reads what it listed', () => {
  it('reads a listed file that is still the one listed', async () => {
    const dir = scratch()
    writeFileSync(join(dir, 'note.md'), 'hello')
    expect(await readListedFile(join(dir, 'note.md'), lstatSync(join(dir, 'note.md')))).toEqual({ kind: 'data', data: Buffer.from('hello') })
  })

  it('skips a file replaced by a symbolic link to secrets.json after it was listed, without reading the secret', async () => {
    const dir = scratch()
    writeFileSync(join(dir, 'secrets.json'), SECRET)
    writeFileSync(join(dir, 'note.md'), 'hello')
    const listed = lstatSync(join(dir, 'note.md'))
    rmSync(join(dir, 'note.md'))
    symlinkSync(join(dir, 'secrets.json'), join(dir, 'note.md'))
    expect(await readListedFile(join(dir, 'note.md'), listed)).toEqual({ kind: 'skip', reason: expect.stringMatching(/symbolic link/) })
  })

  it('skips a file replaced by another file (a rename of secrets.json onto it) after it was listed', async () => {
    const dir = scratch()
    writeFileSync(join(dir, 'secrets.json'), SECRET)
    writeFileSync(join(dir, 'note.md'), 'hello')
    const listed = lstatSync(join(dir, 'note.md'))
    renameSync(join(dir, 'secrets.json'), join(dir, 'note.md'))
    expect(await readListedFile(join(dir, 'note.md'), listed)).toEqual({ kind: 'skip', reason: expect.stringMatching(/replaced after it was listed/) })
  })

  it('skips a file whose folder was replaced by a link to another folder holding a file of that name', async () => {
    const dir = scratch()
    mkdirSync(join(dir, 'work'))
    mkdirSync(join(dir, 'private'))
    writeFileSync(join(dir, 'private', 'note.md'), SECRET)
    // Listed through the link already (the folder swapped before the walk reached it).
    rmSync(join(dir, 'work'), { recursive: true })
    symlinkSync(join(dir, 'private'), join(dir, 'work'))
    const path = join(dir, 'work', 'note.md')
    expect(await readListedFile(path, lstatSync(path))).toEqual({ kind: 'skip', reason: expect.stringMatching(/reached through a link above it/) })
  })

  it('leaves a hard link to secrets.json in the workspace out of a backup without secrets, and says why', async () => {
    const host = track(await startTeamHost({ fallback: { text: 'ok' } }))
    await host.ctx.botSecrets.set('GH_TOKEN', { value: SECRET, scope: 'all' })
    linkSync(join(host.home, 'bot', 'secrets.json'), join(host.home, 'bot', 'workspace', 'copy.json'))
    const { archive, manifest } = await takeBackup({ home: host.home, sessions: host.ctx.sessionPersistence as unknown as SessionReader })
    const entries = decodeArchive(archive)
    expect(entries.map((e) => e.path)).not.toContain('bot/workspace/copy.json')
    expect(entries.some((e) => Buffer.from(e.data).includes(SECRET))).toBe(false)
    expect(manifest.skipped).toContainEqual({ path: 'bot/workspace/copy.json', reason: expect.stringMatching(/more than one name/) })
  })
})
