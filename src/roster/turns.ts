/**
 * Turns of Bot Sessions — who opened each Bot Session's current turn (the person, or a chain with
 * its hop, budget and mode: `chain.turnOrigin` over the messages of the turn's first step), the
 * Session's last chain read from its own log (so a restart keeps it), the words naming who started
 * an unattended turn, and the deterministic budget id of a turn the person opened. Fed by one
 * read-only `agent/inbox/claimed` listener per Bot agent and by the mode switch's `began` at each
 * step; deliberately narrow: it records and answers, the guard, delivery and the mode switch decide.
 */
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import { chainAfterTurn, openerOf, turnOrigin, type Chain, type Opener, type TurnOrigin } from '../core/chain.ts'
import { readSource } from '../core/sources.ts'

export interface TurnInfo {
  turn: number
  origin: TurnOrigin
  /** Who opened it, in words, for an unattended turn ("Bot Ada", "group Crew", "the X plugin"). */
  who: string
  /**
   * The work budget this turn's Bot-started work draws from: opened on first use for the person's
   * turns; the chain's for the others (absent for a chain recorded before budgets existed).
   */
  budget?: string
  /** The one-shot grant the turn's opening carries (the person allowed exactly one call). */
  grant?: TurnGrant
}

/** An allowed approval's grant, as the answer that opened a turn carries it. */
export interface TurnGrant {
  taskId: string
  tool: string
  key: string
}

/** The grant a claimed message carries, if it is an allowed approval's answer (pure). */
function grantOf(source: UserMessage['source']): TurnGrant | undefined {
  const s = readSource(source)
  return s?.type === 'answer' && s.grant ? { taskId: s.taskId, tool: s.grant.tool, key: s.grant.key } : undefined
}

/** Who a claimed message says started the turn (pure). */
export function whoOf(source: UserMessage['source']): string {
  if (source.kind === 'user') return 'the user'
  const s = readSource(source)
  if (s && 'fromName' in s && s.fromName) return `Bot ${s.fromName}`
  if (s && 'groupName' in s) return `group ${s.groupName}`
  if (s?.type === 'schedule') return `scheduled task ${s.scheduleId}`
  if (s?.type === 'handoff') return 'the move to a new part of this chat'
  if (s?.type === 'task' || s?.type === 'person-task' || s?.type === 'task-report') return `task ${s.taskId}`
  if (s?.type === 'answer') return `the user's answer to ${s.taskId} (from the inbox)`
  if (s) return 'the Bot team plugin'
  return source.kind === 'plugin' ? `the ${source.plugin} plugin` : `a ${source.kind} message`
}

/** The budget id of a turn the person opened (pure, deterministic). */
export function personBudgetId(sessionId: string, turn: number): string {
  return `budget:${sessionId}#${turn}`
}

type LogEvent = { type: string; data: unknown }

/**
 * The Session's last chain from its log (pure): the chain of the newest turn whose first step
 * entered a message of the person or one carrying a chain; undefined when there is none. Messages
 * steered into a later step never count, so a person's prompt steered into a Bot-started turn does
 * not make that turn's work the person's.
 */
export function chainOfLog(events: readonly LogEvent[], sessionId: string): Chain | undefined {
  let batch: Opener[] = []
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'user/message') batch.push(openerOf((e.data as UserMessage).source))
    else if (e.type === 'step/start') {
      const { turn, step } = e.data as { turn: number; step: number }
      if (step === 1 && batch.some((o) => o.kind !== 'other'))
        return chainAfterTurn(
          turnOrigin(batch, () => undefined),
          personBudgetId(sessionId, turn),
        )
      batch = []
    }
  }
  return undefined
}

interface Entry {
  turn: number
  /** The messages of the turn's first step, with who sent them. */
  opening: Array<{ opener: Opener; who: string; grant?: TurnGrant | undefined }>
  /** The first step's messages are all in: later ones are steered in and change nothing. */
  sealed: boolean
  origin?: TurnOrigin
}

export class TurnTracker {
  private readonly entries = new Map<string, Entry>()
  private readonly agents = new Map<string, Agent>()

  /** Install the tracking listener on one Bot agent; returns its disposer. */
  track(agent: Agent): () => unknown {
    const sessionId = String(agent.id)
    this.agents.set(sessionId, agent)
    const dispose = agent.ctx.on('agent/inbox/claimed', ({ message, turn }) => {
      let entry = this.entries.get(sessionId)
      if (!entry || entry.turn !== turn) {
        const fresh: Entry = { turn, opening: [], sealed: false }
        this.entries.set(sessionId, fresh)
        // DSH claims a step's messages in one synchronous batch: the first batch is in by the next microtask.
        queueMicrotask(() => this.seal(sessionId, fresh))
        entry = fresh
      }
      if (!entry.sealed) entry.opening.push({ opener: openerOf(message.source), who: whoOf(message.source), grant: grantOf(message.source) })
    })
    return () => {
      dispose()
      this.entries.delete(sessionId)
      this.agents.delete(sessionId)
    }
  }

  /** A step of `turn` begins (the mode switch calls it): a turn that claimed nothing is known too. */
  began(sessionId: string, turn: number): void {
    const entry = this.entries.get(sessionId)
    if (entry && entry.turn >= turn) return
    const empty: Entry = { turn, opening: [], sealed: false }
    this.entries.set(sessionId, empty)
    this.seal(sessionId, empty)
  }

  private seal(sessionId: string, entry: Entry): void {
    if (entry.sealed) return
    entry.origin = this.originOf(sessionId, entry)
    entry.sealed = true
  }

  private originOf(sessionId: string, entry: Entry): TurnOrigin {
    return (
      entry.origin ??
      turnOrigin(
        entry.opening.map((o) => o.opener),
        () => this.logChain(sessionId),
      )
    )
  }

  private logChain(sessionId: string): Chain | undefined {
    const events = this.agents.get(sessionId)?.session.events
    return events ? chainOfLog(events as readonly LogEvent[], sessionId) : undefined
  }

  /** The current (or last) turn of a Session, if it began one since it was tracked. */
  current(sessionId: string): TurnInfo | undefined {
    const entry = this.entries.get(sessionId)
    if (!entry) return undefined
    const origin = this.originOf(sessionId, entry)
    const first = entry.opening.find((c) => c.opener.kind !== 'person')
    const chain = chainAfterTurn(origin, personBudgetId(sessionId, entry.turn))
    const grant = origin.kind === 'person' ? undefined : entry.opening.find((c) => c.grant)?.grant
    return {
      turn: entry.turn,
      origin,
      who: origin.kind === 'person' ? 'the user' : (first?.who ?? 'a wake-up that entered no message'),
      ...(chain.budget ? { budget: chain.budget } : {}),
      ...(grant ? { grant } : {}),
    }
  }

  /**
   * The chain the Session carries now: its current or last turn's (the person's turn leaves its own
   * budget and the Bot's own preset), else what its log says. What a handoff carries to the next part.
   */
  lastChain(sessionId: string): Chain | undefined {
    const entry = this.entries.get(sessionId)
    if (entry) return chainAfterTurn(this.originOf(sessionId, entry), personBudgetId(sessionId, entry.turn))
    return this.logChain(sessionId)
  }
}
