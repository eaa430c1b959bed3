/**
 * The post log, `bot/rooms/<groupId>.jsonl`: each post as data (id, seq, author, text, time, hop),
 * each member turn's outcome and cursor, each finished round; append-only, private, written only by
 * the team writer, validated and clipped, rewritten with its newest records past its size.
 * Deliberately derived data, never in `state.json`; no policy, no DSH.
 */
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { appendPrivateFileSync, writePrivateFileSync } from '../core/private-file.ts'

export const POST_LOG_DIR = 'rooms'
/** A post's text in the log (member replies longer than this are clipped with a marker). */
export const POST_TEXT_MAX = 20_000
/** A file over this size is rotated down to at most half of it (and at most `KEEP_RECORDS` records). */
export const MAX_BYTES = 4 * 1024 * 1024
export const KEEP_RECORDS = 4_000

const id = z.string().min(1).max(200)
const at = z.string().max(40)

export const PostRecord = z.object({
  t: z.literal('post'),
  seq: z.int().min(0),
  id,
  /** The id of the post that started the round this post belongs to (its own id for a round's first post). */
  round: id,
  /** 'user' or a Bot id. */
  from: id,
  name: z.string().max(200),
  text: z.string().max(POST_TEXT_MAX + 100),
  at,
  hop: z.int().min(0).max(1000).optional(),
})
export const TurnRecord = z.object({
  t: z.literal('turn'),
  round: id,
  botId: id,
  outcome: z.enum(['posted', 'pass', 'missed', 'failed', 'stopped']),
  /** The member's cursor after this turn: the `seq` of the first post it has not seen. */
  upto: z.int().min(0),
  /** The post this turn produced (`posted` only). */
  post: z.int().min(0).optional(),
  at,
})
export const EndRecord = z.object({ t: z.literal('end'), round: id, at })

export const LogRecord = z.discriminatedUnion('t', [PostRecord, TurnRecord, EndRecord])
export type PostRecord = z.infer<typeof PostRecord>
export type TurnRecord = z.infer<typeof TurnRecord>
export type LogRecord = z.infer<typeof LogRecord>

const GROUP_ID = /^[A-Za-z0-9_-]{1,100}$/

/** Clip a post's text to what the log keeps. */
export function clipPost(text: string): string {
  return text.length > POST_TEXT_MAX ? `${text.slice(0, POST_TEXT_MAX)} … (cut)` : text
}

export class PostLog {
  private readonly folder: string
  private readonly maxBytes: number
  private folderReady = false

  constructor(botDir: string, opts: { maxBytes?: number } = {}) {
    this.folder = path.join(botDir, POST_LOG_DIR)
    this.maxBytes = opts.maxBytes ?? MAX_BYTES
  }

  file(groupId: string): string {
    if (!GROUP_ID.test(groupId)) throw new Error(`invalid group id for a post log: ${JSON.stringify(groupId.slice(0, 40))}`)
    return path.join(this.folder, `${groupId}.jsonl`)
  }

  exists(groupId: string): boolean {
    return fs.existsSync(this.file(groupId))
  }

  /** Every valid record, oldest first (a torn or malformed line is skipped). Missing file: []. */
  read(groupId: string): LogRecord[] {
    let text: string
    try {
      text = fs.readFileSync(this.file(groupId), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const out: LogRecord[] = []
    for (const line of text.split('\n')) {
      if (!line.trim()) continue
      let raw: unknown
      try {
        raw = JSON.parse(line)
      } catch {
        continue
      }
      const parsed = LogRecord.safeParse(raw)
      if (parsed.success) out.push(parsed.data)
    }
    return out
  }

  /** Append records (validated; one write call, so a crash tears at most the last line). */
  append(groupId: string, records: readonly LogRecord[]): void {
    if (records.length === 0) return
    const lines = records.map((r) => `${JSON.stringify(LogRecord.parse(r))}\n`).join('')
    const file = this.file(groupId)
    this.ensureFolder()
    if (appendPrivateFileSync(file, lines) > this.maxBytes) this.rotate(groupId)
  }

  /** Rewrite the file with its newest records, within half the size limit (an atomic private write). */
  private rotate(groupId: string): void {
    const lines = this.read(groupId)
      .slice(-KEEP_RECORDS)
      .map((r) => `${JSON.stringify(r)}\n`)
    let bytes = 0
    let from = lines.length
    while (from > 0 && bytes + Buffer.byteLength(lines[from - 1]!) <= this.maxBytes / 2) bytes += Buffer.byteLength(lines[--from]!)
    writePrivateFileSync(this.file(groupId), lines.slice(from).join(''))
  }

  private ensureFolder(): void {
    if (this.folderReady) return
    fs.mkdirSync(this.folder, { recursive: true, mode: 0o700 })
    if (fs.lstatSync(this.folder).isSymbolicLink()) throw new Error(`${this.folder} is a symbolic link; the post log is not written through it`)
    fs.chmodSync(this.folder, 0o700)
    // A rotation cut by a crash leaves its temp file (`<group>.jsonl.<digits>`, or `….<pid>.tmp`
    // from before private writes); the old file is whole, so the temp goes.
    for (const name of fs.readdirSync(this.folder)) if (/\.jsonl\.\d+(\.tmp)?$/.test(name)) fs.rmSync(path.join(this.folder, name), { force: true })
    this.folderReady = true
  }
}
