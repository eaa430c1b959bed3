/**
 * The worktree rules as pure functions: the task branch's name, where the plugin's folders may
 * lie, the overrides that neutralize the filters and drivers a config names, reading
 * `merge-tree`'s answer, which branch may be deleted, and the limits and input schemas.
 * Deliberately no I/O: callers pass real paths, git's output and the facts they looked up.
 */
import path from 'node:path'
import { z } from 'zod'
import type { SandboxMode } from '../core/sources.ts'

export const WORKTREE_LIMITS = Object.freeze({
  /** Characters of the slug in `team/<task-id>-<slug>`. */
  slug: 40,
  /** Conflicting paths reported per merge (the count is always exact). */
  conflictPaths: 50,
  /** A check command's length. */
  checkCommand: 4_000,
  checkTimeoutMs: 10 * 60_000,
  checkMaxTimeoutMs: 60 * 60_000,
  /** Bytes of a check's output kept (the tail); the rest is counted. */
  checkOutputBytes: 256 * 1024,
  /** Lines of a check's output kept as evidence. */
  checkLines: 40,
  /** Clones one root holds. */
  clones: 200,
  /** Attempts at an `update-ref` whose old value moved under it. */
  casRetries: 3,
  /** The pack one fetch from a task clone may bring (its quarantine is refused above it). */
  fetchBytes: 512 * 1024 * 1024,
})

/** The integration branch inside the plugin's integration clone. */
export const INTEGRATION_REF = 'refs/heads/team/integration'

/** A task id as the ledger writes it. */
export const TASK_ID = /^task-[1-9][0-9]{0,9}$/

/** A branch name the person may name: git's rules plus a length and no leading dash (pure). */
export const branchName = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (b) =>
      !b.startsWith('-') &&
      !b.startsWith('/') &&
      !b.endsWith('/') &&
      !b.endsWith('.') &&
      !b.endsWith('.lock') &&
      !b.includes('..') &&
      !b.includes('//') &&
      !b.includes('@{') &&
      b !== '@' &&
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what git refuses
      !/[\x00-\x20\x7f~^:?*[\\]/.test(b) &&
      !b.split('/').some((part) => part.startsWith('.')),
    'is not a valid branch name',
  )

export const projectInput = z.object({ path: z.string().min(1).max(4096), branch: branchName }).strict()

export const checkCommand = z
  .string()
  .min(1)
  .max(WORKTREE_LIMITS.checkCommand)
  .refine((c) => !c.includes('\0'), 'holds a NUL character')

/** The slug of a title: lowercase ASCII words joined by `-`, at most 40 characters, `task` when none (pure). */
export function slug(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
  let out = ''
  for (const w of words) {
    const next = out ? `${out}-${w}` : w
    if (next.length > WORKTREE_LIMITS.slug) break
    out = next
  }
  return out || (words[0]?.slice(0, WORKTREE_LIMITS.slug) ?? '') || 'task'
}

/** The task's branch: `team/<task-id>-<slug>` (pure). */
export function taskBranch(taskId: string, title: string): string {
  if (!TASK_ID.test(taskId)) throw new Error(`"${taskId}" is not a task id`)
  return `team/${taskId}-${slug(title)}`
}

