/**
 * The release: the integration branch merged into the target branch of the person's repository.
 * The merge is made in the integration clone (fast-forward when it can), its objects fetched into
 * the project, and the target moved by an `update-ref` that checks its old value. Refused, with
 * the reason, while the target is checked out with changes (and when the merge would conflict);
 * a clean checkout of the target is moved with it. Deliberately no authority: the caller is the
 * person's paired request, after the full check passed on the head it names.
 */
import { lstat, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { neutralizers, INTEGRATION_REF } from './policy.ts'
import type { GitRunner } from './git.ts'
import { mergeInto } from './integration.ts'
import { configList, fetchFrom, isAncestor, type Repo, revParseAll } from './repo.ts'

export type ReleaseOutcome = { ok: true; from: string; to: string; fastForward: boolean; movedCheckout: string | null } | { ok: false; reason: string }

const RELEASE_REF = 'refs/bot-team/release'
const TARGET_REF = 'refs/bot-team/target'
const NOTHING = ' Nothing was changed.'

/** The work trees that have `branch` checked out (`git worktree list --porcelain`). */
async function checkouts(git: GitRunner, project: Repo, branch: string): Promise<string[]> {
  const out = (await git.run(['worktree', 'list', '--porcelain', '-z'], { cwd: project.gitDir, gitDir: project.gitDir })).stdout
  const found: string[] = []
  let current = ''
  for (const line of out.split('\0')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length)
    else if (line === `branch refs/heads/${branch}` && current) found.push(current)
  }
  return found
}

/** Whether a checkout has changes to tracked files (index or work tree), without running its filters. */
async function hasChanges(git: GitRunner, dir: string, neutral: readonly string[]): Promise<boolean> {
  const opts = { cwd: dir, config: neutral, okCodes: [0, 1] }
  const staged = await git.run(['diff-index', '--cached', '--quiet', '--no-ext-diff', '--no-textconv', 'HEAD', '--'], opts)
  if (staged.code === 1) return true
  const unstaged = await git.run(['diff-files', '--quiet', '--no-ext-diff', '--no-textconv', '--'], opts)
  return unstaged.code === 1
}

/** The parts of a git dir a write goes through, each of which a link could send elsewhere. */
const PARTS = [
  'HEAD',
  'config',
  'index',
  'packed-refs',
  'refs',
  'refs/heads',
  'refs/tags',
  'logs',
  'logs/HEAD',
  'logs/refs',
  'logs/refs/heads',
  'objects',
  'objects/info',
  'objects/info/alternates',
  'objects/pack',
  'info',
  'info/attributes',
  'worktrees',
  'commondir',
] as const

/**
 * What in the person's repository could send the release's writes elsewhere — a link in place of
 * any part it writes through (`refs/heads` and every folder below `refs/` and `logs/`, an
 * `objects/<xx>` folder, `objects/info/alternates`, `packed-refs`, `index`, `config`, `HEAD`,
 * `info/attributes`, `worktrees/`), a `commondir` file, or a `.git` that is a link: the paths found
 * (none: `[]`). Reads with `lstat` only, never following a link.
 */
export async function plantedLinks(gitDir: string, checkouts: readonly string[] = []): Promise<string[]> {
  const found: string[] = []
  const linked = async (p: string) => (await lstat(p).catch(() => null))?.isSymbolicLink() ?? false
  for (const part of PARTS) {
    const p = path.join(gitDir, part)
    if (
      part === 'commondir'
        ? await lstat(p).then(
            () => true,
            () => false,
          )
        : await linked(p)
    )
      found.push(p)
  }
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 20) return
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, e.name)
      if (e.isSymbolicLink()) found.push(full)
      else if (e.isDirectory()) await walk(full, depth + 1)
    }
  }
  for (const sub of ['refs', 'logs']) if (!(await linked(path.join(gitDir, sub)))) await walk(path.join(gitDir, sub), 0)
  if (!(await linked(path.join(gitDir, 'objects'))))
    for (const e of await readdir(path.join(gitDir, 'objects'), { withFileTypes: true }).catch(() => []))
      if (e.isSymbolicLink()) found.push(path.join(gitDir, 'objects', e.name))
  for (const dir of checkouts) {
    const dotGit = path.join(dir, '.git')
    const st = await lstat(dotGit).catch(() => null)
    if (st?.isSymbolicLink()) found.push(dotGit)
    else if (st?.isFile()) {
      // A linked worktree: its own git dir holds the index and HEAD the checkout move writes.
      const own = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8').catch(() => ''))?.[1]?.trim()
      if (own)
        for (const part of ['HEAD', 'index', 'logs', 'logs/HEAD']) if (await linked(path.resolve(dir, own, part))) found.push(path.resolve(dir, own, part))
    }
  }
  return [...new Set(found)]
}

