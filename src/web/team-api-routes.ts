/**
 * The browser half's team API: `/team` (the view), `/deliveries`, `/rooms/<group>/posts` (posts as
 * data), `/events` (the view pushed on every change, `secrets`, `room` and `tasks` events) and its ticket for
 * paired browsers. It cannot be flooded: streams are capped in all, per client and for paired
 * browsers, and one that stops reading is dropped. Deliberately read only.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from '@deepseek-ai/cordis'
import type {} from '@deepseek-ai/dsh-agent'
import type {} from '../secrets/service.ts'
import type {} from '../tasks/service.ts'
import { SessionId } from '@deepseek-ai/dsh-session'
import { HttpError, sendJson } from './http.ts'
import { deliveryLog, teamView, DELIVERY_LOG_MAX, type TeamView } from './team-view.ts'
import { awaitsApproval, endedStopped, type LogEventLike } from './session-status.ts'
import { z } from 'zod'
import type { RoundProgress } from '../rooms/progress.ts'
import type { RoomNote } from '../core/sources.ts'
import { formatIssues } from '../core/zod-issues.ts'
import type { Task } from '../tasks/record.ts'
import { CARDS_PER_EVENT, taskCard, waitingCount, type TaskFeedEvent } from './task-cards.ts'

export const COALESCE_MS = 25
export const KEEPALIVE_MS = 25_000
export const MAX_STREAMS = 32
/** Of `MAX_STREAMS`, the slots only paired browsers may take. */
export const PAIRED_SLOTS = 8
/** Streams one client may hold: a paired device, or (unpaired) one peer address. */
export const STREAMS_PER_CLIENT = 8
/** Bytes that may wait unsent on one stream before it is dropped (a reader that does not read). */
export const STREAM_BYTES_MAX = 4 * 1024 * 1024
/** How long a stream ticket is good for (the browser's reconnects reuse it). */
export const TICKET_TTL_MS = 24 * 3600_000
const MAX_TICKETS = 64

/** Who opens a stream: a paired device (by its id) or an unpaired peer. */
export interface StreamClient {
  paired: boolean
  /** The key streams are counted by: `device:<id>` or `peer:<address>`. */
  key: string
}

interface Stream {
  res: ServerResponse
  client: StreamClient
  /** A team snapshot was skipped while it had not drained: send the latest when it does. */
  behind: boolean
}
/** Most posts one answer carries. */
export const ROOM_POSTS_MAX = 200

export interface RoomPost {
  id: string
  seq: number
  round: string
  from: string
  name: string
  text: string
}
/** What the feed asks the rooms service about one room answer. */
export interface RoomAnswers {
  /** The rounds a room assistant message ran; undefined: no such message in the room. */
  rounds(groupId: string, messageId: string): string[] | undefined
  /** The room's own lines (opening, held, turn limit) a room assistant message carries. */
  notes?(groupId: string, messageId: string): readonly RoomNote[] | undefined
  /** A round's member turns so far. */
  turns(groupId: string, round: string): Promise<readonly { botId: string; outcome: string; post?: number }[]>
}

/** The live team and its push stream. */
export class TeamFeed {
  private readonly streams = new Set<Stream>()
  /** Stream tickets of paired devices: ticket → device id and expiry. */
  private readonly tickets = new Map<string, { deviceId: string; expiresAt: number }>()
  private timer: ReturnType<typeof setTimeout> | undefined
  /** When the last coalesced push went out (`Date.now()`). */
  private pushedAt = 0
  private last = ''
  private readonly read: () => TeamView | undefined
  /** A room's posts from the rooms service (undefined: no rooms service). */
  readonly posts: (groupId: string) => Promise<readonly RoomPost[]> | undefined

  readonly answers: RoomAnswers | undefined

  constructor(read: () => TeamView | undefined, posts: (groupId: string) => Promise<readonly RoomPost[]> | undefined = () => undefined, answers?: RoomAnswers) {
    this.read = read
    this.posts = posts
    this.answers = answers
  }

  /** A round moved: push it to every stream at once (not coalesced: each step is news). */
  room(progress: RoundProgress): void {
    const json = JSON.stringify(progress)
    for (const stream of this.streams) this.write(stream, `event: room\ndata: ${json}\n\n`)
  }

