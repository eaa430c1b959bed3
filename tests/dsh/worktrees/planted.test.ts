// The plugin's git runs no code from any repository: each test plants one kind of program in the
// project's config and in every task clone's (hooks, filters, a merge driver, fsmonitor, external
// diff), then drives the whole life of two tasks — validation, the integration clone, clones, a
// clean merge, a conflict, WIP on cancel, removal, reconciliation and a release that merges into a
// checked-out target — and checks that the planted program never wrote its marker.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { validateProject } from '../../../src/worktrees/project.ts'
import { release } from '../../../src/worktrees/release.ts'
import { Worktrees } from '../../../src/worktrees/worktrees.ts'
import { type RealSandbox, realSandbox } from '../../support/confine.ts'
import { botCommit, type GitHome, initProject, makeGitHome, probeGit, writeFiles } from '../../support/git-project.ts'

let sandbox: RealSandbox
beforeAll(async () => {
  sandbox = await realSandbox()
})
afterAll(() => sandbox.dispose())

const HOOKS = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'post-index-change',
  'fsmonitor-watchman',
]

type Plant = (home: GitHome, gitDir: string, markers: string, where: string) => void

function script(file: string, markers: string, name: string, body = ''): string {
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, `#!/bin/sh\ntouch '${path.join(markers, name)}'\n${body}`)
  chmodSync(file, 0o755)
  return file
}

const config = (home: GitHome, gitDir: string, key: string, value: string) => home.sh(gitDir, '--git-dir', gitDir, 'config', key, value)

const plants: Record<string, Plant> = {
  hooks: (home, gitDir, markers, where) => {
    for (const h of HOOKS) script(path.join(gitDir, 'hooks', h), markers, `${where}-hooks-${h}`)
    const other = path.join(gitDir, 'other-hooks')
    for (const h of HOOKS) script(path.join(other, h), markers, `${where}-hookspath-${h}`)
    config(home, gitDir, 'core.hooksPath', other)
  },
  filter: (home, gitDir, markers, where) => {
    config(home, gitDir, 'filter.evil.clean', script(path.join(gitDir, 'clean.sh'), markers, `${where}-clean`, 'cat\n'))
    config(home, gitDir, 'filter.evil.smudge', script(path.join(gitDir, 'smudge.sh'), markers, `${where}-smudge`, 'cat\n'))
    config(home, gitDir, 'filter.evil.process', script(path.join(gitDir, 'process.sh'), markers, `${where}-process`))
    config(home, gitDir, 'filter.evil.required', 'true')
  },
  merge: (home, gitDir, markers, where) => {
    config(home, gitDir, 'merge.evil.driver', `${script(path.join(gitDir, 'merge.sh'), markers, `${where}-merge-driver`, 'exit 0\n')} %O %A %B`)
    config(home, gitDir, 'merge.default', 'evil')
  },
  fsmonitor: (home, gitDir, markers, where) => {
    config(home, gitDir, 'core.fsmonitor', script(path.join(gitDir, 'fsmonitor.sh'), markers, `${where}-fsmonitor`))
  },
  diff: (home, gitDir, markers, where) => {
    config(home, gitDir, 'diff.external', script(path.join(gitDir, 'extdiff.sh'), markers, `${where}-external-diff`))
    config(home, gitDir, 'diff.evil.textconv', script(path.join(gitDir, 'textconv.sh'), markers, `${where}-textconv`, 'cat "$1"\n'))
    config(home, gitDir, 'core.pager', script(path.join(gitDir, 'pager.sh'), markers, `${where}-pager`, 'cat\n'))
  },
}

/** What a person's own git needs so that fixture-making never runs the planted programs either. */
const PERSON = ['-c', 'filter.evil.clean=', '-c', 'filter.evil.smudge=', '-c', 'filter.evil.process=', '-c', 'filter.evil.required=false']

let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})

