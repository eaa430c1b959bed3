/**
 * The backup archive: one gzip stream of a magic line and entries, each a JSON line `{"path","size"}`
 * then `size` bytes; paths confined to four top-level names, every size capped. `readArchive`
 * inflates as a stream and checks each limit as the bytes arrive (a crafted archive is refused at
 * its first bad entry). Deliberately no file I/O, no meaning of the entries.
 */
import { Readable } from 'node:stream'
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib'

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

/**
 * The entry parser: fed the inflated bytes chunk by chunk, it checks the header, every entry line,
 * size, path and count, and the running total as it goes; throws `ArchiveError` at the first problem.
 */
class EntryReader {
  readonly entries: ArchiveEntry[] = []
  private readonly chunks: Buffer[] = []
  private buffered = 0
  private total = 0
  private head: { path: string; size: number } | undefined
  private magic = false
  private readonly seen = new Set<string>()

  push(chunk: Buffer): void {
    this.total += chunk.length
    // Framing adds one JSON line and a newline per entry; the cap leaves room for that.
    if (this.total > ARCHIVE_LIMITS.totalBytes + 64 * 1024 * 1024)
      throw new ArchiveError(`the archive is larger than ${ARCHIVE_LIMITS.totalBytes} bytes uncompressed`)
    this.chunks.push(chunk)
    this.buffered += chunk.length
    this.drain()
  }

  end(): ArchiveEntry[] {
    if (!this.magic) throw new ArchiveError('not a Bot Team backup (no "dsh-bot-team-backup 1" header)')
    if (this.head) throw new ArchiveError(`${this.head.path}: the archive is truncated`)
    if (this.buffered > 0) throw new ArchiveError(`entry ${this.entries.length + 1}: unterminated entry line`)
    if (this.entries[0]?.path !== 'manifest.json') throw new ArchiveError('the archive does not start with manifest.json')
    return this.entries
  }

  /** The first `n` buffered bytes, removed from the buffer (one copy). */
  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered)
    this.chunks.length = 0
    if (all.length > n) this.chunks.push(all.subarray(n))
    this.buffered -= n
    return all.subarray(0, n)
  }

  /** Where the next newline is among the buffered bytes, or -1. */
  private newline(): number {
    let offset = 0
    for (const chunk of this.chunks) {
      const at = chunk.indexOf(0x0a)
      if (at >= 0) return offset + at
      offset += chunk.length
    }
    return -1
  }

  private drain(): void {
    for (;;) {
      if (!this.magic) {
        if (this.buffered < ARCHIVE_MAGIC.length) return
        if (this.take(ARCHIVE_MAGIC.length).toString('latin1') !== ARCHIVE_MAGIC)
          throw new ArchiveError('not a Bot Team backup (no "dsh-bot-team-backup 1" header)')
        this.magic = true
      } else if (!this.head) {
        if (this.buffered === 0) return
        const limit = ARCHIVE_LIMITS.pathChars * 6 + 64
        const eol = this.newline()
        if (eol < 0 && this.buffered <= limit) return
        if (eol < 0 || eol > limit) throw new ArchiveError(`entry ${this.entries.length + 1}: unterminated entry line`)
        if (this.entries.length >= ARCHIVE_LIMITS.entries) throw new ArchiveError(`more than ${ARCHIVE_LIMITS.entries} entries`)
        let head: { path?: unknown; size?: unknown }
        try {
          head = JSON.parse(this.take(eol + 1).toString('utf8', 0, eol))
        } catch {
          throw new ArchiveError(`entry ${this.entries.length + 1}: the entry line is not JSON`)
        }
        const { path, size } = head ?? {}
        const bad = badEntryPath(path as string)
        if (bad) throw new ArchiveError(`entry ${this.entries.length + 1}: ${bad}`)
        if (!Number.isSafeInteger(size) || (size as number) < 0 || (size as number) > ARCHIVE_LIMITS.entryBytes)
          throw new ArchiveError(`${path as string}: bad size`)
        if (this.seen.has(path as string)) throw new ArchiveError(`duplicate entry ${path as string}`)
        this.seen.add(path as string)
        this.head = { path: path as string, size: size as number }
      } else {
        if (this.buffered < this.head.size + 1) return
        const data = this.take(this.head.size + 1)
        if (data[this.head.size] !== 0x0a) throw new ArchiveError(`${this.head.path}: the archive is truncated`)
        this.entries.push({ path: this.head.path, data: data.subarray(0, this.head.size) })
        this.head = undefined
      }
    }
  }
}

/** Decode and check an archive already in memory; throws `ArchiveError` naming the first problem. */
export function decodeArchive(archive: Uint8Array): ArchiveEntry[] {
  let raw: Buffer
  try {
    raw = gunzipSync(archive, { maxOutputLength: ARCHIVE_LIMITS.totalBytes + 64 * 1024 * 1024 })
  } catch (error) {
    throw new ArchiveError(`not a Bot Team backup (gzip: ${(error as Error).message})`)
  }
  const reader = new EntryReader()
  reader.push(raw)
  return reader.end()
}

/**
 * Read an archive that is not trusted (a restore): inflated as a stream, each limit checked as the
 * bytes arrive; the inflating stops at the first problem (`ArchiveError`).
 */
export async function readArchive(source: Uint8Array | AsyncIterable<Uint8Array>): Promise<ArchiveEntry[]> {
  const input = source instanceof Uint8Array ? Readable.from([source]) : Readable.from(source)
  const gunzip = createGunzip()
  input.on('error', (error) => gunzip.destroy(error))
  input.pipe(gunzip)
  const reader = new EntryReader()
  try {
    for await (const chunk of gunzip) reader.push(chunk as Buffer)
  } catch (error) {
    if (error instanceof ArchiveError) throw error
    throw new ArchiveError(`not a Bot Team backup (gzip: ${(error as Error).message})`)
  } finally {
    input.destroy()
    gunzip.destroy()
  }
  return reader.end()
}
