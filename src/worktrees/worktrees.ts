/**
 * One project's worktrees in a folder the plugin owns: the integration clone, a `--shared` clone
 * per task on `team/<task-id>-<slug>`, merges into `team/integration`, removal that first keeps
 * every edit (uncommitted work as a WIP commit, the branch copied into the integration clone), and
 * start-up reconciliation. Ordering is the crash journal: the registry names a clone before its
 * folder gets its final name, and forgets it only after the folder is renamed away.
 * Deliberately no tasks, authority or Sessions: the task service decides when each step runs.
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, realpath, rename, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { makePrivateDir } from '../core/private-file.ts'
import { GitRunner, type GitRun } from './git.ts'
import { clearStaleLocks, createIntegration, type MergeOutcome, mergeInto } from './integration.ts'
import {
  CLONE_DIR,
  type CloneEntry,
  classifyCloneFolder,
  type Forbidden,
  INTEGRATION_REF,
  overlapProblem,
  SHARED_TEMP_DIRS,
  TASK_ID,
  taskBranch,
} from './policy.ts'
import { CloneRegistry } from './registry.ts'
import { cloneRepo, fetchFrom, isAncestor, type Repo, revParseAll } from './repo.ts'
import { commitWip, type WipOutcome, workTreeTree } from './wip.ts'

export interface WorktreesOptions {
  /** The plugin's folder for this project (created; outside `/tmp`, the DSH home, the team folder, the workspace). */
  root: string
  /** The project's repository (validated by `validateProject`) and its target branch. */
  project: { gitDir: string; branch: string }
  /** Folders the root may not lie in or hold (the DSH home, the team folder, the workspace). */
  forbidden: readonly Forbidden[]
  /** Shared temporary folders (default `/tmp`, `/var/tmp`, `/dev/shm` and the OS temp folder). */
  sharedTemp?: readonly string[]
  observe?: (run: GitRun) => void
  git?: string
  now?: () => Date
}

export interface CloneInfo {
  taskId: string
  dir: string
  branch: string
  base: string
}

export type ReconcileItem =
  | { kind: 'completed'; taskId: string }
  | { kind: 'dropped'; taskId: string; why: string }
  | { kind: 'removed'; taskId: string; dir: string; outcome: RemoveOutcome }
  | { kind: 'kept-unknown'; dir: string; why: string }
  | { kind: 'removed-unknown'; dir: string }
  | { kind: 'foreign'; dir: string }
  | { kind: 'swept'; dir: string }

export interface RemoveOutcome {
  branch: string
  head: string
  wip: WipOutcome | null
  merged: boolean
  /** Where the branch is kept when it holds unmerged commits (the integration clone's copy). */
  keptAs: string | null
}

/** The real path `p` has or will have: its deepest existing folder resolved, the rest as given. */
async function realPathOf(p: string): Promise<string> {
  const abs = path.resolve(p)
  const rest: string[] = []
  for (let dir = abs; ; dir = path.dirname(dir)) {
    try {
      return path.join(await realpath(dir), ...rest.reverse())
    } catch {
      if (path.dirname(dir) === dir) return abs
      rest.push(path.basename(dir))
    }
  }
}

export class Worktrees {
  readonly root: string
  readonly integration: Repo
  readonly git: GitRunner
  readonly #clones: string
  readonly #scratch: string
  readonly #registry: CloneRegistry
  readonly #now: () => Date
  #queue: Promise<unknown> = Promise.resolve()

  private constructor(root: string, git: GitRunner, registry: CloneRegistry, now: () => Date) {
    this.root = root
    this.git = git
    this.integration = { gitDir: path.join(root, 'integration.git') }
    this.#clones = path.join(root, 'clones')
    this.#scratch = path.join(root, 'tmp')
    this.#registry = registry
    this.#now = now
  }

