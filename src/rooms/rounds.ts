/**
 * Rounds: record a post, run one round (speakers one at a time, in order, within the limits), each
 * member's turn in its hidden Session, every outcome logged before the next turn, the report back
 * recorded in the outbox before the round's end; the chain a member turn carries; a held round waits.
 * Deliberately does not decide authority, open Sessions or frame the stream; reads team state only.
 */
import { randomUUID } from 'node:crypto'
import type { Agent } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { roomTurnSource, type Chain, type RoomNote } from '../core/sources.ts'
import type { Bot, Group, TeamState } from '../store/index.ts'
import {
  afterPost,
  firstSpeakers,
  isPass,
  memberChain,
  nextSpeaker,
  postLine,
  renderPost,
  replayRound,
  reportChain,
  startRound,
  turnText,
  windowFor,
  type Poster,
  type RoomShape,
  type TakenTurn,
} from './policy.ts'
import type { RoomLimits } from '../core/limits.ts'
import type { RoomInput, RoomPiece } from './stream.ts'
import { messageText } from './stream.ts'
import type { LoggedPost, Transcript, TurnOutcomeKind } from './transcript.ts'
import { errorText } from '../core/errors.ts'

/** How one member's turn went. */
export type TurnOutcome =
  | { kind: 'posted'; text: string }
  | { kind: 'pass' }
  | { kind: 'missed' }
  | { kind: 'failed'; reason: string }
  /** Its turn was cancelled from outside (the room's turn stopped, removed from the group, deleted). */
  | { kind: 'stopped' }

/** One round, as recorded for the team page and tests (bounded log). */
export interface RoundRecord {
  groupId: string
  /** The post that started it. */
  postId: string
  startedBy: 'user' | string
  first: string[]
  turns: { botId: string; outcome: TurnOutcome['kind'] }[]
  dropped: { id: string; why: string }[]
  maxTurns: number
  /** The round continued one cut by a crash. */
  resumed?: boolean
  /** The report back to the poster (report=true only). */
  report?: { ok: true } | { ok: false; reason: string }
  endedAt?: string
}

const MAX_ROUND_LOG = 200
/** After cancelling a member's turn, how long to wait for it to wind down. */
const CANCEL_GRACE_MS = 5_000

/** What the rounds need from the service (a narrow interface, no service internals). */
export interface RoundHost {
  readonly limits: RoomLimits
  readonly transcript: Transcript
  state(): Readonly<TeamState>
  bot(id: string): Bot | undefined
  memberAgent(groupId: string, botId: string): Promise<Agent>
  /**
   * Make a member Session's log durable now. DSH batches Session writes (up to 200 ms), while the
   * post log records a turn (and the member's cursor) at once: without this, a crash right after
   * a turn leaves the cursor past what the member's log holds, or a member Session recorded in
   * team state with no log at all (resumed after restart as a fresh, empty Session).
   */
  flush(agent: Agent): Promise<void>
  /** Send a round's replies back to the posting Bot's own chat (through the outbox where it runs). */
  sendReport(report: { groupId: string; groupName: string; to: string; postId: string; body: string; chain: Chain }): Promise<void>
  /** A one-line notice in the room (no round). */
  announce(groupId: string, text: string): Promise<void>
  /** Save the group's cursors to team state (best effort). */
  saveCursors(groupId: string): Promise<void>
  /** Draw one Bot-started turn of the chain from its work budget; false when it is spent. */
  draw(groupId: string, chain: Chain, opts?: { force?: boolean }): Promise<boolean>
  /** The user wrote in the room: reset the count of Bot-started rounds (team state). */
  userSpoke(groupId: string): Promise<void>
  /** Why rounds in the group are held right now (`botPause`: the pause switch, caps), or undefined. */
  heldBecause(groupId: string): string | undefined
  /** Resolves when rounds in the group may start again, or when `signal` aborts. */
  whenReleased(groupId: string, signal: AbortSignal | undefined): Promise<void>
  /** False once the service is disposed: a round cut by shutdown is not marked ended. */
  alive(): boolean
  /** Why this Bot may not take a Bot-started turn now (its or the team's daily spending cap), else undefined. */
  holdsBotWork?(botId: string): string | undefined
  warn(what: string, error: unknown): void
  /** The round moved (a turn started or ended, the round ended); read-only, must not throw. */
  progress?(record: Readonly<RoundRecord>, speaking?: string): void
}

type PostInput = Extract<RoomInput, { kind: 'post' }>

