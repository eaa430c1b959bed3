/**
 * One project's worktrees in a folder the plugin owns: the integration clone, a `--shared` clone
 * per task on `team/<task-id>-<slug>`, checks on a fresh checkout of exactly the submitted commit,
 * merges of that commit into `team/integration`, removal that first keeps every edit, and start-up
 * reconciliation. The plugin never runs git, writes, deletes or follows a link in a folder a Bot
 * writes: what it reads from a clone comes by a quarantined fetch, and the rest (status, the
 * work-in-progress commit, removal) runs confined through the Bot's `Confine` seam.
 * Deliberately no tasks, authority or Sessions: the task service decides when each step runs.
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, realpath, rename, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { makePrivateDir } from '../core/private-file.ts'
import { confinedRemove, endProcessesIn } from './confine.ts'
import { type Confine, type ConfineMode, ConfineUnavailable, type GitRun, GitRunner } from './git.ts'
import { clearStaleLocks, createIntegration, type MergeOutcome, mergeInto } from './integration.ts'
import {
  CLONE_DIR,
  type CloneEntry,
  type CloneStatus,
  classifyCloneFolder,
  type Forbidden,
  INTEGRATION_REF,
  overlapProblem,
  SHARED_TEMP_DIRS,
  TASK_ID,
  taskBranch,
  WORKTREE_LIMITS,
} from './policy.ts'
import { CloneRegistry } from './registry.ts'
import { fetchFrom, isAncestor, type Quarantine, quarantineFetch, type Repo, revParseAll } from './repo.ts'
import { clearCloneLocks, cloneStatus, commitWip, type ReadStatus } from './wip.ts'

export interface WorktreesOptions {
  /** The plugin's folder for this project (created; outside `/tmp`, the DSH home, the team folder, the workspace). */
  root: string
  /** The project's repository (validated by `validateProject`) and its target branch. */
  project: { gitDir: string; branch: string }
  /** Folders the root may not lie in or hold (the DSH home, the team folder, the workspace, Bots' folders, the project). */
  forbidden: readonly Forbidden[]
  /** Shared temporary folders (default `/tmp`, `/var/tmp`, `/dev/shm` and the OS temp folder). */
  sharedTemp?: readonly string[]
  observe?: (run: GitRun) => void
  git?: string
  now?: () => Date
}

/** Whose authority a step in a clone runs with: the Bot's sandbox seam and the task's mode. */
export interface ActAs {
  confine: Confine
  mode: ConfineMode
}

/** Who acts at start-up for a task's clone (`null`: a clone nobody knows, handled at workspace-write). */
export type ActAsFor = (taskId: string | null) => ActAs

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
  | { kind: 'kept'; taskId: string; dir: string; why: string }
  | { kind: 'kept-unknown'; dir: string; why: string }
  | { kind: 'removed-unknown'; dir: string; refs: string }
  | { kind: 'foreign'; dir: string }
  | { kind: 'swept'; dir: string }
  | { kind: 'leftover'; dir: string; why: string }

export type RemoveOutcome =
  | {
      kind: 'removed'
      branch: string
      head: string
      /** The work-in-progress commit (`null`: nothing was uncommitted). */
      wip: string | null
      merged: boolean
      /** Where the branch is kept when it holds unmerged commits (the integration clone's copy). */
      keptAs: string | null
      /** The renamed folder a failed confined removal left (swept at the next start). */
      leftover?: string
    }
  | { kind: 'kept'; dir: string; why: string }

/** A check's clone before its checkout: only the plugin has written it (`drop` removes it plainly). */
export interface CheckShell {
  top: string
  dir: string
  drop(): Promise<void>
}

export type SubmitOutcome = { ok: true; commit: string; branch: string } | { ok: false; reason: string }

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

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

export class Worktrees {
  readonly root: string
  readonly integration: Repo
  readonly git: GitRunner
  readonly #clones: string
  readonly #checks: string
  readonly #scratch: string
  readonly #registry: CloneRegistry
  readonly #now: () => Date
  #queue: Promise<unknown> = Promise.resolve()

