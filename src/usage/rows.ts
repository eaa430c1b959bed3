/**
 * Usage rows (pure): what the ledger records per model request, derived from DSH Session events the
 * same way live and in a rebuild (`assistant/chunk` usage, `compaction/summary`), keyed
 * `<sessionId>#<seq>`; side calls no log records get a random key. Deliberately no files, no SQLite.
 */
import type { LogEvent } from '../core/log-lines.ts'

/** Why a request was made: a Bot's own-chat loop step, its turn in a group, a task's attempt, or a side call. */
export type UsagePurpose = 'turn' | 'room-turn' | 'task-turn' | 'title' | 'compaction' | 'memory-review' | (string & {})

export interface UsageTokens {
  /** Input tokens not served from the provider's cache. */
  input: number
  /** Input tokens read from the provider's cache. */
  cached: number
  output: number
}

export interface UsageRow extends UsageTokens {
  key: string
  /** Epoch ms. */
  time: number
  /** Local calendar day `YYYY-MM-DD` and hour `YYYY-MM-DDTHH` of `time` (the person's day). */
  day: string
  hour: string
  bot: string | null
  group: string | null
  part: number | null
  session: string | null
  /** The task a task Session's request worked on; null elsewhere. */
  task: string | null
  provider: string
  model: string
  purpose: UsagePurpose
}

/** Whose a request is (from the roster's Session index). */
export interface RowOwner {
  bot: string | null
  group: string | null
  part: number | null
  task: string | null
  /** Loop requests of this owner are `turn` (own chat), `room-turn` (a Bot's group Session) or `task-turn` (its task Session). */
  loop: 'turn' | 'room-turn' | 'task-turn'
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Local day and hour keys of an epoch-ms time. */
export function timeKeys(time: number): { day: string; hour: string } {
  const d = new Date(time)
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
  return { day, hour: `${day}T${pad(d.getHours())}` }
}

/** A count from a provider: a finite, non-negative whole number, else 0 (never trust its shape). */
function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), 1e12) : 0
}

/** DSH `TokenUsage` → the ledger's three counts (reasoning tokens are already in output). */
export function tokensOf(usage: unknown): UsageTokens {
  const u = (usage ?? {}) as Record<string, unknown>
  return { input: count(u.inputTokens), cached: count(u.cacheReadTokens), output: count(u.outputTokens) }
}

export function rowOf(fields: Omit<UsageRow, 'day' | 'hour'>): UsageRow {
  return { ...fields, ...timeKeys(fields.time) }
}

interface Route {
  provider: string
  model: string
}

const str = (v: unknown, max = 200) => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined)

/**
 * Derives rows from one Session's events in order (live, event by event, or a whole log in a
 * rebuild). `route` is the latest `request/context`; a live caller may seed it from
 * `session.requestContext()` when it starts listening mid-log.
 */
export class LogDeriver {
  private route: Route | undefined
  private readonly sessionId: string

  constructor(sessionId: string, route?: Route) {
    this.sessionId = sessionId
    this.route = route
  }

  /** The row an event records, or undefined. `owner` is asked only when there is one. */
  push(event: LogEvent, owner: () => RowOwner | undefined): UsageRow | undefined {
    const data = (event.data ?? {}) as Record<string, unknown>
    if (event.type === 'request/context') {
      const provider = str(data.provider)
      const model = str(data.model)
      if (provider && model) this.route = { provider, model }
      return undefined
    }
    let purpose: UsagePurpose
    let usage: unknown
    let route: Route | undefined
    if (event.type === 'assistant/chunk') {
      const chunk = data.chunk as { type?: unknown; usage?: unknown } | undefined
      if (chunk?.type !== 'usage') return undefined
      usage = chunk.usage
      route = this.route
      purpose = ''
    } else if (event.type === 'compaction/summary') {
      if (data.usage === undefined) return undefined
      usage = data.usage
      const provider = str(data.provider)
      const model = str(data.model)
      route = provider && model ? { provider, model } : this.route
      purpose = 'compaction'
    } else {
      return undefined
    }
    const who = owner()
    if (!who) return undefined
    return rowOf({
      key: `${this.sessionId}#${event.seq}`,
      time: typeof event.time === 'number' && Number.isFinite(event.time) ? event.time : Date.now(),
      bot: who.bot,
      group: who.group,
      part: who.part,
      session: this.sessionId,
      task: who.task,
      provider: route?.provider ?? 'unknown',
      model: route?.model ?? 'unknown',
      purpose: purpose || who.loop,
      ...tokensOf(usage),
    })
  }
}

/** Every row one Session log records (the rebuild; pure). */
export function rowsOfLog(sessionId: string, events: readonly LogEvent[], owner: RowOwner): UsageRow[] {
  const d = new LogDeriver(sessionId)
  const out: UsageRow[] = []
  for (const e of events) {
    const row = d.push(e, () => owner)
    if (row) out.push(row)
  }
  return out
}
