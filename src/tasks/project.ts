/**
 * The team's project: the git repository and target branch the person names for project tasks,
 * checked by the git layer's `validateProject` and kept whole in `<dir>/project.json` (0600,
 * written durably), outside the state file. Read at start and validated; a damaged file is an
 * error, never dropped. Deliberately no authority and no clones: the service decides who sets it.
 */
import { readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { makePrivateDir, writePrivateFile } from '../core/private-file.ts'
import { formatIssues } from '../core/zod-issues.ts'
import { GitRunner } from '../worktrees/git.ts'
import { type Forbidden, overlapProblem, SHARED_TEMP_DIRS } from '../worktrees/policy.ts'
import { validateProject } from '../worktrees/project.ts'

export const PROJECT_FILE = 'project.json'

const projectSchema = z.strictObject({
  path: z.string().min(1).max(4096),
  branch: z.string().min(1).max(200),
  gitDir: z.string().min(1).max(4096),
  bare: z.boolean(),
  /** The target branch's head when the person named the project. */
  head: z.string().regex(/^[0-9a-f]{40,64}$/),
  setAt: z.string().min(1).max(40),
})
const fileSchema = z.strictObject({ version: z.literal(1), project: projectSchema })
export type TeamProject = z.infer<typeof projectSchema>

/** The forbidden folders with their real paths (a folder not made yet stays as given). */
export async function realForbidden(folders: readonly Forbidden[]): Promise<Forbidden[]> {
  return Promise.all(folders.map(async (f) => ({ label: f.label, path: await realpath(f.path).catch(() => f.path) })))
}

/** How the plugin's worktrees folder is named among the forbidden ones. */
export const WORKTREES_LABEL = "the plugin's worktrees folder"

/** What the folders a project may not lie in or hold are made of (the service passes its own). */
export interface ProjectPlaces {
  /** The DSH home, the team folder, the team workspace. */
  protectedFolders: readonly Forbidden[]
  /** The folder holding the plugin's worktree roots. */
  worktrees?: string | undefined
  /** Every live Bot's working folder (the real path stored when the person set it, else as named). */
  bots: readonly { name: string; workFolder?: string | undefined; workFolderReal?: string | undefined }[]
  /** Shared temporary folders (default `/tmp`, `/var/tmp`, `/dev/shm`, the OS temp folder). */
  sharedTemp?: readonly string[]
}

/**
 * The folders a project may not lie in or hold: where the team's own files are, the plugin's
 * worktrees, every Bot's working folder (a Bot could plant links in the repository the release
 * writes) and every shared temporary folder (DSH's Landlock runner lets every Bot at
 * workspace-write write `/tmp`), with their real paths.
 */
export async function projectForbidden(places: ProjectPlaces): Promise<Forbidden[]> {
  const out: Forbidden[] = [...places.protectedFolders]
  if (places.worktrees) out.push({ label: WORKTREES_LABEL, path: places.worktrees })
  for (const bot of places.bots)
    for (const folder of new Set([bot.workFolderReal, bot.workFolder])) if (folder) out.push({ label: `Bot ${bot.name}'s working folder`, path: folder })
  for (const t of places.sharedTemp ?? [...SHARED_TEMP_DIRS, tmpdir()])
    out.push({ label: 'a shared temporary folder every Bot at workspace-write may write', path: t })
  return realForbidden(out)
}

/** Why the named project may not be used where it lies now (its folder or its git folder), or `null` (no git). */
export async function placementProblem(project: Pick<TeamProject, 'path' | 'gitDir'>, forbidden: readonly Forbidden[]): Promise<string | null> {
  for (const [what, p] of [
    ['The project', project.path],
    ["The project's git folder", project.gitDir],
  ] as const) {
    const real = await realpath(p).catch(() => p)
    const problem = overlapProblem(what, real, forbidden)
    if (problem) return problem
  }
  return null
}

/** Forget the named project (the person let a held one go): its file is removed. */
export async function forgetProject(file: string): Promise<void> {
  await rm(file, { force: true })
}

/** The project a `project.json` text names, or why it cannot be read (a restore checks the archive's copy). */
export function parseProjectFile(text: string): { ok: true; project: TeamProject } | { ok: false; problem: string } {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, problem: 'it is not JSON' }
  }
  const parsed = fileSchema.safeParse(json)
  return parsed.success ? { ok: true, project: parsed.data.project } : { ok: false, problem: formatIssues(parsed.error) }
}

/** Read `file` (missing: no project). Throws with the file's name when it fails validation. */
export async function readProject(file: string): Promise<TeamProject | null> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(`${file} is not JSON; move it aside and name the project again.`)
  }
  const parsed = fileSchema.safeParse(json)
  if (!parsed.success) throw new Error(`${file} is damaged: ${formatIssues(parsed.error)}; move it aside and name the project again.`)
  return parsed.data.project
}

/** Validate `input` (`{ path, branch }`) and, when it is a project, write it: the project, or the problem (nothing written). */
export async function writeProject(
  file: string,
  git: GitRunner,
  input: unknown,
  forbidden: readonly Forbidden[],
  now: string,
): Promise<{ ok: true; project: TeamProject } | { ok: false; problem: string }> {
  const check = await validateProject(git, input, await realForbidden(forbidden))
  if (!check.ok) return check
  const project: TeamProject = { path: check.path, branch: check.branch, gitDir: check.gitDir, bare: check.bare, head: check.head, setAt: now }
  await writePrivateFile(file, `${JSON.stringify({ version: 1, project }, null, 1)}\n`)
  return { ok: true, project }
}

/**
 * Name the project of the team folder `dir`: git runs with `<dir>/git-home` as its empty home,
 * then `writeProject`. The one path the person's PUT (through the service) and the offline demo take.
 */
export async function nameProject(dir: string, input: unknown, forbidden: readonly Forbidden[], now: string): ReturnType<typeof writeProject> {
  const home = join(dir, 'git-home')
  await makePrivateDir(home)
  return writeProject(join(dir, PROJECT_FILE), new GitRunner({ emptyHome: home }), input, forbidden, now)
}
