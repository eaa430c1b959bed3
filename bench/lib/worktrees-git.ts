// bench/lib/worktrees-git — what the plugin's git costs for 6 tasks, for `bench worktrees`: the
// summed wall time of the git processes `src/worktrees` runs for the clones, merges and removals
// (plugin_git), against the same git commands run serially by a plain script without the plugin's
// environment and overrides (bare_git), in the same run on copies of the same repository; rounds
// alternate which side goes first and the medians are returned. The Bot's commits are made the
// same way on both sides and not timed.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Worktrees } from '../../src/worktrees/worktrees.ts'
import { botCommit, type GitHome, initProject, makeGitHome } from '../../tests/support/git-project.ts'

const TASKS = 6
const INT = 'refs/heads/team/integration'

function project(home: GitHome, count: number) {
  const files: Record<string, string> = {}
  for (let i = 0; i < count; i++) files[`src/m${i % 20}/f${i}.txt`] = `${'line\n'.repeat(20)}file ${i}\n`
  initProject(home, files)
}

async function pluginSide(files: number): Promise<{ ms: number; processes: number }> {
  const home = makeGitHome()
  try {
    project(home, files)
    let ms = 0
    let processes = 0
    let timing = false
    const observe = (r: { ms: number }) => {
      if (!timing) return
      ms += r.ms
      processes++
    }
    const { worktrees: w } = await Worktrees.open({
      root: home.pluginRoot,
      project: { gitDir: path.join(home.project, '.git'), branch: 'main' },
      forbidden: home.forbidden,
      observe,
    })
    const clones = []
    for (let t = 1; t <= TASKS; t++) {
      timing = true
      const c = await w.createClone(`task-${t}`, `bench task ${t}`)
      timing = false
      botCommit(home, c.dir, { [`src/m${t}/new-${t}.txt`]: `task ${t}\n` })
      clones.push(c)
    }
    timing = true
    for (const c of clones) await w.merge(c.taskId)
    for (const c of clones) await w.removeClone(c.taskId, 'done')
    timing = false
    return { ms, processes }
  } finally {
    home.cleanup()
  }
}

function bareSide(files: number): { ms: number; processes: number } {
  const home = makeGitHome()
  try {
    project(home, files)
    const root = home.pluginRoot
    mkdirSync(path.join(root, 'clones'), { recursive: true })
    mkdirSync(path.join(root, 'tmp'), { recursive: true })
    const env = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' }
    const int = path.join(root, 'integration.git')
    execFileSync(
      'git',
      ['clone', '-q', '--bare', '--no-tags', '--template=', '--single-branch', '--branch', 'main', '-c', 'gc.auto=0', path.join(home.project, '.git'), int],
      { env },
    )
    execFileSync('git', ['--git-dir', int, 'update-ref', INT, 'main'], { env })
    let ms = 0
    let processes = 0
    const git = (cwd: string, args: string[], input?: string, extraEnv: Record<string, string> = {}) => {
      const t = performance.now()
      const r = spawnSync('git', args, { cwd, env: { ...env, ...extraEnv }, input, encoding: 'utf8' })
      ms += performance.now() - t
      processes++
      return r.stdout
    }
    const clones: { dir: string; branch: string }[] = []
    for (let t = 1; t <= TASKS; t++) {
      const base = git(int, ['--git-dir', int, 'rev-parse', `${INT}^{commit}`]).trim()
      const tmp = path.join(root, 'clones', `.new-task-${t}`)
      const dir = path.join(root, 'clones', `task-${t}`)
      const branch = `team/task-${t}-bench-task-${t}`
      git(path.join(root, 'clones'), ['clone', '-q', '--shared', '--no-checkout', '--template=', '--origin', 'integration', int, tmp])
      git(tmp, ['checkout', '-q', '-b', branch, base])
      execFileSync('mv', [tmp, dir])
      botCommit(home, dir, { [`src/m${t}/new-${t}.txt`]: `task ${t}\n` })
      clones.push({ dir, branch })
    }
    const collect = (c: { dir: string; branch: string }) => {
      git(int, [
        '--git-dir',
        int,
        'fetch',
        '-q',
        '--no-tags',
        '--no-write-fetch-head',
        path.join(c.dir, '.git'),
        `refs/heads/${c.branch}:refs/heads/${c.branch}`,
      ])
      return git(int, ['--git-dir', int, 'rev-parse', `refs/heads/${c.branch}^{commit}`]).trim()
    }
    for (const c of clones) {
      const theirs = collect(c)
      const ours = git(int, ['--git-dir', int, 'rev-parse', `${INT}^{commit}`]).trim()
      git(int, ['--git-dir', int, 'merge-base', '--is-ancestor', theirs, ours])
      const tree = git(int, ['--git-dir', int, 'merge-tree', '--write-tree', '-z', '--name-only', ours, theirs]).split('\0')[0]!
      const commit = git(int, ['--git-dir', int, 'commit-tree', tree, '-p', ours, '-p', theirs, '-m', 'merge']).trim()
      git(int, ['--git-dir', int, 'update-ref', INT, commit, ours])
    }
    for (const c of clones) {
      const gd = ['--git-dir', path.join(c.dir, '.git'), '--work-tree', c.dir]
      git(c.dir, [...gd, 'rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'])
      const files = git(c.dir, [...gd, 'ls-files', '-z', '--cached', '--others', '--exclude-standard', '--full-name'])
        .split('\0')
        .filter(Boolean)
      const hashes = git(c.dir, [...gd, 'hash-object', '-w', '--no-filters', '--stdin-paths'], `${files.join('\n')}\n`)
        .trim()
        .split('\n')
      const index = path.join(root, 'tmp', 'index')
      git(c.dir, [...gd, 'update-index', '-z', '--index-info'], files.map((f, i) => `100644 ${hashes[i]}\t${f}\0`).join(''), { GIT_INDEX_FILE: index })
      git(c.dir, [...gd, 'write-tree'], undefined, { GIT_INDEX_FILE: index })
      rmSync(index, { force: true })
      const head = collect(c)
      const ours = git(int, ['--git-dir', int, 'rev-parse', `${INT}^{commit}`]).trim()
      git(int, ['--git-dir', int, 'merge-base', '--is-ancestor', head, ours])
      git(int, ['--git-dir', int, 'update-ref', '-d', `refs/heads/${c.branch}`, head])
      rmSync(c.dir, { recursive: true, force: true })
    }
    return { ms, processes }
  } finally {
    home.cleanup()
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export interface GitRounds {
  pluginMs: number
  bareMs: number
  pluginProcesses: number
  bareProcesses: number
}

/** `rounds` alternating rounds of both sides on a generated repository of `files` files; medians. */
export async function gitRounds(rounds = 5, files = 300): Promise<GitRounds> {
  const plugin: number[] = []
  const bare: number[] = []
  const counts = { plugin: 0, bare: 0 }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['plugin', 'bare'] : ['bare', 'plugin']
    for (const side of order) {
      if (side === 'plugin') {
        const p = await pluginSide(files)
        plugin.push(p.ms)
        counts.plugin = p.processes
      } else {
        const b = bareSide(files)
        bare.push(b.ms)
        counts.bare = b.processes
      }
    }
  }
  return { pluginMs: median(plugin), bareMs: median(bare), pluginProcesses: counts.plugin, bareProcesses: counts.bare }
}
