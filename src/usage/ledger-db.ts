/**
 * The usage ledger's SQLite file (`bot/usage.sqlite`): one table of request rows keyed so a rebuild
 * inserts nothing twice, batch inserts, grouped views, one day's sums. Deliberately does not choose
 * a driver, price anything or know about DSH.
 */
import type { SqliteDatabase, SqliteStatement } from '../core/sqlite.ts'
import type { UsageRow, UsageTokens } from './rows.ts'

/** 2: the `task` column (which task a request worked on; null outside task Sessions). */
export const USAGE_SCHEMA_VERSION = 2

export const VIEW_KEYS = ['hour', 'day', 'bot', 'model', 'group', 'purpose', 'task'] as const
export type ViewKey = (typeof VIEW_KEYS)[number]

export interface ViewFilter {
  /** Inclusive local days `YYYY-MM-DD`. */
  from?: string | undefined
  to?: string | undefined
  bot?: string | undefined
  group?: string | undefined
  task?: string | undefined
}

export interface ViewCell extends UsageTokens {
  key: string | null
  route: string
  requests: number
}

const COLUMN: Record<ViewKey, string> = {
  hour: 'hour',
  day: 'day',
  bot: 'bot',
  model: "provider || '/' || model",
  group: 'grp',
  purpose: 'purpose',
  task: 'task',
}

export class LedgerDb {
  private readonly db: SqliteDatabase
  private readonly insertRow: SqliteStatement

  constructor(db: SqliteDatabase) {
    this.db = db
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA busy_timeout = 2000')
    // Derived data (rebuildable from the Session logs): no fsync per batch; a power cut may lose the last one.
    db.exec('PRAGMA synchronous = NORMAL')
    db.exec(`CREATE TABLE IF NOT EXISTS usage (
      key TEXT PRIMARY KEY, time INTEGER NOT NULL, day TEXT NOT NULL, hour TEXT NOT NULL,
      bot TEXT, grp TEXT, part INTEGER, session TEXT, provider TEXT NOT NULL, model TEXT NOT NULL,
      purpose TEXT NOT NULL, input INTEGER NOT NULL, cached INTEGER NOT NULL, output INTEGER NOT NULL, task TEXT)`)
    db.exec('CREATE INDEX IF NOT EXISTS usage_day_bot ON usage(day, bot)')
    // A ledger of schema 1 has no task column: rows it holds worked on no task (null).
    const version = Number((db.prepare('PRAGMA user_version').get() as { user_version?: unknown } | undefined)?.user_version ?? 0)
    const columns = db.prepare('PRAGMA table_info(usage)').all() as { name?: unknown }[]
    if (!columns.some((c) => c.name === 'task')) db.exec('ALTER TABLE usage ADD COLUMN task TEXT')
    if (version < USAGE_SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${USAGE_SCHEMA_VERSION}`)
    this.insertRow = db.prepare(`INSERT OR IGNORE INTO usage
      (key, time, day, hour, bot, grp, part, session, provider, model, purpose, input, cached, output, task)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  }

  /** Insert rows in one transaction; rows already there (same key) are left as they are. */
  insert(rows: readonly UsageRow[]): void {
    if (!rows.length) return
    this.db.exec('BEGIN')
    try {
      for (const r of rows) {
        this.insertRow.run(r.key, r.time, r.day, r.hour, r.bot, r.group, r.part, r.session, r.provider, r.model, r.purpose, r.input, r.cached, r.output, r.task)
      }
      this.db.exec('COMMIT')
    } catch (error) {
      this.db.exec('ROLLBACK')
      throw error
    }
  }

  /** Sums grouped by `by` and route (so each cell can be priced), oldest key first. */
  view(by: ViewKey, filter: ViewFilter = {}): ViewCell[] {
    const where: string[] = []
    const params: unknown[] = []
    if (filter.from) {
      where.push('day >= ?')
      params.push(filter.from)
    }
    if (filter.to) {
      where.push('day <= ?')
      params.push(filter.to)
    }
    if (filter.bot) {
      where.push('bot = ?')
      params.push(filter.bot)
    }
    if (filter.group) {
      where.push('grp = ?')
      params.push(filter.group)
    }
    if (filter.task) {
      where.push('task = ?')
      params.push(filter.task)
    }
    const col = COLUMN[by]
    const sql = `SELECT ${col} AS key, provider || '/' || model AS route, COUNT(*) AS requests,
      SUM(input) AS input, SUM(cached) AS cached, SUM(output) AS output FROM usage
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 20000`
    return this.db
      .prepare(sql)
      .all(...params)
      .map((r) => {
        const o = r as Record<string, unknown>
        return {
          key: o.key === null ? null : String(o.key),
          route: String(o.route),
          requests: Number(o.requests),
          input: Number(o.input),
          cached: Number(o.cached),
          output: Number(o.output),
        }
      })
  }

  /** One day's sums per Bot and route (seeds the running cap totals). */
  daySums(day: string): Array<{ bot: string | null; provider: string; model: string } & UsageTokens> {
    return this.db
      .prepare(
        'SELECT bot, provider, model, SUM(input) AS input, SUM(cached) AS cached, SUM(output) AS output FROM usage WHERE day = ? GROUP BY bot, provider, model',
      )
      .all(day)
      .map((r) => {
        const o = r as Record<string, unknown>
        return {
          bot: o.bot === null ? null : String(o.bot),
          provider: String(o.provider),
          model: String(o.model),
          input: Number(o.input),
          cached: Number(o.cached),
          output: Number(o.output),
        }
      })
  }

  count(): number {
    return Number((this.db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: unknown }).n)
  }

  close(): void {
    this.db.close()
  }
}
