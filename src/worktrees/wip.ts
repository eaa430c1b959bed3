/**
 * A clone's uncommitted work as a commit, by plumbing alone: the tracked and untracked (not
 * ignored) files are hashed as they are (`hash-object --no-filters`), put in a temporary index and
 * written as a tree — no filter, hook or fsmonitor of the clone runs. The commit goes on the branch
 * the clone is on (or `<branch>-wip` when it is detached); a path through a linked folder and files
 * over the size limit are left out. Deliberately never touches the work tree.
 */
import { lstat, readFile, readlink, realpath, rm } from 'node:fs/promises'
import path from 'node:path'
import type { GitRunner } from './git.ts'
import { isInside, WORKTREE_LIMITS } from './policy.ts'
import { assertOwnGitDir, at, type Repo } from './repo.ts'

export interface WipOutcome {
  commit: string
  ref: string
}

/** The tree of the work tree as it is now (tracked and untracked files not ignored), and HEAD's. */
export async function workTreeTree(git: GitRunner, repo: Repo, indexFile: string): Promise<{ tree: string; head: string; headTree: string }> {
  const opts = at(repo)
  const [head, headTree] = (await git.run(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'], opts)).stdout.trim().split('\n') as [string, string]
  const listed = (await git.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--full-name'], opts)).stdout.split('\0').filter(Boolean)
  const files: { path: string; mode: string }[] = []
  const links: { path: string; target: string }[] = []
  const top = await realpath(repo.workTree!)
  for (const p of new Set(listed)) {
    if (p.includes('\n')) continue
    const full = path.join(repo.workTree!, p)
    let st: Awaited<ReturnType<typeof lstat>>
    try {
      // A folder on the way that is a link would make the plugin read a file outside the clone.
      if (!isInside(await realpath(path.dirname(full)), top)) continue
      st = await lstat(full)
    } catch {
      continue // deleted: left out of the tree
    }
    if (st.isSymbolicLink()) links.push({ path: p, target: await readlink(full) })
    else if (st.isFile() && st.size <= WORKTREE_LIMITS.wipFileBytes) files.push({ path: p, mode: st.mode & 0o111 ? '100755' : '100644' })
  }
  const lines: string[] = []
  if (files.length) {
    const hashes = (
      await git.run(['hash-object', '-w', '--no-filters', '--stdin-paths'], { ...opts, input: `${files.map((f) => f.path).join('\n')}\n` })
    ).stdout
      .trim()
      .split('\n')
    for (const [i, f] of files.entries()) lines.push(`${f.mode} ${hashes[i]}\t${f.path}`)
  }
  for (const l of links) {
    const sha = (await git.run(['hash-object', '-w', '--no-filters', '--stdin'], { ...opts, input: l.target })).stdout.trim()
    lines.push(`120000 ${sha}\t${l.path}`)
  }
  const env = { GIT_INDEX_FILE: indexFile }
  try {
    await git.run(['update-index', '-z', '--index-info'], { ...opts, env, input: lines.map((l) => `${l}\0`).join('') })
    const tree = (await git.run(['write-tree'], { ...opts, env })).stdout.trim()
    return { tree, head, headTree }
  } finally {
    await rm(indexFile, { force: true })
  }
}

/** Commit the clone's uncommitted work (`null` when there is none). `branchRef` is the task branch. */
export async function commitWip(git: GitRunner, repo: Repo, branchRef: string, message: string, indexFile: string): Promise<WipOutcome | null> {
  await assertOwnGitDir(repo.gitDir)
  const { tree, head, headTree } = await workTreeTree(git, repo, indexFile)
  if (tree === headTree) return null
  // Once more right before the writes: what the Bot may have planted since the clone was opened.
  await assertOwnGitDir(repo.gitDir)
  const opts = at(repo)
  const commit = (await git.run(['commit-tree', '--no-gpg-sign', tree, '-p', head, '-m', message], opts)).stdout.trim()
  const headFile = (await readFile(path.join(repo.gitDir, 'HEAD'), 'utf8')).trim()
  const onRef = headFile.startsWith('ref: refs/heads/') ? headFile.slice('ref: '.length) : null
  const ref = onRef ?? `${branchRef}-wip`
  await git.run(['update-ref', '-m', 'bot-team: work in progress', ref, commit, ...(onRef ? [head] : [])], opts)
  return { commit, ref }
}
