// The worktree library on real git and DSH's real sandbox: clones per task from the integration
// head, the submitted commit fetched through a quarantine, merges that are one update-ref,
// conflicts that change nothing, edits kept on cancel and removal (committed and removed confined),
// start-up reconciliation, and the root refused where every Bot may write.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { INTEGRATION_REF } from '../../../src/worktrees/policy.ts'
import { Worktrees } from '../../../src/worktrees/worktrees.ts'
import { type RealSandbox, realSandbox } from '../../support/confine.ts'
import { botCommit, type GitHome, initProject, makeGitHome } from '../../support/git-project.ts'

let sandbox: RealSandbox
beforeAll(async () => {
  sandbox = await realSandbox()
})
afterAll(() => sandbox.dispose())

/** What accepting a submitted task does: the clone's branch fetched (a clean clone on its branch), that commit merged. */
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
    const merged = await mergeTask(w, 'task-1')
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
    const out = await mergeTask(w, 'task-1')
    expect(out).toMatchObject({ kind: 'merged', ours: before, theirs, branch: a.branch })
    if (out.kind !== 'merged') return
    expect(await w.integrationHead()).toBe(out.commit)
    expect(parents(home, w, out.commit)).toEqual([before, theirs])
    expect(home.sh(w.integration.gitDir, 'show', `${out.commit}:one.txt`)).toBe('1\n')
    // Merging the same head again changes nothing.
    expect((await mergeTask(w, 'task-1')).kind).toBe('already-merged')
    expect(await w.integrationHead()).toBe(out.commit)
  })

  it('a conflict returns the conflicting paths and both commits and leaves the integration branch as it was; resolved in the clone it merges', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const b = await w.createClone('task-2', 'two')
    botCommit(home, a.dir, { 'src/a.txt': 'one\nTWO by a\nthree\n' })
    const theirs = botCommit(home, b.dir, { 'src/a.txt': 'one\nTWO by b\nthree\n', 'b.txt': 'b\n' })
    const first = await mergeTask(w, 'task-1')
    expect(first.kind).toBe('merged')
    const head = await w.integrationHead()
    const conflict = await mergeTask(w, 'task-2')
    expect(conflict).toMatchObject({ kind: 'conflict', ours: head, theirs, paths: ['src/a.txt'], pathCount: 1 })
    expect(await w.integrationHead()).toBe(head)
    expect(readFileSync(path.join(b.dir, 'src/a.txt'), 'utf8')).toBe('one\nTWO by b\nthree\n')
    // The Bot resolves in its clone: the integration head's objects are already there (shared).
    home.sh(b.dir, 'fetch', '-q', 'integration')
    try {
      home.sh(b.dir, '-c', 'user.name=Bot', '-c', 'user.email=b@x', 'merge', '-q', head)
    } catch {}
    botCommit(home, b.dir, { 'src/a.txt': 'one\nTWO by a and b\nthree\n' }, 'resolve')
    const second = await mergeTask(w, 'task-2')
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
    const out = await w.removeClone('task-1', 'cancelled by the person', sandbox.as())
    expect(out).toMatchObject({ kind: 'removed', branch: a.branch, merged: false, keptAs: `refs/heads/${a.branch}` })
    expect(existsSync(a.dir)).toBe(false)
    const ref = `refs/heads/${a.branch}`
    const kept = home.sh(w.integration.gitDir, 'rev-parse', ref).trim()
    expect(out?.kind === 'removed' && out.wip).toBe(kept)
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
    await mergeTask(w, 'task-1')
    const out = await w.removeClone('task-1', 'done', sandbox.as())
    expect(out).toMatchObject({ kind: 'removed', merged: true, keptAs: null, wip: null })
    expect(home.sh(w.integration.gitDir, 'for-each-ref', '--format=%(refname)', 'refs/heads/team/task-1-one')).toBe('')
  })

  it('a branch the Bot rewrote keeps its old head beside it', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const first = botCommit(home, a.dir, { 'one.txt': '1\n' })
    await mergeTask(w, 'task-1')
    home.sh(a.dir, 'reset', '-q', '--hard', a.base)
    botCommit(home, a.dir, { 'two.txt': '2\n' })
    expect((await mergeTask(w, 'task-1')).kind).toBe('merged')
    expect(home.sh(w.integration.gitDir, 'rev-parse', `refs/heads/${a.branch}-before-${first.slice(0, 12)}`).trim()).toBe(first)
  })
})

