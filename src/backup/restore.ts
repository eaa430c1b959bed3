/**
 * Restoring into a DSH_HOME: the task ledger first, carried over with no decision in a folder of its
 * own (`bot.restoring/`, removed whatever happens); then every Session written anew through DSH's
 * persistence with its working directory moved, the workspace through DSH's registry, then `bot/`
 * with the ledger moved in and `state.json` last. It carries no authority: raises come back lowered
 * until the person confirms them, and no folder outside the new home is created unless named.
 * Refuses, changing nothing, a bad archive or ledger, a home with a team or a lock, a folder inside
 * the new home, existing Session ids.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import fsp from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { errorText } from '../core/errors.ts'
import { makePrivateDir, writePrivateFile } from '../core/private-file.ts'
import { readArchive } from './format.ts'
import { ledgerProblem, restoreLedger } from './ledger.ts'
import { decideBotFile, holdRaises, isWithin, lowerRestoredNetworks, manifestSchema, rebase, workspacesEntrySchema, type Manifest } from './plan.ts'
import { classifyRead } from '../store/load.ts'
import { serializeState } from '../store/save.ts'
import { folderConflict } from '../roster/work-folder.ts'
import { heldText } from '../roster/held.ts'
import { allocateId, type TeamState } from '../store/schema.ts'
import { PROJECT_FILE, parseProjectFile } from '../tasks/project.ts'
import type { SessionPersistence } from '../dsh/services.ts'
import type { WorkspaceRegistry } from '../dsh/web.ts'

/** The part of DSH's `SessionPersistence` a restore writes through. */
/** What a restore writes through DSH's Session persistence. */
export type SessionWriter = Pick<SessionPersistence, 'list' | 'create' | 'append'>

/** The part of DSH Web's workspace registry a restore uses (web profiles only). */
export type WorkspaceRegistryPort = Pick<WorkspaceRegistry, 'create' | 'archiveSession' | 'archivedSessionIds'>

export interface RestoreOptions {
  /** The archive's bytes, or a stream of them (read as it inflates). */
  archive: Uint8Array | AsyncIterable<Uint8Array>
  home: string
  /** Folders outside the new home the person named, which the restore may create (absolute). */
  createFolders?: readonly string[]
  sessions: SessionWriter
  workspaces?: WorkspaceRegistryPort
}

export interface RestoreReport {
  manifest: Manifest
  teamFolder: string
  files: number
  sessions: number
  events: number
  warnings: string[]
  /** The settings restored lowered, in words: each waits for the person's confirmation. */
  held: string[]
  /** What the restored task ledger does not carry over (questions, approvals, grants, answers, attempts), in words. */
  cancelled: string[]
}

export class RestoreError extends Error {
  override name = 'RestoreError'
}

const APPEND_BATCH = 500
/** Where a restore carries the ledger over, in the new home, before anything else is written (a restore cut short leaves it; the next one removes it). */
export const LEDGER_STAGING = 'bot.restoring'

interface ParsedSession {
  header: Record<string, unknown> & { id: string; cwd?: string }
  events: Record<string, unknown>[]
}

function parseSession(id: string, data: Uint8Array): ParsedSession {
  const lines = Buffer.from(data).toString('utf8').split('\n')
  let header: Record<string, unknown> | null
  let events: Record<string, unknown>[]
  try {
    header = JSON.parse(lines[0]!) as Record<string, unknown> | null
    events = lines
      .slice(1)
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
  } catch {
    throw new RestoreError(`Session ${id}: its log in the archive is not JSON lines`)
  }
  if (header?.type !== 'session' || header.id !== id) throw new RestoreError(`Session ${id}: the log's header does not name it`)
  if (header.cwd !== undefined && (typeof header.cwd !== 'string' || !header.cwd.startsWith('/')))
    throw new RestoreError(`Session ${id}: the header's cwd is not an absolute path`)
  events.forEach((e, i) => {
    if (!e || typeof e !== 'object' || e.seq !== i || typeof e.type !== 'string')
      throw new RestoreError(`Session ${id}: event ${i} is not a Session event in order`)
  })
  const { type: _type, ...meta } = header
  return { header: { ...meta, id }, events }
}

/** `path` with the longest part of it that exists resolved to its real path (links followed). */
function resolvedSoFar(path: string): string {
  for (let at = path, rest = ''; ; ) {
    try {
      return join(realpathSync(at), rest)
    } catch {
      if (dirname(at) === at) return path
      rest = rest ? join(basename(at), rest) : basename(at)
      at = dirname(at)
    }
  }
}

