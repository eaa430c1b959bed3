/**
 * Memory on disk under `bot/memory/`: each scope's `MEMORY.md` and topics, the journal (one JSON line
 * per change, rotated by size), review cursors, frozen sections, a deleted Bot's folder archived;
 * files written whole, private and durable. Deliberately decides nothing and does not serialise
 * writers or check the writer.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, safeSegment, syncDir, writePrivateFile, writePrivateFileSync } from '../core/private-file.ts'

export type ScopeKey = 'team' | `bot:${string}`

export interface ScopeFiles {
  memory: string
  topics: Record<string, string>
}

export interface JournalLine {
  time: string
  op: 'add' | 'replace' | 'remove' | 'archive'
  scope: ScopeKey
  file: string
  /** Who: a Bot id, or "user". */
  actor: string
  actorName?: string
  /** Proposed by the end-of-turn review. */
  auto?: true
  before?: string
  after?: string
}

/** Where the journal goes when it reaches its size. */
export const ROTATED_JOURNAL = 'journal.1.jsonl'

export class MemoryFiles {
  readonly root: string
  private readonly journalBytes: number

  constructor(botDir: string, journalBytes = 1024 * 1024) {
    this.root = path.join(botDir, 'memory')
    this.journalBytes = journalBytes
  }

  scopeDir(scope: ScopeKey): string {
    return scope === 'team' ? path.join(this.root, 'team') : path.join(this.root, 'bots', safeSegment(scope.slice(4)))
  }

  /** The file a change names, relative to the memory folder (for the journal). */
  relative(scope: ScopeKey, topic?: string): string {
    return path.relative(this.root, this.filePath(scope, topic))
  }

  filePath(scope: ScopeKey, topic?: string): string {
    const dir = this.scopeDir(scope)
    return topic === undefined ? path.join(dir, 'MEMORY.md') : path.join(dir, 'topics', `${topic}.md`)
  }

  /** A scope's files as they are now (synchronous: small, bounded files; used when a prompt is frozen). */
  read(scope: ScopeKey): ScopeFiles {
    const dir = this.scopeDir(scope)
    const topics: Record<string, string> = {}
    const topicDir = path.join(dir, 'topics')
    if (existsSync(topicDir)) {
      for (const name of readdirSync(topicDir).sort()) {
        if (name.endsWith('.md')) topics[name.slice(0, -3)] = readText(path.join(topicDir, name))
      }
    }
    return { memory: readText(path.join(dir, 'MEMORY.md')), topics }
  }

  async write(scope: ScopeKey, topic: string | undefined, text: string): Promise<void> {
    const file = this.filePath(scope, topic)
    await makePrivateDir(path.dirname(file))
    await writePrivateFile(file, text)
  }

  async removeTopic(scope: ScopeKey, topic: string): Promise<void> {
    await fsp.rm(this.filePath(scope, topic), { force: true })
  }

  async journal(line: JournalLine): Promise<void> {
    await makePrivateDir(this.root)
    const file = path.join(this.root, 'journal.jsonl')
    const text = `${JSON.stringify(line)}\n`
    const size = await fsp.lstat(file).then(
      (s) => s.size,
      () => 0,
    )
    if (size > 0 && size + Buffer.byteLength(text) > this.journalBytes) await fsp.rename(file, path.join(this.root, ROTATED_JOURNAL))
    const handle = await fsp.open(file, 'a', PRIVATE_FILE_MODE)
    try {
      await handle.write(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
  }

  /** Move a Bot's folder to `archive/<id>-<time>`; returns the new relative path, or undefined when it had none. */
  async archive(botId: string, at: Date): Promise<string | undefined> {
    const from = this.scopeDir(`bot:${botId}`)
    if (!existsSync(from)) return undefined
    const archiveDir = path.join(this.root, 'archive')
    await makePrivateDir(archiveDir)
    const to = path.join(archiveDir, `${safeSegment(botId)}-${at.toISOString().replace(/[:.]/g, '-')}`)
    await fsp.rename(from, to)
    await syncDir(archiveDir)
    return path.relative(this.root, to)
  }

  /** Review cursors: conversation key → log events already reviewed. */
  readCursors(): Record<string, number> {
    try {
      const parsed = JSON.parse(readText(path.join(this.root, 'reviewed.json')) || '{}') as unknown
      if (!parsed || typeof parsed !== 'object') return {}
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => Number.isInteger(e[1])))
    } catch {
      return {}
    }
  }

  async writeCursors(cursors: Record<string, number>): Promise<void> {
    await makePrivateDir(this.root)
    await writePrivateFile(path.join(this.root, 'reviewed.json'), `${JSON.stringify(cursors)}\n`)
  }

  frozenPath(sessionId: string): string {
    return path.join(this.root, 'frozen', `${safeSegment(sessionId)}.md`)
  }

  readFrozen(sessionId: string): string | undefined {
    const file = this.frozenPath(sessionId)
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined
  }

  /** Synchronous: nothing of it is left running when the service stops. */
  writeFrozen(sessionId: string, text: string): void {
    const file = this.frozenPath(sessionId)
    mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE })
    chmodSync(path.dirname(file), PRIVATE_DIR_MODE)
    writePrivateFileSync(file, text)
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw error
  }
}
