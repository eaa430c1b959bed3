// The worktree library on real git: clones per task from the integration head, merges that are
// one update-ref, conflicts that change nothing, edits kept on cancel and removal, start-up
// reconciliation, and the root refused where every Bot may write.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { INTEGRATION_REF } from '../../../src/worktrees/policy.ts'
import { Worktrees } from '../../../src/worktrees/worktrees.ts'
import { botCommit, type GitHome, initProject, makeGitHome } from '../../support/git-project.ts'

let homes: GitHome[] = []
afterEach(() => {
  for (const h of homes) h.cleanup()
  homes = []
})

async function setup() {
  const home = makeGitHome()
  homes.push(home)
  initProject(home)
  const { worktrees, reconciled } = await Worktrees.open({
    root: home.pluginRoot,
    project: { gitDir: path.join(home.project, '.git'), branch: 'main' },
    forbidden: home.forbidden,
  })
  return { home, w: worktrees, reconciled }
}

const parents = (home: GitHome, w: Worktrees, commit: string) =>
  home.sh(w.integration.gitDir, 'rev-list', '--parents', '-n', '1', commit).trim().split(' ').slice(1)

describe('clones per task', () => {
  it('each task gets its own clone on team/<task-id>-<slug> from the integration head, outside the project', async () => {
    const { home, w } = await setup()
    const head = await w.integrationHead()
    const a = await w.createClone('task-1', 'Add a greeting module!')
    const b = await w.createClone('task-2', 'Tests for it')
    expect(a.branch).toBe('team/task-1-add-a-greeting-module')
    expect(a.base).toBe(head)
    expect(a.dir).not.toBe(b.dir)
    expect(home.sh(a.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(a.branch)
    expect(home.sh(a.dir, 'rev-parse', 'HEAD').trim()).toBe(head)
    expect(readFileSync(path.join(a.dir, 'src/a.txt'), 'utf8')).toBe('one\ntwo\nthree\n')
    // The clone borrows the integration clone's objects, and that clone never collects garbage.
    expect(readFileSync(path.join(a.dir, '.git/objects/info/alternates'), 'utf8').trim()).toBe(path.join(w.integration.gitDir, 'objects'))
    expect(home.sh(w.integration.gitDir, 'config', 'gc.auto').trim()).toBe('0')
    expect(home.sh(w.integration.gitDir, 'rev-parse', '--is-bare-repository').trim()).toBe('true')
    // Asking again gives the same clone.
    expect(await w.createClone('task-1', 'other title')).toEqual(a)
  })

  it("a dependent task starts from the integration head that holds its blocker's merge", async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'greeting')
    botCommit(home, a.dir, { 'greeting.js': 'export const hi = 1\n' })
    const merged = await w.merge('task-1')
    expect(merged.kind).toBe('merged')
    const b = await w.createClone('task-2', 'tests')
    expect(b.base).toBe(await w.integrationHead())
    expect(existsSync(path.join(b.dir, 'greeting.js'))).toBe(true)
  })

  it('refuses a plugin folder inside the shared temporary folder and creates nothing', async () => {
    const home = makeGitHome()
    homes.push(home)
    initProject(home)
    const root = path.join(os.tmpdir(), `wt-refused-${process.pid}`)
    await expect(Worktrees.open({ root, project: { gitDir: path.join(home.project, '.git'), branch: 'main' }, forbidden: home.forbidden })).rejects.toThrow(
      /shared temporary folder/,
    )
    expect(existsSync(root)).toBe(false)
  })

  it('refuses a plugin folder inside the DSH home and creates nothing', async () => {
    const home = makeGitHome()
    homes.push(home)
    initProject(home)
    const root = path.join(home.dshHome, 'worktrees')
    await expect(Worktrees.open({ root, project: { gitDir: path.join(home.project, '.git'), branch: 'main' }, forbidden: home.forbidden })).rejects.toThrow(
      /inside the DSH home/,
    )
    expect(existsSync(root)).toBe(false)
  })
})

