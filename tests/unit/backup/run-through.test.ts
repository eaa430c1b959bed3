import { describe, expect, it } from 'vitest'
import { runThrough } from '../../../src/backup/cli.ts'
import { installedProfile } from '../../../src/backup/dsh-runtime.ts'

describe('the command to run when DSH is not found', () => {
  it('is this restore through DSH\u2019s launcher, with the archive and the home made absolute', () => {
    const line = runThrough(
      ['restore', 'team.dshbt'],
      { env: { HOME: '/home/ana', PWD: '/home/ana/work', DSH_HOME: '/home/ana/dsh-home-new' }, cwd: '/elsewhere' },
      'web',
    )
    expect(line.split('\n')[1]).toBe(
      '  /home/ana/dsh/node_modules/.bin/dsh plugin --profile web exec dsh-bot-team restore /home/ana/work/team.dshbt --home /home/ana/dsh-home-new',
    )
  })

  it('keeps a backup\u2019s flags and quotes a path with spaces', () => {
    const line = runThrough(['backup', '--out', 'my team.dshbt', '--secrets', '--home', 'h'], { env: {}, cwd: '/w' }, 'desktop')
    expect(line.split('\n')[1]).toMatch(/ plugin --profile desktop exec dsh-bot-team backup --out '\/w\/my team\.dshbt' --secrets --home \/w\/h$/)
  })

  it('names the profile the bin is installed in, from its own path', () => {
    expect(installedProfile('file:///home/a/dsh-home/profiles/web/node_modules/.pnpm/dsh-bot-team@1/node_modules/dsh-bot-team/dist/cli.mjs')).toBe('web')
    expect(installedProfile('file:///repo/src/backup/dsh-runtime.ts')).toBeUndefined()
  })
})
