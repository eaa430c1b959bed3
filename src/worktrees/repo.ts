/**
 * Small git questions every part asks, each one plumbing command through the runner: a ref's
 * commit, ancestry, a repository's config list, a fetch whose serving side runs with the same
 * overrides, and the quarantine fetch — the one way the plugin reads a folder a Bot writes.
 * Deliberately no policy and no layout.
 */
import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { type GitRunner, uploadPackCommand } from './git.ts'

/** A repository the plugin runs git in: its git dir and, when it has one, its work tree. */
export interface Repo {
  gitDir: string
  workTree?: string
}

/** Options for one call in `repo`. */
export function at(repo: Repo) {
  return { cwd: repo.workTree ?? repo.gitDir, gitDir: repo.gitDir, workTree: repo.workTree }
}

/** The commits several refs name, in one process; throws when any is missing. */
export async function revParseAll(git: GitRunner, repo: Repo, refs: readonly string[]): Promise<string[]> {
  const r = await git.run(['rev-parse', ...refs.map((ref) => `${ref}^{commit}`)], at(repo))
  return r.stdout.trim().split('\n')
}

/** Whether `commit` is `of` or one of its ancestors. */
export async function isAncestor(git: GitRunner, repo: Repo, commit: string, of: string): Promise<boolean> {
  const r = await git.run(['merge-base', '--is-ancestor', commit, of], { ...at(repo), okCodes: [0, 1] })
  return r.code === 0
}

/** `git config --list -z` of the repository (every scope the runner lets git read: local, worktree, includes). */
export async function configList(git: GitRunner, repo: Repo): Promise<string> {
  return (await git.run(['config', '--list', '-z'], { ...at(repo), maxOutput: 1024 * 1024 })).stdout
}

/** Fetch `refspec` from `from` (a git dir) into `into`, the serving `upload-pack` under the same overrides. */
export async function fetchFrom(git: GitRunner, into: Repo, from: string, refspecs: readonly string[]): Promise<void> {
  await git.run(
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', `--upload-pack=${uploadPackCommand(git.git)}`, from, ...refspecs],
    at(into),
  )
}

/** Bytes of every file below `dir` (a folder the plugin made and only it writes; links not followed). */
async function sizeOf(dir: string): Promise<number> {
  let total = 0
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) total += await sizeOf(full)
    else if (e.isFile()) total += (await lstat(full)).size
  }
  return total
}

/** A quarantine repository holding what was fetched from a folder a Bot can write; `done` deletes it. */
export interface Quarantine {
  repo: Repo
  /** The fetched refs (`refs/q/…`) and their commits. */
  refs: Map<string, string>
  done(): Promise<void>
}

/**
 * Fetch `refspecs` (each `<src>:refs/q/<name>`) from `from` — a task clone's git dir, which a Bot
 * writes — into a new quarantine repository in `scratch` that borrows `into`'s objects: the
 * serving `upload-pack` runs no program (the runner's overrides; `uploadpack.packObjectsHook` is
 * honoured only from protected config) and writes nothing; the receiving side checks every object
 * (`transfer.fsckObjects`) and may write one pack of at most `maxBytes` (`prlimit`, then the
 * quarantine's size). Nothing is written anywhere else; the caller fetches what it keeps from the
 * quarantine into `into`, then calls `done`.
 */
export async function quarantineFetch(
  git: GitRunner,
  into: Repo,
  scratch: string,
  from: string,
  refspecs: readonly string[],
  maxBytes: number,
): Promise<Quarantine> {
  const dir = path.join(scratch, `q-${randomBytes(6).toString('hex')}.git`)
  const done = () => rm(dir, { recursive: true, force: true })
  try {
    // A bare repository made by hand (what `git init --bare --template=` writes, less a process).
    for (const sub of ['objects/info', 'objects/pack', 'refs/heads']) await mkdir(path.join(dir, sub), { recursive: true, mode: 0o700 })
    await writeFile(path.join(dir, 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(path.join(dir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n')
    await writeFile(path.join(dir, 'objects', 'info', 'alternates'), `${path.join(path.resolve(into.gitDir), 'objects')}\n`)
    const q: Repo = { gitDir: dir }
    await git.run(
      ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', `--upload-pack=${uploadPackCommand(git.git)}`, from, ...refspecs],
      { ...at(q), config: ['transfer.fsckObjects=true', 'fetch.fsckObjects=true', 'fetch.unpackLimit=1', 'transfer.unpackLimit=1'], fileSizeLimit: maxBytes },
    )
    const size = await sizeOf(path.join(dir, 'objects'))
    if (size > maxBytes) throw new Error(`the fetch brought ${size} bytes, more than the ${maxBytes} a task may add; nothing was taken.`)
    // The quarantine is the plugin's own: its loose refs are read as files (a fetch writes them loose).
    const refs = new Map<string, string>()
    const walk = async (rel: string): Promise<void> => {
      for (const e of await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
        const name = `${rel}/${e.name}`
        if (e.isDirectory()) await walk(name)
        else if (e.isFile()) {
          const sha = (await readFile(path.join(dir, name), 'utf8')).trim()
          if (/^[0-9a-f]{40,64}$/.test(sha)) refs.set(name, sha)
        }
      }
    }
    await walk('refs/q')
    return { repo: q, refs, done }
  } catch (error) {
    await done()
    throw error
  }
}