describe('start-up reconciliation', () => {
  it('an unknown clone is taken in: its uncommitted work committed, its branches fetched into refs/unknown/<dir>/*, then removed through the sandbox', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const one = botCommit(home, a.dir, { 'one.txt': '1\n' })
    writeFileSync(path.join(a.dir, 'draft.txt'), 'draft\n')
    const b = await w.createClone('task-2', 'two')
    // The registry forgets both (as if it were restored from an older copy).
    writeFileSync(path.join(w.root, 'clones.json'), JSON.stringify({ version: 1, clones: [] }))
    const { worktrees, reconciled } = await Worktrees.open(
      { root: home.pluginRoot, project: { gitDir: path.join(home.project, '.git'), branch: 'main' }, forbidden: home.forbidden },
      undefined,
      () => sandbox.as(),
    )
    expect(reconciled).toContainEqual({ kind: 'removed-unknown', dir: a.dir, refs: 'refs/unknown/task-1/*' })
    expect(reconciled).toContainEqual({ kind: 'removed-unknown', dir: b.dir, refs: 'refs/unknown/task-2/*' })
    expect(existsSync(a.dir)).toBe(false)
    expect(existsSync(b.dir)).toBe(false)
    const kept = home.sh(worktrees.integration.gitDir, 'rev-parse', `refs/unknown/task-1/${a.branch}`).trim()
    expect(home.sh(worktrees.integration.gitDir, 'rev-parse', `${kept}^`).trim()).toBe(one)
    expect(home.sh(worktrees.integration.gitDir, 'show', `${kept}:draft.txt`)).toBe('draft\n')
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
      () => sandbox.as(),
    )
    expect(reconciled.map((r) => r.kind).sort()).toEqual(['removed', 'swept'])
    expect(worktrees.clones().map((c) => c.taskId)).toEqual(['task-2'])
    expect(home.sh(worktrees.integration.gitDir, 'show', `refs/heads/${a.branch}:draft.txt`)).toBe('draft\n')
  })

  it('a stale ref lock left by a killed git in the integration clone is cleared at start, and the next merge goes through', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    botCommit(home, a.dir, { 'one.txt': '1\n' })
    writeFileSync(path.join(w.integration.gitDir, INTEGRATION_REF + '.lock'), 'x')
    const { worktrees } = await Worktrees.open({
      root: home.pluginRoot,
      project: { gitDir: path.join(home.project, '.git'), branch: 'main' },
      forbidden: home.forbidden,
    })
    expect((await mergeTask(worktrees, 'task-1')).kind).toBe('merged')
  })
})

describe('one commit from check to merge', () => {
  it('refuses a submit with uncommitted changes ("commit first") or HEAD off the task branch, and reads only refs/heads/<task branch>', async () => {
    const { home, w } = await setup()
    const a = await w.createClone('task-1', 'one')
    const committed = botCommit(home, a.dir, { 'one.txt': '1\n' })
    writeFileSync(path.join(a.dir, 'one.txt'), 'not committed\n')
    expect(await w.submitted('task-1', sandbox.as())).toMatchObject({ ok: false, reason: expect.stringMatching(/uncommitted changes: commit first/) })
    home.sh(a.dir, 'checkout', '-q', '--', 'one.txt')
    home.sh(a.dir, 'checkout', '-q', '-b', 'elsewhere')
    expect(await w.submitted('task-1', sandbox.as())).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/HEAD is on elsewhere, not on your task branch/),
    })
    botCommit(home, a.dir, { 'elsewhere.txt': 'e\n' })
    home.sh(a.dir, 'checkout', '-q', a.branch)
    expect(await w.submitted('task-1', sandbox.as())).toEqual({ ok: true, commit: committed, branch: a.branch })
    // The check's checkout is exactly that commit, fresh (no ignored files), and goes through the sandbox.
    writeFileSync(path.join(a.dir, '.gitignore'), 'node_modules/\n')
    const tree = await w.checkTree(committed)
    expect(home.sh(tree.dir, 'rev-parse', 'HEAD').trim()).toBe(committed)
    expect(existsSync(path.join(tree.dir, 'one.txt'))).toBe(true)
    await tree.done(sandbox.confine)
    expect(existsSync(path.dirname(tree.dir))).toBe(false)
  })
})