/** Whether `inner` is `outer` or lies inside it (both real, absolute paths; pure). */
export function isInside(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

export interface Forbidden {
  /** What the folder is, for the sentence: "the DSH home". */
  label: string
  /** Its real path. */
  path: string
}

/**
 * Why `folder` (real, absolute) may not hold the plugin's clones or be the project: it lies inside
 * one of `forbidden` or holds one of them. `null` when it may (pure).
 */
export function overlapProblem(what: string, folder: string, forbidden: readonly Forbidden[]): string | null {
  for (const f of forbidden) {
    if (isInside(folder, f.path)) return `${what} ${folder} lies inside ${f.label} (${f.path}).`
    if (isInside(f.path, folder)) return `${what} ${folder} holds ${f.label} (${f.path}).`
  }
  return null
}

/** Folders every Bot with workspace-write may write: never a home for the plugin's clones. */
export const SHARED_TEMP_DIRS: readonly string[] = ['/tmp', '/var/tmp', '/dev/shm']

const DRIVER_KEY = /^(filter|merge|diff)\.(.+)\.(clean|smudge|process|required|driver|textconv|command)$/i

/**
 * The `-c` overrides that neutralize every filter, merge driver and diff program a repository's
 * config names (from `git config --list -z`, NUL-separated `key\nvalue` entries): an empty command
 * is no command, and a filter is never `required` (pure).
 */
export function neutralizers(configList: string): string[] {
  const out = new Set<string>()
  for (const entry of configList.split('\0')) {
    const key = entry.split('\n', 1)[0] ?? ''
    const m = DRIVER_KEY.exec(key)
    if (!m) continue
    const [, section, name] = m
    const s = section!.toLowerCase()
    if (s === 'filter') for (const k of ['clean', 'smudge', 'process']) out.add(`filter.${name}.${k}=`)
    if (s === 'filter') out.add(`filter.${name}.required=false`)
    if (s === 'diff') for (const k of ['textconv', 'command']) out.add(`diff.${name}.${k}=`)
    // A merge driver cannot be emptied (git fails the merge); the plugin only merges in its bare
    // integration clone, where no tree's attributes name one.
  }
  return [...out]
}

export type MergeTreeAnswer = { clean: true; tree: string } | { clean: false; tree: string; paths: string[]; messages: string[] }

/** Read `git merge-tree --write-tree -z --name-only` (exit 0 clean, 1 conflicted; pure). */
export function parseMergeTree(stdout: string, exitCode: number): MergeTreeAnswer {
  const parts = stdout.split('\0')
  const tree = parts[0]?.trim() ?? ''
  if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new Error(`merge-tree answered no tree: ${JSON.stringify(stdout.slice(0, 200))}`)
  if (exitCode === 0) return { clean: true, tree }
  const paths: string[] = []
  let i = 1
  for (; i < parts.length && parts[i] !== ''; i++) paths.push(parts[i]!)
  const messages: string[] = []
  // Informational messages: `<count>\0<path>...\0<type>\0<message>\0` repeated.
  for (i++; i < parts.length; ) {
    const n = Number(parts[i])
    if (!Number.isInteger(n) || n < 1) break
    const message = parts[i + n + 2]
    if (message !== undefined) messages.push(message.trim())
    i += n + 3
  }
  return { clean: false, tree, paths: [...new Set(paths)], messages }
}

/** The clone registry on disk (`clones.json`). */
export const cloneEntry = z.object({
  taskId: z.string().regex(TASK_ID),
  /** Only a name `taskBranch` makes: the registry never names another ref to fetch into. */
  branch: z.string().regex(/^team\/task-[1-9][0-9]{0,9}-[a-z0-9-]{1,40}$/),
  /** The integration head the clone started from. */
  base: z.string().regex(/^[0-9a-f]{40,64}$/),
  state: z.enum(['creating', 'ready', 'removing']),
  at: z.string().min(1).max(40),
})
export const registrySchema = z.object({ version: z.literal(1), clones: z.array(cloneEntry).max(WORKTREE_LIMITS.clones) })
export type CloneEntry = z.infer<typeof cloneEntry>
export type Registry = z.infer<typeof registrySchema>

/**
 * Why a chain at `mode` may not plan project tasks (`null`: it may). A task edits and commits in
 * its clone, so it needs workspace-write; the chain's lowest mode is the one that counts (pure).
 */
export function projectTaskModeProblem(mode: SandboxMode | undefined): string | null {
  if (mode === 'read-only')
    return 'Project tasks edit and commit in their own clone, so they need workspace-write; this chain runs read-only. Nothing was planned.'
  return null
}

/** A clone's state as `git status --porcelain=v2 --branch -z` says it. */
export interface CloneStatus {
  /** The branch `HEAD` is on (`null`: detached). */
  branch: string | null
  /** `HEAD`'s commit (`null`: no commit yet). */
  head: string | null
  /** Anything uncommitted: tracked changes, conflicts, untracked files (not ignored). */
  dirty: boolean
}

/** Read `git status --porcelain=v2 --branch -z` (pure). */
export function parseStatus(out: string): CloneStatus {
  let branch: string | null = null
  let head: string | null = null
  let dirty = false
  const records = out.split('\0')
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    if (r.startsWith('# branch.head ')) {
      const name = r.slice('# branch.head '.length)
      branch = name === '(detached)' ? null : name
    } else if (r.startsWith('# branch.oid ')) {
      const oid = r.slice('# branch.oid '.length)
      head = /^[0-9a-f]{40,64}$/.test(oid) ? oid : null
    } else if (r.startsWith('1 ') || r.startsWith('u ') || r.startsWith('? ')) dirty = true
    else if (r.startsWith('2 ')) {
      dirty = true
      i++ // a rename's original path follows
    }
  }
  return { branch, head, dirty }
}

/** Folder names under `clones/`: a task's clone, one being made, one being removed. */
export const CLONE_DIR = { partial: '.new-', trash: '.old-' } as const

export type CloneFolder = { kind: 'task'; taskId: string } | { kind: 'partial' } | { kind: 'trash' } | { kind: 'other' }

/** What a folder name under `clones/` is (pure). */
export function classifyCloneFolder(name: string): CloneFolder {
  if (TASK_ID.test(name)) return { kind: 'task', taskId: name }
  if (name.startsWith(CLONE_DIR.partial)) return { kind: 'partial' }
  if (name.startsWith(CLONE_DIR.trash)) return { kind: 'trash' }
  return { kind: 'other' }
}
