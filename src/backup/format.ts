/**
 * The backup archive format: one gzip stream (node:zlib, no dependency) holding a magic line and
 * a sequence of entries. Each entry is one JSON line `{"path":"<relative path>","size":<bytes>}`,
 * then exactly `size` bytes, then `\n`. The first entry is always `manifest.json`.
 *
 *   gzip( "dsh-bot-team-backup 1\n" ( <json line>\n <bytes> \n )* )
 *
 * Paths are relative, `/`-separated, without `.`/`..`/empty segments, backslashes or NUL, and
 * start with one of the known top-level names (`manifest.json`, `workspaces.json`, `bot/`,
 * `sessions/`): a hostile archive cannot name a file outside the restore target.
 *
 * Deliberately narrow: pure encode/decode of bytes in memory, with every size capped
 * (`ARCHIVE_LIMITS`); no file I/O, no meaning of the entries (that is `plan.ts`), no streaming
 * (a team archive is expected in the tens of MiB; the caps refuse anything near a Buffer's limit).
 */
import { gunzipSync, gzipSync } from 'node:zlib'

export const ARCHIVE_MAGIC = 'dsh-bot-team-backup 1\n'

export const ARCHIVE_LIMITS = {
  /** One entry (a file under bot/, one Session's log). */
  entryBytes: 256 * 1024 * 1024,
  /** The whole archive, uncompressed. */
  totalBytes: 2 * 1024 * 1024 * 1024 - 1,
  entries: 200_000,
  pathChars: 1024,
} as const

export const TOP_LEVEL = ['manifest.json', 'workspaces.json', 'bot/', 'sessions/'] as const

export interface ArchiveEntry {
  path: string
  data: Uint8Array
}

export class ArchiveError extends Error {
  override name = 'ArchiveError'
}

/** Why `path` may not appear in an archive, or undefined when it may. */
export function badEntryPath(path: string): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'an empty path'
  if (path.length > ARCHIVE_LIMITS.pathChars) return `a path longer than ${ARCHIVE_LIMITS.pathChars} characters`
  if (/[\\\0]/.test(path)) return 'a path with a backslash or NUL'
  if (path.startsWith('/')) return 'an absolute path'
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'a path with an empty, "." or ".." segment'
  if (!TOP_LEVEL.some((top) => (top.endsWith('/') ? path.startsWith(top) : path === top)))
    return 'a path outside manifest.json, workspaces.json, bot/ and sessions/'
  return undefined
}

export function encodeArchive(entries: readonly ArchiveEntry[]): Buffer {
  if (entries[0]?.path !== 'manifest.json') throw new ArchiveError('the first entry must be manifest.json')
  if (entries.length > ARCHIVE_LIMITS.entries) throw new ArchiveError(`more than ${ARCHIVE_LIMITS.entries} entries`)
  const parts: Buffer[] = [Buffer.from(ARCHIVE_MAGIC)]
  let total = 0
  const seen = new Set<string>()
  for (const entry of entries) {
    const bad = badEntryPath(entry.path)
    if (bad) throw new ArchiveError(`cannot archive ${JSON.stringify(entry.path)}: ${bad}`)
    if (seen.has(entry.path)) throw new ArchiveError(`duplicate entry ${entry.path}`)
    seen.add(entry.path)
    if (entry.data.byteLength > ARCHIVE_LIMITS.entryBytes) throw new ArchiveError(`${entry.path} is larger than ${ARCHIVE_LIMITS.entryBytes} bytes`)
    total += entry.data.byteLength
    if (total > ARCHIVE_LIMITS.totalBytes) throw new ArchiveError(`the archive would be larger than ${ARCHIVE_LIMITS.totalBytes} bytes`)
    parts.push(
      Buffer.from(`${JSON.stringify({ path: entry.path, size: entry.data.byteLength })}\n`),
      Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength),
      Buffer.from('\n'),
    )
  }
  return gzipSync(Buffer.concat(parts))
}

/** Decode and check an archive; throws `ArchiveError` naming the first problem. */
export function decodeArchive(archive: Uint8Array): ArchiveEntry[] {
  let raw: Buffer
  try {
    raw = gunzipSync(archive, { maxOutputLength: ARCHIVE_LIMITS.totalBytes + 64 * 1024 * 1024 })
  } catch (error) {
    throw new ArchiveError(`not a Bot Team backup (gzip: ${(error as Error).message})`)
  }
  if (raw.subarray(0, ARCHIVE_MAGIC.length).toString('latin1') !== ARCHIVE_MAGIC)
    throw new ArchiveError('not a Bot Team backup (no "dsh-bot-team-backup 1" header)')
  const entries: ArchiveEntry[] = []
  const seen = new Set<string>()
  let at = ARCHIVE_MAGIC.length
  while (at < raw.length) {
    if (entries.length >= ARCHIVE_LIMITS.entries) throw new ArchiveError(`more than ${ARCHIVE_LIMITS.entries} entries`)
    const eol = raw.indexOf(0x0a, at)
    if (eol < 0 || eol - at > ARCHIVE_LIMITS.pathChars * 6 + 64) throw new ArchiveError(`entry ${entries.length + 1}: unterminated entry line`)
    let head: { path?: unknown; size?: unknown }
    try {
      head = JSON.parse(raw.subarray(at, eol).toString('utf8'))
    } catch {
      throw new ArchiveError(`entry ${entries.length + 1}: the entry line is not JSON`)
    }
    const { path, size } = head ?? {}
    const bad = badEntryPath(path as string)
    if (bad) throw new ArchiveError(`entry ${entries.length + 1}: ${bad}`)
    if (!Number.isSafeInteger(size) || (size as number) < 0 || (size as number) > ARCHIVE_LIMITS.entryBytes)
      throw new ArchiveError(`${path as string}: bad size`)
    const start = eol + 1
    const end = start + (size as number)
    if (end + 1 > raw.length || raw[end] !== 0x0a) throw new ArchiveError(`${path as string}: the archive is truncated`)
    if (seen.has(path as string)) throw new ArchiveError(`duplicate entry ${path as string}`)
    seen.add(path as string)
    entries.push({ path: path as string, data: raw.subarray(start, end) })
    at = end + 1
  }
  if (entries[0]?.path !== 'manifest.json') throw new ArchiveError('the archive does not start with manifest.json')
  return entries
}
