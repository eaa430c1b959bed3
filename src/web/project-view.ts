/**
 * The board's project panel, computed here and only drawn by the browser: the project (path,
 * target branch and head, integration head), the integration log (the last merges on
 * `team/integration`) and each project task's branch with its commits, all read through the
 * plugin's git runner with every size capped and all git text masked before it is parsed or
 * clipped (the route is unpaired). Deliberately reads only: it never opens, creates or
 * reconciles the worktrees (a process that has not opened them says so), and decides nothing.
 */
import { errorText } from '../core/errors.ts'
import { clip } from '../core/text-limits.ts'
import { isClosed, type Task } from '../tasks/record.ts'
import type { BotTasks } from '../tasks/service.ts'
import type { GitRunner } from '../worktrees/git.ts'
import { INTEGRATION_REF } from '../worktrees/policy.ts'
import { type Repo, revParseAll } from '../worktrees/repo.ts'
import type { Worktrees } from '../worktrees/worktrees.ts'

export const PROJECT_VIEW_LIMITS = Object.freeze({
  /** Merges the integration log shows. */
  log: 20,
  /** Project tasks whose branches are read (open ones first, then the newest closed). */
  tasks: 40,
  /** Commits counted per branch (more reads as `more`). */
  countMax: 200,
  /** Subjects shown per branch (the newest). */
  subjects: 3,
  /** Characters of a subject or a title. */
  subject: 120,
  /** Bytes of one git answer. */
  gitBytes: 256 * 1024,
  /** Git processes at once. */
  parallel: 4,
})

export interface CommitLine {
  commit: string
  subject: string
}

/** A project task's branch as the card shows it: commits ahead of where it started, the newest few. */
export interface BranchView {
  branch: string
  /** Where the commits were read (never the task's clone): its submitted commit, the merge commit, or the copy the integration clone keeps. */
  from: 'submitted' | 'merge' | 'kept'
  /** Commits ahead of its start (at most `countMax`; `more` when there are more). */
  commits: number
  more: boolean
  recent: CommitLine[]
}

export interface LogEntry {
  commit: string
  /** Seconds since the epoch (the merge commit's committer time). */
  at: number
  taskId?: string
  title?: string
  branch?: string
  subject: string
}

export interface ProjectPanelView {
  project: { path: string; branch: string; targetHead: string | null; integrationHead: string | null } | null
  /** Is the asking browser paired (the release needs it)? */
  paired: boolean
  /** Why git facts are missing, when they are. */
  note?: string
  log: LogEntry[]
  branches: Record<string, BranchView>
}

/** The subject `Worktrees.merge` writes: `Merge <branch> (<task id>)`. */
const MERGE_SUBJECT = /^Merge (team\/task-[1-9][0-9]{0,9}-[a-z0-9-]{1,40}) \((task-[1-9][0-9]{0,9})\)$/
const SEP = '\u001f'

/** What git says, through the secrets masker before it is parsed or clipped (a commit subject, a ref name may hold one). */
type Mask = (text: string) => string

/** Commit lines of `git log --format=%H<SEP>%s` (pure). */
function commitLines(stdout: string): CommitLine[] {
  const out: CommitLine[] = []
  for (const line of stdout.split('\n')) {
    const at = line.indexOf(SEP)
    if (at !== 40 && at !== 64) continue
    out.push({ commit: line.slice(0, at), subject: clip(line.slice(at + 1), PROJECT_VIEW_LIMITS.subject) })
  }
  return out
}

/** The integration log: the last merges on `team/integration`, each named by its task when the subject says which. */
async function integrationLog(git: GitRunner, integration: Repo, titles: ReadonlyMap<string, string>, mask: Mask): Promise<LogEntry[]> {
  const r = await git.run(
    ['log', '--first-parent', '--merges', '--no-decorate', `-n${PROJECT_VIEW_LIMITS.log}`, `--format=%H${SEP}%ct${SEP}%s`, INTEGRATION_REF, '--'],
    { cwd: integration.gitDir, gitDir: integration.gitDir, maxOutput: PROJECT_VIEW_LIMITS.gitBytes },
  )
  const out: LogEntry[] = []
  for (const line of mask(r.stdout).split('\n')) {
    const [commit, at, ...rest] = line.split(SEP)
    if (!commit || !/^[0-9a-f]{40,64}$/.test(commit)) continue
    const subject = rest.join(SEP)
    const m = MERGE_SUBJECT.exec(subject)
    const title = m && titles.has(m[2]!) ? mask(titles.get(m[2]!)!) : undefined
    out.push({
      commit,
      at: Number(at) || 0,
      subject: clip(subject, PROJECT_VIEW_LIMITS.subject),
      ...(m ? { branch: m[1]!, taskId: m[2]! } : {}),
      ...(title ? { title: clip(title, PROJECT_VIEW_LIMITS.subject) } : {}),
    })
  }
  return out
}

