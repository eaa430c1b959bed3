/**
 * Reading a Bot Session's log for the steward (pure over the events): its lines (the archive's
 * own `lineOf`, so the steward, the note and `read_own_chat` see the same text), the messages TO
 * the Bot (the person's and other Bots' — handoff packages excluded, so a package never nests in
 * the next one), and an estimate of the Session's size when DSH's token meter is not mounted.
 *
 * Deliberately does not: touch the agent, the store or the model.
 */
import { deriveEventMessage, type Session, type SessionEvent } from '@deepseek-ai/dsh-session'
import { lineOf, type ArchiveLine, type CallNames, type LogEvent } from '../core/log-lines.ts'
import type { ToBot } from './note.ts'

const estimateTokens = (chars: number) => Math.ceil(chars / 4)

/** The archive lines of a Session's events, oldest first (`lineOf` leaves handoff packages out). */
export function linesOf(events: readonly LogEvent[]): ArchiveLine[] {
  const calls: CallNames = new Map()
  const out: ArchiveLine[] = []
  for (const e of events) {
    const line = lineOf(e, calls)
    if (line) out.push(line)
  }
  return out
}

/** The messages to the Bot among those lines, anchored to `part`. */
export function messagesToBot(lines: readonly ArchiveLine[], part: number): ToBot[] {
  return lines.filter((l) => l.who === 'user' || l.who === 'bot').map((l) => ({ part, seq: l.seq, time: l.time, who: l.who as 'user' | 'bot', text: l.text }))
}

/** The latest text the person wrote in these lines. */
export function lastUserText(lines: readonly ArchiveLine[]): string | undefined {
  return lines.findLast((l) => l.who === 'user')?.text
}

/**
 * The size of the next request, estimated (chars / 4) from what DSH would send: the system text,
 * the tool list and every message on the Session's surface. Used when `ctx.tokenMeter` is absent.
 */
export function estimateSize(session: Pick<Session, 'events' | 'surface' | 'requestHeader'>): number {
  const header = session.requestHeader()
  let chars = (header?.system?.length ?? 0) + (header?.tools ? JSON.stringify(header.tools).length : 0)
  const events = session.events
  const bySeq = (seq: number): SessionEvent | undefined => {
    const guess = events[seq] ?? events[seq - 1]
    if (guess?.seq === seq) return guess
    return events.find((e) => e.seq === seq)
  }
  for (const seq of session.surface.nodes) {
    const e = bySeq(seq)
    const message = e ? deriveEventMessage(e) : null
    if (message) chars += JSON.stringify(message.content).length
  }
  return estimateTokens(chars)
}
