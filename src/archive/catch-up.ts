/**
 * Catch-up: brings the archive index level with the Session logs, incrementally by seq. A slice
 * reads at most `sliceEvents` events from a Session's mark (the live Session, else DSH's persistence
 * reader) and commits lines and mark in one transaction; a search runs slices only within a budget.
 * A log rewritten or read with a gap is read again from seq 0. Deliberately does not decide which
 * Sessions are archived, open the index, or run anywhere but in the team writer.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises'
import type { ArchiveIndex, SessionMark } from './index-db.ts'
import { lineOf, type ArchiveLine, type CallNames, type LogEvent } from '../core/log-lines.ts'
import { errorText } from '../core/errors.ts'

/** A Session open in this process: its next seq and its events by seq. */
export interface LiveLog {
  readonly seq: number
  at(seq: number): LogEvent | undefined
}

export interface Placement {
  /** `bot:<id>` or `room:<id>`. */
  partition: string
  part: number
  room: boolean
}

export interface ArchiveSources {
  /** Where a Session's lines go; undefined when it is not archived. */
  place(sid: string): Placement | undefined
  /** Every archived Session, parts in order. */
  all(): string[]
  live(sid: string): LiveLog | undefined
  /** Persisted events from `fromSeq` on; undefined when the Session has no log. */
  readFrom(sid: string, fromSeq: number): Promise<readonly LogEvent[] | undefined>
}

export interface CatchUpLimits {
  /** Events per slice (one transaction). */
  sliceEvents: number
  /** How long a search may spend catching up before it answers from what is indexed. */
  searchBudgetMs: number
}

export const DEFAULT_CATCH_UP: CatchUpLimits = { sliceEvents: 500, searchBudgetMs: 100 }

const keyOf = (e: LogEvent | undefined) => (e ? `${e.time}:${e.type}` : '')

class Rewritten extends Error {}

/**
 * Turn contiguous events (from `mark.through`) into lines and commit them with the mark. A seq out
 * of order throws, unless `acceptGaps` (a log already read again once for a gap: its lines are
 * indexed at their own seqs and the missing ones stay missing).
 */
export function ingest(index: ArchiveIndex, mark: SessionMark, events: readonly LogEvent[], calls: CallNames, room: boolean, acceptGaps = false): void {
  const lines: ArchiveLine[] = []
  let next = mark.through
  for (const event of events) {
    if (event.seq !== next) {
      if (!acceptGaps || event.seq < next) throw new Rewritten(`expected seq ${next}, the log has ${event.seq}`)
    }
    next = event.seq + 1
    const line = lineOf(event, calls, room)
    if (line) lines.push(line)
  }
  if (next === mark.through) return
  index.append(mark, lines, next, keyOf(events.at(-1)))
}

export class CatchUp {
  private readonly queue = new Set<string>()
  private readonly busy = new Set<string>()
  /** Cold Sessions checked against their log since this index was opened. */
  private readonly verified = new Set<string>()
  private readonly calls = new Map<string, CallNames>()
  /** Sessions read again for a gap: a gap met again is a hole in the log, indexed around. */
  private readonly gapped = new Set<string>()
  private running: Promise<void> | undefined
  private stopped = false
  /** When a slice last committed (epoch ms). */
  lastAt: number | undefined
  /** Rewrites, gaps and read failures met (the newest 50). */
  problems: string[] = []

  private readonly index: ArchiveIndex
  private readonly sources: ArchiveSources
  readonly limits: CatchUpLimits

  constructor(index: ArchiveIndex, sources: ArchiveSources, limits: CatchUpLimits = { ...DEFAULT_CATCH_UP }) {
    this.index = index
    this.sources = sources
    this.limits = limits
  }

  /** Stop after the current slice (the index is being closed or replaced). */
  stop(): void {
    this.stopped = true
    this.queue.clear()
  }

  get pending(): number {
    return this.queue.size + this.busy.size
  }

  /** Catch up a Session in the background (after a turn end, at start-up, after a rebuild). */
  request(sid: string): void {
    if (this.stopped || !this.sources.place(sid)) return
    this.queue.add(sid)
    this.running ??= this.drain().finally(() => {
      this.running = undefined
    })
  }

  requestAll(): void {
    for (const sid of this.sources.all()) this.request(sid)
  }

  /** Resolves when the background queue is empty. */
  async idle(): Promise<void> {
    while (this.running) await this.running
  }

