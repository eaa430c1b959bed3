/**
 * The archive index on disk (`bot/archive.sqlite`): one partition per Bot and per room, a row per
 * indexed Session with its catch-up mark, the lines' text in deflated blocks (a line's id is
 * `session × 2^24 + seq`), and one contentless FTS5 table per partition. Synchronous; a schema of
 * another version is dropped and rebuilt. Deliberately does not decide what a line is, read logs or
 * rank; only the writer writes.
 */
import { statSync } from 'node:fs'
import { touchPrivateFile } from '../core/private-file.ts'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { ArchiveLine, Who } from '../core/log-lines.ts'
import { WHO } from '../core/log-lines.ts'
import { indexBody } from './text.ts'
import type { SqliteDatabase, SqliteDriver, SqliteStatement } from '../core/sqlite.ts'

export const SCHEMA_VERSION = 3
/** A block holds consecutive lines of one Session up to this many bytes of JSON (a long line alone). */
export const BLOCK_BYTES = 4_096
const BLOCK_CACHE = 512
/** Seqs per Session in the rowid space (16M events; small rowids keep both b-trees small). */
export const SEQ_SPACE = 2 ** 24

export interface SessionMark {
  id: number
  sid: string
  partition: number
  part: number
  /** Next seq to read. */
  through: number
  /** `time:type` of the event at `through - 1` ('' when through is 0). */
  last: string
}

export interface StoredLine {
  id: number
  sess: number
  seq: number
  time: number
  who: Who
  text: string
}

export const rowidOf = (sess: number, seq: number) => sess * SEQ_SPACE + seq
const sessOf = (rowid: number) => Math.floor(rowid / SEQ_SPACE)

const FTS = "USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2')"

export class ArchiveIndex {
  readonly db: SqliteDatabase
  readonly path: string
  readonly writable: boolean
  /** The schema was created by this open (a new file, or another version dropped): it is empty. */
  created = false
  /** The file's inode when opened: a deleted or replaced file is noticed. */
  private readonly inode: number | undefined
  private readonly stmts = new Map<string, SqliteStatement>()
  /** Marks by Session id (the writer's own: it is the only one changing them). */
  private readonly marks = new Map<string, SessionMark>()
  /** Decoded blocks by id, least recently used first. */
  private readonly cache = new Map<number, Block>()

  private constructor(db: SqliteDatabase, path: string, writable: boolean) {
    this.db = db
    this.path = path
    this.writable = writable
    this.inode = path === ':memory:' ? undefined : statSync(path, { throwIfNoEntry: false })?.ino
  }