  private constructor(root: string, git: GitRunner, registry: CloneRegistry, now: () => Date) {
    this.root = root
    this.git = git
    this.integration = { gitDir: path.join(root, 'integration.git') }
    this.#clones = path.join(root, 'clones')
    this.#checks = path.join(root, 'checks')
    this.#scratch = path.join(root, 'tmp')
    this.#registry = registry
    this.#now = now
  }

  /** Open (or create) the root and its integration clone, clear what a crash left, reconcile the clones as `actAs` says. */
  static async open(options: WorktreesOptions, active?: ReadonlySet<string>, actAs?: ActAsFor): Promise<{ worktrees: Worktrees; reconciled: ReconcileItem[] }> {
    const root = await realPathOf(options.root)
    const shared = [...(options.sharedTemp ?? [...SHARED_TEMP_DIRS, os.tmpdir()])]
    const temps: Forbidden[] = []
    for (const t of shared) temps.push({ label: 'a shared temporary folder every Bot may write', path: await realpath(t).catch(() => t) })
    const problem = overlapProblem("The plugin's worktree folder", root, [...options.forbidden, ...temps])
    if (problem) throw new Error(problem)
    await mkdir(root, { recursive: true, mode: 0o700 })
    for (const sub of ['clones', 'checks', 'tmp', 'home']) await makePrivateDir(path.join(root, sub))
    // tmp/ holds the plugin's own scratch (quarantines, nothing a Bot writes).
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
    const reconciled = await w.reconcile(active, actAs)
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
      // Made aside and only then handed over (renamed): until then no Bot writes it, so the plugin's git may run in it.
      const tmp = path.join(this.#clones, `${CLONE_DIR.partial}${taskId}`)
      await rm(tmp, { recursive: true, force: true })
      await this.git.run(
        ['clone', '--quiet', '--shared', '--no-hardlinks', '--no-checkout', '--template=', '--origin', 'integration', '--', this.integration.gitDir, tmp],
        { cwd: this.#clones },
      )
      await this.git.run(['checkout', '--quiet', '-b', branch, known?.base ?? base], { cwd: tmp, gitDir: path.join(tmp, '.git'), workTree: tmp })
      await rename(tmp, dir)
      await this.#registry.set(taskId, { taskId, branch, base: known?.base ?? base, state: 'ready', at: this.#now().toISOString() })
      return { taskId, dir, branch, base: known?.base ?? base }
    })
  }

  /**
   * A fresh checkout of exactly `commit` (in the integration clone) under `checks/<id>/tree`, made
   * by `git clone --shared`: the check runs there confined with `tree` its root, and no git of the
   * plugin runs in it after that; `done` removes it through the sandbox (`confinedRemove`). Pass
   * the `checkShell()` started earlier to overlap its clone with other work.
   */
  async checkTree(commit: string, shell?: Promise<CheckShell>): Promise<{ dir: string; commit: string; done: (confine: Confine) => Promise<void> }> {
    // Not serialized: it only reads the integration clone and writes a folder of its own.
    const { top, dir } = await (shell ?? this.checkShell())
    try {
      await this.git.run(['checkout', '--quiet', '--detach', commit], { cwd: dir, gitDir: path.join(dir, '.git'), workTree: dir })
    } catch (error) {
      await rm(top, { recursive: true, force: true }) // no Bot's process has run there yet
      throw error
    }
    return { dir, commit, done: (confine: Confine) => confinedRemove(this.git, top, confine) }
  }

