// Project validation and the release on real repositories: every refusal says why and changes
// nothing; the release merges into the target, moves a clean checkout with it, and is refused
// while the target is checked out with changes.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
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
/** Submit the task's clone (fetched through the quarantine) and merge that commit. */
async function mergeTask(w: Worktrees, taskId: string) {
  const handed = await w.submitted(taskId, sandbox.as())
  if (!handed.ok) throw new Error(handed.reason)
  return w.merge(taskId, handed.commit)
}

let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})
function home(): GitHome {
  const h = makeGitHome()
  homes.push(h)
  return h
}
const problem = async (h: GitHome, input: unknown) => {
  const r = await validateProject(probeGit(h), input, h.forbidden)
  return r.ok ? 'ok' : r.problem
}

describe('project validation', () => {
  it('accepts a repository with the named target branch', async () => {
    const h = home()
    initProject(h)
    const r = await validateProject(probeGit(h), { path: h.project, branch: 'main' }, h.forbidden)
    expect(r).toMatchObject({ ok: true, path: h.project, branch: 'main', bare: false, gitDir: path.join(h.project, '.git') })
  })

  it('accepts a bare repository and a linked worktree, naming the repository that holds the branches', async () => {
    const h = home()
    initProject(h)
    const bare = path.join(h.base, 'src', 'bare.git')
    h.sh(h.base, 'clone', '-q', '--bare', h.project, bare)
    expect(await validateProject(probeGit(h), { path: bare, branch: 'main' }, h.forbidden)).toMatchObject({ ok: true, bare: true, gitDir: bare })
    const linked = path.join(h.base, 'src', 'linked')
    h.sh(h.project, 'worktree', 'add', '-q', '-b', 'side', linked)
    expect(await validateProject(probeGit(h), { path: linked, branch: 'main' }, h.forbidden)).toMatchObject({
      ok: true,
      bare: false,
      gitDir: path.join(h.project, '.git'),
    })
  })

  it('refuses a folder that is not a git repository', async () => {
    const h = home()
    expect(await problem(h, { path: h.project, branch: 'main' })).toBe(`${h.project} is not a git repository. Nothing was changed.`)
  })

  it('refuses a branch the repository does not have', async () => {
    const h = home()
    initProject(h)
    expect(await problem(h, { path: h.project, branch: 'release' })).toBe(`${h.project} has no branch "release". Nothing was changed.`)
  })

  it('refuses an invalid branch name before running git', async () => {
    const h = home()
    initProject(h)
    expect(await problem(h, { path: h.project, branch: '--upload-pack=x' })).toMatch(/^The project is not valid: branch: is not a valid branch name/)
  })

  it('refuses a repository inside the DSH home, the team folder or the workspace', async () => {
    const h = home()
    for (const [dir, label] of [
      [path.join(h.dshHome, 'repo'), 'the DSH home'],
      [path.join(h.workspace, 'repo'), 'the DSH home'],
    ] as const) {
      mkdirSync(dir, { recursive: true })
      h.sh(dir, 'init', '-q', '-b', 'main')
      expect(await problem(h, { path: dir, branch: 'main' })).toMatch(new RegExp(`lies inside ${label}`))
    }
  })

  it('refuses a folder inside a repository, naming the top folder', async () => {
    const h = home()
    initProject(h)
    expect(await problem(h, { path: path.join(h.project, 'src'), branch: 'main' })).toBe(
      `${path.join(h.project, 'src')} lies inside the repository ${h.project}; name the repository's top folder. Nothing was changed.`,
    )
  })

  it('refuses submodules with a clear message', async () => {
    const h = home()
    initProject(h, { '.gitmodules': '[submodule "x"]\n\tpath = x\n\turl = ../x\n', 'a.txt': 'a\n' })
    expect(await problem(h, { path: h.project, branch: 'main' })).toBe(
      `${h.project} uses git submodules (.gitmodules); submodules are not supported in this version. Nothing was changed.`,
    )
  })

  it('refuses Git LFS with a clear message', async () => {
    const h = home()
    initProject(h, { 'assets/.gitattributes': '*.png filter=lfs diff=lfs merge=lfs -text\n', 'a.txt': 'a\n' })
    expect(await problem(h, { path: h.project, branch: 'main' })).toBe(
      `${h.project} uses Git LFS (assets/.gitattributes names filter=lfs); LFS is not supported in this version. Nothing was changed.`,
    )
  })
})

async function merged(h: GitHome) {
  initProject(h)
  const { worktrees: w } = await Worktrees.open({
    root: h.pluginRoot,
    project: { gitDir: path.join(h.project, '.git'), branch: 'main' },
    forbidden: h.forbidden,
  })
  const a = await w.createClone('task-1', 'greeting')
  botCommit(h, a.dir, { 'greeting.js': 'export const hi = 1\n' })
  const m = await mergeTask(w, 'task-1')
  if (m.kind !== 'merged') throw new Error(m.kind)
  return { w, head: m.commit }
}