  private async drain(): Promise<void> {
    await nextMacrotask() // never inside the turn's own event dispatch
    while (!this.stopped && this.queue.size > 0) {
      const sid = this.queue.values().next().value!
      this.queue.delete(sid)
      try {
        if (await this.slice(sid)) this.queue.add(sid)
      } catch (error) {
        this.note(`${sid}: ${errorText(error)}`)
      }
      await nextMacrotask()
    }
  }

  /** Whether a Session has events the index does not hold (cheap: no I/O). */
  behind(sid: string): boolean {
    const place = this.sources.place(sid)
    if (!place) return false
    const mark = this.index.mark(sid)
    const live = this.sources.live(sid)
    if (live) return !mark || mark.through !== live.seq || (mark.through > 0 && keyOf(live.at(mark.through - 1)) !== mark.last)
    return !this.verified.has(sid)
  }

  /**
   * Before a search: catch these Sessions up within the search budget. True when they are all
   * level with their logs; otherwise the rest continues in the background.
   */
  async ensure(sids: readonly string[], budgetMs = this.limits.searchBudgetMs): Promise<boolean> {
    const deadline = performance.now() + budgetMs
    let level = true
    for (const sid of sids) {
      if (!this.behind(sid)) this.queue.delete(sid) // level already: no background slice needed
      while (this.behind(sid)) {
        if (this.stopped || this.busy.has(sid) || performance.now() >= deadline) {
          level = false
          this.request(sid)
          break
        }
        try {
          await this.slice(sid)
        } catch (error) {
          this.note(`${sid}: ${errorText(error)}`)
          level = false
          break
        }
        if (!this.behind(sid)) this.queue.delete(sid)
      }
    }
    return level && !sids.some((sid) => this.busy.has(sid) || this.behind(sid))
  }

  /** One slice of one Session. Returns true when more remains. */
  private async slice(sid: string): Promise<boolean> {
    const place = this.sources.place(sid)
    if (!place || this.busy.has(sid) || this.stopped) return false
    this.busy.add(sid)
    try {
      const mark = this.index.register(sid, place.partition, place.part)
      const calls = this.calls.get(sid) ?? new Map<string, string>()
      this.calls.set(sid, calls)
      const live = this.sources.live(sid)
      if (live) {
        if (mark.through > 0 && (live.seq < mark.through || keyOf(live.at(mark.through - 1)) !== mark.last)) {
          this.rewritten(mark, `the log no longer holds #${mark.through - 1} as indexed`)
        }
        const n = Math.min(live.seq - mark.through, this.limits.sliceEvents)
        const events: LogEvent[] = []
        for (let i = 0; i < n; i++) events.push(live.at(mark.through + i)!)
        this.run(mark, events, calls, place.room)
        return mark.through < live.seq
      }
      let events = await this.sources.readFrom(sid, Math.max(0, mark.through - 1))
      if (this.stopped) return false
      if (events !== undefined && mark.through > 0) {
        const first = events[0]
        if (!first || first.seq !== mark.through - 1 || keyOf(first) !== mark.last) {
          this.rewritten(mark, `the log no longer holds #${mark.through - 1} as indexed`)
          events = await this.sources.readFrom(sid, 0)
          if (this.stopped) return false
        } else {
          events = events.slice(1)
        }
      }
      for (let i = 0; events && i < events.length; i += this.limits.sliceEvents) {
        if (!this.run(mark, events.slice(i, i + this.limits.sliceEvents), calls, place.room)) return true
        if (i + this.limits.sliceEvents < events.length) {
          await nextMacrotask()
          if (this.stopped) return false
        }
      }
      this.verified.add(sid)
      return false
    } finally {
      this.busy.delete(sid)
    }
  }

  /** Ingest one slice; false when it met a gap (the Session was reset and is read again). */
  private run(mark: SessionMark, events: readonly LogEvent[], calls: CallNames, room: boolean): boolean {
    try {
      ingest(this.index, mark, events, calls, room, this.gapped.has(mark.sid))
    } catch (error) {
      if (!(error instanceof Rewritten)) throw error
      // A gap: read the whole Session again from the start, next slice; if the gap is still
      // there then, it is a hole in the log and the lines around it are indexed.
      this.rewritten(mark, error.message)
      this.gapped.add(mark.sid)
      this.verified.delete(mark.sid)
      return false
    }
    if (events.length) this.lastAt = Date.now()
    return true
  }

  /** Remember a problem for the status (the newest 50). */
  private note(problem: string): void {
    this.problems.push(problem)
    if (this.problems.length > 50) this.problems.shift()
  }

  private rewritten(mark: SessionMark, why: string): void {
    this.note(`${mark.sid}: ${why}; read again from the start`)
    this.index.reset(mark)
    this.calls.set(mark.sid, new Map())
  }
}
