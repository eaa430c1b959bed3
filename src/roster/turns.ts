/**
 * Turns of Bot Sessions — who opened the current turn of each Bot Session, as every service needs
 * to know it: the person at the screen, or a chain of Bot-started work (with its hop, work budget
 * and mode). One tracker, fed by one `agent/inbox/claimed` listener per Bot agent.
 *
 * Owns: the current turn's origin per Session (`turnOrigin` over the sources of the messages the
 * turn claimed, read with the one source reader), the words naming who started an unattended
 * turn, and the id of the work budget a turn of the person opens (deterministic: the Session and
 * turn, so any service — delivery, rooms, schedules — draws from the same budget without handing
 * ids around, and a restart finds it again).
 *
 * Deliberately narrow: it records and answers; the unattended-turn guard, delivery and the mode
 * switch decide what to do with the answer.
 *
 * Composes: the roster installs `track(agent)` on every Bot agent (own-chat parts and member
 * Sessions) when DSH creates or resumes it; the listener only reads, never vetoes, so its order
 * among other `agent/inbox/claimed` listeners does not matter.
 */
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import { turnOrigin, type TurnOrigin } from '../core/chain.ts'
import { chainOf, readSource } from '../core/sources.ts'

export interface TurnInfo {
  turn: number
  origin: TurnOrigin
  /** Who opened it, in words, for an unattended turn ("Bot Ada", "group Crew", "the X plugin"). */
  who: string
  /**
   * The work budget this turn's Bot-started work draws from: opened on first use for the person's
   * turns; the chain's for Bot-started ones (absent for a chain recorded before budgets existed).
   */
  budget?: string
}

interface Claimed {
  person: boolean
  chain?: ReturnType<typeof chainOf>
  who: string
}

/** Who a claimed message says started the turn (pure). */
export function whoOf(source: UserMessage['source']): string {
  if (source.kind === 'user') return 'the user'
  const s = readSource(source)
  if (s && 'fromName' in s && s.fromName) return `Bot ${s.fromName}`
  if (s && 'groupName' in s) return `group ${s.groupName}`
  if (s?.type === 'schedule') return `scheduled task ${s.scheduleId}`
  if (s) return 'the Bot team plugin'
  return source.kind === 'plugin' ? `the ${source.plugin} plugin` : `a ${source.kind} message`
}

/** The budget id of a turn the person opened (pure, deterministic). */
export function personBudgetId(sessionId: string, turn: number): string {
  return `budget:${sessionId}#${turn}`
}

export class TurnTracker {
  private readonly claimed = new Map<string, { turn: number; list: Claimed[] }>()

  /** Install the tracking listener on one Bot agent; returns its disposer. */
  track(agent: Agent): () => unknown {
    const sessionId = String(agent.id)
    const dispose = agent.ctx.on('agent/inbox/claimed', ({ message, turn }) => {
      let entry = this.claimed.get(sessionId)
      if (!entry || entry.turn !== turn) {
        entry = { turn, list: [] }
        this.claimed.set(sessionId, entry)
      }
      const source = message.source
      entry.list.push({ person: source.kind === 'user', chain: chainOf(readSource(source)), who: whoOf(source) })
    })
    return () => {
      dispose()
      this.claimed.delete(sessionId)
    }
  }

  /** The current (or last) turn of a Session, if it claimed anything since it was tracked. */
  current(sessionId: string): TurnInfo | undefined {
    const entry = this.claimed.get(sessionId)
    if (!entry) return undefined
    const origin = turnOrigin(entry.list)
    const first = entry.list.find((c) => !c.person)
    return {
      turn: entry.turn,
      origin,
      who: origin.kind === 'person' ? 'the user' : (first?.who ?? 'a Bot'),
      ...(origin.kind === 'person' ? { budget: personBudgetId(sessionId, entry.turn) } : origin.chain.budget ? { budget: origin.chain.budget } : {}),
    }
  }
}