describe('release', () => {
  it('fast-forwards the checked-out target and its clean checkout to the integration head', async () => {
    const h = home()
    const { w, head } = await merged(h)
    const r = await release(w.git, w.integration, { gitDir: path.join(h.project, '.git'), branch: 'main' }, head)
    expect(r).toEqual({ ok: true, from: expect.any(String), to: head, fastForward: true, movedCheckout: h.project })
    expect(h.sh(h.project, 'rev-parse', 'main').trim()).toBe(head)
    expect(readFileSync(path.join(h.project, 'greeting.js'), 'utf8')).toBe('export const hi = 1\n')
    expect(h.sh(h.project, 'status', '--porcelain')).toBe('')
  })

  it("is refused, naming the paths, when the person's repository holds links a Bot could have planted (refs/heads, an objects folder, logs), and writes nothing there", async () => {
    const h = home()
    const { w, head } = await merged(h)
    const gitDir = path.join(h.project, '.git')
    const before = h.sh(h.project, 'rev-parse', 'main').trim()
    const decoy = path.join(h.base, 'decoy')
    mkdirSync(path.join(decoy, 'heads'), { recursive: true })
    mkdirSync(path.join(decoy, 'logs'), { recursive: true })
    // The person's branches moved behind a link (the decoy holds a copy), an objects folder and the logs linked too.
    cpSync(path.join(gitDir, 'refs', 'heads'), path.join(decoy, 'heads'), { recursive: true })
    rmSync(path.join(gitDir, 'refs', 'heads'), { recursive: true })
    symlinkSync(path.join(decoy, 'heads'), path.join(gitDir, 'refs', 'heads'))
    symlinkSync(decoy, path.join(gitDir, 'objects', 'zz'))
    rmSync(path.join(gitDir, 'logs'), { recursive: true, force: true })
    symlinkSync(path.join(decoy, 'logs'), path.join(gitDir, 'logs'))
    const r = await release(w.git, w.integration, { gitDir, branch: 'main' }, head)
    expect(r).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/holds links that could send the release's writes elsewhere: .*refs\/heads, .*\.git\/logs, .*objects\/zz\. /),
    })
    expect(h.sh(h.project, 'rev-parse', 'main').trim()).toBe(before)
    expect(readdirSync(path.join(decoy, 'logs'))).toEqual([])
  })

  it('is refused while the target is checked out with changes, saying why, and changes nothing', async () => {
    const h = home()
    const { w } = await merged(h)
    const before = h.sh(h.project, 'rev-parse', 'main').trim()
    writeFileSync(path.join(h.project, 'src/a.txt'), 'my own edit\n')
    const r = await release(w.git, w.integration, { gitDir: path.join(h.project, '.git'), branch: 'main' })
    expect(r).toEqual({
      ok: false,
      reason: `main is checked out in ${h.project} with uncommitted changes; releasing would move the branch under them. Commit or stash them there, then release again. Nothing was changed.`,
    })
    expect(h.sh(h.project, 'rev-parse', 'main').trim()).toBe(before)
    expect(readFileSync(path.join(h.project, 'src/a.txt'), 'utf8')).toBe('my own edit\n')
  })

  it('merges when the target moved meanwhile, and leaves a checkout on another branch alone', async () => {
    const h = home()
    const { w, head } = await merged(h)
    writeFiles(h.project, { 'person.txt': 'p\n' })
    h.sh(h.project, 'add', 'person.txt')
    h.sh(h.project, 'commit', '-q', '-m', 'person')
    const moved = h.sh(h.project, 'rev-parse', 'main').trim()
    h.sh(h.project, 'checkout', '-q', '-b', 'mine')
    writeFileSync(path.join(h.project, 'src/a.txt'), 'edit on my branch\n')
    const r = await release(w.git, w.integration, { gitDir: path.join(h.project, '.git'), branch: 'main' })
    expect(r).toMatchObject({ ok: true, from: moved, fastForward: false, movedCheckout: null })
    if (!r.ok) return
    expect(h.sh(h.project, 'rev-list', '--parents', '-n', '1', 'main').trim().split(' ').slice(1)).toEqual([moved, head])
    expect(h.sh(h.project, 'show', 'main:greeting.js')).toBe('export const hi = 1\n')
    expect(readFileSync(path.join(h.project, 'src/a.txt'), 'utf8')).toBe('edit on my branch\n')
  })

  it('fast-forwards the target of a bare project', async () => {
    const h = home()
    initProject(h)
    const bare = path.join(h.base, 'src', 'bare.git')
    h.sh(h.base, 'clone', '-q', '--bare', h.project, bare)
    const { worktrees: w } = await Worktrees.open({ root: h.pluginRoot, project: { gitDir: bare, branch: 'main' }, forbidden: h.forbidden })
    const a = await w.createClone('task-1', 'greeting')
    botCommit(h, a.dir, { 'greeting.js': 'export const hi = 1\n' })
    const m = await mergeTask(w, 'task-1')
    const r = await release(w.git, w.integration, { gitDir: bare, branch: 'main' })
    expect(r).toMatchObject({ ok: true, fastForward: true, movedCheckout: null, to: m.kind === 'merged' ? m.commit : '' })
    expect(h.sh(bare, 'rev-parse', 'main').trim()).toBe(m.kind === 'merged' ? m.commit : '')
  })

  it('is refused when the integration branch moved since its check passed', async () => {
    const h = home()
    const { w } = await merged(h)
    const r = await release(w.git, w.integration, { gitDir: path.join(h.project, '.git'), branch: 'main' }, 'f'.repeat(40))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(/^The integration branch moved since its check passed/)
  })
})
