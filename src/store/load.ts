/**
 * What is at `bot/state.json` (pure): `empty`, `ok` (maybe migrated), `corrupt` (set aside byte for
 * byte, then start empty) or `read-only` (unreadable, or a newer version). Deliberately never touches
 * the disk, decides about locks, or repairs by guessing.
 */
import { type TeamState, STATE_VERSION, stateSchema } from './schema.ts'
import { type Migration, MIGRATIONS, migrate } from './migrations.ts'
import { isPrivateTemp } from '../core/private-file.ts'
import { formatIssues } from '../core/zod-issues.ts'

export const STATE_FILE = 'state.json'
export const LOCK_DIR = 'state.lock'

/** The result of trying to read `state.json`. `error.code` is the Node errno code. */
export type ReadResult = { kind: 'missing' } | { kind: 'error'; code: string; message: string } | { kind: 'bytes'; bytes: Uint8Array }

export type ReadOnlyReason =
  /** The file exists but cannot be read (permissions, a directory, I/O error). */
  | 'unreadable'
  /** The file was written by a newer schema version. */
  | 'newer-version'
  /** The file is corrupt and copying it aside failed, so starting over would lose it. */
  | 'backup-failed'
  /** Locking failed and the bot folder is not writable either. */
  | 'not-writable'
  /** `requireLock` is set and the filesystem cannot lock. */
  | 'lock-unavailable'
  /** Ownership of the lock was lost after it was acquired. */
  | 'lock-lost'
  /** `bot/` or `bot/state.json` is a symbolic link, which the store never writes through. */
  | 'symlink'

export type Classified =
  | { kind: 'empty' }
  | { kind: 'ok'; state: TeamState; migratedFrom?: number; steps: string[] }
  | { kind: 'corrupt'; problem: string }
  | { kind: 'read-only'; reason: 'unreadable' | 'newer-version'; problem: string; version?: number }

export function classifyRead(read: ReadResult, chain: readonly Migration[] = MIGRATIONS, target = STATE_VERSION): Classified {
  if (read.kind === 'missing') return { kind: 'empty' }
  if (read.kind === 'error') {
    return { kind: 'read-only', reason: 'unreadable', problem: `state.json cannot be read (${read.code}: ${read.message})` }
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes)
  } catch {
    return { kind: 'corrupt', problem: 'state.json is not valid UTF-8 text' }
  }
  if (text.trim() === '') return { kind: 'corrupt', problem: 'state.json is empty' }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    return { kind: 'corrupt', problem: `state.json is not valid JSON (${(error as Error).message})` }
  }
  const migrated = migrate(raw, chain, target)
  if (!migrated.ok) {
    if (migrated.kind === 'newer') {
      return {
        kind: 'read-only',
        reason: 'newer-version',
        version: migrated.version,
        problem: `state.json was written by a newer Bot Team (schema version ${migrated.version}; this build understands ${target})`,
      }
    }
    return { kind: 'corrupt', problem: `state.json has the wrong shape: ${migrated.problem}` }
  }
  const parsed = stateSchema.safeParse(migrated.doc)
  if (!parsed.success) {
    return { kind: 'corrupt', problem: `state.json fails the schema: ${formatIssues(parsed.error, { root: '(root)', max: 5 })}` }
  }
  return migrated.from === target
    ? { kind: 'ok', state: parsed.data, steps: [] }
    : { kind: 'ok', state: parsed.data, migratedFrom: migrated.from, steps: migrated.steps }
}

/** `state.json.broken-<ISO time>` with `:` replaced so the name is valid on every filesystem. */
export function brokenCopyName(now: Date): string {
  return `${STATE_FILE}.broken-${now.toISOString().replace(/:/g, '-')}`
}

/** Temp files of `writePrivateFile` (`state.json.<digits>`) left behind by a killed writer. */
export function isTempLeftover(name: string): boolean {
  return isPrivateTemp(name, STATE_FILE)
}
