// Crash runs of the worktrees (the crash test small, the soak large): the child
// (tests/dsh/worktrees/fixtures/worktree-child.ts) runs tasks — clone, commit, merge, removal —
// and its whole process group (git included) is SIGKILLed at a random moment. After each kill the
// runner recovers as a start-up would (`Worktrees.open`) and checks: every new commit on the
// integration branch is a whole merge (two parents, the tree merge-tree gives them); every folder
// under clones/ is in the registry or was listed; no half-made folder, check tree or lock in a
// plugin-owned repository is left (removals run confined through DSH's real sandbox). At the
// end a last child finishes its task and every Bot commit printed is in the integration clone.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worktrees } from '../../src/worktrees/worktrees.ts'
import { runChild } from './child-run.ts'
import { type RealSandbox, realSandbox } from './confine.ts'
import { type GitHome, initProject, makeGitHome } from './git-project.ts'

const CHILD = fileURLToPath(new URL('../dsh/worktrees/fixtures/worktree-child.ts', import.meta.url))

export interface WorktreeCrashStats {
  kills: number
  halfMerged: number
  unknownClones: number
  lostCommits: number
  leftovers: number
  staleLocks: number
  /** Where the kills landed, by the child's last printed phase. */
  during: Record<string, number>
  merged: number
  commits: number
  problems: string[]
}

interface Run {
  lines: string[]
  killed: boolean
}

async function child(args: string[], killAfterMs?: number): Promise<Run> {
  const r = await runChild(CHILD, args, {
    group: true,
    ...(killAfterMs === undefined ? {} : { kill: { armedBy: (line) => line === 'phase open', ms: killAfterMs } }),
  })
  if (r.killed || (r.code === 0 && killAfterMs === undefined)) return { lines: r.lines, killed: r.killed }
  throw new Error(`worktree child ended with ${r.code ?? r.signal}: ${r.stderr.slice(0, 800)}`)
}

function locks(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name)
      if (e.isDirectory()) walk(full)
      else if (e.name.endsWith('.lock')) out.push(full)
    }
  }
  walk(dir)
  return out
}

