/**
 * The plugin's one way to run git: a fixed environment (no global or system config, no inherited
 * `GIT_*`), the `-c` overrides that switch off every place a repository's config names a program
 * (hooks, fsmonitor, pagers, editors, credential helpers, gpg, external diff, transports), a time
 * limit, an output cap and an observer that sees each process's wall time. Deliberately knows no
 * repository layout and no policy: callers pass plumbing commands and the extra overrides they need.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

/** The identity every commit the plugin writes carries (never a repository's `user.*`). */
export const PLUGIN_IDENTITY = { name: 'Bot Team', email: 'bot-team@localhost' }

/** The empty tree: `attr.tree` points here so no tree's `.gitattributes` is read (newer git). */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

/**
 * Overrides passed on every command line (the command line outranks every config file, included
 * ones too). Each names a place a config a Bot could write would make git start a program.
 */
export const SAFE_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.pager=cat',
  'core.editor=true',
  'core.askPass=',
  'core.sshCommand=false',
  'core.gitProxy=',
  'core.alternateRefsCommand=',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  `attr.tree=${EMPTY_TREE}`,
  'credential.helper=',
  'diff.external=',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'log.showSignature=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'fetch.recurseSubmodules=false',
  'submodule.recurse=false',
  'fetch.writeCommitGraph=false',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'sequence.editor=true',
  'interactive.diffFilter=',
]

/** The `-c` arguments for `SAFE_CONFIG` plus `extra` (e.g. the named filters neutralized). */
export function configArgs(extra: readonly string[] = []): string[] {
  const out: string[] = []
  for (const kv of [...SAFE_CONFIG, ...extra]) out.push('-c', kv)
  return out
}

/** The `--upload-pack` program for a fetch: git with the same overrides in the serving repository. */
export function uploadPackCommand(git: string): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  return [quote(git), ...configArgs().map(quote), 'upload-pack'].join(' ')
}

export type GitErrorCode = 'EGIT' | 'ETIMEDOUT' | 'EOUTPUT' | 'ESPAWN'

/** A git process that failed, ran out of time, or said too much. `message` is one sentence. */
export class GitError extends Error {
  readonly code: GitErrorCode
  readonly exitCode: number | null
  readonly stderr: string
  constructor(code: GitErrorCode, message: string, exitCode: number | null = null, stderr = '') {
    super(message)
    this.name = 'GitError'
    this.code = code
    this.exitCode = exitCode
    this.stderr = stderr
  }
}

export interface GitRun {
  args: readonly string[]
  code: number | null
  ms: number
  /** The program when it is not git (the confined `rm` and `find` of a removal). */
  program?: string
  /** Run through the Bot's sandbox (`Confine`), not as the plugin. */
  confined?: boolean
}

/** The file-effect modes a confined process runs at (DSH's sandbox modes). */
export type ConfineMode = 'read-only' | 'workspace-write' | 'danger-full-access'

/**
 * The one seam for every process the plugin runs as a Bot in a folder a Bot can write: the argv
 * that runs `argv` through DSH's sandbox at `mode` with `root` its only writable folder, inside the
 * Bot's network namespaces at its level (the task service passes the Bot's; `danger-full-access`
 * runs it as that Bot's shell would, unconfined, and only at `full`). The caller spawns it in
 * `cwd`. Rejects with `ConfineUnavailable` where it cannot be confined.
 */
export interface Confine {
  argvFor(argv: readonly string[], at: { mode: ConfineMode; root: string; cwd: string }): Promise<string[]>
  /** Why nothing can run confined at `mode` here (no sandbox, no namespaces), or `null`. */
  unavailable(mode: ConfineMode): string | null
}

/**
 * SIGKILL `pid` and every process below it (read from `/proc/<pid>/task/<tid>/children`), children
 * first seen first: a process stays in its parent's group, so a crash of the whole group still
 * takes it, and a time limit still ends what it started. Best effort.
 */
