// A Bot owns its clone's `.git`: what it plants there must never make the plugin write, delete or
// follow into another repository. Issue 32's findings 1–3 at the git layer, on real git and DSH's
// real sandbox, with the person's repository outside every folder a Bot may write.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { Worktrees } from '../../../src/worktrees/worktrees.ts'
import { type RealSandbox, realSandbox } from '../../support/confine.ts'
import { type GitHome, initProject, makeGitHome } from '../../support/git-project.ts'

let sandbox: RealSandbox
beforeAll(async () => {
  sandbox = await realSandbox()
})
afterAll(() => sandbox.dispose())
let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})

async function cloned() {
  const home = makeGitHome()
  homes.push(home)
  initProject(home)
  const opts = { root: home.pluginRoot, project: { gitDir: path.join(home.project, '.git'), branch: 'main' }, forbidden: home.forbidden }
  const { worktrees: w } = await Worktrees.open(opts, undefined, () => sandbox.as())
  const clone = await w.createClone('task-1', 'one')
  const person = path.join(home.project, '.git')
  const fsck = () => home.sh(home.project, 'fsck', '--no-dangling')
  return { home, w, clone, person, opts, fsck, main: () => home.sh(home.project, 'rev-parse', 'main').trim() }
}

it("finding 1: a clone whose refs/heads and object folders link into the person's repository, HEAD on main: the cancelled task's work-in-progress moves nothing there, fsck passes, the clone is kept", async () => {
  const { clone, w, person, fsck, main } = await cloned()
  const before = main()
  const headFile = readFileSync(path.join(person, 'HEAD'), 'utf8')
  rmSync(path.join(clone.dir, '.git', 'refs', 'heads'), { recursive: true })
  symlinkSync(path.join(person, 'refs', 'heads'), path.join(clone.dir, '.git', 'refs', 'heads'))
  for (let i = 0; i < 256; i++) {
    const xx = i.toString(16).padStart(2, '0')
    const dst = path.join(person, 'objects', xx)
    mkdirSync(dst, { recursive: true })
    symlinkSync(dst, path.join(clone.dir, '.git', 'objects', xx))
  }
  writeFileSync(path.join(clone.dir, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(path.join(clone.dir, 'evil.txt'), 'the Bot was here\n')
  const out = await w.removeClone('task-1', 'cancelled', sandbox.as('workspace-write'))
  expect(out).toMatchObject({ kind: 'kept', dir: clone.dir })
  expect(main()).toBe(before)
  expect(readFileSync(path.join(person, 'HEAD'), 'utf8')).toBe(headFile)
  fsck()
  expect(existsSync(path.join(clone.dir, 'evil.txt'))).toBe(true)
})

it("finding 2: a clone whose .git/logs links to the person's .git: no reflog line reaches the person's HEAD, which still resolves", async () => {
  const { home, clone, w, person, main } = await cloned()
  const headFile = readFileSync(path.join(person, 'HEAD'), 'utf8')
  rmSync(path.join(clone.dir, '.git', 'logs'), { recursive: true, force: true })
  symlinkSync(person, path.join(clone.dir, '.git', 'logs'))
  writeFileSync(path.join(clone.dir, 'draft.txt'), 'draft\n')
  const before = main()
  await w.removeClone('task-1', 'cancelled', sandbox.as('workspace-write'))
  expect(readFileSync(path.join(person, 'HEAD'), 'utf8')).toBe(headFile)
  expect(home.sh(home.project, 'rev-parse', 'HEAD').trim()).toBe(before)
})

it('finding 3: at start-up no lock file behind a planted .git/logs link is deleted (Cargo.lock, yarn.lock, the person’s index.lock)', async () => {
  const { home, clone, person, opts } = await cloned()
  const decoy = path.join(home.base, 'decoy')
  mkdirSync(decoy)
  for (const f of ['Cargo.lock', 'yarn.lock']) writeFileSync(path.join(decoy, f), 'keep me\n')
  writeFileSync(path.join(person, 'index.lock'), 'the person is committing\n')
  rmSync(path.join(clone.dir, '.git', 'logs'), { recursive: true, force: true })
  symlinkSync(decoy, path.join(clone.dir, '.git', 'logs'))
  symlinkSync(person, path.join(clone.dir, '.git', 'person'))
  writeFileSync(path.join(clone.dir, 'draft.txt'), 'draft\n')
  const { reconciled } = await Worktrees.open(opts, new Set(), () => sandbox.as())
  // The confined commit cannot append its reflog through the link (the sandbox refuses): the clone is kept.
  expect(reconciled).toEqual([{ kind: 'kept', taskId: 'task-1', dir: clone.dir, why: expect.stringMatching(/could not be committed/) }])
  for (const f of ['Cargo.lock', 'yarn.lock']) expect(readFileSync(path.join(decoy, f), 'utf8')).toBe('keep me\n')
  expect(existsSync(path.join(person, 'index.lock'))).toBe(true)
  expect(readFileSync(path.join(clone.dir, 'draft.txt'), 'utf8')).toBe('draft\n')
})

it('a stale index.lock a killed Bot git left in its clone is cleared by the confined work-in-progress commit (never by the plugin), and the work is kept', async () => {
  const { home, clone, w } = await cloned()
  writeFileSync(path.join(clone.dir, '.git', 'index.lock'), '')
  writeFileSync(path.join(clone.dir, 'draft.txt'), 'draft\n')
  const out = await w.removeClone('task-1', 'cancelled', sandbox.as())
  expect(out).toMatchObject({ kind: 'removed', wip: expect.any(String) })
  expect(home.sh(w.integration.gitDir, 'show', `${out?.kind === 'removed' ? out.wip : ''}:draft.txt`)).toBe('draft\n')
})

it('a read-only task with uncommitted work keeps its clone (never deleted), and says where it is', async () => {
  const { clone, w } = await cloned()
  writeFileSync(path.join(clone.dir, 'draft.txt'), 'draft\n')
  const out = await w.removeClone('task-1', 'cancelled', sandbox.as('read-only'))
  expect(out).toEqual({ kind: 'kept', dir: clone.dir, why: expect.stringMatching(/uncommitted work and its task ran read-only/) })
  expect(readFileSync(path.join(clone.dir, 'draft.txt'), 'utf8')).toBe('draft\n')
})

it('with no sandbox a clone is kept, never deleted', async () => {
  const { clone, w } = await cloned()
  const none = {
    confine: {
      unavailable: () => 'no sandbox here',
      argvFor: () => Promise.reject(new Error('none')),
    },
    mode: 'workspace-write' as const,
  }
  expect(await w.removeClone('task-1', 'cancelled', none)).toMatchObject({ kind: 'kept', dir: clone.dir })
  expect(existsSync(clone.dir)).toBe(true)
})