describe('merges', () => {
  it('a clean merge is one commit with the integration head and the task head as parents, moved by one checked update-ref', async () => {
    const { home, w } = await setup()
    const before = await w.integrationHead()
    const a = await w.createClone('task-1', 'one')
    const theirs = botCommit(home, a.dir, { 'one.txt': '1\n' })
    const out = await w.merge('task-1')
    expect(out).toMatchObject({ kind: 'merged', ours: before, theirs, branch: a.branch })
    if (out.kind !== 'merged') return
    expect(await w.integrationHead()).toBe(out.commit)
    expect(parents(home, w, out.commit)).toEqual([before, theirs])
    expect(home.sh(w.integration.gitDir, 'show', `${out.commit}:one.txt`)).toBe('1\n')
    // Merging the same head again changes nothing.
    expect((await w.merge('task-1')).kind).toBe('already-merged')
    expect(await w.integrationHead()).toBe(out.commit)
  })

  it('a conflict returns the conflicting paths and both commits and leaves the integration branch as it was; resolved in the clone it merges', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const b = await w.createClone('task-2', 'two')
    botCommit(home, a.dir, { 'src/a.txt': 'one\nTWO by a\nthree\n' })
    const theirs = botCommit(home, b.dir, { 'src/a.txt': 'one\nTWO by b\nthree\n', 'b.txt': 'b\n' })
    const first = await w.merge('task-1')
    expect(first.kind).toBe('merged')
    const head = await w.integrationHead()
    const conflict = await w.merge('task-2')
    expect(conflict).toMatchObject({ kind: 'conflict', ours: head, theirs, paths: ['src/a.txt'], pathCount: 1 })
    expect(await w.integrationHead()).toBe(head)
    expect(readFileSync(path.join(b.dir, 'src/a.txt'), 'utf8')).toBe('one\nTWO by b\nthree\n')
    // The Bot resolves in its clone: the integration head's objects are already there (shared).
    home.sh(b.dir, 'fetch', '-q', 'integration')
    try {
      home.sh(b.dir, '-c', 'user.name=Bot', '-c', 'user.email=b@x', 'merge', '-q', head)
    } catch {}
    botCommit(home, b.dir, { 'src/a.txt': 'one\nTWO by a and b\nthree\n' }, 'resolve')
    const second = await w.merge('task-2')
    expect(second.kind).toBe('merged')
    if (second.kind !== 'merged') return
    expect(home.sh(w.integration.gitDir, 'show', `${second.commit}:src/a.txt`)).toBe('one\nTWO by a and b\nthree\n')
    expect(parents(home, w, second.commit)[0]).toBe(head)
  })
})

