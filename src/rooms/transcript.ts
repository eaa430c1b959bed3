/**
 * Each group's posts and its members' "last looked" cursors (by `seq`), in memory, backed by the post
 * log: posts are data from the moment they exist, never read back from the room's Markdown; the
 * turns of each round, so a cut round resumes. Deliberately does not decide, run turns, save cursors.
 */
import { clipPost, type LogRecord, type PostLog, type TurnRecord } from './post-log.ts'
import { postsFromRoomLog, type Post } from './policy.ts'

export const MEMORY_POSTS = 1_000
export const MEMORY_ROUNDS = 100

export interface LoggedPost extends Post {
  seq: number
  id: string
  /** The id of the post that started this post's round. */
  round: string
  hop?: number | undefined
}

export type TurnOutcomeKind = TurnRecord['outcome']

export interface RoundSoFar {
  turns: TurnRecord[]
  ended: boolean
}

interface GroupTranscript {
  posts: LoggedPost[]
  nextSeq: number
  rounds: Map<string, RoundSoFar>
  /** botId → seq of the first post it has not seen. */
  cursors: Map<string, number>
}

/** The room's messages as a legacy seed reads them (for a group written before the post log). */
export type LegacySeed = readonly { role: 'user' | 'assistant'; text: string; userPost?: boolean }[]

const now = () => new Date().toISOString()

export class Transcript {
  private readonly groups = new Map<string, GroupTranscript>()

  private readonly log: PostLog | undefined
  /** Whether this process may append (only the team writer does). */
  private readonly canWrite: () => boolean
  private readonly warn: (what: string, error: unknown) => void

  constructor(log: PostLog | undefined, canWrite: () => boolean, warn: (what: string, error: unknown) => void) {
    this.log = log
    this.canWrite = canWrite
    this.warn = warn
  }

  loaded(groupId: string): boolean {
    return this.groups.has(groupId)
  }

  /**
   * Load a group from its post log; without one, seed the log once from the room's rendered
   * history (`seed`, legacy rooms only). `saved` are the cursors in team state; a group saved
   * before cursors existed has none: its members are taken as up to date.
   */
  load(
    groupId: string,
    members: readonly string[],
    saved: Readonly<Record<string, number>> | undefined,
    seed: () => { items: LegacySeed; nameToId: (name: string) => string | undefined } | undefined,
  ): void {
    let records: LogRecord[] = []
    try {
      if (this.log?.exists(groupId)) records = this.log.read(groupId)
      else {
        const legacy = seed()
        if (legacy?.items.length) {
          const at = now()
          records = postsFromRoomLog(legacy.items, legacy.nameToId).map((p, i) => ({
            t: 'post' as const,
            seq: i,
            id: `legacy-${i}`,
            round: 'legacy',
            from: p.from,
            name: p.name,
            text: clipPost(p.text),
            at,
          }))
          this.write(groupId, records)
        }
      }
    } catch (error) {
      this.warn(`could not read the post log of ${groupId}`, error)
    }
    const g: GroupTranscript = { posts: [], nextSeq: 0, rounds: new Map(), cursors: new Map() }
    for (const r of records) this.apply(g, r)
    for (const botId of members) {
      const from = saved ? (saved[botId] ?? 0) : g.nextSeq
      g.cursors.set(botId, Math.max(Math.min(from, g.nextSeq), g.cursors.get(botId) ?? 0))
    }
    this.groups.set(groupId, g)
  }

  private apply(g: GroupTranscript, r: LogRecord): void {
    if (r.t === 'post') {
      if (g.posts.some((p) => p.id === r.id)) return
      g.posts.push({ seq: r.seq, id: r.id, round: r.round, from: r.from, name: r.name, text: r.text, ...(r.hop !== undefined ? { hop: r.hop } : {}) })
      if (g.posts.length > MEMORY_POSTS) g.posts.shift()
      g.nextSeq = Math.max(g.nextSeq, r.seq + 1)
    } else if (r.t === 'turn') {
      this.roundOf(g, r.round).turns.push(r)
      // Cursors only move forward: a turn logged after the last saved cursors (a crash) wins.
      g.cursors.set(r.botId, Math.max(g.cursors.get(r.botId) ?? 0, r.upto))
    } else {
      this.roundOf(g, r.round).ended = true
    }
  }

  private roundOf(g: GroupTranscript, round: string): RoundSoFar {
    let so = g.rounds.get(round)
    if (!so) {
      so = { turns: [], ended: false }
      g.rounds.set(round, so)
      if (g.rounds.size > MEMORY_ROUNDS) g.rounds.delete(g.rounds.keys().next().value!)
    }
    return so
  }

  private group(groupId: string): GroupTranscript {
    let g = this.groups.get(groupId)
    if (!g) {
      g = { posts: [], nextSeq: 0, rounds: new Map(), cursors: new Map() }
      this.groups.set(groupId, g)
    }
    return g
  }

  private write(groupId: string, records: readonly LogRecord[]): void {
    if (!this.log || !this.canWrite()) return
    try {
      this.log.append(groupId, records)
    } catch (error) {
      // Kept in memory; the room Session still shows it. A restart may not find it.
      this.warn(`could not append to the post log of ${groupId}`, error)
    }
  }

  posts(groupId: string): readonly LoggedPost[] {
    return this.groups.get(groupId)?.posts ?? []
  }

  post(groupId: string, postId: string): LoggedPost | undefined {
    return this.groups.get(groupId)?.posts.find((p) => p.id === postId)
  }

  /** Record a post (once per id: a post already recorded is returned as it is). */
  addPost(groupId: string, p: { id: string; round: string; from: string; name: string; text: string; hop?: number | undefined }): LoggedPost {
    const g = this.group(groupId)
    const known = g.posts.find((x) => x.id === p.id)
    if (known) return known
    const record: LogRecord = {
      t: 'post',
      seq: g.nextSeq,
      id: p.id,
      round: p.round,
      from: p.from,
      name: p.name,
      text: clipPost(p.text),
      at: now(),
      ...(p.hop !== undefined ? { hop: p.hop } : {}),
    }
    this.apply(g, record)
    this.write(groupId, [record])
    return g.posts.at(-1)!
  }

  /** Record a member's turn and move its cursor to `upto`. */
  addTurn(groupId: string, round: string, botId: string, outcome: TurnOutcomeKind, upto: number, post?: number): void {
    const record: LogRecord = { t: 'turn', round, botId, outcome, upto, ...(post !== undefined ? { post } : {}), at: now() }
    this.apply(this.group(groupId), record)
    this.write(groupId, [record])
  }

  endRound(groupId: string, round: string): void {
    const record: LogRecord = { t: 'end', round, at: now() }
    this.apply(this.group(groupId), record)
    this.write(groupId, [record])
  }

  round(groupId: string, round: string): RoundSoFar | undefined {
    return this.groups.get(groupId)?.rounds.get(round)
  }

  /** The `seq` the next post will get (= "has seen everything"). */
  end(groupId: string): number {
    return this.groups.get(groupId)?.nextSeq ?? 0
  }

  cursor(groupId: string, botId: string): number {
    return this.groups.get(groupId)?.cursors.get(botId) ?? 0
  }

  cursors(groupId: string): ReadonlyMap<string, number> {
    return this.groups.get(groupId)?.cursors ?? new Map()
  }

  forgetGroup(groupId: string): void {
    this.groups.delete(groupId)
  }

  forgetMember(groupId: string, botId: string): void {
    this.groups.get(groupId)?.cursors.delete(botId)
  }

  forgetBot(botId: string): void {
    for (const g of this.groups.values()) g.cursors.delete(botId)
  }
}
