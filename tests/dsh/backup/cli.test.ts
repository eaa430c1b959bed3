// The `dsh-bot-team` command's own behaviour (what the bin runs), on a team made by the in-process
// DSH: where the archive goes, exit codes, and one-line refusals without a stack.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../../src/backup/cli.ts'
import { disposedAfterEach, startTeamHost } from '../../support/dsh-host.ts'
import { tempDir } from '../../support/temp-dir.ts'

const track = disposedAfterEach()

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { env, cwd: '/', out: (l: string) => out.push(l), err: (l: string) => err.push(l) } }
}

describe('dsh-bot-team command', () => {
  it('backs up into <DSH_HOME>/backups (owner-only) by default, restores into another home, and refuses a second restore there with one line', async () => {
    const host = track(await startTeamHost())
    await host.ctx.botRoster.create({ kind: 'user' }, { name: 'Ada' })
    const backup = io({ DSH_HOME: host.home })
    expect(await runCli(['backup', '--session-compression', 'none'], backup.io)).toBe(0)
    const [name] = readdirSync(join(host.home, 'backups'))
    expect(name).toMatch(/^bot-team-backup-.*\.dshbt$/)
    const archive = join(host.home, 'backups', name!)
    expect(backup.out[0]).toContain(`backup written: ${archive}`)
    expect(statSync(archive).mode & 0o777).toBe(0o600)
    expect(statSync(join(host.home, 'backups')).mode & 0o777).toBe(0o700)

    const other = tempDir('bot-team-cli-')
    const restore = io()
    expect(await runCli(['restore', archive, '--home', other, '--session-compression', 'none'], restore.io)).toBe(0)
    expect(restore.out[0]).toMatch(/^restored into .*: \d+ Sessions \(\d+ events\), \d+ team files/)
    const again = io()
    expect(await runCli(['restore', archive, '--home', other, '--session-compression', 'none'], again.io)).toBe(1)
    expect(again.err).toHaveLength(1)
    expect(again.err[0]).toMatch(/^dsh-bot-team: .*already holds a team/)
    expect(again.err[0]).not.toMatch(/\n\s+at /)
  })

  it('answers usage errors with exit code 2 and the usage text', async () => {
    for (const args of [[], ['frobnicate'], ['restore'], ['backup', 'extra-file'], ['backup', '--nope'], ['backup', '--session-compression', 'lz4']]) {
      const run = io({ DSH_HOME: '/nonexistent-home' })
      expect(await runCli(args, run.io), args.join(' ')).toBe(2)
      expect(run.err.join('\n')).toContain('usage:')
    }
    const help = io()
    expect(await runCli(['--help'], help.io)).toBe(0)
    expect(help.out[0]).toContain('dsh-bot-team backup')
  })
})