export async function restoreBackup(opts: RestoreOptions): Promise<RestoreReport> {
  const entries = await readArchive(opts.archive)
  const byPath = new Map(entries.map((e) => [e.path, e.data]))
  let manifest: Manifest
  let workspaces: ReturnType<typeof workspacesEntrySchema.parse>
  try {
    manifest = manifestSchema.parse(JSON.parse(Buffer.from(byPath.get('manifest.json')!).toString('utf8')))
    workspaces = workspacesEntrySchema.parse(
      JSON.parse(Buffer.from(byPath.get('workspaces.json') ?? Buffer.from('{"workspaces":[],"archivedSessionIds":[]}')).toString('utf8')),
    )
  } catch (error) {
    throw new RestoreError(`the archive's manifest is not valid: ${(error as Error).message.slice(0, 500)}`)
  }
  await fsp.mkdir(opts.home, { recursive: true })
  const home = await fsp.realpath(opts.home)
  const botDir = join(home, 'bot')
  if (existsSync(join(botDir, 'state.json')))
    throw new RestoreError(`${botDir} already holds a team (state.json); restore into a DSH_HOME without one, or move that bot/ folder away first`)
  if (existsSync(join(botDir, 'state.lock'))) throw new RestoreError(`${botDir} has a team lock: stop DSH on this DSH_HOME first`)

  // Everything is read and checked before anything is written.
  const sessions = manifest.sessions.map(({ id, entry }) => {
    const data = byPath.get(entry)
    if (!data || !entry.startsWith('sessions/')) throw new RestoreError(`Session ${id}: entry ${entry} is missing from the archive`)
    return parseSession(id, data)
  })
  const existing = new Set((await opts.sessions.list()).map((h) => h.id))
  const clash = sessions.find((s) => existing.has(s.header.id))
  if (clash) throw new RestoreError(`Session ${clash.header.id} already exists in ${home}; restore into a DSH_HOME without this team`)
  const warnings: string[] = []
  const moved = (path: string): string => {
    const to = rebase(path, manifest.home, home)
    if (to !== undefined) return to
    warnings.push(`${path} is outside the backed-up DSH_HOME; kept as it is`)
    return path
  }
  const teamFolder = moved(manifest.teamFolder)
  // A folder a restored Session works in may not be, hold or lie inside the new home or its team
  // folder — except the team workspace, where the plugin's own default puts it.
  const protectedFolders = [home, botDir]
  const defaultWorkspace = join(botDir, 'workspace')
  const refuseFolder = (what: string, folder: string, allowed: string) => {
    const conflict = folderConflict(resolvedSoFar(folder), protectedFolders, allowed) ?? folderConflict(folder, protectedFolders, allowed)
    if (conflict) throw new RestoreError(`${what} ${folder} cannot be restored: ${conflict}. Nothing was restored.`)
  }
  refuseFolder('the team folder', teamFolder, defaultWorkspace)
  const named = (opts.createFolders ?? []).map((f) => resolve(f))
  /** A folder the restore may create: inside the new home, or one the person named. */
  const mayCreate = (folder: string) => isWithin(folder, home) || named.some((n) => isWithin(folder, n))
  const notCreated = new Set<string>()
  const ensureFolder = async (folder: string) => {
    if (existsSync(folder)) return true
    if (mayCreate(folder)) {
      await fsp.mkdir(folder, { recursive: true })
      return true
    }
    notCreated.add(folder)
    return false
  }
  const ledger = ledgerProblem(entries)
  if (ledger) throw new RestoreError(`the archive cannot be restored: ${ledger}. Nothing was restored.`)
  for (const { header } of sessions) if (header.cwd !== undefined) refuseFolder(`Session ${header.id}'s folder`, moved(header.cwd), teamFolder)
  for (const record of workspaces.workspaces) refuseFolder('the workspace', moved(record.path), teamFolder)

  // Team state: migrated and checked here, then whatever raises authority is held for the person.
  const stateEntry = entries.find((e) => e.path === 'bot/state.json')
  let held: string[] = []
  let state: TeamState | undefined
  let nameOf: (botId: string) => string | undefined = () => undefined
  if (stateEntry) {
    const read = classifyRead({ kind: 'bytes', bytes: stateEntry.data })
    if (read.kind !== 'ok') throw new RestoreError(`the archive's bot/state.json cannot be used: ${'problem' in read ? read.problem : 'it is empty'}`)
    state = read.state
    const at = new Date().toISOString()
    const added = holdRaises(read.state, at)
    for (const name of lowerRestoredNetworks(read.state))
      warnings.push(`Bot ${name}'s network was "full"; it is "internet" now (a restore carries no authority): set it again on the team page if you mean it`)
    // The restored project is held too: no project task uses it until the person names it again (the checks of PUT /project).
    const projectEntry = entries.find((e) => e.path === `bot/${PROJECT_FILE}`)
    if (projectEntry) {
      const named = parseProjectFile(Buffer.from(projectEntry.data).toString('utf8'))
      if (named.ok) {
        const item = {
          id: allocateId(read.state, 'held'),
          why: 'restore' as const,
          at,
          kind: 'project' as const,
          path: named.project.path,
          branch: named.project.branch,
        }
        read.state.held = [...(read.state.held ?? []).filter((h) => h.kind !== 'project'), item]
        added.push(item)
      } else {
        warnings.push(`bot/${PROJECT_FILE} not restored: ${named.problem}`)
        entries.splice(entries.indexOf(projectEntry), 1)
      }
    }
    nameOf = (id) => read.state.bots[id]?.name
    held = added.map((item) => heldText(item, nameOf))
  }
  // A project with no team state to hold it in is not restored (it would be in force unchecked).
  const orphanProject = !stateEntry && entries.findIndex((e) => e.path === `bot/${PROJECT_FILE}`)
  if (typeof orphanProject === 'number' && orphanProject >= 0) {
    entries.splice(orphanProject, 1)
    warnings.push(`bot/${PROJECT_FILE} not restored: the archive holds no bot/state.json to hold it in; name the project again`)
  }
  const botEntries = entries
    .filter((e) => e.path.startsWith('bot/'))
    .filter((e) => {
      const decision = decideBotFile(e.path.slice(4), { secrets: true })
      if (!decision.include) warnings.push(`${e.path} not restored: ${decision.reason}`)
      return decision.include
    })
  const ledgerEntries = botEntries.filter((e) => e.path.startsWith('bot/tasks/'))

  // 0. The task ledger (and the questions an older team file still lists for it), carried over
  // with no decision where nothing reads it: a ledger that cannot be is refused, nothing written.
  const staging = join(home, LEDGER_STAGING)
  await fsp.rm(staging, { recursive: true, force: true })
  try {
    let cancelled: string[] = []
    const questions = state?.ledgerImport ?? []
    if (ledgerEntries.length || questions.length) {
      try {
        await makePrivateDir(staging)
        await makePrivateDir(join(staging, 'tasks'))
        for (const entry of ledgerEntries) await writeUnder(staging, entry.path.slice(4), entry.data)
        const bots = state?.bots ?? {}
        cancelled = await restoreLedger(join(staging, 'tasks'), { nameOf, questions, sessionOf: (id) => bots[id]?.sessionParts.at(-1)?.sessionId })
      } catch (error) {
        throw new RestoreError(`the archive's task ledger could not be carried over: ${errorText(error)}. Nothing was restored.`)
      }
      if (state) delete state.ledgerImport
    }
    if (state && stateEntry) stateEntry.data = Buffer.from(serializeState(state))

    // 1. Sessions, through DSH's persistence, in their new working folder.
    let events = 0
    for (const { header, events: log } of sessions) {
      const meta = header.cwd === undefined ? header : { ...header, cwd: moved(header.cwd) }
      if (meta.cwd) await ensureFolder(meta.cwd as string)
      await opts.sessions.create(meta)
      for (let i = 0; i < log.length; i += APPEND_BATCH) await opts.sessions.append(header.id, log.slice(i, i + APPEND_BATCH))
      events += log.length
    }

    // 2. The workspace storage DSH Web lists them by.
    if (opts.workspaces) {
      for (const record of workspaces.workspaces) {
        const path = moved(record.path)
        if (!(await ensureFolder(path))) continue
        const workspace = await opts.workspaces.create(path, record.title)
        // The registry may already have made it for the new Sessions' folder, titled by its name.
        if (workspace.title !== record.title) await workspace.setTitle?.(record.title)
        // attachSession puts a Session first: attach the last one first to keep the listed order.
        for (const id of [...record.sessionIds].reverse()) if (!workspace.sessionIds.includes(id)) await workspace.attachSession(id)
      }
      for (const id of workspaces.archivedSessionIds) if (!opts.workspaces.archivedSessionIds?.includes(id)) await opts.workspaces.archiveSession(id)
    } else if (workspaces.workspaces.length) {
      warnings.push(
        'this profile has no DSH workspace registry (not a web profile); the team\'s Sessions show as "Ungrouped" until the plugin creates its workspace',
      )
    }

    // 3. bot/, the carried-over ledger moved in, state.json last.
    await makePrivateDir(botDir)
    for (const entry of botEntries)
      if (entry.path !== 'bot/state.json' && !ledgerEntries.includes(entry)) await writeUnder(botDir, entry.path.slice(4), entry.data)
    if (existsSync(join(staging, 'tasks'))) {
      await makePrivateDir(join(botDir, 'tasks'))
      for (const name of readdirSync(join(staging, 'tasks'))) await fsp.rename(join(staging, 'tasks', name), join(botDir, 'tasks', name))
    }
    if (stateEntry) await writeUnder(botDir, 'state.json', stateEntry.data)
    await ensureFolder(teamFolder)
    for (const folder of notCreated)
      warnings.push(`${folder} is outside ${home} and was not created (name it with --folder to create it); its Sessions open once it exists`)
    return { manifest, teamFolder, files: botEntries.length, sessions: sessions.length, events, warnings, held, cancelled }
  } finally {
    await fsp.rm(staging, { recursive: true, force: true })
  }
}

/** Write `data` at `rel` (`/`-separated) below `root`, making its folders (each 0700) on the way. */
async function writeUnder(root: string, rel: string, data: Uint8Array): Promise<void> {
  const file = join(root, rel)
  await makeDirs(root, dirname(file))
  await writePrivateFile(file, data)
}

/** Create `dir` and its parents below `root`, each 0700. */
async function makeDirs(root: string, dir: string): Promise<void> {
  if (dir === root || existsSync(dir)) return
  await makeDirs(root, dirname(dir))
  await makePrivateDir(dir)
}
