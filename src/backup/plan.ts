/**
 * Backup policy (pure): which files under `bot/` go in (not the lock, pairing, derived indexes,
 * unfinished saves; secrets only when asked; the task ledger kept), which Sessions are the team's, how a path under the old
 * home maps into the new one, and the manifest. Deliberately no I/O.
 */
import type { SessionHeader } from '../dsh/services.ts'
import { z } from 'zod'
import { allocateId, type HeldItem, type TeamState } from '../store/schema.ts'

export type BotFileDecision = { include: true } | { include: false; reason: string }

const SKIP = (reason: string): BotFileDecision => ({ include: false, reason })

/** Whether `rel` (a `/`-separated path relative to `bot/`) belongs in a backup. */
export function decideBotFile(rel: string, opts: { secrets: boolean }): BotFileDecision {
  const [first = '', ...rest] = rel.split('/')
  const name = rest.at(-1) ?? first
  if (first === 'workspace') return { include: true } // the Bots' own files, whatever their names
  if (first === 'state.lock') return SKIP('the team lock belongs to the running DSH')
  if (rel === 'pairing.json') return SKIP('paired browsers are per machine; pair again after a restore')
  if (rel === 'secrets.json' && !opts.secrets) return SKIP('secrets are left out unless --secrets is given')
  if (/\.sqlite(-wal|-shm|-journal)?$/.test(name)) return SKIP('a derived index; rebuilt from the Session logs')
  if (/^state\.json\.broken-/.test(rel) || /^tasks\/(snapshot|journal)\.broken-/.test(rel)) return SKIP('a damaged copy kept for repair')
  if (/\.\d+$/.test(name) || /\.tmp$/.test(name)) return SKIP('an unfinished save')
  return { include: true }
}

const SESSION_KEYS = new Set(['sessionId', 'roomSessionId'])

/** Every Session id team state points at (Bots' parts, rooms, member Sessions, deliveries…), whatever the schema version. */
export function stateSessionIds(state: unknown): Set<string> {
  const ids = new Set<string>()
  const walk = (value: unknown, depth: number): void => {
    if (depth > 12 || value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1)
      return
    }
    for (const [key, v] of Object.entries(value)) {
      if (SESSION_KEYS.has(key) && typeof v === 'string') {
        ids.add(v)
      } else if (key === 'memberSessions' && v && typeof v === 'object') {
        for (const s of Object.values(v)) if (typeof s === 'string') ids.add(s)
      } else {
        walk(v, depth + 1)
      }
    }
  }
  walk(state, 0)
  return ids
}

/**
 * Every Session id the task ledger's files name (`tasks/snapshot.jsonl`, `tasks/journal.jsonl`:
 * each attempt's Session, where it moved, the task's current one) — task Sessions are not in team
 * state. A line that is not JSON is skipped (the ledger reports it itself).
 */
export function ledgerSessionIds(text: string): Set<string> {
  const ids = new Set<string>()
  const walk = (value: unknown, depth: number): void => {
    if (depth > 12 || value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const v of value) walk(v, depth + 1)
      return
    }
    for (const [key, v] of Object.entries(value)) {
      if (key === 'sessionId' && typeof v === 'string') ids.add(v)
      else if (key === 'moved' && Array.isArray(v)) for (const s of v) typeof s === 'string' && ids.add(s)
      else walk(v, depth + 1)
    }
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      walk(JSON.parse(line), 0)
    } catch {
      // a torn or damaged line names nothing
    }
  }
  return ids
}

/** Whether `path` is `folder` or inside it (plain string comparison of absolute paths). */
export function isWithin(path: string, folder: string): boolean {
  const base = folder.replace(/\/+$/, '')
  return path === base || path.startsWith(`${base}/`)
}

/**
 * The team's Sessions among `headers`: those team state points at, those working in the team's
 * folder, and every Session descended from one of them (subagent children), in `headers` order.
 */
export function pickTeamSessions<H extends SessionHeader>(headers: readonly H[], stateIds: ReadonlySet<string>, teamFolder: string): H[] {
  const chosen = new Set(headers.filter((h) => stateIds.has(h.id) || (h.cwd !== undefined && isWithin(h.cwd, teamFolder))).map((h) => h.id))
  for (let grew = true; grew; ) {
    grew = false
    for (const h of headers)
      if (!chosen.has(h.id) && h.parentSession && chosen.has(h.parentSession)) {
        chosen.add(h.id)
        grew = true
      }
  }
  return headers.filter((h) => chosen.has(h.id))
}

/** `path` moved from under `fromHome` to under `toHome`; undefined when it is not under `fromHome`. */
export function rebase(path: string, fromHome: string, toHome: string): string | undefined {
  if (!isWithin(path, fromHome)) return undefined
  return toHome.replace(/\/+$/, '') + path.slice(fromHome.replace(/\/+$/, '').length)
}

const id = z.string().min(1).max(256)
const absolute = z.string().min(1).max(4096).startsWith('/')

