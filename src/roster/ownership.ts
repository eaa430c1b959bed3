/**
 * The Session-ownership index: Session id → owner (an own-chat part, a member Session, a task Session, a room), its
 * reverse, and marks for Sessions being created; rebuilt from team state on every change, one map
 * read on the hot path. Deliberately no DSH calls, no writes.
 */
import type { TeamState } from '../store/index.ts'

/** A Bot's own chat (one part of it), a Bot's Session in one group, or a Bot's Session for one task. */
export type BotSessionOwner =
  | { kind: 'own'; botId: string; part: number; groupId?: undefined; taskId?: undefined }
  | { kind: 'member'; botId: string; groupId: string; part?: undefined; taskId?: undefined }
  | { kind: 'task'; botId: string; taskId: string; part?: undefined; groupId?: undefined }

export type SessionOwner = BotSessionOwner | { kind: 'room'; groupId: string; botId?: undefined; part?: undefined; taskId?: undefined }

/** Which of a Bot's Sessions: own-chat parts, member or task Sessions, every part or only the current ones. */
export interface SessionKinds {
  kinds: ReadonlyArray<BotSessionOwner['kind']>
  current?: boolean
}

/** An owner being opened right now (its part number is not known yet for an own chat). */
export type OpeningOwner =
  | { kind: 'own'; botId: string }
  | { kind: 'member'; botId: string; groupId: string }
  | { kind: 'task'; botId: string; taskId: string }
  | { kind: 'room'; groupId: string }

/** One task Session as the ledger records it: whose, for which task, and whether the task works there now. */
export interface TaskSessionEntry {
  sessionId: string
  botId: string
  taskId: string
  current: boolean
}

export class SessionIndex {
  private owners = new Map<string, SessionOwner>()
  private byBot = new Map<string, string[]>()
  /** Each Bot's current own-chat part and current member Sessions. */
  private current = new Set<string>()
  private readonly opening = new Map<string, SessionOwner>()
  /** Task Sessions (from the task ledger, not team state): kept across rebuilds. */
  private readonly tasks = new Map<string, TaskSessionEntry>()
  private readonly tasksByBot = new Map<string, Set<string>>()

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

  /**
   * Record task Sessions as the ledger has them: `replace` drops every one recorded before (a
   * reload of the ledger); otherwise the entries are added or updated (a transition's tasks).
   */
  setTaskSessions(entries: Iterable<TaskSessionEntry>, replace = false): void {
    if (replace) {
      this.tasks.clear()
      this.tasksByBot.clear()
    }
    for (const e of entries) {
      const old = this.tasks.get(e.sessionId)
      if (old && old.botId !== e.botId) this.tasksByBot.get(old.botId)?.delete(e.sessionId)
      this.tasks.set(e.sessionId, { ...e })
      const set = this.tasksByBot.get(e.botId)
      if (set) set.add(e.sessionId)
      else this.tasksByBot.set(e.botId, new Set([e.sessionId]))
    }
  }

  /** A Bot's recorded Sessions of the given kinds (`current`: only its current part in each place). */
  sessionsOfKind(botId: string, kinds: SessionKinds): Array<{ sessionId: string; owner: BotSessionOwner }> {
    const out: Array<{ sessionId: string; owner: BotSessionOwner }> = []
    for (const sessionId of this.sessionsOf(botId)) {
      const owner = this.get(sessionId)
      if (!owner || owner.kind === 'room' || !kinds.kinds.includes(owner.kind)) continue
      if (kinds.current && !this.isCurrent(sessionId)) continue
      out.push({ sessionId, owner })
    }
    return out
  }

  private isCurrent(sessionId: string): boolean {
    const task = this.tasks.get(sessionId)
    return task ? task.current : this.current.has(sessionId)
  }

  /** Whose a Session is, including Sessions being opened right now. */
  get(sessionId: string): SessionOwner | undefined {
    const known = this.opening.get(sessionId) ?? this.owners.get(sessionId)
    if (known) return known
    const task = this.tasks.get(sessionId)
    return task ? { kind: 'task', botId: task.botId, taskId: task.taskId } : undefined
  }

  /** Every recorded Session id of a Bot: its own-chat parts (oldest first), then its group Sessions, then its task Sessions. */
  sessionsOf(botId: string): readonly string[] {
    const tasks = this.tasksByBot.get(botId)
    const recorded = this.byBot.get(botId) ?? []
    return tasks?.size ? [...recorded, ...tasks] : recorded
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
