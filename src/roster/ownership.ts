/**
 * The Session-ownership index: Session id → owner (an own-chat part, a member Session, a room), its
 * reverse, and marks for Sessions being created; rebuilt from team state on every change, one map
 * read on the hot path. Deliberately no DSH calls, no writes.
 */
import type { TeamState } from '../store/index.ts'

/** A Bot's own chat (one part of it) or a Bot's Session in one group. */
export type BotSessionOwner =
  | { kind: 'own'; botId: string; part: number; groupId?: undefined }
  | { kind: 'member'; botId: string; groupId: string; part?: undefined }

export type SessionOwner = BotSessionOwner | { kind: 'room'; groupId: string; botId?: undefined; part?: undefined }

/** An owner being opened right now (its part number is not known yet for an own chat). */
/** Which of a Bot's Sessions: own-chat parts and/or member Sessions, every part or only the current ones. */
export interface SessionKinds {
  kinds: ReadonlyArray<BotSessionOwner['kind']>
  current?: boolean
}

export type OpeningOwner = { kind: 'own'; botId: string } | { kind: 'member'; botId: string; groupId: string } | { kind: 'room'; groupId: string }

export class SessionIndex {
  private owners = new Map<string, SessionOwner>()
  private byBot = new Map<string, string[]>()
  /** Each Bot's current own-chat part and current member Sessions. */
  private current = new Set<string>()
  private readonly opening = new Map<string, SessionOwner>()

  constructor(state: Readonly<TeamState>) {
    this.rebuild(state)
  }

  /** Replace the index with what `state` records (call on every state change). */
  rebuild(state: Readonly<TeamState>): void {
    const owners = new Map<string, SessionOwner>()
    const byBot = new Map<string, string[]>()
    const current = new Set<string>()
    const add = (botId: string, sessionId: string) => {
      const list = byBot.get(botId)
      if (list) list.push(sessionId)
      else byBot.set(botId, [sessionId])
    }
    for (const bot of Object.values(state.bots)) {
      for (const p of bot.sessionParts) {
        owners.set(p.sessionId, { kind: 'own', botId: bot.id, part: p.part })
        add(bot.id, p.sessionId)
      }
      const last = bot.sessionParts.at(-1)
      if (last) current.add(last.sessionId)
    }
    for (const group of Object.values(state.groups)) {
      if (group.roomSessionId) owners.set(group.roomSessionId, { kind: 'room', groupId: group.id })
      // Earlier member parts (a member's handoffs) stay the member's, so they stay findable.
      for (const [botId, parts] of Object.entries(group.memberParts ?? {})) {
        for (const p of parts) {
          if (p.sessionId === group.memberSessions[botId]) continue
          owners.set(p.sessionId, { kind: 'member', botId, groupId: group.id })
          add(botId, p.sessionId)
        }
      }
      for (const [botId, sessionId] of Object.entries(group.memberSessions)) {
        owners.set(sessionId, { kind: 'member', botId, groupId: group.id })
        add(botId, sessionId)
        current.add(sessionId)
      }
    }
    this.owners = owners
    this.byBot = byBot
    this.current = current
  }

  /** A Bot's recorded Sessions of the given kinds (`current`: only its current part in each place). */
  sessionsOfKind(botId: string, kinds: SessionKinds): Array<{ sessionId: string; owner: BotSessionOwner }> {
    const out: Array<{ sessionId: string; owner: BotSessionOwner }> = []
    for (const sessionId of this.sessionsOf(botId)) {
      const owner = this.owners.get(sessionId)
      if (!owner || owner.kind === 'room' || !kinds.kinds.includes(owner.kind)) continue
      if (kinds.current && !this.current.has(sessionId)) continue
      out.push({ sessionId, owner })
    }
    return out
  }

  /** Whose a Session is, including Sessions being opened right now. */
  get(sessionId: string): SessionOwner | undefined {
    return this.opening.get(sessionId) ?? this.owners.get(sessionId)
  }

  /** Every recorded Session id of a Bot: its own-chat parts (oldest first), then its group Sessions. */
  sessionsOf(botId: string): readonly string[] {
    return this.byBot.get(botId) ?? []
  }

  /**
   * Mark a Session as `owner`'s while it is being created. Returns the function that ends the
   * mark (call it once team state records the Session, or when creating it failed).
   */
  opens(sessionId: string, owner: OpeningOwner): () => void {
    const full: SessionOwner = owner.kind === 'own' ? { kind: 'own', botId: owner.botId, part: 0 } : owner
    this.opening.set(sessionId, full)
    return () => {
      if (this.opening.get(sessionId) === full) this.opening.delete(sessionId)
    }
  }
}