  /** The clone a check's checkout is made in (`git clone --shared --no-checkout`), before the commit is known; `drop` when no check follows. */
  async checkShell(): Promise<CheckShell> {
    const top = path.join(this.#checks, randomBytes(6).toString('hex'))
    await makePrivateDir(top)
    const dir = path.join(top, 'tree')
    try {
      await this.git.run(['clone', '--quiet', '--shared', '--no-hardlinks', '--no-checkout', '--template=', '--', this.integration.gitDir, dir], { cwd: top })
    } catch (error) {
      await rm(top, { recursive: true, force: true })
      throw error
    }
    return { top, dir, drop: () => rm(top, { recursive: true, force: true }) }
  }

  /** A fresh checkout of the integration head (the project's full check before a release); `done` removes it through the sandbox. */
  async checkoutIntegration(): Promise<{ dir: string; head: string; done: (confine: Confine) => Promise<void> }> {
    const tree = await this.checkTree(await this.integrationHead())
    return { dir: tree.dir, head: tree.commit, done: tree.done }
  }

  /**
   * Fetch the clone's `refs/heads/<branch>` (and `extra` refspecs into `refs/q/…`) into a
   * quarantine — outside the root's queue: it reads only the clone and writes only its own folder,
   * so a clone that makes the fetch hang (a FIFO behind a link) holds up nothing else.
   */
  #quarantine(taskId: string, entry: CloneEntry, extra: readonly string[] = []): Promise<Quarantine> {
    return quarantineFetch(
      this.git,
      this.integration,
      this.#scratch,
      path.join(this.dirOf(taskId), '.git'),
      [`+refs/heads/${entry.branch}:refs/q/branch`, ...extra],
      WORKTREE_LIMITS.fetchBytes,
    )
  }