  /**
   * Open the index, creating an empty one when the file does not exist. A schema of another
   * version is dropped and rebuilt by the writer only; anyone else gets undefined.
   */
  static open(driver: SqliteDriver, path: string, writer: boolean): ArchiveIndex | undefined {
    // Private like every team file: SQLite creates the database (and later its -wal and -shm
    // files, with the database's own mode) under the umask, so the writer makes it 0600 first.
    if (writer && path !== ':memory:') touchPrivateFile(path)
    const db = driver.open(path)
    try {
      db.exec('PRAGMA busy_timeout = 2000')
      const version = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version)
      if (version !== SCHEMA_VERSION) {
        if (version !== 0 && !writer) {
          db.close()
          return undefined
        }
        if (version !== 0) dropAll(db)
        db.exec('PRAGMA journal_mode = WAL')
        db.exec(`BEGIN IMMEDIATE;
          CREATE TABLE IF NOT EXISTS partitions(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
          CREATE TABLE IF NOT EXISTS sessions(id INTEGER PRIMARY KEY, sid TEXT NOT NULL UNIQUE, partition INTEGER NOT NULL, part INTEGER NOT NULL,
            through INTEGER NOT NULL DEFAULT 0, last TEXT NOT NULL DEFAULT '', lines INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0);
          CREATE TABLE IF NOT EXISTS blocks(id INTEGER PRIMARY KEY, last INTEGER NOT NULL, raw INTEGER NOT NULL, data BLOB NOT NULL);
          PRAGMA user_version = ${SCHEMA_VERSION};
          COMMIT`)
      }
      const created = version !== SCHEMA_VERSION
      db.exec('PRAGMA synchronous = NORMAL')
      // Reads dominate: map the file (no read syscalls) and keep one Bot's hot pages cached.
      db.exec('PRAGMA mmap_size = 268435456')
      db.exec('PRAGMA cache_size = -16384')
      const index = new ArchiveIndex(db, path, writer)
      index.created = created
      return index
    } catch (error) {
      db.close()
      throw error
    }
  }

  close(): void {
    this.db.close()
  }

  /** False when the file was deleted or replaced since it was opened. */
  stillOnDisk(): boolean {
    if (this.inode === undefined) return true
    return statSync(this.path, { throwIfNoEntry: false })?.ino === this.inode
  }

  private stmt(sql: string): SqliteStatement {
    let s = this.stmts.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.stmts.set(sql, s)
    }
    return s
  }

  // ── partitions and sessions ─────────────────────────────────────────────────────────────────

  partitionId(key: string): number | undefined {
    const row = this.stmt('SELECT id FROM partitions WHERE key = ?').get(key) as { id: number } | undefined
    return row?.id
  }

  private partition(key: string): number {
    const found = this.partitionId(key)
    if (found !== undefined) return found
    this.stmt('INSERT INTO partitions(key) VALUES (?)').run(key)
    const id = this.partitionId(key)!
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS fts_${id} ${FTS}`)
    return id
  }

  /** A Session's mark (a copy). The writer keeps them in memory; a reader asks the file. */
  mark(sid: string): SessionMark | undefined {
    const known = this.marks.get(sid)
    if (known) return { ...known }
    const row = this.stmt('SELECT id, sid, partition, part, through, last FROM sessions WHERE sid = ?').get(sid) as SessionMark | undefined
    if (!row) return undefined
    const mark = { ...row, id: Number(row.id), partition: Number(row.partition), part: Number(row.part), through: Number(row.through) }
    if (this.writable) this.marks.set(sid, mark)
    return { ...mark }
  }

  private moved(mark: SessionMark): void {
    if (this.writable) this.marks.set(mark.sid, { ...mark })
  }

  /** The mark of a Session, registering it (writer) in its partition. */
  register(sid: string, partitionKey: string, part: number): SessionMark {
    const found = this.mark(sid)
    if (found) return found
    this.tx(() => {
      const partition = this.partition(partitionKey)
      this.stmt('INSERT INTO sessions(sid, partition, part) VALUES (?, ?, ?)').run(sid, partition, part)
    })
    return this.mark(sid)!
  }

  /** Sessions of a partition, in registration order. */
  sessionsOf(partition: number): SessionMark[] {
    return (this.stmt('SELECT id, sid, partition, part, through, last FROM sessions WHERE partition = ? ORDER BY id').all(partition) as SessionMark[]).map(
      (r) => ({ ...r }),
    )
  }

  sessionById(id: number): SessionMark | undefined {
    const row = this.stmt('SELECT id, sid, partition, part, through, last FROM sessions WHERE id = ?').get(id) as SessionMark | undefined
    return row ? { ...row } : undefined
  }

  // ── writes (writer only) ────────────────────────────────────────────────────────────────────

  private tx(run: () => void): void {
    this.db.exec('BEGIN IMMEDIATE')
    try {
      run()
      this.db.exec('COMMIT')
    } catch (error) {
      this.db.exec('ROLLBACK')
      throw error
    }
  }

  /** Add lines read from the log and move the mark, in one transaction. */
  append(mark: SessionMark, lines: readonly ArchiveLine[], through: number, last: string): void {
    const insertFts = this.stmt(`INSERT INTO fts_${mark.partition}(rowid, body) VALUES (?, ?)`)
    let bytes = 0
    this.tx(() => {
      // The Session's newest block takes lines until it is full; then new blocks.
      const lo = rowidOf(mark.id, 0)
      const hi = rowidOf(mark.id + 1, 0) - 1
      const newest = this.stmt('SELECT id, last, raw, data FROM blocks WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 1').get(lo, hi) as BlockRow | undefined
      let open: Block | undefined = newest && Number(newest.raw) < BLOCK_BYTES ? this.decode(newest) : undefined
      for (const line of lines) {
        const id = rowidOf(mark.id, line.seq)
        const entry: Entry = [line.seq, Math.floor(line.time / 1000), WHO.indexOf(line.who), line.text]
        const textBytes = Buffer.byteLength(line.text)
        const size = textBytes + 24
        if (open && open.raw + size > BLOCK_BYTES) {
          this.writeBlock(open)
          open = undefined
        }
        open ??= { id, last: id, raw: 0, entries: [] }
        open.entries.push(entry)
        open.last = id
        open.raw += size
        insertFts.run(id, indexBody(line.text))
        bytes += textBytes
      }
      if (open && lines.length) this.writeBlock(open)
      this.stmt('UPDATE sessions SET through = ?, last = ?, lines = lines + ?, bytes = bytes + ? WHERE id = ?').run(through, last, lines.length, bytes, mark.id)
    })
    mark.through = through
    mark.last = last
    this.moved(mark)
  }

  private writeBlock(block: Block): void {
    const data = deflateRawSync(JSON.stringify(block.entries), { level: 3 })
    this.stmt('INSERT OR REPLACE INTO blocks(id, last, raw, data) VALUES (?, ?, ?, ?)').run(block.id, block.last, block.raw, data)
    this.remember(block)
  }

  private decode(row: BlockRow): Block {
    const id = Number(row.id)
    const cached = this.cache.get(id)
    if (cached && cached.last === Number(row.last)) return this.remember(cached)
    const entries = JSON.parse(inflateRawSync(row.data as Uint8Array).toString('utf8')) as Entry[]
    return this.remember({ id, last: Number(row.last), raw: Number(row.raw), entries })
  }

  private remember(block: Block): Block {
    this.cache.delete(block.id)
    this.cache.set(block.id, block)
    if (this.cache.size > BLOCK_CACHE) this.cache.delete(this.cache.keys().next().value!)
    return block
  }

  /** Forget a Session's lines and mark (its log was rewritten): it is read again from seq 0. */
  reset(mark: SessionMark): void {
    const lo = rowidOf(mark.id, 0)
    const hi = rowidOf(mark.id + 1, 0) - 1
    this.tx(() => {
      // Contentless: FTS5 forgets a row when given the exact text it indexed (the blocks have it).
      const forget = this.stmt(`INSERT INTO fts_${mark.partition}(fts_${mark.partition}, rowid, body) VALUES ('delete', ?, ?)`)
      for (const row of this.stmt('SELECT id, last, raw, data FROM blocks WHERE id BETWEEN ? AND ?').all(lo, hi) as BlockRow[]) {
        for (const [seq, , , text] of this.decode(row).entries) forget.run(rowidOf(mark.id, seq), indexBody(text))
      }
      this.stmt('DELETE FROM blocks WHERE id BETWEEN ? AND ?').run(lo, hi)
      this.stmt("UPDATE sessions SET through = 0, last = '', lines = 0, bytes = 0 WHERE id = ?").run(mark.id)
    })
    this.cache.clear()
    mark.through = 0
    mark.last = ''
    this.moved(mark)
  }

  // ── reads ───────────────────────────────────────────────────────────────────────────────────

  /**
   * Ids of the newest `limit` lines of a partition matching an FTS5 expression, newest first.
   * FTS5's own bm25() is not asked: it computes IDF by walking every match of every phrase on each
   * query (5–20 ms for a common word in a 50,000-line chat); the reader scores the bounded
   * candidates itself (rank.ts) from `lengths` and `corpus`.
   */
  matches(partition: number, expression: string, limit: number): number[] {
    const rows = this.stmt(`SELECT rowid AS id FROM fts_${partition} WHERE fts_${partition} MATCH ? ORDER BY rowid DESC LIMIT ?`).all(expression, limit) as {
      id: number
    }[]
    return rows.map((r) => Number(r.id))
  }

  /**
   * Token counts of lines, from FTS5's own docsize table: one range read when the ids are dense
   * (a common word's newest matches), else one b-tree lookup each.
   */
  lengths(partition: number, ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>()
    if (ids.length === 0) return out
    let lo = ids[0]!
    let hi = lo
    for (const id of ids) {
      if (id < lo) lo = id
      if (id > hi) hi = id
    }
    if (ids.length >= 16 && hi - lo <= 4 * ids.length) {
      const wanted = new Set(ids)
      for (const row of this.stmt(`SELECT id, sz FROM fts_${partition}_docsize WHERE id BETWEEN ? AND ?`).all(lo, hi) as { id: number; sz: Uint8Array }[]) {
        const id = Number(row.id)
        if (wanted.has(id)) out.set(id, varint(row.sz, 0)[0])
      }
      return out
    }
    const get = this.stmt(`SELECT sz FROM fts_${partition}_docsize WHERE id = ?`)
    for (const id of ids) {
      const row = get.get(id) as { sz: Uint8Array } | undefined
      if (row) out.set(id, varint(row.sz, 0)[0])
    }
    return out
  }

  /** Rows and average tokens per row of a partition (FTS5's averages record). */
  corpus(partition: number): { rows: number; avgLength: number } {
    const row = this.stmt(`SELECT block FROM fts_${partition}_data WHERE id = 1`).get() as { block: Uint8Array } | undefined
    if (!row) return { rows: 0, avgLength: 1 }
    const [rows, next] = varint(row.block, 0)
    const [tokens] = varint(row.block, next)
    return { rows, avgLength: rows > 0 ? Math.max(1, tokens / rows) : 1 }
  }

  /** The block holding line `id`, if any. */
  private blockAt(id: number): Block | undefined {
    const row = this.stmt('SELECT id, last, raw, data FROM blocks WHERE id <= ? ORDER BY id DESC LIMIT 1').get(id) as BlockRow | undefined
    return row && Number(row.last) >= id ? this.decode(row) : undefined
  }

  line(id: number): StoredLine | undefined {
    const block = this.blockAt(id)
    const sess = sessOf(id)
    const entry = block?.entries.find((e) => rowidOf(sess, e[0]) === id)
    return entry && stored(sess, entry)
  }

  /** Up to `n` lines of a Session before (`dir` -1, newest first) or from (`dir` 1) a seq. */
  walk(sess: number, seq: number, dir: 1 | -1, n: number): StoredLine[] {
    const lo = rowidOf(sess, 0)
    const hi = rowidOf(sess + 1, 0) - 1
    const at = rowidOf(sess, seq)
    const out: StoredLine[] = []
    const next =
      dir === 1
        ? this.stmt('SELECT id, last, raw, data FROM blocks WHERE id > ? AND id <= ? ORDER BY id LIMIT 1')
        : this.stmt('SELECT id, last, raw, data FROM blocks WHERE id < ? AND id >= ? ORDER BY id DESC LIMIT 1')
    let block = this.blockAt(dir === 1 ? at : at - 1)
    if (!block) {
      const row = (dir === 1 ? next.get(at, hi) : next.get(at, lo)) as BlockRow | undefined
      block = row && this.decode(row)
    }
    while (block && out.length < n) {
      const entries = dir === 1 ? block.entries : [...block.entries].reverse()
      for (const e of entries) {
        const id = rowidOf(sess, e[0])
        if ((dir === 1 ? id >= at : id < at) && out.length < n) out.push(stored(sess, e))
      }
      const row = (dir === 1 ? next.get(block.id, hi) : next.get(block.id, lo)) as BlockRow | undefined
      block = row && this.decode(row)
    }
    return out
  }

  /** Lines and UTF-8 text bytes indexed, and the file size (database + WAL). */
  stats(): { lines: number; textBytes: number; fileBytes: number } {
    const row = this.stmt('SELECT coalesce(sum(lines), 0) AS lines, coalesce(sum(bytes), 0) AS bytes FROM sessions').get() as { lines: number; bytes: number }
    const size = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0
    return { lines: Number(row.lines), textBytes: Number(row.bytes), fileBytes: this.path === ':memory:' ? 0 : size(this.path) + size(`${this.path}-wal`) }
  }
}

/** One line in a block: seq, time (epoch seconds), who (index into WHO), text. */
type Entry = [number, number, number, string]
interface Block {
  id: number
  last: number
  /** Estimated JSON bytes (the packing bound). */
  raw: number
  entries: Entry[]
}
interface BlockRow {
  id: number
  last: number
  raw: number
  data: unknown
}

function stored(sess: number, [seq, time, who, text]: Entry): StoredLine {
  return { id: rowidOf(sess, seq), sess, seq, time: time * 1000, who: WHO[who] ?? 'user', text }
}

/** An SQLite/FTS5 varint (big-endian, 7 bits a byte, the ninth byte whole). */
function varint(buf: Uint8Array, at: number): [number, number] {
  let value = 0
  for (let i = 0; i < 8; i++) {
    const b = buf[at + i] ?? 0
    value = value * 128 + (b & 0x7f)
    if (!(b & 0x80)) return [value, at + i + 1]
  }
  return [value * 256 + (buf[at + 8] ?? 0), at + 9]
}

function dropAll(db: SqliteDatabase): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts\\_%\\_%' ESCAPE '\\'")
    .all() as { name: string }[]
  for (const { name } of tables) db.exec(`DROP TABLE IF EXISTS "${name.replace(/"/g, '""')}"`)
  db.exec('PRAGMA user_version = 0')
  db.exec('VACUUM')
}