  /** Open (or create) the root and its integration clone, clear what a crash left, reconcile the clones. */
  static async open(options: WorktreesOptions, active?: ReadonlySet<string>): Promise<{ worktrees: Worktrees; reconciled: ReconcileItem[] }> {
    const root = await realPathOf(options.root)
    const shared = [...(options.sharedTemp ?? [...SHARED_TEMP_DIRS, os.tmpdir()])]
    const temps: Forbidden[] = []
    for (const t of shared) temps.push({ label: 'a shared temporary folder every Bot may write', path: await realpath(t).catch(() => t) })
    const problem = overlapProblem("The plugin's worktree folder", root, [...options.forbidden, ...temps])
    if (problem) throw new Error(problem)
    await mkdir(root, { recursive: true, mode: 0o700 })
    for (const sub of ['clones', 'tmp', 'home']) await makePrivateDir(path.join(root, sub))
    await rm(path.join(root, 'tmp'), { recursive: true, force: true })
    await makePrivateDir(path.join(root, 'tmp'))
    const git = new GitRunner({ emptyHome: path.join(root, 'home'), observe: options.observe, git: options.git })
    const registry = await CloneRegistry.open(root)
    const w = new Worktrees(root, git, registry, options.now ?? (() => new Date()))
    const exists = await lstat(w.integration.gitDir).then(
      () => true,
      () => false,
    )
    if (!exists) await createIntegration(git, options.project.gitDir, options.project.branch, w.integration.gitDir, w.#scratch)
    await clearStaleLocks(w.integration.gitDir)
    const reconciled = await w.reconcile(active)
    return { worktrees: w, reconciled }
  }

  /** Serialize the operations that change the root (one at a time; git itself runs in parallel across roots). */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work)
    this.#queue = run.catch(() => {})
    return run
  }

  /** The integration branch's head. */
  async integrationHead(): Promise<string> {
    return (await revParseAll(this.git, this.integration, [INTEGRATION_REF]))[0]!
  }

  dirOf(taskId: string): string {
    if (!TASK_ID.test(taskId)) throw new Error(`"${taskId}" is not a task id`)
    return path.join(this.#clones, taskId)
  }

  /** The clones the registry knows. */
  clones(): CloneEntry[] {
    return this.#registry.list()
  }

  /** The task's clone: made from the integration head on a new branch, or the one it already has. */
  createClone(taskId: string, title: string): Promise<CloneInfo> {
    return this.#serial(async () => {
      const dir = this.dirOf(taskId)
      const known = this.#registry.get(taskId)
      if (known?.state === 'ready') return { taskId, dir, branch: known.branch, base: known.base }
      if (known?.state === 'removing') throw new Error(`${taskId}'s clone is being removed; start the task again once it is gone.`)
      const base = await this.integrationHead()
      const branch = known?.branch ?? taskBranch(taskId, title)
      await this.#registry.set(taskId, { taskId, branch, base: known?.base ?? base, state: 'creating', at: this.#now().toISOString() })
      const tmp = path.join(this.#clones, `${CLONE_DIR.partial}${taskId}`)
      await rm(tmp, { recursive: true, force: true })
      await this.git.run(['clone', '--quiet', '--shared', '--no-checkout', '--template=', '--origin', 'integration', '--', this.integration.gitDir, tmp], {
        cwd: this.#clones,
      })
      await this.git.run(['checkout', '--quiet', '-b', branch, known?.base ?? base], { cwd: tmp, gitDir: path.join(tmp, '.git'), workTree: tmp })
      await rename(tmp, dir)
      await this.#registry.set(taskId, { taskId, branch, base: known?.base ?? base, state: 'ready', at: this.#now().toISOString() })
      return { taskId, dir, branch, base: known?.base ?? base }
    })
  }

  /** A throwaway checkout of the integration head (for the project's full check before a release); `done` removes it. */
  checkoutIntegration(): Promise<{ dir: string; head: string; done: () => Promise<void> }> {
    return this.#serial(async () => {
      const head = await this.integrationHead()
      const dir = path.join(this.#scratch, `release-${randomBytes(6).toString('hex')}`)
      await this.git.run(['clone', '--quiet', '--shared', '--no-checkout', '--template=', '--', this.integration.gitDir, dir], { cwd: this.#scratch })
      await this.git.run(['checkout', '--quiet', '--detach', head], { cwd: dir, gitDir: path.join(dir, '.git'), workTree: dir })
      return { dir, head, done: () => rm(dir, { recursive: true, force: true }) }
    })
  }

  /** Copy the task's branch from its clone into the integration clone (never forced: a rewritten branch keeps its old head aside). */
  async #collect(taskId: string, entry: CloneEntry): Promise<string> {
    const repo = await cloneRepo(this.dirOf(taskId))
    const ref = `refs/heads/${entry.branch}`
    try {
      await fetchFrom(this.git, this.integration, repo.gitDir, [`${ref}:${ref}`])
    } catch (error) {
      const [old] = await revParseAll(this.git, this.integration, [ref]).catch(() => [null])
      if (!old) throw error
      // The Bot rewrote its branch: keep the old head under its own name, then take the new one.
      await this.git.run(['update-ref', `${ref}-before-${old.slice(0, 12)}`, old], { cwd: this.integration.gitDir, gitDir: this.integration.gitDir })
      await fetchFrom(this.git, this.integration, repo.gitDir, [`+${ref}:${ref}`])
    }
    return (await revParseAll(this.git, this.integration, [ref]))[0]!
  }

  /** Merge the task's branch (its committed work) into the integration branch. */
  merge(taskId: string): Promise<MergeOutcome & { branch: string }> {
    return this.#serial(async () => {
      const entry = this.#ready(taskId)
      const head = await this.#collect(taskId, entry)
      const outcome = await mergeInto(this.git, this.integration, head, `Merge ${entry.branch} (${taskId})`)
      return { ...outcome, branch: entry.branch }
    })
  }

  /** Commit the clone's uncommitted work to its branch as work in progress (`null`: nothing uncommitted). */
  commitWip(taskId: string, why: string): Promise<WipOutcome | null> {
    return this.#serial(async () => {
      const entry = this.#ready(taskId)
      return commitWip(this.git, await cloneRepo(this.dirOf(taskId)), `refs/heads/${entry.branch}`, `WIP: ${taskId} — ${why}`, this.#indexFile())
    })
  }

  /**
   * Remove the task's clone, keeping every edit first: uncommitted work committed as WIP, the
   * branch copied into the integration clone; that copy is deleted only when it is merged.
   */
  removeClone(taskId: string, why: string): Promise<RemoveOutcome | null> {
    return this.#serial(() => this.#remove(taskId, why))
  }

  async #remove(taskId: string, why: string): Promise<RemoveOutcome | null> {
    const entry = this.#registry.get(taskId)
    if (!entry) return null
    const dir = this.dirOf(taskId)
    const present = await lstat(dir).then(
      () => true,
      () => false,
    )
    if (!present) {
      await this.#registry.set(taskId, null)
      return null
    }
    const repo = await cloneRepo(dir)
    const ref = `refs/heads/${entry.branch}`
    const wip = await commitWip(this.git, repo, ref, `WIP: ${taskId} — ${why}`, this.#indexFile())
    // Work committed on another branch the Bot switched to is kept beside the task branch, never under the Bot's name for it.
    const wipCopy = wip && wip.ref !== ref ? `${ref}-wip` : null
    if (wip && wipCopy) await fetchFrom(this.git, this.integration, repo.gitDir, [`+${wip.ref}:${wipCopy}`])
    const head = await this.#collect(taskId, entry)
    const [integration] = await revParseAll(this.git, this.integration, [INTEGRATION_REF])
    const merged = await isAncestor(this.git, this.integration, head, integration!)
    if (merged && !wip) await this.git.run(['update-ref', '-d', ref, head], { cwd: this.integration.gitDir, gitDir: this.integration.gitDir })
    await this.#registry.set(taskId, { ...entry, state: 'removing' })
    const trash = path.join(this.#clones, `${CLONE_DIR.trash}${taskId}-${randomBytes(4).toString('hex')}`)
    await rename(dir, trash)
    await this.#registry.set(taskId, null)
    await rm(trash, { recursive: true, force: true })
    return { branch: entry.branch, head, wip, merged, keptAs: wipCopy ?? (merged && !wip ? null : ref) }
  }

  #ready(taskId: string): CloneEntry {
    const entry = this.#registry.get(taskId)
    if (entry?.state !== 'ready') throw new Error(`${taskId} has no clone; start the task first.`)
    return entry
  }

  #indexFile(): string {
    return path.join(this.#scratch, `index-${randomBytes(6).toString('hex')}`)
  }

  /**
   * Make the registry and `clones/` agree after a crash: finish or drop half-made clones, finish
   * half-done removals, remove the clones of tasks no longer `active` (keeping their work), sweep
   * partial and trash folders, and list every folder nobody knows — kept when it holds work.
   */
  reconcile(active?: ReadonlySet<string>): Promise<ReconcileItem[]> {
    return this.#serial(async () => {
      const out: ReconcileItem[] = []
      const names = await readdir(this.#clones)
      const seen = new Set<string>()
      for (const name of names) {
        const dir = path.join(this.#clones, name)
        const kind = classifyCloneFolder(name)
        if (kind.kind === 'partial' || kind.kind === 'trash') {
          await rm(dir, { recursive: true, force: true })
          out.push({ kind: 'swept', dir })
          continue
        }
        if (kind.kind === 'other') {
          out.push({ kind: 'foreign', dir })
          continue
        }
        seen.add(kind.taskId)
        const entry = this.#registry.get(kind.taskId)
        if (!entry) {
          out.push(await this.#unknown(dir))
          continue
        }
        // Locks a killed git (the plugin's or the Bot's) left; no git runs in a clone at start-up.
        const repo = await cloneRepo(dir).catch(() => null)
        if (repo) await clearStaleLocks(repo.gitDir)
        if (entry.state === 'creating') {
          await this.#registry.set(entry.taskId, { ...entry, state: 'ready' })
          out.push({ kind: 'completed', taskId: entry.taskId })
        }
        if (entry.state === 'removing' || (active && !active.has(entry.taskId))) {
          const outcome = await this.#remove(entry.taskId, entry.state === 'removing' ? 'removal finished after a restart' : 'its task ended')
          if (outcome) out.push({ kind: 'removed', taskId: entry.taskId, dir, outcome })
        }
      }
      for (const entry of this.#registry.list()) {
        if (seen.has(entry.taskId)) continue
        await this.#registry.set(entry.taskId, null)
        const why = entry.state === 'ready' ? 'its folder is gone (removed outside the plugin)' : `it was ${entry.state} when the plugin stopped`
        out.push({ kind: 'dropped', taskId: entry.taskId, why })
      }
      return out
    })
  }

  /** A task-named folder the registry does not know: kept when it holds work the integration clone lacks. */
  async #unknown(dir: string): Promise<ReconcileItem> {
    let repo: Repo
    try {
      repo = await cloneRepo(dir)
    } catch {
      return { kind: 'kept-unknown', dir, why: 'it is not a git clone the plugin made' }
    }
    try {
      const { tree, head, headTree } = await workTreeTree(this.git, repo, this.#indexFile())
      if (tree !== headTree) return { kind: 'kept-unknown', dir, why: 'it holds uncommitted changes' }
      const [integration] = await revParseAll(this.git, this.integration, [INTEGRATION_REF])
      const heads = (await this.git.run(['for-each-ref', '--format=%(objectname)', 'refs/heads'], { cwd: dir, gitDir: repo.gitDir })).stdout
        .split('\n')
        .filter(Boolean)
      for (const h of new Set([head, ...heads])) {
        if (!(await isAncestor(this.git, repo, h, integration!).catch(() => false)))
          return { kind: 'kept-unknown', dir, why: 'it holds commits not in the integration branch' }
      }
    } catch (error) {
      return { kind: 'kept-unknown', dir, why: `it could not be read (${(error as Error).message})` }
    }
    await rm(dir, { recursive: true, force: true })
    return { kind: 'removed-unknown', dir }
  }
}
