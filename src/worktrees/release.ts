/**
 * The release: the integration branch merged into the target branch of the person's repository.
 * The merge is made in the integration clone (fast-forward when it can), its objects fetched into
 * the project, and the target moved by an `update-ref` that checks its old value. Refused, with
 * the reason, while the target is checked out with changes (and when the merge would conflict);
 * a clean checkout of the target is moved with it. Deliberately no authority: the caller is the
 * person's paired request, after the full check passed on the head it names.
 */
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
  const neutral = neutralizers(await configList(git, project))
  const trees = await checkouts(git, project, project.branch)
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