export function killTree(pid: number): void {
  const all: number[] = []
  const walk = (p: number, depth: number) => {
    if (depth > 20 || all.includes(p)) return
    all.push(p)
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${p}/task`)
    } catch {}
    for (const t of tasks) {
      let kids = ''
      try {
        kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8')
      } catch {}
      for (const k of kids.split(' ').filter(Boolean)) walk(Number(k), depth + 1)
    }
  }
  walk(pid, 0)
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL')
    } catch {}
  }
}

/** Thrown when a process that must run confined cannot (no sandbox on this host). */
export class ConfineUnavailable extends Error {
  override name = 'ConfineUnavailable'
}

/** Where a call runs confined: the seam, the mode and the only writable root. */
export interface ConfinedAt {
  confine: Confine
  mode: ConfineMode
  root: string
}

export interface GitOptions {
  /** Working directory of the process (a repository's work tree, or the plugin's own folder). */
  cwd: string
  /** Explicit `--git-dir` (never discovered from a folder a Bot may change). */
  gitDir?: string
  /** Explicit `--work-tree` (outranks a repository's `core.worktree`). */
  workTree?: string
  input?: string | Buffer
  /** Exit codes that are answers, not failures (`merge-tree` answers 1 for a conflict). */
  okCodes?: readonly number[]
  timeoutMs?: number
  maxOutput?: number
  /** More `-c` overrides for this call. */
  config?: readonly string[]
  /** More environment (only `GIT_INDEX_FILE` and the like; the base stays fixed). */
  env?: Readonly<Record<string, string>>
  /** Run through the Bot's sandbox: every git in a folder a Bot can write runs so. */
  confined?: ConfinedAt
  /** The largest file the process may write (bytes; `prlimit --fsize`): a fetch's pack. */
  fileSizeLimit?: number
}

export interface GitResult {
  code: number
  stdout: string
  stderr: string
}

export interface GitRunnerOptions {
  /** A folder that stays empty, used as `HOME` so nothing under the person's home is read. */
  emptyHome: string
  timeoutMs?: number
  maxOutput?: number
  /** Sees every finished process (the bench sums their wall time). */
  observe?: (run: GitRun) => void
  /** The git binary (default: the first `git` on `PATH`, resolved once). */
  git?: string
}

/** Find an executable on `PATH` once (so a later `PATH` change or a planted `git` is not picked up). */
export function findGit(pathVar = process.env.PATH ?? ''): string {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue
    const file = path.join(dir, 'git')
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  throw new GitError('ESPAWN', 'git was not found on PATH; install git (Debian: apt-get install git).')
}

/** Runs git processes with the fixed environment and overrides; one instance per plugin root. */
export class GitRunner {
  readonly git: string
  readonly #env: Record<string, string>
  readonly #timeoutMs: number
  readonly #maxOutput: number
  readonly #observe: ((run: GitRun) => void) | undefined

  constructor(options: GitRunnerOptions) {
    this.git = options.git ?? findGit()
    this.#timeoutMs = options.timeoutMs ?? 120_000
    this.#maxOutput = options.maxOutput ?? 16 * 1024 * 1024
    this.#observe = options.observe
    this.#env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.emptyHome,
      XDG_CONFIG_HOME: options.emptyHome,
      LANG: 'C',
      LC_ALL: 'C',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      GIT_EDITOR: 'true',
      GIT_AUTHOR_NAME: PLUGIN_IDENTITY.name,
      GIT_AUTHOR_EMAIL: PLUGIN_IDENTITY.email,
      GIT_COMMITTER_NAME: PLUGIN_IDENTITY.name,
      GIT_COMMITTER_EMAIL: PLUGIN_IDENTITY.email,
    }
  }

  /** Run `git <overrides> [--git-dir] [--work-tree] <args>`; throws `GitError` unless the exit code is ok. */
  run(args: readonly string[], options: GitOptions): Promise<GitResult> {
    const full = [...configArgs(options.config)]
    if (options.gitDir) full.push(`--git-dir=${options.gitDir}`)
    if (options.workTree) full.push(`--work-tree=${options.workTree}`)
    full.push(...args)
    return this.#exec([this.git, ...full], args, options)
  }

  /** Run another program (`rm`, `find`) with the same environment, limits and observer — confined when `options.confined`. */
  exec(argv: readonly string[], options: GitOptions): Promise<GitResult> {
    return this.#exec(argv, argv, options, argv[0])
  }

  #exec(argv: readonly string[], args: readonly string[], options: GitOptions, program?: string): Promise<GitResult> {
    const what = program ?? `git ${args[0]}`
    const started = performance.now()
    const env = options.env ? { ...this.#env, ...options.env } : this.#env
    const command = options.fileSizeLimit === undefined ? argv : ['prlimit', `--fsize=${options.fileSizeLimit}`, '--', ...argv]
    const c = options.confined
    const start = (run: readonly string[]) => {
      let child: ChildProcess
      try {
        child = spawn(run[0]!, run.slice(1), { cwd: options.cwd, env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
      } catch (error) {
        return Promise.reject(new GitError('ESPAWN', `${what} could not be started: ${(error as Error).message}`))
      }
      return this.#watch(child, args, options, what, started, program)
    }
    if (!c) return start(command)
    return c.confine.argvFor(command, { mode: c.mode, root: c.root, cwd: options.cwd }).then(start, (error: unknown) => {
      throw error instanceof ConfineUnavailable ? error : new ConfineUnavailable(`${what} could not be confined: ${(error as Error).message}`)
    })
  }

  #watch(child: ChildProcess, args: readonly string[], options: GitOptions, what: string, started: number, program: string | undefined): Promise<GitResult> {
    const okCodes = options.okCodes ?? [0]
    const limit = options.maxOutput ?? this.#maxOutput
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs
    return new Promise((resolve, reject) => {
      const out: Buffer[] = []
      const err: Buffer[] = []
      let size = 0
      let failure: GitError | undefined
      const stop = (e: GitError) => {
        failure ??= e
        // What it started too (a fetch's upload-pack): a time limit ends the whole tree.
        if (child.pid) killTree(child.pid)
        child.kill('SIGKILL')
      }
      const timer = setTimeout(() => stop(new GitError('ETIMEDOUT', `${what} ran longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`)), timeoutMs)
      const take = (into: Buffer[]) => (chunk: Buffer) => {
        size += chunk.length
        if (size > limit) stop(new GitError('EOUTPUT', `${what} wrote more than ${limit} bytes and was stopped.`))
        else into.push(chunk)
      }
      child.stdout?.on('data', take(out))
      child.stderr?.on('data', take(err))
      child.on('error', (e) => stop(new GitError('ESPAWN', `${what} could not be started: ${e.message}`)))
      if (options.input !== undefined) {
        child.stdin?.on('error', () => {})
        child.stdin?.end(options.input)
      }
      child.on('close', (code) => {
        clearTimeout(timer)
        this.#observe?.({ args, code, ms: performance.now() - started, ...(program ? { program } : {}), ...(options.confined ? { confined: true } : {}) })
        const stdout = Buffer.concat(out).toString('utf8')
        const stderr = Buffer.concat(err).toString('utf8')
        if (failure) return reject(failure)
        if (code === null || !okCodes.includes(code)) {
          const last = stderr.trim().split('\n').pop() ?? ''
          return reject(new GitError('EGIT', `${what} failed (exit ${code})${last ? `: ${last}` : ''}`, code, stderr))
        }
        resolve({ code, stdout, stderr })
      })
    })
  }
}
