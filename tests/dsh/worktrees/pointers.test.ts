// A Bot owns its clone's `.git`: what it plants there must not send the plugin's git into another
// repository, and a link on the way must not make the plugin read a file outside the clone. Real git.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { GitRunner } from '../../../src/worktrees/git.ts'
import { cloneRepo } from '../../../src/worktrees/repo.ts'
import { commitWip } from '../../../src/worktrees/wip.ts'
import { type GitHome, initProject, makeGitHome } from '../../support/git-project.ts'

let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})

function clonedProject() {
  const home = makeGitHome()
  homes.push(home)
  initProject(home)
  const clone = path.join(home.base, 'clone')
  home.sh(home.base, 'clone', '-q', home.project, clone)
  const empty = path.join(home.base, 'empty-home')
  mkdirSync(empty)
  return { home, clone, git: new GitRunner({ emptyHome: empty }), index: path.join(home.base, 'wip-index') }
}

it("refuses a clone whose .git holds a commondir pointing at the person's repository, and its branch never moves", async () => {
  const { home, clone } = clonedProject()
  const before = home.sh(home.project, 'rev-parse', 'main')
  writeFileSync(path.join(clone, '.git', 'commondir'), `${path.join(home.project, '.git')}\n`)
  await expect(cloneRepo(clone)).rejects.toThrow(/commondir/)
  expect(home.sh(home.project, 'rev-parse', 'main')).toBe(before)
})

it("a commondir planted after the clone was opened is found before the work-in-progress commit: nothing is written, the person's main does not move", async () => {
  const { home, clone, git, index } = clonedProject()
  const before = home.sh(home.project, 'rev-parse', 'main')
  const repo = await cloneRepo(clone)
  writeFileSync(path.join(clone, '.git', 'commondir'), `${path.join(home.project, '.git')}\n`)
  writeFileSync(path.join(clone, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  writeFileSync(path.join(clone, 'evil.txt'), 'the Bot was here\n')
  await expect(commitWip(git, repo, 'refs/heads/team/task-1-x', 'WIP: task-1', index)).rejects.toThrow(/commondir/)
  expect(home.sh(home.project, 'rev-parse', 'main')).toBe(before)
  expect(home.sh(home.project, 'ls-tree', '--name-only', 'main')).not.toContain('evil.txt')
})

it('a work-in-progress commit leaves out a file reached through a linked folder outside the clone', async () => {
  const { home, clone, git, index } = clonedProject()
  const outside = path.join(home.base, 'outside')
  mkdirSync(outside)
  writeFileSync(path.join(outside, 'key'), 'TOP-SECRET-OUTSIDE\n')
  symlinkSync(outside, path.join(clone, 'link'))
  writeFileSync(path.join(clone, '.git', 'info', 'exclude'), 'link\n')
  const blob = home.sh(clone, 'hash-object', '-w', path.join(outside, 'key')).trim()
  home.sh(clone, 'update-index', '--add', '--cacheinfo', `100644,${blob},link/key`)
  writeFileSync(path.join(clone, 'mine.txt'), 'my own work\n')
  const wip = await commitWip(git, await cloneRepo(clone), 'refs/heads/team/task-1-x', 'WIP: task-1', index)
  const files = home.sh(clone, 'ls-tree', '-r', '--name-only', wip!.commit)
  expect(files).toContain('mine.txt')
  expect(files).not.toContain('link/key')
})