  /** Write to one stream; a stream with more than `STREAM_BYTES_MAX` waiting unsent is dropped. */
  private write(stream: Stream, text: string): void {
    stream.res.write(text)
    if (stream.res.writableLength > STREAM_BYTES_MAX) {
      this.streams.delete(stream)
      stream.res.destroy()
    }
  }

  /** A ticket a paired device's stream presents (`?ticket=`): its stream counts as paired. */
  ticket(deviceId: string, now = Date.now()): { ticket: string; expiresAt: string } {
    for (const [t, v] of this.tickets) if (v.expiresAt <= now) this.tickets.delete(t)
    const ticket = randomBytes(24).toString('base64url')
    this.tickets.set(ticket, { deviceId, expiresAt: now + TICKET_TTL_MS })
    while (this.tickets.size > MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value!)
    return { ticket, expiresAt: new Date(now + TICKET_TTL_MS).toISOString() }
  }

  /** Who a stream request is: the device its ticket names, else its peer address. */
  clientOf(req: IncomingMessage, now = Date.now()): StreamClient {
    const ticket = new URL(req.url ?? '/', 'http://x').searchParams.get('ticket')
    const held = ticket ? this.tickets.get(ticket) : undefined
    if (held && held.expiresAt > now) return { paired: true, key: `device:${held.deviceId}` }
    return { paired: false, key: `peer:${req.socket?.remoteAddress ?? 'unknown'}` }
  }

  snapshot(): TeamView | undefined {
    return this.read()
  }

  get streamCount(): number {
    return this.streams.size
  }

  /**
   * Something changed: push the new view to every stream — at once (next turn of the event loop,
   * so changes of the same moment go together) when nothing was pushed in the last `COALESCE_MS`,
   * else once that much time has passed since the last push. A lone status change is not held
   * back; a burst is still at most one event per `COALESCE_MS`.
   */
  changed(): void {
    if (this.timer || this.streams.size === 0) return
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.pushedAt = Date.now()
        this.push()
      },
      Math.max(0, this.pushedAt + COALESCE_MS - Date.now()),
    )
  }

  private push(): void {
    const view = this.read()
    if (!view) return
    const json = JSON.stringify(view)
    if (json === this.last) return
    this.last = json
    for (const stream of this.streams) {
      // A stream that has not taken the last one gets the latest once it drains, not every one.
      if (stream.res.writableNeedDrain) stream.behind = true
      else this.write(stream, `event: team\ndata: ${json}\n\n`)
    }
  }

  /** Tell every stream which tasks changed (their cards), or to read the board again. */
  tasks(event: TaskFeedEvent): void {
    const json = JSON.stringify(event)
    for (const stream of this.streams) this.write(stream, `event: tasks\ndata: ${json}\n\n`)
  }

  /** Tell every stream that `event` happened (no data: the client reads the matching route). */
  signal(event: 'secrets'): void {
    for (const stream of this.streams) this.write(stream, `event: ${event}\ndata: {}\n\n`)
  }

  /** Refuse a stream past the limits: the total, the slots kept for paired browsers, per client. */
  private admit(client: StreamClient): void {
    const open = [...this.streams]
    if (open.length >= MAX_STREAMS) throw new HttpError(503, `too many open team streams (at most ${MAX_STREAMS})`)
    if (!client.paired && open.filter((s) => !s.client.paired).length >= MAX_STREAMS - PAIRED_SLOTS)
      throw new HttpError(503, `too many open team streams; the last ${PAIRED_SLOTS} are kept for paired browsers (pair this one on the team page)`)
    if (open.filter((s) => s.client.key === client.key).length >= STREAMS_PER_CLIENT)
      throw new HttpError(503, `this client has ${STREAMS_PER_CLIENT} team streams open already; close one first`)
  }

  open(req: IncomingMessage, res: ServerResponse): void {
    const client = this.clientOf(req)
    this.admit(client)
    const view = this.read()
    if (!view) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      connection: 'keep-alive',
    })
    const json = JSON.stringify(view)
    this.last = json
    const stream: Stream = { res, client, behind: false }
    this.streams.add(stream)
    this.write(stream, `retry: 2000\nevent: team\ndata: ${json}\n\n`)
    res.on('drain', () => {
      if (!stream.behind || !this.streams.has(stream)) return
      stream.behind = false
      const latest = this.read()
      if (latest) this.write(stream, `event: team\ndata: ${JSON.stringify(latest)}\n\n`)
    })
    const keepalive = setInterval(() => {
      if (!stream.res.writableNeedDrain) this.write(stream, ': keepalive\n\n')
    }, KEEPALIVE_MS)
    keepalive.unref?.()
    const done = () => {
      clearInterval(keepalive)
      this.streams.delete(stream)
    }
    req.on('close', done)
    res.on('close', done)
  }

  /** End every stream (plugin unload). */
  close(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    for (const stream of this.streams) stream.res.end()
    this.streams.clear()
  }
}