/** Two tasks' whole life with `plant` in the project and in both clones; returns the markers written. */
async function lifecycle(plant: Plant): Promise<string[]> {
  const home = makeGitHome()
  homes.push(home)
  // In the shared temp folder: a planted program that ran confined (DSH's sandbox lets it write /tmp) leaves its marker too.
  const markers = mkdtempSync(path.join(os.tmpdir(), 'wt-markers-'))
  homes.push({ cleanup: () => rmSync(markers, { recursive: true, force: true }) } as GitHome)
  initProject(home, { '.gitattributes': '* filter=evil merge=evil diff=evil\n', 'src/a.txt': 'one\ntwo\nthree\n', 'README.md': '# p\n' })
  const projectGit = path.join(home.project, '.git')
  plant(home, projectGit, markers, 'project')

  const check = await validateProject(probeGit(home), { path: home.project, branch: 'main' }, home.forbidden)
  expect(check.ok).toBe(true)
  const opts = { root: home.pluginRoot, project: { gitDir: projectGit, branch: 'main' }, forbidden: home.forbidden }
  const as = sandbox.as()
  const { worktrees: w } = await Worktrees.open(opts, undefined, () => as)
  const merge = async (taskId: string) => {
    const handed = await w.submitted(taskId, as)
    if (!handed.ok) throw new Error(handed.reason)
    return w.merge(taskId, handed.commit)
  }
  const a = await w.createClone('task-1', 'one')
  const b = await w.createClone('task-2', 'two')
  botCommit(home, a.dir, { 'src/a.txt': 'one\nTWO a\nthree\n', 'a.txt': 'a\n' })
  botCommit(home, b.dir, { 'src/a.txt': 'one\nTWO b\nthree\n' })
  plant(home, path.join(a.dir, '.git'), markers, 'clone-a')
  plant(home, path.join(b.dir, '.git'), markers, 'clone-b')

  expect((await merge('task-1')).kind).toBe('merged')
  expect((await merge('task-2')).kind).toBe('conflict')
  writeFiles(b.dir, { 'src/a.txt': 'dirty\n', 'untracked.txt': 'u\n' })
  writeFiles(a.dir, { 'later.txt': 'l\n' })
  expect(await w.removeClone('task-2', 'cancelled', as)).toMatchObject({ kind: 'removed', wip: expect.any(String) })
  await w.createClone('task-3', 'three')
  const reopened = await Worktrees.open(opts, new Set(['task-3']), () => as)
  expect(reopened.reconciled.some((r) => r.kind === 'removed')).toBe(true)

  // The person moved main meanwhile (with the planted programs switched off for their own commit).
  writeFiles(home.project, { 'person.txt': 'p\n' })
  home.sh(home.project, ...PERSON, 'add', 'person.txt')
  home.sh(home.project, ...PERSON, 'commit', '-q', '-m', 'person')
  const released = await release(reopened.worktrees.git, reopened.worktrees.integration, { gitDir: projectGit, branch: 'main' })
  expect(released).toMatchObject({ ok: true, fastForward: false, movedCheckout: home.project })
  return readdirSync(markers).sort()
}

describe("the plugin's git runs no code from the project or a task clone", () => {
  it('planted hooks (pre-commit, post-checkout, reference-transaction and every other) and core.hooksPath never run', async () => {
    expect(await lifecycle(plants.hooks!)).toEqual([])
  })

  it('a planted clean/smudge/process filter named in .gitattributes and the repository config never runs', async () => {
    expect(await lifecycle(plants.filter!)).toEqual([])
  })

  it('a planted merge driver named in .gitattributes and merge.default never runs', async () => {
    expect(await lifecycle(plants.merge!)).toEqual([])
  })

  it('a planted fsmonitor hook never runs', async () => {
    expect(await lifecycle(plants.fsmonitor!)).toEqual([])
  })

  it('a planted external diff, textconv program and pager never run', async () => {
    expect(await lifecycle(plants.diff!)).toEqual([])
  })

  it('the planted programs do run under plain git (the markers work)', async () => {
    const home = makeGitHome()
    homes.push(home)
    const markers = path.join(home.base, 'markers')
    mkdirSync(markers)
    initProject(home, { '.gitattributes': '* filter=evil merge=evil diff=evil\n', 'a.txt': 'a\n' })
    const gitDir = path.join(home.project, '.git')
    for (const p of Object.values(plants)) p(home, gitDir, markers, 'plain')
    home.sh(home.project, 'config', '--unset', 'filter.evil.process') // a process filter must speak its protocol; the clean one is enough here
    writeFiles(home.project, { 'a.txt': 'b\n' })
    const { execFileSync } = await import('node:child_process')
    const env = { PATH: process.env.PATH ?? '', HOME: home.base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
    execFileSync('git', ['-c', 'user.name=x', '-c', 'user.email=x@y', 'commit', '-qam', 'x'], { cwd: home.project, env })
    const seen = readdirSync(markers)
    expect(seen).toContain('plain-hookspath-pre-commit')
    expect(seen).toContain('plain-hookspath-reference-transaction')
    expect(seen).toContain('plain-clean')
    expect(seen).toContain('plain-fsmonitor')
  })
})
