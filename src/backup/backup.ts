/**
 * Taking a backup: `bot/` (as `plan.ts` decides), the team's Sessions through DSH's persistence
 * (`inspect`), the workspace records, into one archive between two equal reads of the state's
 * revision. A file is read only where it was listed: `lstat`, `O_NOFOLLOW`, the same device and
 * inode, one name, the same place (`/proc/self/fd`), else skipped. Deliberately never writes into
 * the home it reads, takes the team lock or opens SQLite.
 */
import { constants } from 'node:fs'
import fsp from 'node:fs/promises'
import { join } from 'node:path'
import { PLUGIN_NAME, PLUGIN_VERSION } from '../version.ts'
import { ARCHIVE_LIMITS, encodeArchive, type ArchiveEntry } from './format.ts'
import { decideBotFile, ledgerSessionIds, pickTeamSessions, stateSessionIds, teamWorkspaces, type Manifest } from './plan.ts'
import type { SessionPersistence } from '../dsh/services.ts'

/** The part of DSH's `SessionPersistence` a backup reads. */
/** What a backup reads of DSH's Session persistence. */
export type SessionReader = Pick<SessionPersistence, 'list' | 'inspect'>

export interface BackupOptions {
  home: string
  /** The Bots' working folder (the plugin's `workspace` setting); default `<home>/bot/workspace`. */
  teamFolder?: string
  secrets?: boolean
  sessions: SessionReader
  now?: () => Date
}

export interface BackupResult {
  archive: Buffer
  manifest: Manifest
  /** How many copies were taken before two reads of the state's revision agreed. */
  attempts: number
}

export const MAX_ATTEMPTS = 5

async function stateRevision(botDir: string): Promise<number | null> {
  try {
    const revision = JSON.parse(await fsp.readFile(join(botDir, 'state.json'), 'utf8'))?.revision
    return Number.isSafeInteger(revision) ? revision : null
  } catch {
    return null
  }
}

export type ListedRead = { kind: 'data'; data: Buffer } | { kind: 'gone' } | { kind: 'skip'; reason: string }

/**
 * Read the file listed at `path` (an absolute path with no link in it, as listed) only if the
 * file opened now is that one: opened without following a link, the same device and inode as
 * `listed`, a regular file with one name, and at `path` still (no link above it).
 */
export async function readListedFile(path: string, listed: { dev: number; ino: number }): Promise<ListedRead> {
  let handle: fsp.FileHandle
  try {
    handle = await fsp.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { kind: 'gone' }
    if (code === 'ELOOP') return { kind: 'skip', reason: 'replaced by a symbolic link after it was listed (not followed)' }
    throw error
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile() || stat.dev !== listed.dev || stat.ino !== listed.ino)
      return { kind: 'skip', reason: 'replaced after it was listed (a link or another file put in its place?)' }
    if (stat.nlink > 1) return { kind: 'skip', reason: 'a file with more than one name (a hard link: its other name may be anywhere)' }
    const where = await fsp.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
    if (where !== undefined && where !== path) return { kind: 'skip', reason: `reached through a link above it (it is ${where})` }
    if (stat.size > ARCHIVE_LIMITS.entryBytes) return { kind: 'skip', reason: `larger than ${ARCHIVE_LIMITS.entryBytes} bytes` }
    return { kind: 'data', data: await handle.readFile() }
  } finally {
    await handle.close()
  }
}