const notice = (text: string) => `_${text.replace(/\s+/g, ' ').trim().replace(/_/g, '\\_')}_\n\n`
/** One of the room's own lines: its text in the answer, and its record (`RoomNote`) for the room view. */
const noted = (n: RoomNote, text = notice(n.text)): RoomPiece => ({ note: n, text })

export class Rounds {
  /** Groups with a round running right now. */
  private readonly running = new Set<string>()
  private readonly log: RoundRecord[] = []

  private readonly host: RoundHost

  constructor(host: RoundHost) {
    this.host = host
  }

  isRunning(groupId: string): boolean {
    return this.running.has(groupId)
  }

  records(groupId?: string): readonly RoundRecord[] {
    return this.log.filter((r) => groupId === undefined || r.groupId === groupId)
  }

  /**
   * The one place a member turn draws from the chain's work budget (the service's `draw`, in team
   * state); false when the budget is spent, and the turn is then recorded failed with that reason.
   */
  private drawTurn(groupId: string, chain: Chain): Promise<boolean> {
    return this.host.draw(groupId, chain)
  }

  /** The room's text for one input: a notice, the opening, or a post and its round. */
  async *handle(groupId: string, input: RoomInput, signal: AbortSignal | undefined): AsyncGenerator<RoomPiece> {
    const group = this.host.state().groups[groupId]!
    if (input.kind === 'open') {
      const names = group.members.map((id) => this.host.bot(id)?.name ?? id)
      const facts = `${names.join(', ')}${group.admin ? `; admin ${this.host.bot(group.admin)?.name}` : '; no admin'}; ${group.mode} mode`
      yield noted({ kind: 'open', text: `Group ${group.name} is open: ${facts}.` }, `_Group **${group.name}** is open: ${facts}._\n\n`)
      return
    }
    if (input.kind === 'notice') {
      yield noted({ kind: 'notice', text: input.text })
      return
    }
    yield* this.post(groupId, input, signal)
  }

  private async *post(groupId: string, input: PostInput, signal: AbortSignal | undefined): AsyncGenerator<RoomPiece> {
    const group = this.host.state().groups[groupId]!
    const { transcript } = this.host
    const post = transcript.addPost(groupId, {
      id: input.postId,
      round: input.postId,
      from: input.poster.kind === 'user' ? 'user' : input.poster.botId,
      name: input.name,
      text: input.text,
      hop: input.chain.hop,
    })
    if (input.poster.kind === 'user') await this.host.userSpoke(groupId)
    else yield `${renderPost(input.name, input.text)}\n\n`
    const said: LoggedPost[] = []
    const so = transcript.round(groupId, post.id)
    if (so?.ended) {
      // The round ran to its end before a crash lost the room's text: show it again, run nothing.
      for (const t of so.turns) yield this.renderTurn(groupId, t.botId, t.outcome, t.post)
      return
    }
    // A round the user started opens its own work budget (keyed by the post); a Bot's post carries its turn's.
    const chain = input.poster.kind === 'user' && !input.chain.budget ? { ...input.chain, budget: `budget:${groupId}#${post.id}` } : input.chain
    // Paused (or capped): the post is in the room and its round waits before its first member
    // turn; a restart meanwhile finds the post unanswered and waits again (the room's recovery).
    const held = this.host.heldBecause(groupId)
    if (held) {
      yield noted({ kind: 'held', text: `Held: ${held}. The round starts when the team resumes.`, round: post.id })
      await this.host.whenReleased(groupId, signal)
      if (signal?.aborted || !this.host.alive()) return
    }
    try {
      const highest = yield* this.round(groupId, post, input.poster, chain, signal, said)
      // The report is recorded before the round's end is logged: a crash in between resumes the
      // round, which ends again and finds its report already recorded (the outbox keys it by post).
      if (input.report && input.poster.kind === 'bot')
        await this.report({ id: input.poster.botId, name: input.name }, group, post.id, said, reportChain(chain, highest))
    } finally {
      // A round cut by shutdown (not by the person stopping the room) is resumed at the next start.
      if (this.host.alive()) transcript.endRound(groupId, post.id)
    }
  }

  private renderTurn(groupId: string, botId: string, outcome: TurnOutcomeKind, postSeq?: number, reason?: string): string {
    const name = this.host.bot(botId)?.name ?? botId
    if (outcome === 'posted') {
      const p = this.host.transcript.posts(groupId).find((x) => x.seq === postSeq)
      return p ? `${renderPost(p.name, p.text)}\n\n` : ''
    }
    if (outcome === 'missed') return notice(`${name} did not answer within ${Math.round(this.host.limits.turnTimeoutMs / 100) / 10} s and was marked missed.`)
    if (outcome === 'stopped') return notice(`${name}'s turn was stopped.`)
    if (outcome === 'failed') return notice(`${name} failed and was skipped${reason ? `: ${reason.replace(/\s+/g, ' ').slice(0, 300)}` : '.'}`)
    return ''
  }

