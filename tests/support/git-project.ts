// Real git repositories for the worktree tests, laid out like a real install: a home with a DSH
// home, its team folder and workspace and a project in `src/` in the user's cache, and the
// plugin's folder under this repository's `.tmp/` (or the cache, for a clone in a temp folder):
// the plugin refuses a project or a folder of its own in a shared temp folder, where every Bot may
// write. The "Bot" commits with hooks off, so a marker can only come from the plugin's git.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { GitRunner } from '../../src/worktrees/git.ts'
import { type Forbidden, isInside, SHARED_TEMP_DIRS } from '../../src/worktrees/policy.ts'

const REPO = fileURLToPath(new URL('../..', import.meta.url))

export interface GitHome {
  base: string
  dshHome: string
  teamDir: string
  workspace: string
  project: string
  pluginRoot: string
  forbidden: Forbidden[]
  /** Plain git as a person or a Bot runs it, hooks off (only for building fixtures). */
  sh(cwd: string, ...args: string[]): string
  cleanup(): void
}

/**
 * Where the plugin's folders go: this repository's `.tmp/`, unless the clone itself lies in a
 * shared temporary folder (the plugin refuses those), then a folder of the user's cache.
 */
export function pluginParent(): string {
  const inRepo = path.join(REPO, '.tmp', 'worktrees')
  const shared = [...SHARED_TEMP_DIRS, os.tmpdir()].map((d) => (existsSync(d) ? realpathSync(d) : d))
  if (!shared.some((d) => isInside(realpathSync(REPO), d))) return inRepo
  return path.join(os.homedir(), '.cache', 'dsh-bot-team-tests', 'worktrees')
}

/**
 * Where the person's side of a test lives (their home, their repositories): the user's cache, as
 * on a real machine outside every shared temporary folder and outside any repository (a folder
 * under this clone's `.tmp/` would lie inside this repository for git). A cache in a shared temp
 * folder falls back to `.tmp/` here.
 */
export function personParent(): string {
  const cache = process.env.XDG_CACHE_HOME && path.isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache')
  const shared = [...SHARED_TEMP_DIRS, os.tmpdir()].map((d) => (existsSync(d) ? realpathSync(d) : d))
  const inCache = path.join(cache, 'dsh-bot-team-tests', 'homes')
  mkdirSync(inCache, { recursive: true })
  const dir = shared.some((d) => isInside(realpathSync(inCache), d)) ? path.join(REPO, '.tmp', 'homes') : inCache
  mkdirSync(dir, { recursive: true })
  return dir
}

export function makeGitHome(): GitHome {
  const base = mkdtempSync(path.join(personParent(), 'wt-home-'))
  const parent = pluginParent()
  mkdirSync(parent, { recursive: true })
  const owned = mkdtempSync(path.join(parent, 'root-'))
  const dshHome = path.join(base, '.dsh')
  const teamDir = path.join(dshHome, 'bot')
  const workspace = path.join(teamDir, 'workspace')
  const project = path.join(base, 'src', 'project')
  const pluginRoot = path.join(owned, 'dsh-bot-team', 'worktrees', 'project')
  for (const d of [workspace, project]) mkdirSync(d, { recursive: true })
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: base,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Person',
    GIT_AUTHOR_EMAIL: 'person@example.com',
    GIT_COMMITTER_NAME: 'Person',
    GIT_COMMITTER_EMAIL: 'person@example.com',
  }
  const sh = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], { cwd, env, encoding: 'utf8' })
  return {
    base,
    dshHome,
    teamDir,
    workspace,
    project,
    pluginRoot,
    forbidden: [
      { label: 'the DSH home', path: dshHome },
      { label: 'the team folder', path: teamDir },
      { label: 'the team workspace', path: workspace },
    ],
    sh,
    cleanup: () => {
      rmSync(base, { recursive: true, force: true })
      rmSync(owned, { recursive: true, force: true })
    },
  }
}

/** A project with a `main` branch holding `files`. */
export function initProject(home: GitHome, files: Record<string, string> = { 'README.md': '# project\n', 'src/a.txt': 'one\ntwo\nthree\n' }): void {
  home.sh(home.project, 'init', '-q', '-b', 'main')
  writeFiles(home.project, files)
  home.sh(home.project, 'add', '-A')
  home.sh(home.project, 'commit', '-q', '-m', 'initial')
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), text)
  }
}

/** What a Bot does in its clone: write files and commit them. Returns the new commit. */
export function botCommit(home: GitHome, dir: string, files: Record<string, string>, message = 'work'): string {
  writeFiles(dir, files)
  home.sh(dir, 'add', '-A')
  home.sh(dir, '-c', 'user.name=Bot', '-c', 'user.email=bot@example.com', 'commit', '-q', '-m', message)
  return home.sh(dir, 'rev-parse', 'HEAD').trim()
}

/** A runner for the tests' own questions to git (the plugin's runner, its own empty home). */
export function probeGit(home: GitHome): GitRunner {
  const empty = path.join(home.base, 'probe-home')
  mkdirSync(empty, { recursive: true })
  return new GitRunner({ emptyHome: empty })
}