/** Release `integration`'s `team/integration` into `project`'s `branch`. `expectHead`: the head the full check passed on. */
export async function release(git: GitRunner, integration: Repo, project: Repo & { branch: string }, expectHead?: string): Promise<ReleaseOutcome> {
  const int = { cwd: integration.gitDir, gitDir: integration.gitDir }
  const [head] = await revParseAll(git, integration, [INTEGRATION_REF])
  if (expectHead && head !== expectHead) {
    return { ok: false, reason: `The integration branch moved since its check passed (now ${head!.slice(0, 12)}); run the check again.${NOTHING}` }
  }
  const ref = `refs/heads/${project.branch}`
  await fetchFrom(git, integration, project.gitDir, [`+${ref}:${TARGET_REF}`])
  const [target] = await revParseAll(git, integration, [TARGET_REF])
  if (await isAncestor(git, integration, head!, target!))
    return { ok: false, reason: `${project.branch} already holds the integration branch; there is nothing to release.${NOTHING}` }
  const trees = await checkouts(git, project, project.branch)
  // Before any write: nothing in the person's repository may send the writes elsewhere.
  const links = await plantedLinks(project.gitDir, trees)
  if (links.length)
    return {
      ok: false,
      reason: `The project's repository holds links that could send the release's writes elsewhere: ${links.slice(0, 20).join(', ')}${links.length > 20 ? ` and ${links.length - 20} more` : ''}. Replace them with the real files or folders, then release again.${NOTHING}`,
    }
  const neutral = neutralizers(await configList(git, project))
  for (const dir of trees) {
    if (await hasChanges(git, dir, neutral)) {
      return {
        ok: false,
        reason: `${project.branch} is checked out in ${dir} with uncommitted changes; releasing would move the branch under them. Commit or stash them there, then release again.${NOTHING}`,
      }
    }
  }
  let to = head!
  const fastForward = await isAncestor(git, integration, target!, head!)
  if (!fastForward) {
    await git.run(['update-ref', RELEASE_REF, target!], int)
    const merged = await mergeInto(git, integration, head!, `Release team/integration into ${project.branch}`, RELEASE_REF)
    if (merged.kind === 'conflict') {
      const paths = merged.paths.join(', ')
      return {
        ok: false,
        reason: `${project.branch} moved since the integration branch started and the two conflict in ${paths}; merge ${project.branch} into the integration branch first.${NOTHING}`,
      }
    }
    if (merged.kind === 'merged') to = merged.commit
  }
  await git.run(['update-ref', RELEASE_REF, to], int)
  await fetchFrom(git, project, integration.gitDir, [RELEASE_REF])
  const checkout = trees[0] ?? null
  const moveCheckout = (from: string, into: string) => git.run(['read-tree', '-m', '-u', from, into], { cwd: checkout!, config: neutral })
  if (checkout) await moveCheckout(target!, to)
  const cas = await git.run(['update-ref', '-m', 'bot-team: release', ref, to, target!], { cwd: project.gitDir, gitDir: project.gitDir, okCodes: [0, 1, 128] })
  if (cas.code !== 0) {
    if (checkout) await moveCheckout(to, target!)
    return { ok: false, reason: `${project.branch} moved while releasing; release again.${NOTHING}` }
  }
  return { ok: true, from: target!, to, fastForward, movedCheckout: checkout }
}
