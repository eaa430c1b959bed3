/**
 * Two facts read off a Bot Session's events (pure, bounded): it waits on DSH's approval prompt (an
 * `approval/asked` without its `decided`), or its latest turn was stopped and none has started since.
 * Deliberately no DSH imports, no I/O.
 */
import { readSourceOf } from '../core/sources.ts'

export interface LogEventLike {
  type: string
  data?: unknown
}

/** How far back either fold looks (events). */
export const SCAN_MAX = 2000

/** An `approval/asked` in the current turn without its `approval/decided`. */
export function awaitsApproval(events: readonly LogEventLike[]): boolean {
  const decided = new Set<string>()
  const stop = Math.max(0, events.length - SCAN_MAX)
  for (let i = events.length - 1; i >= stop; i--) {
    const e = events[i]!
    if (e.type === 'turn/start' || e.type === 'turn/end') return false
    const id = (e.data as { id?: unknown } | undefined)?.id
    if (typeof id !== 'string') continue
    if (e.type === 'approval/decided') decided.add(id)
    else if (e.type === 'approval/asked' && !decided.has(id)) return true
  }
  return false
}

const STOPPED_KINDS: ReadonlySet<string> = new Set(['aborted', 'cancelled'])

/** The latest turn (stop-notice turns aside) ended stopped, and no other turn has started since. */
export function endedStopped(events: readonly LogEventLike[]): boolean {
  const stop = Math.max(0, events.length - SCAN_MAX)
  /** Inside the turn being looked at: its input so far is only stop notices (or nothing). */
  let onlyNotices = true
  let sawInput = false
  let inTurn = false
  for (let i = events.length - 1; i >= stop; i--) {
    const e = events[i]!
    if (e.type === 'turn/end') {
      const kind = (e.data as { reason?: { kind?: unknown } } | undefined)?.reason?.kind
      if (typeof kind === 'string' && STOPPED_KINDS.has(kind)) return true
      inTurn = true
      onlyNotices = true
      sawInput = false
      continue
    }
    if (!inTurn) {
      // Events after the last turn ended: a turn that started since (running) means not stopped.
      if (e.type === 'turn/start') return false
      continue
    }
    if (e.type === 'user/message') {
      sawInput = true
      const data = e.data as { source?: unknown; message?: { source?: unknown } } | undefined
      const source = data?.source ?? data?.message?.source
      if (!readSourceOf(source, 'stop')) onlyNotices = false
      continue
    }
    if (e.type === 'turn/start') {
      // A completed turn: if it ran only the stop notice, the stop before it still counts.
      if (!(sawInput && onlyNotices)) return false
      inTurn = false
    }
  }
  return false
}