/** The commits of `range` in `repo`: how many (capped) and the newest few. */
async function commitsOf(git: GitRunner, repo: Repo, range: readonly string[], mask: Mask): Promise<Omit<BranchView, 'branch' | 'from'>> {
  const n = PROJECT_VIEW_LIMITS.countMax
  const r = await git.run(['log', '--no-decorate', `-n${n + 1}`, `--format=%H${SEP}%s`, ...range, '--'], {
    cwd: repo.gitDir,
    gitDir: repo.gitDir,
    maxOutput: PROJECT_VIEW_LIMITS.gitBytes,
  })
  const lines = commitLines(mask(r.stdout))
  return { commits: Math.min(lines.length, n), more: lines.length > n, recent: lines.slice(0, PROJECT_VIEW_LIMITS.subjects) }
}

/**
 * One task's branch, read in the integration clone only (the plugin runs no git in a clone a Bot
 * writes): as last fetched on submit (from its base), at its merge (the merge's two parents), or
 * the kept copy of a removed clone. Its name and subjects are masked.
 */
async function branchOf(w: Worktrees, task: Task, base: string | undefined, mask: Mask): Promise<BranchView | undefined> {
  const name = task.worktree?.branch
  if (!name) return undefined
  const ref = `refs/heads/${name}`
  const branch = mask(name)
  const commit = task.worktree?.commit
  if (commit && !base) return { branch, from: 'merge', ...(await commitsOf(w.git, w.integration, [`${commit}^2`, `^${commit}^1`], mask)) }
  const fetched = await w.git
    .run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
      cwd: w.integration.gitDir,
      gitDir: w.integration.gitDir,
      okCodes: [0, 1],
    })
    .then((r) => r.code === 0)
  if (!fetched) return undefined
  if (base) return { branch, from: 'submitted', ...(await commitsOf(w.git, w.integration, [ref, `^${base}`], mask)) }
  return { branch, from: 'kept', ...(await commitsOf(w.git, w.integration, [ref, `^${INTEGRATION_REF}`], mask)) }
}

/** Run `work` over `items`, at most `n` at once. */
async function eachLimited<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane))
}

/** The project tasks whose branches are read: open ones first, then the newest closed, up to the limit (pure). */
export function projectTasks(tasks: Iterable<Task>, max = PROJECT_VIEW_LIMITS.tasks): Task[] {
  const open: Task[] = []
  const closed: Task[] = []
  for (const t of tasks) if (t.worktree?.branch) (isClosed(t) ? closed : open).push(t)
  const newest = (a: Task, b: Task) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)
  return [...open.sort(newest), ...closed.sort(newest)].slice(0, max)
}

const reading = new WeakMap<BotTasks, Promise<ProjectPanelView>>()

/**
 * The panel for the person (`paired`: whether the asking browser is). Requests that arrive while
 * one is read share its reading, so a burst of them runs the git reads once, not once each.
 */
export async function projectPanel(tasks: BotTasks, paired: boolean): Promise<ProjectPanelView> {
  let shared = reading.get(tasks)
  if (!shared) {
    shared = readPanel(tasks).finally(() => reading.delete(tasks))
    reading.set(tasks, shared)
  }
  return { ...(await shared), paired }
}

async function readPanel(tasks: BotTasks): Promise<ProjectPanelView> {
  const paired = false
  const project = tasks.project()
  if (!project) return { project: null, paired, log: [], branches: {} }
  const view: ProjectPanelView = {
    project: { path: project.path, branch: project.branch, targetHead: null, integrationHead: null },
    paired,
    log: [],
    branches: {},
  }
  const w = await tasks.openedWorktrees()
  if (!w) return { ...view, note: 'The integration branch is made when the first project task starts (in the process that writes the team).' }
  const mask: Mask = (text) => tasks.mask(text)
  const problems: string[] = []
  const [integrationHead] = await revParseAll(w.git, w.integration, [INTEGRATION_REF]).catch((e) => {
    problems.push(mask(errorText(e)))
    return [null]
  })
  view.project!.integrationHead = integrationHead ?? null
  const target = await w.git
    .run(['rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${project.branch}^{commit}`], {
      cwd: project.gitDir,
      gitDir: project.gitDir,
      okCodes: [0, 1],
    })
    .catch(() => undefined)
  view.project!.targetHead = target?.code === 0 ? target.stdout.trim() : null
  const all = [...tasks.board.all()]
  const titles = new Map(all.filter((t) => t.worktree).map((t) => [t.id, t.title]))
  view.log = await integrationLog(w.git, w.integration, titles, mask).catch((e) => {
    problems.push(mask(errorText(e)))
    return []
  })
  const bases = new Map(w.clones().flatMap((c) => (c.state === 'ready' ? [[c.taskId, c.base] as const] : [])))
  await eachLimited(projectTasks(all), PROJECT_VIEW_LIMITS.parallel, async (task) => {
    try {
      const b = await branchOf(w, task, bases.get(task.id), mask)
      if (b) view.branches[task.id] = b
    } catch (e) {
      if (problems.length < 3) problems.push(`${task.id}: ${clip(mask(errorText(e)), 200)}`)
    }
  })
  return problems.length ? { ...view, note: `Some of the project could not be read: ${problems.join('; ')}` } : view
}
