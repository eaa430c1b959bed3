// bench/lib/worktrees-git — what the plugin's git costs for 6 tasks, for `bench worktrees`: the
// summed wall time of every process `src/worktrees` runs for the clones, submits (a confined status,
// the quarantined fetch with fsckObjects), checks' fresh checkouts (`clone --shared`, checkout, a
// confined removal), merges of the submitted commit and removals (a confined status and removal) —
// confined ones as a default Bot's, through DSH's real sandbox in a namespace set at `internet`
// (plugin_git) — against the same commands run serially and plainly by a script without the
// plugin's environment, overrides, sandbox or set (bare_git), on copies of the same repository; and
// the flow before issue 32 run plainly (old_bare_git), so the time the new flow adds per task is
// printed. Rounds alternate which side goes first; medians. The Bot's commits are made alike, untimed.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { Worktrees } from '../../src/worktrees/worktrees.ts'
import { type RealSandbox, realSandbox } from '../../tests/support/confine.ts'
import { botCommit, type GitHome, initProject, makeGitHome } from '../../tests/support/git-project.ts'

const TASKS = 6
const INT = 'refs/heads/team/integration'

function project(home: GitHome, count: number) {
  const files: Record<string, string> = {}
  for (let i = 0; i < count; i++) files[`src/m${i % 20}/f${i}.txt`] = `${'line\n'.repeat(20)}file ${i}\n`
  initProject(home, files)
}

async function pluginSide(files: number, sandbox: RealSandbox): Promise<{ ms: number; processes: number }> {
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
    const as = sandbox.as()
    const { worktrees: w } = await Worktrees.open(
      { root: home.pluginRoot, project: { gitDir: path.join(home.project, '.git'), branch: 'main' }, forbidden: home.forbidden, observe },
      undefined,
      () => as,
    )
    const clones = []
    for (let t = 1; t <= TASKS; t++) {
      timing = true
      const c = await w.createClone(`task-${t}`, `bench task ${t}`)
      timing = false
      botCommit(home, c.dir, { [`src/m${t}/new-${t}.txt`]: `task ${t}\n` })
      clones.push(c)
    }
    timing = true
    for (const c of clones) {
      const handed = await w.submitted(c.taskId, as)
      if (!handed.ok) throw new Error(handed.reason)
      const tree = await w.checkTree(handed.commit)
      await tree.done(as.confine)
      await w.merge(c.taskId, handed.commit)
    }
    for (const c of clones) await w.removeClone(c.taskId, 'done', as)
    timing = false
    return { ms, processes }
  } finally {
    home.cleanup()
  }
}