async function botFiles(botDir: string, secrets: boolean, skipped: Manifest['skipped']): Promise<ArchiveEntry[]> {
  const out: ArchiveEntry[] = []
  const walk = async (rel: string): Promise<void> => {
    let items: import('node:fs').Dirent[]
    try {
      items = await fsp.readdir(join(botDir, rel), { withFileTypes: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (const item of items.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = rel ? `${rel}/${item.name}` : item.name
      const decision = decideBotFile(path, { secrets })
      if (!decision.include) {
        skipped.push({ path: `bot/${path}`, reason: decision.reason })
        continue
      }
      if (item.isDirectory()) {
        await walk(path)
        continue
      }
      if (!item.isFile()) {
        skipped.push({ path: `bot/${path}`, reason: item.isSymbolicLink() ? 'a symbolic link (not followed)' : 'not a regular file' })
        continue
      }
      const listed = await fsp.lstat(join(botDir, path)).catch(() => undefined)
      if (!listed) continue // removed while we looked
      if (!listed.isFile()) {
        skipped.push({ path: `bot/${path}`, reason: 'not a regular file' })
        continue
      }
      const read = await readListedFile(join(botDir, path), listed)
      if (read.kind === 'gone') continue
      if (read.kind === 'skip') skipped.push({ path: `bot/${path}`, reason: read.reason })
      else out.push({ path: `bot/${path}`, data: read.data })
    }
  }
  await walk('')
  return out
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fsp.readFile(file, 'utf8'))
  } catch {
    return undefined
  }
}

/** One copy of everything; `takeBackup` retries it until it is from one state revision. */
async function copyOnce(opts: BackupOptions, botDir: string, teamFolder: string) {
  const skipped: Manifest['skipped'] = []
  const files = await botFiles(botDir, opts.secrets ?? false, skipped)
  const stateFile = files.find((f) => f.path === 'bot/state.json')
  const state = stateFile ? JSON.parse(Buffer.from(stateFile.data).toString('utf8')) : undefined
  // Task Sessions are named by the task ledger, not team state (a Bot's own folder may hold them).
  const ids = stateSessionIds(state)
  for (const f of files.filter((x) => x.path === 'bot/tasks/snapshot.jsonl' || x.path === 'bot/tasks/journal.jsonl'))
    for (const id of ledgerSessionIds(Buffer.from(f.data).toString('utf8'))) ids.add(id)
  const team = pickTeamSessions(await opts.sessions.list(), ids, teamFolder)
  const sessions: ArchiveEntry[] = []
  const index: Manifest['sessions'] = []
  for (const [n, header] of team.entries()) {
    const { meta, events } = await opts.sessions.inspect(header.id)
    const lines = [JSON.stringify({ type: 'session', ...meta }), ...events.map((e) => JSON.stringify(e))]
    const entry = `sessions/${n}.jsonl`
    sessions.push({ path: entry, data: Buffer.from(lines.join('\n'), 'utf8') })
    index.push({ id: header.id, entry })
  }
  return { files, sessions, index, skipped, revision: typeof state?.revision === 'number' ? (state.revision as number) : null }
}

export async function takeBackup(opts: BackupOptions): Promise<BackupResult> {
  // The real path: DSH records a Session's cwd through realpath, so rebasing compares real paths.
  const home = await fsp.realpath(opts.home).catch(() => opts.home)
  // bot/ by its real path: every file's real path is compared with the path it was listed at.
  const botDir = await fsp.realpath(join(home, 'bot')).catch(() => join(home, 'bot'))
  const teamFolder = opts.teamFolder ? await fsp.realpath(opts.teamFolder).catch(() => opts.teamFolder!) : join(botDir, 'workspace')
  let copy!: Awaited<ReturnType<typeof copyOnce>>
  let attempts = 0
  for (; attempts < MAX_ATTEMPTS; ) {
    attempts++
    const before = await stateRevision(botDir)
    copy = await copyOnce(opts, botDir, teamFolder)
    if (before === copy.revision && (await stateRevision(botDir)) === before) break
    if (attempts === MAX_ATTEMPTS) throw new Error(`the team changed during each of ${MAX_ATTEMPTS} copies; try again when it is quieter`)
  }
  const workspaces = teamWorkspaces(await readJson(join(home, 'storages', 'workspace.json')), new Set(copy.index.map((s) => s.id)))
  const manifest: Manifest = {
    format: 1,
    plugin: { name: PLUGIN_NAME, version: PLUGIN_VERSION },
    createdAt: (opts.now?.() ?? new Date()).toISOString(),
    home,
    teamFolder,
    secrets: opts.secrets ?? false,
    stateRevision: copy.revision,
    sessions: copy.index,
    skipped: copy.skipped.slice(0, 10_000),
  }
  const archive = encodeArchive([
    { path: 'manifest.json', data: Buffer.from(JSON.stringify(manifest, null, 2)) },
    { path: 'workspaces.json', data: Buffer.from(JSON.stringify(workspaces)) },
    ...copy.files,
    ...copy.sessions,
  ])
  return { archive, manifest, attempts }
}