export const workspaceRecordSchema = z.object({ path: absolute, title: z.string().max(1000), sessionIds: z.array(id).max(100_000) })
export const workspacesEntrySchema = z.object({
  workspaces: z.array(workspaceRecordSchema).max(1000),
  archivedSessionIds: z.array(id).max(100_000),
})
export type WorkspacesEntry = z.infer<typeof workspacesEntrySchema>

export const manifestSchema = z.object({
  format: z.literal(1),
  plugin: z.object({ name: z.string().max(100), version: z.string().max(100) }),
  createdAt: z.string().max(40),
  /** DSH_HOME the backup was taken from, and the team's folder (the Bots' cwd) there. */
  home: absolute,
  teamFolder: absolute,
  secrets: z.boolean(),
  /** `revision` of `bot/state.json` the bot/ files were copied at (null: no team state). */
  stateRevision: z.number().int().nullable(),
  /** Session id → its archive entry (`sessions/<n>.jsonl`: header line, then one event per line). */
  sessions: z.array(z.object({ id, entry: z.string().max(100) })).max(100_000),
  skipped: z.array(z.object({ path: z.string().max(4096), reason: z.string().max(200) })).max(10_000),
})
export type Manifest = z.infer<typeof manifestSchema>

/** Pick the team's workspace records and archived ids out of DSH's workspace storage (tolerant of a missing or unknown file). */
export function teamWorkspaces(storage: unknown, teamIds: ReadonlySet<string>): WorkspacesEntry {
  const s = storage as
    | { global?: { archivedSessionIds?: unknown }; tables?: { workspaces?: Record<string, { path?: unknown; title?: unknown; sessionIds?: unknown }> } }
    | undefined
  const workspaces: WorkspacesEntry['workspaces'] = []
  for (const record of Object.values(s?.tables?.workspaces ?? {})) {
    if (typeof record?.path !== 'string' || !Array.isArray(record.sessionIds)) continue
    const sessionIds = record.sessionIds.filter((x): x is string => typeof x === 'string' && teamIds.has(x))
    if (sessionIds.length) workspaces.push({ path: record.path, title: typeof record.title === 'string' ? record.title : 'Bot team', sessionIds })
  }
  const archived = s?.global?.archivedSessionIds
  const archivedSessionIds = Array.isArray(archived) ? archived.filter((x): x is string => typeof x === 'string' && teamIds.has(x)) : []
  return { workspaces, archivedSessionIds }
}

/**
 * A restored Bot at network level `full` (the machine's whole network, DSH's own `/api` included:
 * the person's setting on the home it came from, or the v8 step's for a danger-full-access Bot)
 * comes back at `internet`, the default: a restore carries no authority. The person sets `full`
 * again on the team page (confirming a held danger-full-access preset sets it too); the v8 step's
 * notice no longer names such a Bot. Returns the Bots' names.
 */
export function lowerRestoredNetworks(state: TeamState): string[] {
  const lowered: string[] = []
  for (const bot of Object.values(state.bots)) {
    if (bot.deleted || bot.network !== 'full') continue
    bot.network = 'internet'
    lowered.push(bot.name)
    if (state.networkUpgrade) state.networkUpgrade.bots = state.networkUpgrade.bots.filter((b) => b.botId !== bot.id)
  }
  if (state.networkUpgrade && !state.networkUpgrade.bots.length) delete state.networkUpgrade
  return lowered
}

/**
 * A restored team carries no authority: every setting that raises one is lowered (or switched
 * off) on `state` and listed in `held` until the person confirms it in a paired browser — a preset
 * other than read-only and workspace-write (workspace-write meanwhile: the target's presets are
 * not known here), the delegated-work flag (off), a working folder (the team workspace), a
 * schedule (not due). Returns the items it added.
 */
export function holdRaises(state: TeamState, at: string): HeldItem[] {
  const added: HeldItem[] = []
  const hold = (item: HeldItem) => added.push(item)
  const next = () => ({ id: allocateId(state, 'held'), why: 'restore' as const, at })
  for (const bot of Object.values(state.bots)) {
    if (bot.deleted) continue
    if (bot.permissionPreset !== 'read-only' && bot.permissionPreset !== 'workspace-write') {
      hold({ ...next(), kind: 'preset', botId: bot.id, preset: bot.permissionPreset })
      bot.permissionPreset = 'workspace-write'
    }
    if (bot.acceptsDelegatedWork) {
      hold({ ...next(), kind: 'delegated-work', botId: bot.id })
      bot.acceptsDelegatedWork = false
    }
    if (bot.workFolder) {
      hold({ ...next(), kind: 'work-folder', botId: bot.id, folder: bot.workFolder })
      delete bot.workFolder
      delete bot.workFolderReal
    }
  }
  for (const task of state.schedules ?? []) {
    if (!task.nextDueAt) continue
    hold({ ...next(), kind: 'schedule', scheduleId: task.id, nextDueAt: task.nextDueAt })
    delete task.nextDueAt
  }
  if (added.length) state.held = [...(state.held ?? []), ...added]
  return added
}