describe('never lose an edit', () => {
  it("a cancelled task's uncommitted changes are committed to its branch as WIP and the unmerged branch is kept after its clone is removed", async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const committed = botCommit(home, a.dir, { 'done.txt': 'done\n' })
    writeFileSync(path.join(a.dir, 'src/a.txt'), 'edited but not committed\n')
    writeFileSync(path.join(a.dir, 'new.txt'), 'untracked\n')
    writeFileSync(path.join(a.dir, '.gitignore'), 'ignored.log\n')
    writeFileSync(path.join(a.dir, 'ignored.log'), 'noise\n')
    const out = await w.removeClone('task-1', 'cancelled by the person')
    expect(out).toMatchObject({ branch: a.branch, merged: false, keptAs: `refs/heads/${a.branch}` })
    expect(out!.wip?.ref).toBe(`refs/heads/${a.branch}`)
    expect(existsSync(a.dir)).toBe(false)
    const ref = `refs/heads/${a.branch}`
    const kept = home.sh(w.integration.gitDir, 'rev-parse', ref).trim()
    expect(kept).toBe(out!.wip!.commit)
    expect(home.sh(w.integration.gitDir, 'rev-parse', `${kept}^`).trim()).toBe(committed)
    expect(home.sh(w.integration.gitDir, 'show', `${kept}:src/a.txt`)).toBe('edited but not committed\n')
    expect(home.sh(w.integration.gitDir, 'show', `${kept}:new.txt`)).toBe('untracked\n')
    expect(home.sh(w.integration.gitDir, 'ls-tree', '--name-only', kept)).not.toContain('ignored.log')
    expect(home.sh(w.integration.gitDir, 'log', '-1', '--format=%s', kept).trim()).toBe('WIP: task-1 — cancelled by the person')
    expect(w.clones()).toEqual([])
  })

  it('a merged branch with nothing uncommitted is deleted when its clone is removed', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    botCommit(home, a.dir, { 'one.txt': '1\n' })
    await w.merge('task-1')
    const out = await w.removeClone('task-1', 'done')
    expect(out).toMatchObject({ merged: true, keptAs: null, wip: null })
    expect(home.sh(w.integration.gitDir, 'for-each-ref', '--format=%(refname)', 'refs/heads/team/task-1-one')).toBe('')
  })

  it('a branch the Bot rewrote keeps its old head beside it', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const first = botCommit(home, a.dir, { 'one.txt': '1\n' })
    await w.merge('task-1')
    home.sh(a.dir, 'reset', '-q', '--hard', a.base)
    botCommit(home, a.dir, { 'two.txt': '2\n' })
    expect((await w.merge('task-1')).kind).toBe('merged')
    expect(home.sh(w.integration.gitDir, 'rev-parse', `refs/heads/${a.branch}-before-${first.slice(0, 12)}`).trim()).toBe(first)
  })
})

describe('start-up reconciliation', () => {
  it('an unknown clone holding unmerged work is kept and listed; one without is removed and listed', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    botCommit(home, a.dir, { 'one.txt': '1\n' })
    const b = await w.createClone('task-2', 'two')
    // The registry forgets both (as if it were restored from an older copy).
    writeFileSync(path.join(w.root, 'clones.json'), JSON.stringify({ version: 1, clones: [] }))
    const { reconciled } = await Worktrees.open({
      root: home.pluginRoot,
      project: { gitDir: path.join(home.project, '.git'), branch: 'main' },
      forbidden: home.forbidden,
    })
    expect(reconciled).toContainEqual({ kind: 'kept-unknown', dir: a.dir, why: 'it holds commits not in the integration branch' })
    expect(reconciled).toContainEqual({ kind: 'removed-unknown', dir: b.dir })
    expect(existsSync(a.dir)).toBe(true)
    expect(existsSync(b.dir)).toBe(false)
  })

  it('clones of tasks no longer active are removed with their work kept; half-made folders are swept', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    writeFileSync(path.join(a.dir, 'draft.txt'), 'draft\n')
    await w.createClone('task-2', 'two')
    mkdirSync(path.join(w.root, 'clones', '.new-task-3'))
    const { worktrees, reconciled } = await Worktrees.open(
      { root: home.pluginRoot, project: { gitDir: path.join(home.project, '.git'), branch: 'main' }, forbidden: home.forbidden },
      new Set(['task-2']),
    )
    expect(reconciled.map((r) => r.kind).sort()).toEqual(['removed', 'swept'])
    expect(worktrees.clones().map((c) => c.taskId)).toEqual(['task-2'])
    expect(home.sh(worktrees.integration.gitDir, 'show', `refs/heads/${a.branch}:draft.txt`)).toBe('draft\n')
  })

  it('a stale ref lock left by a killed git is cleared at start, and the next merge goes through', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    botCommit(home, a.dir, { 'one.txt': '1\n' })
    writeFileSync(path.join(w.integration.gitDir, INTEGRATION_REF + '.lock'), 'x')
    const { worktrees } = await Worktrees.open({
      root: home.pluginRoot,
      project: { gitDir: path.join(home.project, '.git'), branch: 'main' },
      forbidden: home.forbidden,
    })
    expect((await worktrees.merge('task-1')).kind).toBe('merged')
  })
})