  /** Room shape for the pure policy: live members only, in order. */
  private shape(group: Group): RoomShape {
    const members = group.members.filter((id) => this.host.bot(id)).map((id) => ({ id, name: this.host.bot(id)!.name }))
    return { members, mode: group.mode, ...(group.admin && members.some((m) => m.id === group.admin) ? { admin: group.admin } : {}) }
  }

  /** One round (or the rest of one cut by a crash). Yields the room's text; returns the highest hop. */
  private async *round(
    groupId: string,
    post: LoggedPost,
    poster: Poster,
    chain: Chain,
    signal: AbortSignal | undefined,
    said: LoggedPost[],
  ): AsyncGenerator<RoomPiece, number> {
    const { transcript, limits } = this.host
    let group = this.host.state().groups[groupId]!
    const room = this.shape(group)
    const first = firstSpeakers(room, poster, post.text)
    const before = transcript.round(groupId, post.id)?.turns ?? []
    const taken: TakenTurn[] = before.map((t) => ({
      botId: t.botId,
      posted: t.outcome === 'posted' ? (transcript.posts(groupId).find((p) => p.seq === t.post)?.text ?? '') : undefined,
    }))
    const plan = taken.length ? replayRound(room, first, limits, taken) : startRound(room, first, limits)
    const record: RoundRecord = {
      groupId,
      postId: post.id,
      startedBy: poster.kind === 'user' ? 'user' : poster.botId,
      first,
      turns: before.map((t) => ({ botId: t.botId, outcome: t.outcome })),
      dropped: plan.dropped,
      maxTurns: plan.maxTurns,
      ...(taken.length ? { resumed: true } : {}),
    }
    this.log.push(record)
    if (this.log.length > MAX_ROUND_LOG) this.log.shift()
    for (const t of before) yield this.renderTurn(groupId, t.botId, t.outcome, t.post)
    let previous = before
      .filter((t) => t.outcome === 'posted')
      .map((t) => this.host.bot(t.botId)?.name)
      .at(-1)
    let highest = before.length ? chain.hop + 1 : chain.hop
    this.running.add(groupId)
    try {
      for (let id = nextSpeaker(plan); id !== undefined; id = nextSpeaker(plan)) {
        if (signal?.aborted) break
        group = this.host.state().groups[groupId]!
        if (group.deleted) break
        const bot = this.host.bot(id)
        if (!group.members.includes(id) || !bot) continue
        const turnChain = memberChain(chain, bot.permissionPreset)
        highest = Math.max(highest, turnChain.hop)
        const place = { place: plan.turns, planned: plan.turns + plan.queue.length, after: previous }
        this.host.progress?.(record, id)
        const held = poster.kind === 'bot' ? this.host.holdsBotWork?.(id) : undefined
        const { outcome, upto } = held
          ? { outcome: { kind: 'failed', reason: held } as TurnOutcome, upto: transcript.cursor(groupId, id) }
          : (await this.drawTurn(groupId, turnChain))
            ? await this.memberTurn(groupId, id, place, turnChain, signal)
            : { outcome: { kind: 'failed', reason: 'the work budget of this request is spent' } as TurnOutcome, upto: transcript.cursor(groupId, id) }
        record.turns.push({ botId: id, outcome: outcome.kind })
        this.host.progress?.(record)
        if (outcome.kind === 'posted') {
          const p = transcript.addPost(groupId, {
            id: `post-${randomUUID()}`,
            round: post.id,
            from: id,
            name: bot.name,
            text: outcome.text,
            hop: turnChain.hop,
          })
          transcript.addTurn(groupId, post.id, id, 'posted', upto, p.seq)
          said.push(p)
          previous = bot.name
          yield `${renderPost(bot.name, p.text)}\n\n`
          afterPost(plan, room, id, p.text, limits)
        } else {
          transcript.addTurn(groupId, post.id, id, outcome.kind, upto)
          yield this.renderTurn(groupId, id, outcome.kind, undefined, outcome.kind === 'failed' ? outcome.reason : undefined)
        }
      }
      if (plan.dropped.some((d) => d.why === 'turn-cap'))
        yield noted({ kind: 'turn-cap', text: `This round reached its limit of ${plan.maxTurns} turns.`, round: post.id })
    } finally {
      this.running.delete(groupId)
      record.endedAt = new Date().toISOString()
      this.host.progress?.(record)
      await this.host.saveCursors(groupId)
    }
    return highest
  }

