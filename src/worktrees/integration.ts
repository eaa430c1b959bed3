/**
 * The plugin's integration clone: a bare clone of the project (`gc.auto=0`, never pruned, no
 * hooks, no attributes) holding `team/integration`, and the one merge that can never half-happen —
 * `merge-tree --write-tree`, `commit-tree`, then `update-ref` with the old value checked, so the
 * branch is the old commit or the finished merge and no work tree is ever mid-merge. Deliberately
 * no clones and no registry: it merges commits it is given.
 */
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { GitRunner } from './git.ts'
import { INTEGRATION_REF, parseMergeTree, WORKTREE_LIMITS } from './policy.ts'
import { isAncestor, type Repo, revParseAll } from './repo.ts'

/** The config the integration clone is made with: nothing there ever collects garbage. */
export const INTEGRATION_CONFIG: readonly string[] = [
  'gc.auto=0',
  'gc.autoDetach=false',
  'gc.pruneExpire=never',
  'gc.reflogExpire=never',
  'gc.reflogExpireUnreachable=never',
  'maintenance.auto=false',
  'core.logAllRefUpdates=always',
  'receive.denyNonFastForwards=true',
]

/** Attributes that outrank any other: no filter, merge driver or diff program for any path. */
export const INTEGRATION_ATTRIBUTES = '* !filter !merge !diff\n'

export type MergeOutcome =
  | { kind: 'merged'; commit: string; ours: string; theirs: string }
  | { kind: 'already-merged'; ours: string; theirs: string }
  | { kind: 'conflict'; ours: string; theirs: string; paths: string[]; pathCount: number; messages: string[] }

/** Create the integration clone at `dir` from `projectGitDir`'s `branch` (made aside, then renamed into place). */
export async function createIntegration(git: GitRunner, projectGitDir: string, branch: string, dir: string, scratch: string): Promise<void> {
  const tmp = path.join(scratch, `integration-${process.pid}-${Date.now()}.git`)
  await rm(tmp, { recursive: true, force: true })
  const config = INTEGRATION_CONFIG.flatMap((kv) => ['--config', kv])
  // Never hard links: a linked object file is the same inode in both repositories.
  await git.run(
    ['clone', '--quiet', '--bare', '--no-hardlinks', '--no-tags', '--template=', '--single-branch', '--branch', branch, ...config, '--', projectGitDir, tmp],
    {
      cwd: scratch,
      timeoutMs: 30 * 60_000,
    },
  )
  await mkdir(path.join(tmp, 'info'), { recursive: true })
  await writeFile(path.join(tmp, 'info', 'attributes'), INTEGRATION_ATTRIBUTES)
  const repo: Repo = { gitDir: tmp }
  const [head] = await revParseAll(git, repo, [`refs/heads/${branch}`])
  await git.run(['update-ref', '-m', 'bot-team: integration starts', INTEGRATION_REF, head!, '0'.repeat(40)], { cwd: tmp, gitDir: tmp })
  await git.run(['symbolic-ref', 'HEAD', INTEGRATION_REF], { cwd: tmp, gitDir: tmp })
  await rename(tmp, dir)
}

/**
 * Remove lock files a killed git left in the integration clone, which only the plugin writes
 * (start-up only: no other plugin process runs git there then, so a lock at start belongs to no
 * live process). Never in a task clone: a Bot writes there, and its confined work-in-progress
 * commit clears those (`wip.ts`).
 */
export async function clearStaleLocks(gitDir: string): Promise<string[]> {
  const removed: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, e.name)
      if (e.isDirectory()) await walk(full)
      else if (e.name.endsWith('.lock')) {
        await rm(full, { force: true })
        removed.push(path.relative(gitDir, full))
      }
    }
  }
  for (const name of ['HEAD.lock', 'index.lock', 'packed-refs.lock', 'config.lock', 'shallow.lock']) {
    const full = path.join(gitDir, name)
    if (
      await lstat(full).then(
        () => true,
        () => false,
      )
    ) {
      await rm(full, { force: true })
      removed.push(name)
    }
  }
  await walk(path.join(gitDir, 'refs'))
  await walk(path.join(gitDir, 'logs'))
  return removed
}

/**
 * Merge `theirs` into `ref` of the integration clone. Clean: a merge commit and an `update-ref`
 * that checks the old value (retried when the branch moved meanwhile). Conflicted: nothing changes;
 * the paths and both sides' commits come back.
 */
export async function mergeInto(git: GitRunner, repo: Repo, theirs: string, message: string, ref = INTEGRATION_REF): Promise<MergeOutcome> {
  const opts = { cwd: repo.gitDir, gitDir: repo.gitDir }
  for (let attempt = 0; ; attempt++) {
    const [ours] = await revParseAll(git, repo, [ref])
    if (await isAncestor(git, repo, theirs, ours!)) return { kind: 'already-merged', ours: ours!, theirs }
    const r = await git.run(['merge-tree', '--write-tree', '-z', '--name-only', ours!, theirs], { ...opts, okCodes: [0, 1] })
    const answer = parseMergeTree(r.stdout, r.code)
    if (!answer.clean) {
      return {
        kind: 'conflict',
        ours: ours!,
        theirs,
        paths: answer.paths.slice(0, WORKTREE_LIMITS.conflictPaths),
        pathCount: answer.paths.length,
        messages: answer.messages.slice(0, 20),
      }
    }
    const commit = (await git.run(['commit-tree', '--no-gpg-sign', answer.tree, '-p', ours!, '-p', theirs, '-m', message], opts)).stdout.trim()
    const cas = await git.run(['update-ref', '-m', `bot-team: ${message.split('\n')[0]}`, ref, commit, ours!], { ...opts, okCodes: [0, 1, 128] })
    if (cas.code === 0) return { kind: 'merged', commit, ours: ours!, theirs }
    if (attempt + 1 >= WORKTREE_LIMITS.casRetries) throw new Error(`${ref} kept moving while merging ${theirs.slice(0, 12)}; nothing was merged.`)
  }
}
