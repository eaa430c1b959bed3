/**
 * Small git questions every part asks, each one plumbing command through the runner: a ref's
 * commit, ancestry, a repository's config list, a fetch whose serving side runs with the same
 * overrides, and that a clone's `.git` is its own (never a pointer a Bot planted elsewhere).
 * Deliberately no policy and no layout.
 */
import { lstat } from 'node:fs/promises'
import path from 'node:path'
import { type GitRunner, uploadPackCommand } from './git.ts'

/** A repository the plugin runs git in: its git dir and, when it has one, its work tree. */
export interface Repo {
  gitDir: string
  workTree?: string
}

/** Options for one call in `repo`. */
export function at(repo: Repo) {
  return { cwd: repo.workTree ?? repo.gitDir, gitDir: repo.gitDir, workTree: repo.workTree }
}

/** The commits several refs name, in one process; throws when any is missing. */
export async function revParseAll(git: GitRunner, repo: Repo, refs: readonly string[]): Promise<string[]> {
  const r = await git.run(['rev-parse', ...refs.map((ref) => `${ref}^{commit}`)], at(repo))
  return r.stdout.trim().split('\n')
}

/** Whether `commit` is `of` or one of its ancestors. */
export async function isAncestor(git: GitRunner, repo: Repo, commit: string, of: string): Promise<boolean> {
  const r = await git.run(['merge-base', '--is-ancestor', commit, of], { ...at(repo), okCodes: [0, 1] })
  return r.code === 0
}

/** `git config --list -z` of the repository (every scope the runner lets git read: local, worktree, includes). */
export async function configList(git: GitRunner, repo: Repo): Promise<string> {
  return (await git.run(['config', '--list', '-z'], { ...at(repo), maxOutput: 1024 * 1024 })).stdout
}

/** Fetch `refspec` from `from` (a git dir) into `into`, the serving `upload-pack` under the same overrides. */
export async function fetchFrom(git: GitRunner, into: Repo, from: string, refspecs: readonly string[]): Promise<void> {
  await git.run(
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', `--upload-pack=${uploadPackCommand(git.git)}`, from, ...refspecs],
    at(into),
  )
}

/** What in a clone's git dir could send git elsewhere: a `commondir` file, or a link in place of its parts. */
const POINTERS = ['commondir', 'HEAD', 'config', 'index', 'objects', 'refs', 'packed-refs'] as const

/**
 * Throws unless `<dir>/.git` is a real folder (a `.git` file or link could point anywhere) holding
 * no `commondir` and no link in place of its parts: git follows those (git 2.39 reads `commondir`
 * even with `GIT_COMMON_DIR` set), so a Bot could send the plugin's writes into another repository.
 */
export async function assertOwnGitDir(gitDir: string): Promise<void> {
  const st = await lstat(gitDir)
  if (!st.isDirectory()) throw new Error(`${gitDir} is not a folder (it was replaced); the plugin leaves it alone.`)
  for (const name of POINTERS) {
    const part = await lstat(path.join(gitDir, name)).catch(() => undefined)
    if (part && (name === 'commondir' || part.isSymbolicLink()))
      throw new Error(
        `${gitDir} holds ${name === 'commondir' ? 'a commondir file' : `a link as ${name}`} that could point into another repository; the plugin leaves it alone.`,
      )
  }
}

/** The clone's git dir, checked by `assertOwnGitDir`. */
export async function cloneRepo(dir: string): Promise<Repo> {
  const gitDir = path.join(dir, '.git')
  await assertOwnGitDir(gitDir)
  return { gitDir, workTree: dir }
}