/**
 * The `tasks` event of a ledger change: the changed tasks' cards and those of the tasks they block
 * (a blocker's end changes why they wait), or `reload` for a reloaded ledger or a large change.
 */
function taskEvent(ctx: Context, change: { tasks: readonly Task[]; reloaded: boolean }): TaskFeedEvent {
  const tasks = ctx.get('botTasks')
  if (!tasks) return { reload: true, waiting: 0 }
  const waiting = waitingCount(tasks.board.all())
  if (change.reloaded || change.tasks.length > CARDS_PER_EVENT) return { reload: true, waiting }
  const changed = new Map<string, Task>()
  for (const t of change.tasks) {
    changed.set(t.id, tasks.board.get(t.id) ?? t)
    for (const d of tasks.board.dependents(t.id)) changed.set(d.id, d)
  }
  if (changed.size > CARDS_PER_EVENT) return { reload: true, waiting }
  return { cards: [...changed.values()].map((t) => taskCard(t, t.status === 'blocked' ? tasks.waitsFor(t) : undefined)), waiting }
}

/** Build the feed from the plugin's services and keep it told of changes (Cordis effects). */
export function mountTeamFeed(ctx: Context): TeamFeed {
  const feed = new TeamFeed(
    () => {
      const store = ctx.get('botStore')
      if (!store) return undefined
      return teamView({
        state: store.state,
        store: store.status(),
        archive: ctx.get('botArchive')?.status,
        running: (sessionId) => ctx.get('agents')?.get(SessionId(sessionId))?.status === 'running',
        awaitingApproval: (botId) =>
          (ctx.get('botRoster')?.sessionsOf(botId) ?? []).some((sid) => {
            const agent = ctx.get('agents')?.get(SessionId(sid))
            return agent?.status === 'running' && awaitsApproval(agent.session.events as readonly LogEventLike[])
          }),
        stopped: (sessionId) => {
          const agent = ctx.get('agents')?.get(SessionId(sessionId))
          return agent !== undefined && endedStopped(agent.session.events as readonly LogEventLike[])
        },
        held: (botId) => ctx.get('botPause')?.heldBecause({ botId }),
        tasksWaiting: () => {
          const tasks = ctx.get('botTasks')
          return tasks ? waitingCount(tasks.board.all()) : undefined
        },
        network: (bot) => {
          const roster = ctx.get('botRoster')
          return roster ? { level: roster.levelOfBot(bot), problem: roster.networkProblem(bot) } : { level: bot.network ?? 'internet' }
        },
        asksWaiting: (botId) =>
          ctx
            .get('botTasks')
            ?.inbox()
            .filter((t) => t.ask?.botId === botId).length ?? 0,
      })
    },
    (groupId) => ctx.get('botRooms')?.transcript(groupId),
    {
      rounds: (groupId, messageId) => ctx.get('botRooms')?.answerRounds(groupId, messageId),
      notes: (groupId, messageId) => ctx.get('botRooms')?.answerParts(groupId, messageId)?.notes,
      turns: async (groupId, round) => (await ctx.get('botRooms')?.roundTurns(groupId, round)) ?? [],
    },
  )
  ctx.effect(() => () => feed.close(), 'bot-team:team-feed')
  ctx.on('bot-team/room-progress', (progress) => feed.room(progress))
  ctx.on('agent/status', ({ agent }) => {
    if (ctx.get('botRoster')?.ownerOf(String(agent.id))) feed.changed()
  })
  ctx.on('bot-team/secret-requested', () => feed.signal('secrets'))
  ctx.on('bot-team/tasks', (change) => {
    feed.changed()
    if (feed.streamCount) feed.tasks(taskEvent(ctx, change))
  })
  // A Bot Session's approval prompt opening or closing, a turn ending stopped, held work released.
  ctx.on('session/event', (session, event) => {
    if (
      (event.type === 'approval/asked' || event.type === 'approval/decided' || event.type === 'turn/end') &&
      ctx.get('botRoster')?.ownerOf(String(session.id))
    )
      feed.changed()
  })
  ctx.on('bot-team/work-released', () => feed.changed())
  const store = ctx.get('botStore')
  if (store) store.subscribe(() => feed.changed())
  return feed
}

