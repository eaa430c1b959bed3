/**
 * Project validation: the folder the person names must be the top of a real git repository (not
 * shallow), it and its git folder not inside or holding any folder the caller forbids (the DSH
 * home, the team folder, a Bot's folder, a shared temp folder…), with the named target branch;
 * submodules and Git LFS are refused in this version with a sentence that says so. Deliberately
 * reads only (plumbing, no filters); changes nothing.
 */
import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import type { GitRunner } from './git.ts'
import { type Forbidden, overlapProblem, projectInput } from './policy.ts'
import { formatIssues } from '../core/zod-issues.ts'

export type ProjectCheck = { ok: true; path: string; gitDir: string; branch: string; head: string; bare: boolean } | { ok: false; problem: string }

const NOTHING = ' Nothing was changed.'

/** Check the project the person names (`{ path, branch }`, unvalidated input). */
export async function validateProject(git: GitRunner, input: unknown, forbidden: readonly Forbidden[]): Promise<ProjectCheck> {
  const parsed = projectInput.safeParse(input)
  if (!parsed.success) return { ok: false, problem: `The project is not valid: ${formatIssues(parsed.error, { root: 'project' })}.${NOTHING}` }
  const { branch } = parsed.data
  let folder: string
  try {
    folder = await realpath(parsed.data.path)
    if (!(await stat(folder)).isDirectory()) return { ok: false, problem: `${parsed.data.path} is not a folder.${NOTHING}` }
  } catch {
    return { ok: false, problem: `${parsed.data.path} does not exist.${NOTHING}` }
  }
  const overlap = overlapProblem('The project', folder, forbidden)
  if (overlap) return { ok: false, problem: overlap + NOTHING }
  const probe = await git.run(['rev-parse', '--is-bare-repository', '--is-shallow-repository', '--git-common-dir'], { cwd: folder, okCodes: [0, 128] })
  if (probe.code !== 0) return { ok: false, problem: `${folder} is not a git repository.${NOTHING}` }
  const [bareLine, shallowLine, common] = probe.stdout.trim().split('\n')
  const bare = bareLine === 'true'
  // The common git dir: for a linked worktree, the main repository's (where branches and objects are).
  const gitDir = path.resolve(folder, common!)
  const gitOverlap = overlapProblem("The project's git folder", await realpath(gitDir).catch(() => gitDir), forbidden)
  if (gitOverlap) return { ok: false, problem: gitOverlap + NOTHING }
  if (bare && (await realpath(gitDir)) !== folder)
    return { ok: false, problem: `${folder} lies inside the repository ${gitDir}; name the repository's folder.${NOTHING}` }
  if (!bare) {
    const top = (await git.run(['rev-parse', '--show-toplevel'], { cwd: folder, okCodes: [0, 128] })).stdout.trim()
    if (top !== folder) return { ok: false, problem: `${folder} lies inside the repository ${top}; name the repository's top folder.${NOTHING}` }
  }
  if (shallowLine === 'true') return { ok: false, problem: `${folder} is a shallow clone; fetch its whole history first (git fetch --unshallow).${NOTHING}` }
  const opts = { cwd: folder, gitDir }
  const head = await git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`], { ...opts, okCodes: [0, 1] })
  if (head.code !== 0) return { ok: false, problem: `${folder} has no branch "${branch}".${NOTHING}` }
  const tree = await git.run(['ls-tree', '-r', '-z', '--full-tree', `refs/heads/${branch}`], { ...opts, maxOutput: 64 * 1024 * 1024 })
  const entries = tree.stdout.split('\0').filter(Boolean)
  const attributes: string[] = []
  for (const e of entries) {
    const tab = e.indexOf('\t')
    const [mode, , object] = e.slice(0, tab).split(' ')
    const file = e.slice(tab + 1)
    if (mode === '160000' || file === '.gitmodules' || file.endsWith('/.gitmodules')) {
      return { ok: false, problem: `${folder} uses git submodules (${file}); submodules are not supported in this version.${NOTHING}` }
    }
    if (file === '.lfsconfig') return { ok: false, problem: `${folder} uses Git LFS (.lfsconfig); LFS is not supported in this version.${NOTHING}` }
    if (file === '.gitattributes' || file.endsWith('/.gitattributes')) attributes.push(`${object} ${file}`)
  }
  for (const a of attributes.slice(0, 200)) {
    const [object, ...rest] = a.split(' ')
    const text = (await git.run(['cat-file', 'blob', object!], { ...opts, maxOutput: 1024 * 1024 })).stdout
    if (/\bfilter=lfs\b/.test(text))
      return { ok: false, problem: `${folder} uses Git LFS (${rest.join(' ')} names filter=lfs); LFS is not supported in this version.${NOTHING}` }
  }
  return { ok: true, path: folder, gitDir, branch, head: head.stdout.trim(), bare }
}