  /** One member's turn: what it has not seen, then its reply (or pass / missed / failed / stopped). */
  private async memberTurn(
    groupId: string,
    botId: string,
    place: { place: number; planned: number; after: string | undefined },
    chain: Chain,
    signal: AbortSignal | undefined,
  ): Promise<{ outcome: TurnOutcome; upto: number }> {
    const { transcript, limits } = this.host
    const since = transcript.cursor(groupId, botId)
    let agent: Agent
    try {
      agent = await this.host.memberAgent(groupId, botId)
    } catch (error) {
      return { outcome: { kind: 'failed', reason: errorText(error) }, upto: since }
    }
    const group = this.host.state().groups[groupId]!
    const { shown, omitted } = windowFor(transcript.posts(groupId), since, botId, limits)
    const upto = transcript.end(groupId)
    const text = turnText({ groupName: group.name, notice: group.notice, place: place.place, planned: place.planned, after: place.after, shown, omitted })
    const before = agent.session.events.length
    agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: roomTurnSource({ groupId, groupName: group.name }, chain) }))
    const ended = await idleWithin(agent, limits.turnTimeoutMs, signal)
    if (ended !== 'idle') {
      agent.cancel({ kind: 'hook', reason: ended === 'timeout' ? 'the group turn timed out' : 'the group round was stopped' })
      await idleWithin(agent, CANCEL_GRACE_MS, undefined)
      await this.host.flush(agent)
      return { outcome: ended === 'timeout' ? { kind: 'missed' } : { kind: 'stopped' }, upto }
    }
    // The turn is in the member's log on disk before the post log records it (the caller does).
    await this.host.flush(agent)
    const events = agent.session.events.slice(before)
    const end = events.filter((e) => e.type === 'turn/end').at(-1)?.data as
      | { reason?: { kind?: string; error?: { message?: string }; message?: string } }
      | undefined
    const replies = events
      .filter((e) => e.type === 'assistant/message')
      .map((e) => {
        const data = e.data as unknown as { message?: { content: readonly { type: string; text?: string }[] } }
        return data.message ? messageText(data.message) : ''
      })
      .filter((t) => t.trim())
    const reply = replies.at(-1) ?? ''
    if (end?.reason?.kind === 'aborted' || end?.reason?.kind === 'cancelled') return { outcome: { kind: 'stopped' }, upto }
    if (end?.reason?.kind === 'error' || (!reply && end?.reason?.kind !== 'completed')) {
      return {
        outcome: { kind: 'failed', reason: end?.reason?.error?.message ?? end?.reason?.message ?? `turn ended: ${end?.reason?.kind ?? 'unknown'}` },
        upto,
      }
    }
    return { outcome: isPass(reply) ? { kind: 'pass' } : { kind: 'posted', text: reply.trim() }, upto }
  }

  /**
   * Send the round's replies to the poster's own chat. A failure is not swallowed: the room shows
   * a notice, the round record says why, and the process log has it.
   */
  private async report(poster: { id: string; name: string }, group: Group, postId: string, said: readonly LoggedPost[], chain: Chain): Promise<void> {
    const record = this.log.findLast((r) => r.postId === postId && r.groupId === group.id)
    const { id: botId, name } = poster
    try {
      // Like a reply, the report always arrives (it still counts, so the turn it opens cannot start more).
      const body = said.length ? said.map((p) => postLine(p.name, p.text)).join('\n') : '(nobody posted a reply)'
      await this.host.sendReport({ groupId: group.id, groupName: group.name, to: botId, postId, body, chain })
      if (record) record.report = { ok: true }
    } catch (error) {
      const reason = errorText(error)
      if (record) record.report = { ok: false, reason }
      this.host.warn(`could not report group ${group.name}'s replies to ${name}`, error)
      await this.host
        .announce(group.id, `The replies could not be sent back to ${name}: ${reason}`)
        .catch((e: unknown) => this.host.warn('could not show the report failure in the room', e))
    }
  }
}

/** Wait until the agent is idle, at most `ms`, or until `signal` aborts; every timer is cleared. */
export function idleWithin(agent: Pick<Agent, 'whenIdle'>, ms: number, signal: AbortSignal | undefined): Promise<'idle' | 'timeout' | 'aborted'> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve('aborted')
    const timer = setTimeout(() => finish('timeout'), ms)
    const onAbort = () => finish('aborted')
    signal?.addEventListener('abort', onAbort, { once: true })
    function finish(how: 'idle' | 'timeout' | 'aborted') {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      resolve(how)
    }
    void agent.whenIdle().then(() => finish('idle'))
  })
}