async function lane(kills: number, stats: WorktreeCrashStats, sandbox: RealSandbox): Promise<void> {
  const home: GitHome = makeGitHome()
  try {
    initProject(home, { 'README.md': '# soak\n', 'shared/0.txt': '0\n', 'shared/1.txt': '1\n', 'shared/2.txt': '2\n' })
    const projectGitDir = path.join(home.project, '.git')
    const progress = path.join(home.base, 'progress.json')
    const args = [home.pluginRoot, projectGitDir, progress]
    const opts = { root: home.pluginRoot, project: { gitDir: projectGitDir, branch: 'main' }, forbidden: home.forbidden }
    const verified = new Set<string>()
    const commits = new Set<string>()
    const sh = (...a: string[]) => home.sh(path.join(home.pluginRoot, 'integration.git'), ...a)
    const initial = home.sh(home.project, 'rev-parse', 'main').trim()
    verified.add(initial)
    for (let i = 0; i < kills; i++) {
      let run: Run
      try {
        run = await child([...args, 'run'], Math.random() * 700)
      } catch (error) {
        stats.problems.push(`run ${i + 1}: ${(error as Error).message}`)
        continue
      }
      stats.kills++
      const phase =
        [...run.lines]
          .reverse()
          .find((l) => l.startsWith('phase '))
          ?.split(' ')[1] ?? 'start'
      stats.during[phase] = (stats.during[phase] ?? 0) + 1
      for (const l of run.lines) {
        if (l.startsWith('commit ')) commits.add(l.split(' ')[2]!)
        if (l.startsWith('merged ') && l.endsWith(' merged')) stats.merged++
      }
      // Recover as a start-up does; then check what a crash may never leave.
      const n = fs.existsSync(progress) ? (JSON.parse(fs.readFileSync(progress, 'utf8')) as { next: number }).next : 1
      const { worktrees, reconciled } = await Worktrees.open(opts, new Set([`task-${n}`]), () => sandbox.as())
      const listed = new Set(reconciled.filter((r) => r.kind === 'kept-unknown' || r.kind === 'foreign').map((r) => ('dir' in r ? r.dir : '')))
      const known = new Set(worktrees.clones().map((c) => worktrees.dirOf(c.taskId)))
      for (const name of fs.readdirSync(path.join(home.pluginRoot, 'clones'))) {
        const dir = path.join(home.pluginRoot, 'clones', name)
        if (name.startsWith('.')) {
          stats.leftovers++
          stats.problems.push(`run ${i + 1}: ${name} left after recovery`)
        } else if (!known.has(dir) && !listed.has(dir)) {
          stats.unknownClones++
          stats.problems.push(`run ${i + 1}: ${name} is in no registry and was not listed`)
        }
      }
      for (const name of fs.readdirSync(path.join(home.pluginRoot, 'checks'))) {
        stats.leftovers++
        stats.problems.push(`run ${i + 1}: checks/${name} left after recovery`)
      }
      for (const c of worktrees.clones()) {
        if (!fs.existsSync(worktrees.dirOf(c.taskId))) {
          stats.unknownClones++
          stats.problems.push(`run ${i + 1}: the registry names ${c.taskId} but its folder is gone`)
        }
      }
      // Plugin-owned repositories only: a lock in a clone is the Bot's, cleared by its confined work-in-progress commit.
      const stale = locks(path.join(home.pluginRoot, 'integration.git'))
      stats.staleLocks += stale.length
      for (const s of stale) stats.problems.push(`run ${i + 1}: ${s} left after recovery`)
      for (const line of sh('rev-list', '--first-parent', '--parents', 'refs/heads/team/integration').trim().split('\n')) {
        const [commit, ...parents] = line.split(' ')
        if (verified.has(commit!)) break
        const bad = (why: string) => {
          stats.halfMerged++
          stats.problems.push(`run ${i + 1}: ${commit} ${why}`)
        }
        if (parents.length !== 2) bad(`has ${parents.length} parents`)
        else {
          let merged = ''
          try {
            merged = sh('merge-tree', '--write-tree', parents[0]!, parents[1]!).trim()
          } catch {
            bad('is a merge of parents that conflict')
          }
          const tree = sh('rev-parse', `${commit}^{tree}`).trim()
          if (merged && merged !== tree) bad(`holds tree ${tree}, not the merge of its parents (${merged})`)
        }
        verified.add(commit!)
      }
    }
    // The last child finishes its task; then every Bot commit is in the integration clone.
    const last = await child([...args, 'final'])
    for (const l of last.lines) if (l.startsWith('commit ')) commits.add(l.split(' ')[2]!)
    const all = new Set(sh('rev-list', '--all').trim().split('\n'))
    for (const c of commits) {
      stats.commits++
      if (!all.has(c)) {
        stats.lostCommits++
        stats.problems.push(`commit ${c} is not in the integration clone`)
      }
    }
  } finally {
    home.cleanup()
  }
}

export async function runWorktreeCrashes({ kills, lanes = 1 }: { kills: number; lanes?: number }): Promise<WorktreeCrashStats> {
  const stats: WorktreeCrashStats = {
    kills: 0,
    halfMerged: 0,
    unknownClones: 0,
    lostCommits: 0,
    leftovers: 0,
    staleLocks: 0,
    during: {},
    merged: 0,
    commits: 0,
    problems: [],
  }
  const per = Math.ceil(kills / lanes)
  const sandbox = await realSandbox()
  try {
    await Promise.all(Array.from({ length: lanes }, (_, i) => lane(Math.min(per, kills - i * per), stats, sandbox)))
  } finally {
    await sandbox.dispose()
  }
  return stats
}

export function worktreeCrashLine(label: string, s: WorktreeCrashStats): string {
  const during = ['clone', 'merge', 'remove', 'idle', 'open', 'start'].map((p) => `during_${p}=${s.during[p] ?? 0}`).join(' ')
  return `${label}: kills=${s.kills} half_merged=${s.halfMerged} unknown_clones=${s.unknownClones} lost_commits=${s.lostCommits} leftovers=${s.leftovers} stale_locks=${s.staleLocks} merged=${s.merged} commits=${s.commits} ${during}`
}