/** The plain side: `flow` 'new' runs the commands the plugin runs now, 'old' those it ran before issue 32. */
function bareSide(files: number, flow: 'new' | 'old'): { ms: number; processes: number } {
  const home = makeGitHome()
  try {
    project(home, files)
    const root = home.pluginRoot
    for (const sub of ['clones', 'tmp', 'checks']) mkdirSync(path.join(root, sub), { recursive: true })
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
    const run = (cwd: string, argv: string[], input?: string, extraEnv: Record<string, string> = {}) => {
      const t = performance.now()
      const r = spawnSync(argv[0]!, argv.slice(1), { cwd, env: { ...env, ...extraEnv }, input, encoding: 'utf8' })
      ms += performance.now() - t
      processes++
      return r.stdout
    }
    const git = (cwd: string, args: string[], input?: string, extraEnv: Record<string, string> = {}) => run(cwd, ['git', ...args], input, extraEnv)
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
    const oldCollect = (c: { dir: string; branch: string }) => {
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
    // The quarantine: a bare repository borrowing the integration objects, fsck on, then into the integration clone.
    const newCollect = (c: { dir: string; branch: string }) => {
      // Made by hand as the plugin makes it (no process), then fetched into.
      const q = path.join(root, 'tmp', 'q.git')
      for (const sub of ['objects/info', 'objects/pack', 'refs/heads']) mkdirSync(path.join(q, sub), { recursive: true })
      writeFileSync(path.join(q, 'HEAD'), 'ref: refs/heads/main\n')
      writeFileSync(path.join(q, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n')
      writeFileSync(path.join(q, 'objects', 'info', 'alternates'), `${path.join(int, 'objects')}\n`)
      const fsck = ['-c', 'transfer.fsckObjects=true', '-c', 'fetch.fsckObjects=true', '-c', 'fetch.unpackLimit=1', '-c', 'transfer.unpackLimit=1']
      git(q, [...fsck, '--git-dir', q, 'fetch', '-q', '--no-tags', '--no-write-fetch-head', path.join(c.dir, '.git'), `+refs/heads/${c.branch}:refs/q/branch`])
      const head = readFileSync(path.join(q, 'refs', 'q', 'branch'), 'utf8').trim()
      git(int, ['--git-dir', int, 'fetch', '-q', '--no-tags', '--no-write-fetch-head', q, `refs/q/branch:refs/heads/${c.branch}`])
      rmSync(q, { recursive: true, force: true })
      return head
    }
    const status = (c: { dir: string }) => {
      const gd = ['--git-dir', path.join(c.dir, '.git'), '--work-tree', c.dir]
      git(c.dir, [...gd, 'config', '--list', '-z'])
      git(c.dir, [...gd, 'status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--ignore-submodules=all', '--no-renames'])
    }
    const merge = (theirs: string) => {
      const ours = git(int, ['--git-dir', int, 'rev-parse', `${INT}^{commit}`]).trim()
      git(int, ['--git-dir', int, 'merge-base', '--is-ancestor', theirs, ours])
      const tree = git(int, ['--git-dir', int, 'merge-tree', '--write-tree', '-z', '--name-only', ours, theirs]).split('\0')[0]!
      const commit = git(int, ['--git-dir', int, 'commit-tree', tree, '-p', ours, '-p', theirs, '-m', 'merge']).trim()
      git(int, ['--git-dir', int, 'update-ref', INT, commit, ours])
    }
    for (const c of clones) {
      if (flow === 'old') {
        merge(oldCollect(c))
        continue
      }
      status(c)
      const commit = newCollect(c)
      const top = path.join(root, 'checks', 'x')
      mkdirSync(top)
      git(top, ['clone', '-q', '--shared', '--no-checkout', '--template=', int, path.join(top, 'tree')])
      git(path.join(top, 'tree'), ['checkout', '-q', '--detach', commit])
      run(root, ['/bin/sh', '-c', 'chmod -R u+rwX -- "$1" 2>/dev/null; rm -rf -- "$1"', 'sh', top])
      merge(commit)
    }
    for (const c of clones) {
      const gd = ['--git-dir', path.join(c.dir, '.git'), '--work-tree', c.dir]
      let head: string
      if (flow === 'old') {
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
        head = oldCollect(c)
      } else {
        status(c)
        head = newCollect(c)
      }
      const ours = git(int, ['--git-dir', int, 'rev-parse', `${INT}^{commit}`]).trim()
      git(int, ['--git-dir', int, 'merge-base', '--is-ancestor', head, ours])
      git(int, ['--git-dir', int, 'update-ref', '-d', `refs/heads/${c.branch}`, head])
      if (flow === 'old') rmSync(c.dir, { recursive: true, force: true })
      else run(root, ['/bin/sh', '-c', 'chmod -R u+rwX -- "$1" 2>/dev/null; rm -rf -- "$1"', 'sh', c.dir])
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
  oldBareMs: number
  pluginProcesses: number
  bareProcesses: number
  oldBareProcesses: number
  tasks: number
}

/** `rounds` rounds of the three sides (rotating who goes first) on a generated repository of `files` files; medians. */
export async function gitRounds(rounds = 5, files = 300): Promise<GitRounds> {
  // The plugin's confined processes run as a default Bot's do: DSH's sandbox inside a namespace set at internet.
  const sandbox = await realSandbox({ level: 'internet' })
  const ms = { plugin: [] as number[], bare: [] as number[], old: [] as number[] }
  const counts = { plugin: 0, bare: 0, old: 0 }
  try {
    for (let r = 0; r < rounds; r++) {
      const sides = ['plugin', 'bare', 'old'] as const
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + r) % sides.length]!
        const got = side === 'plugin' ? await pluginSide(files, sandbox) : bareSide(files, side === 'bare' ? 'new' : 'old')
        ms[side].push(got.ms)
        counts[side] = got.processes
      }
    }
  } finally {
    await sandbox.dispose()
  }
  return {
    pluginMs: median(ms.plugin),
    bareMs: median(ms.bare),
    oldBareMs: median(ms.old),
    pluginProcesses: counts.plugin,
    bareProcesses: counts.bare,
    oldBareProcesses: counts.old,
    tasks: TASKS,
  }
}
