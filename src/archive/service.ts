/**
 * `botArchive` — the archive of old chats (`bot/archive.sqlite`, SQLite FTS5 with the trigram
 * tokenizer, so substring and CJK queries work).
 *
 * Today it owns opening the index and reporting whether it could: activation never throws (a
 * broken native build must not take DSH down), the problem is logged once as one clear line
 * naming the repair command, and `status` tells the UI and the tools which driver serves. The
 * search/read tools arrive with the archive issue.
 *
 * Deliberately narrow: the index is derived data; deleting the file loses nothing.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Service, type Context } from '@deepseek-ai/cordis'
import { loadSqlite, type LoadSqliteOptions, type SqliteDatabase, type SqliteDriverName, type SqliteProblem } from './sqlite.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    botArchive: BotArchive
  }
}

export interface ArchiveStatus {
  driver: SqliteDriverName | 'unavailable'
  problem?: SqliteProblem
}

export interface BotArchiveOptions extends LoadSqliteOptions {
  dir: string
}

/**
 * One line on stderr, no stack trace. Written directly: DSH's headless profile does not print the
 * Cordis logger, and this is the line a user needs to see to repair the install.
 */
function report(problem: SqliteProblem): void {
  process.stderr.write(`dsh-bot-team: ${problem.message}\n`)
}

export class BotArchive extends Service {
  status: ArchiveStatus = { driver: 'unavailable' }
  private db: SqliteDatabase | undefined
  private readonly options: BotArchiveOptions

  constructor(ctx: Context, options: BotArchiveOptions) {
    super(ctx, 'botArchive')
    this.options = options
  }

  [Service.init](): void {
    const load = loadSqlite(this.options)
    if (load.problem) report(load.problem)
    if (!load.ok) {
      this.status = { driver: 'unavailable', problem: load.problem }
      return
    }
    try {
      mkdirSync(this.options.dir, { recursive: true })
      const db = load.driver.open(join(this.options.dir, 'archive.sqlite'))
      db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(bot UNINDEXED, part UNINDEXED, seq UNINDEXED, body, tokenize='trigram')")
      this.db = db
      this.status = load.problem ? { driver: load.driver.name, problem: load.problem } : { driver: load.driver.name }
      this.ctx.effect(() => () => db.close(), 'bot-archive:close')
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error)
      const problem: SqliteProblem = { kind: 'load-failed', detail, fix: `check that ${this.options.dir} is writable`, message: `archive index could not be opened: ${detail}` }
      report(problem)
      this.status = { driver: 'unavailable', problem }
    }
  }

  /** The open index, or undefined when no SQLite driver works. */
  get database(): SqliteDatabase | undefined {
    return this.db
  }
}