const LogQuery = z.strictObject({
  bot: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(DELIVERY_LOG_MAX).optional(),
})

const RoundQuery = z.strictObject({ round: z.string().min(1).max(200).optional(), message: z.string().min(1).max(200).optional() })

/** One room's posts (`/rooms/<group id>/posts`), newest `ROOM_POSTS_MAX`, or one round's. */
async function roomPosts(
  groupId: string,
  req: IncomingMessage,
  res: ServerResponse,
  feed: TeamFeed,
  state: Parameters<typeof deliveryLog>[0] | undefined,
): Promise<void> {
  const group = state && Object.hasOwn(state.groups, groupId) ? state.groups[groupId] : undefined
  if (!group || group.deleted) throw new HttpError(404, `No group with id "${groupId}".`)
  const query = RoundQuery.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams))
  if (!query.success) throw new HttpError(400, formatIssues(query.error))
  const all = await feed.posts(groupId)
  if (!all) throw new HttpError(503, 'rooms are not available (see /bot-team/api/status)')
  const { round, message } = query.data
  if (round && message) throw new HttpError(400, 'ask for one of round or message, not both')
  let rounds: string[] | undefined = round ? [round] : undefined
  if (message) {
    rounds = feed.answers?.rounds(groupId, message)
    if (!rounds) throw new HttpError(404, `No room message with id "${message.slice(0, 100)}" in group "${groupId}".`)
  }
  const chosen = (rounds ? all.filter((p) => rounds.includes(p.round)) : all).slice(-ROOM_POSTS_MAX)
  const out = { id: group.id, name: group.name }
  const posts = chosen.map((p) => ({ id: p.id, seq: p.seq, round: p.round, from: p.from, name: p.name, text: p.text.slice(0, 20_000) }))
  if (!message || !rounds) return sendJson(res, 200, { group: out, posts })
  const turns = await Promise.all(rounds.map(async (r) => ({ round: r, turns: (await feed.answers?.turns(groupId, r)) ?? [] })))
  sendJson(res, 200, { group: out, rounds, posts, turns, notes: feed.answers?.notes?.(groupId, message) ?? [] })
}

/** `/team`, `/deliveries`, `/rooms/<id>/posts` and `/events`; anything else under them is a 404. */
export async function teamApi(
  method: string,
  head: string,
  rest: readonly string[],
  req: IncomingMessage,
  res: ServerResponse,
  feed: TeamFeed | undefined,
  state?: () => Parameters<typeof deliveryLog>[0] | undefined,
): Promise<void> {
  if (head === 'rooms') {
    if (rest.length !== 2 || rest[1] !== 'posts') throw new HttpError(404, `no such route: /rooms/${rest.join('/').slice(0, 100)}`)
    if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /rooms`)
    if (!feed) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
    return roomPosts(rest[0]!, req, res, feed, state?.())
  }
  if (rest.length > 0) throw new HttpError(404, `no such route: /${head}/${rest.join('/').slice(0, 100)}`)
  if (method !== 'GET') throw new HttpError(405, `${method} not allowed on /${head}`)
  if (!feed) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
  if (head === 'events') return feed.open(req, res)
  if (head === 'deliveries') {
    const current = state?.()
    if (!current) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
    const query = LogQuery.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams))
    if (!query.success) throw new HttpError(400, formatIssues(query.error))
    return sendJson(res, 200, {
      deliveries: deliveryLog(current, { ...(query.data.bot ? { bot: query.data.bot } : {}), ...(query.data.limit ? { limit: query.data.limit } : {}) }),
    })
  }
  const view = feed.snapshot()
  if (!view) throw new HttpError(503, 'the team is not available (see /bot-team/api/status)')
  sendJson(res, 200, view)
}
