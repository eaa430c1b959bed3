/**
 * The post log — a plugin-owned, append-only JSONL file per group (`<bot dir>/rooms/<groupId>.jsonl`)
 * holding each room's posts as data: post id, `seq`, author id and name, text, time, hop; plus one
 * record per member turn (its outcome and how far the member had read) and one per finished round.
 *
 * Why a log beside the room and not one DSH message per post: the room's visible text is one
 * assistant message per turn, which DSH stamps with its own source, so it cannot carry post data;
 * entering each reply as its own user-role message would make the room show every reply as a user
 * bubble and add one `agent/inbox/spliced` record per post. The log is derived data: the room
 * Session stays the record the person reads, and a group written before the log existed is seeded
 * once from it (`policy.postsFromRoomLog`). It is never in `state.json`.
 *
 * Files are `0600` in a `0700` folder whatever the umask, written through `core/private-file.ts`
 * (appends never through a symbolic link). Only the team writer appends (the caller checks).
 * Bounded: records are validated and clipped on the way in, a file over `MAX_BYTES` is
 * rewritten with its newest records, at most half of `MAX_BYTES` and `KEEP_RECORDS` (an atomic
 * private write, so a crash leaves the old or the new file, never a mix; rotation is rare by design). A torn or malformed line (a crash mid-append) is skipped on read.
 *
 * Deliberately narrow: no policy, no DSH; it does not decide what a post is — the transcript does.
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