  /**
   * In the root's queue: the quarantined branch into the integration clone — never forced: a
   * rewritten branch keeps its old head as `<branch>-before-<sha>` — and `adopt` refspecs. Returns
   * the quarantine's refs (`refs/q/branch` the branch); the quarantine is deleted.
   */
  async #adopt(q: Quarantine, taskId: string, entry: CloneEntry, adopt: readonly string[] = []): Promise<Map<string, string>> {
    const ref = `refs/heads/${entry.branch}`
    try {
      if (!q.refs.has('refs/q/branch')) throw new Error(`${entry.branch} was not found in ${taskId}'s clone`)
      try {
        await fetchFrom(this.git, this.integration, q.repo.gitDir, [`refs/q/branch:${ref}`])
      } catch (error) {
        const [old] = await revParseAll(this.git, this.integration, [ref]).catch(() => [null])
        if (!old) throw error
        // The Bot rewrote its branch: keep the old head under its own name, then take the new one.
        await this.git.run(['update-ref', `${ref}-before-${old.slice(0, 12)}`, old], { cwd: this.integration.gitDir, gitDir: this.integration.gitDir })
        await fetchFrom(this.git, this.integration, q.repo.gitDir, [`+refs/q/branch:${ref}`])
      }
      if (adopt.length) await fetchFrom(this.git, this.integration, q.repo.gitDir, adopt)
      return q.refs
    } finally {
      await q.done()
    }
  }

  /**
   * What `submit_task` hands in: a confined `git status` in the clone (at the task's mode) refuses
   * uncommitted changes and a `HEAD` off the task branch; then only `refs/heads/<branch>` is read,
   * by the quarantined fetch. The commit is what the check runs on and what a merge takes.
   */
  async submitted(taskId: string, as: ActAs): Promise<SubmitOutcome> {
    const entry = this.#ready(taskId)
    const dir = this.dirOf(taskId)
    // The status reads only the clone (confined): outside the root's queue.
    let status: CloneStatus
    try {
      status = await cloneStatus(this.git, dir, { ...as, root: dir })
    } catch (error) {
      return { ok: false, reason: `The state of your clone could not be read (${message(error)}); nothing was submitted.` }
    }
    if (status.dirty)
      return {
        ok: false,
        reason: `Your clone has uncommitted changes: commit first (git add -A && git commit), then call submit_task again. The check and the merge take only the commits on ${entry.branch}. Nothing was submitted.`,
      }
    if (status.branch !== entry.branch)
      return {
        ok: false,
        reason: `HEAD is ${status.branch ? `on ${status.branch}` : 'detached'}, not on your task branch ${entry.branch}: put your commits on ${entry.branch} and check it out (git checkout ${entry.branch}), then call submit_task again. Nothing was submitted.`,
      }
    try {
      const q = await this.#quarantine(taskId, entry)
      const refs = await this.#serial(() => this.#adopt(q, taskId, entry))
      return { ok: true, commit: refs.get('refs/q/branch')!, branch: entry.branch }
    } catch (error) {
      return { ok: false, reason: `Your branch ${entry.branch} could not be fetched (${message(error)}); nothing was submitted.` }
    }
  }

  /** The task branch's head in the clone now (fetched again through the quarantine): accepting compares it with the checked commit. */
  async branchHead(taskId: string): Promise<string> {
    const entry = this.#ready(taskId)
    const q = await this.#quarantine(taskId, entry)
    return (await this.#serial(() => this.#adopt(q, taskId, entry))).get('refs/q/branch')!
  }

  /** Merge `commit` (a submitted commit of the task's branch, already in the integration clone) into the integration branch. */
  merge(taskId: string, commit: string): Promise<MergeOutcome & { branch: string }> {
    return this.#serial(async () => {
      const entry = this.#ready(taskId)
      const outcome = await mergeInto(this.git, this.integration, commit, `Merge ${entry.branch} (${taskId})`)
      return { ...outcome, branch: entry.branch }
    })
  }

  /**
   * Remove the task's clone, keeping every edit first: uncommitted work committed by the Bot's
   * authority (confined, at its mode), the branch fetched into the integration clone (deleted
   * there only when merged), then the folder removed through the sandbox. Kept instead — never
   * deleted — when the sandbox is missing, the mode is read-only with work uncommitted, or a step fails.
   */
  async removeClone(taskId: string, why: string, as: ActAs): Promise<RemoveOutcome | null> {
    // Only the fetch and the registry take the root's queue: the clone's own steps run beside other work.
    const prepared = await this.#prepareRemoval(taskId, why, as)
    if (prepared?.kind === 'absent') await this.#serial(() => this.#registry.set(taskId, null))
    if (prepared?.kind !== 'ready') return prepared?.kind === 'done' ? prepared.outcome : null
    const outcome = await this.#serial(() => this.#forget(taskId, prepared.committed, prepared.wipCopy, prepared.q))
    if (outcome.kind === 'removed' && outcome.leftover) await this.#dispose(outcome, as.confine)
    return outcome
  }

  /** Removal inside a held queue (start-up reconciliation): all three steps in a row. */
  async #remove(taskId: string, why: string, as: ActAs): Promise<RemoveOutcome | null> {
    const prepared = await this.#prepareRemoval(taskId, why, as)
    if (prepared?.kind === 'absent') await this.#registry.set(taskId, null)
    if (prepared?.kind !== 'ready') return prepared?.kind === 'done' ? prepared.outcome : null
    const outcome = await this.#forget(taskId, prepared.committed, prepared.wipCopy, prepared.q)
    if (outcome.kind === 'removed' && outcome.leftover) await this.#dispose(outcome, as.confine)
    return outcome
  }

  /** The clone's own steps: its Bot's processes ended, its uncommitted work committed by the Bot's authority — or why it is kept. */
  async #prepareRemoval(
    taskId: string,
    why: string,
    as: ActAs,
  ): Promise<{ kind: 'ready'; committed: boolean; wipCopy: boolean; q: Quarantine } | { kind: 'done'; outcome: RemoveOutcome } | { kind: 'absent' } | null> {
    const entry = this.#registry.get(taskId)
    if (!entry) return null
    const dir = this.dirOf(taskId)
    const present = await lstat(dir).then(
      () => true,
      () => false,
    )
    if (!present) return { kind: 'absent' }
    const kept = (reason: string) => ({ kind: 'done' as const, outcome: { kind: 'kept' as const, dir, why: reason } })
    const missing = as.confine.unavailable('workspace-write') ?? as.confine.unavailable(as.mode)
    if (missing) return kept(`${missing}, so it is not committed or removed by the plugin`)
    await endProcessesIn(dir)
    const at = { ...as, root: dir }
    let committed: boolean
    let wipCopy: boolean
    try {
      const status: ReadStatus = await cloneStatus(this.git, dir, at)
      if (status.dirty && as.mode === 'read-only')
        return kept('it holds uncommitted work and its task ran read-only, so the work cannot be committed by its authority')
      committed = (await commitWip(this.git, dir, `WIP: ${taskId} — ${why}`, at, status)).committed
      // Work committed on another branch (or a detached HEAD) is kept beside the task branch, never under the Bot's name for it.
      wipCopy = committed && status.branch !== entry.branch
    } catch (error) {
      return kept(`its uncommitted work could not be committed (${message(error)})`)
    }
    try {
      const q = await this.#quarantine(taskId, entry, wipCopy ? ['+HEAD:refs/q/wip'] : [])
      return { kind: 'ready', committed, wipCopy, q }
    } catch (error) {
      return kept(`its branch could not be fetched (${message(error)})`)
    }
  }

  /** In the root's queue: the branch fetched, the integration copy dropped when merged, the folder renamed away and forgotten. */
  async #forget(taskId: string, committed: boolean, wipCopy: boolean, q: Quarantine): Promise<RemoveOutcome> {
    const entry = this.#registry.get(taskId)!
    const dir = this.dirOf(taskId)
    const ref = `refs/heads/${entry.branch}`
    const copy = wipCopy ? `${ref}-wip` : null
    let refs: Map<string, string>
    try {
      refs = await this.#adopt(q, taskId, entry, copy ? [`+refs/q/wip:${copy}`] : [])
    } catch (error) {
      return { kind: 'kept', dir, why: `its branch could not be fetched (${message(error)})` }
    }
    const head = refs.get('refs/q/branch')!
    const wip = committed ? (copy ? refs.get('refs/q/wip')! : head) : null
    const [integration] = await revParseAll(this.git, this.integration, [INTEGRATION_REF])
    const merged = await isAncestor(this.git, this.integration, head, integration!)
    if (merged && !committed) await this.git.run(['update-ref', '-d', ref, head], { cwd: this.integration.gitDir, gitDir: this.integration.gitDir })
    await this.#registry.set(taskId, { ...entry, state: 'removing' })
    const trash = path.join(this.#clones, `${CLONE_DIR.trash}${taskId}-${randomBytes(4).toString('hex')}`)
    await rename(dir, trash)
    await this.#registry.set(taskId, null)
    return { kind: 'removed', branch: entry.branch, head, wip, merged, keptAs: copy ?? (merged && !committed ? null : ref), leftover: trash }
  }

  /** The renamed folder removed through the sandbox (`leftover` stays set when that fails: swept at the next start). */
  async #dispose(outcome: Extract<RemoveOutcome, { kind: 'removed' }>, confine: Confine): Promise<void> {
    const trash = outcome.leftover!
    try {
      await confinedRemove(this.git, trash, confine)
      delete outcome.leftover
    } catch {}
  }

  #ready(taskId: string): CloneEntry {
    const entry = this.#registry.get(taskId)
    if (entry?.state !== 'ready') throw new Error(`${taskId} has no clone; start the task first.`)
    return entry
  }

  /**
   * Make the registry and `clones/` agree after a crash: finish or drop half-made clones, finish
   * half-done removals, remove the clones of tasks no longer `active` (keeping their work), sweep
   * partial and trash folders and leftover check trees (confined), and take in every task-named
   * folder nobody knows (its work committed, its branches fetched into `refs/unknown/<dir>/*`).
   */
  reconcile(active?: ReadonlySet<string>, actAs?: ActAsFor): Promise<ReconcileItem[]> {
    return this.#serial(async () => {
      const out: ReconcileItem[] = []
      const as = actAs ?? (() => ({ confine: NO_CONFINE, mode: 'workspace-write' as const }))
      const sweep = async (dir: string) => {
        try {
          await confinedRemove(this.git, dir, as(null).confine)
          out.push({ kind: 'swept', dir })
        } catch (error) {
          out.push({ kind: 'leftover', dir, why: message(error) })
        }
      }
      for (const name of await readdir(this.#checks)) await sweep(path.join(this.#checks, name))
      const seen = new Set<string>()
      for (const name of await readdir(this.#clones)) {
        const dir = path.join(this.#clones, name)
        const kind = classifyCloneFolder(name)
        if (kind.kind === 'partial' || kind.kind === 'trash') {
          await sweep(dir)
          continue
        }
        if (kind.kind === 'other') {
          out.push({ kind: 'foreign', dir })
          continue
        }
        seen.add(kind.taskId)
        const entry = this.#registry.get(kind.taskId)
        if (!entry) {
          out.push(await this.#unknown(dir, as(null)))
          continue
        }
        if (entry.state === 'creating') {
          await this.#registry.set(entry.taskId, { ...entry, state: 'ready' })
          out.push({ kind: 'completed', taskId: entry.taskId })
        }
        const leaving = entry.state === 'removing' || (active && !active.has(entry.taskId))
        if (!leaving) {
          // Its task goes on: locks a killed git left (the Bot's or the plugin's) are cleared by the Bot's authority, confined.
          const at = as(entry.taskId)
          if (!at.confine.unavailable(at.mode) && at.mode !== 'read-only') {
            await endProcessesIn(dir)
            await clearCloneLocks(this.git, dir, { ...at, root: dir }).catch(() => {})
          }
        }
        if (entry.state === 'removing' || (active && !active.has(entry.taskId))) {
          if (entry.state === 'removing') await this.#registry.set(entry.taskId, { ...entry, state: 'ready' })
          const why = entry.state === 'removing' ? 'removal finished after a restart' : 'its task ended'
          const outcome = await this.#remove(entry.taskId, why, as(entry.taskId))
          if (outcome?.kind === 'kept') out.push({ kind: 'kept', taskId: entry.taskId, dir, why: outcome.why })
          else if (outcome) out.push({ kind: 'removed', taskId: entry.taskId, dir, outcome })
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

  /**
   * A task-named folder the registry does not know: its uncommitted work committed (confined at
   * workspace-write, that folder its only root), its branches fetched into `refs/unknown/<dir>/*`
   * (and a detached `HEAD` as `refs/unknown/<dir>/HEAD`), then removed through the sandbox. Kept
   * when any step fails.
   */
  async #unknown(dir: string, as: ActAs): Promise<ReconcileItem> {
    const name = path.basename(dir)
    const at = { confine: as.confine, mode: 'workspace-write' as const, root: dir }
    const missing = as.confine.unavailable('workspace-write')
    if (missing) return { kind: 'kept-unknown', dir, why: missing }
    const unknownRef = `refs/unknown/${name}`
    try {
      await endProcessesIn(dir)
      const { status } = await commitWip(this.git, dir, `WIP: ${name} — found at start-up`, at)
      const q = await quarantineFetch(
        this.git,
        this.integration,
        this.#scratch,
        path.join(dir, '.git'),
        ['+refs/heads/*:refs/q/heads/*', ...(status.head && !status.branch ? ['+HEAD:refs/q/HEAD'] : [])],
        WORKTREE_LIMITS.fetchBytes,
      )
      try {
        await fetchFrom(this.git, this.integration, q.repo.gitDir, [
          `+refs/q/heads/*:${unknownRef}/*`,
          ...(q.refs.has('refs/q/HEAD') ? [`+refs/q/HEAD:${unknownRef}/HEAD`] : []),
        ])
      } finally {
        await q.done()
      }
    } catch (error) {
      return { kind: 'kept-unknown', dir, why: `its work could not be taken in (${message(error)})` }
    }
    const trash = path.join(this.#clones, `${CLONE_DIR.trash}${name}-${randomBytes(4).toString('hex')}`)
    await rename(dir, trash)
    try {
      await confinedRemove(this.git, trash, as.confine)
    } catch (error) {
      return { kind: 'leftover', dir: trash, why: message(error) }
    }
    return { kind: 'removed-unknown', dir, refs: `${unknownRef}/*` }
  }
}

/** No sandbox: nothing runs confined (what a caller that passes no seam gets). */
const NO_CONFINE: Confine = {
  unavailable: (mode) => `no sandbox was given to run it at ${mode}`,
  argvFor: () => Promise.reject(new ConfineUnavailable('no sandbox was given')),
}
