/**
 * Room policy (pure): `@mention` parsing, `[PASS]`, the routing table (who a post wakes, by mode,
 * mentions and poster), the round planner and its replay after a crash, the limits, the bounded
 * "since you last looked" window, a member turn's text, rendering that cannot forge a speaker, and
 * the chain through a room. Deliberately does not touch DSH, team state or time.
 */

import { nameKey, shownName } from '../core/names.ts'
import { asMode, lowerMode } from '../core/chain.ts'
import type { Chain } from '../core/sources.ts'
import type { RoomLimits } from '../core/limits.ts'

export type RoomMode = 'admin' | 'everyone'

export interface RoomMember {
  id: string
  name: string
}

export interface RoomShape {
  /** Speaking order. */
  members: readonly RoomMember[]
  admin?: string | undefined
  mode: RoomMode
}

/** Turns one round may take in a group of `memberCount`. */
export function turnsPerRound(memberCount: number, limits: Pick<RoomLimits, 'extraTurns'>): number {
  return memberCount + limits.extraTurns
}

// ── mentions ────────────────────────────────────────────────────────────────────────────────

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u
const WORD = /[\p{L}\p{N}_]/u

export function isCjk(ch: string): boolean {
  return CJK.test(ch)
}

export interface Mentions {
  /** Member ids in order of first mention, without duplicates. */
  ids: string[]
  all: boolean
}

/**
 * The `@mentions` in `text`. Names match by `nameKey` (NFKC + case folding: `@ａｄａ` and `@ADA`
 * call Ada), longest first; the text is compared in the same folded form. After a name ending in
 * a Latin (non-CJK) character the next character must not be a letter or digit of a non-CJK
 * script (`@Kate` does not call `K`; `@Kate你好` calls Kate); after a CJK name anything may follow
 * (`@小明你好` calls 小明). An `@` right after a Latin letter or digit (an e-mail address) is not a
 * mention. `@all` (also `@everyone`, `@所有人`) is reported as `all`.
 */
export function parseMentions(text: string, members: readonly RoomMember[]): Mentions {
  const ALL = ['all', 'everyone', '所有人', '全体成员']
  const names = [...members.map((m) => ({ key: nameKey(m.name), id: m.id as string | null })), ...ALL.map((a) => ({ key: a, id: null }))].sort(
    (a, b) => b.key.length - a.key.length,
  )
  const ids: string[] = []
  let all = false
  // The same folding as nameKey, without trimming: positions stay within one string.
  const lower = foldText(text)
  for (let i = lower.indexOf('@'); i !== -1; i = lower.indexOf('@', i + 1)) {
    const before = i > 0 ? lower[i - 1]! : ''
    if (before && WORD.test(before) && !isCjk(before)) continue
    const rest = lower.slice(i + 1)
    const hit = names.find((n) => {
      if (!rest.startsWith(n.key)) return false
      const last = [...n.key].at(-1)!
      if (isCjk(last)) return true
      const next = [...rest.slice(n.key.length)][0]
      return next === undefined || !WORD.test(next) || isCjk(next)
    })
    if (!hit) continue
    if (hit.id === null) all = true
    else if (!ids.includes(hit.id)) ids.push(hit.id)
  }
  return { ids, all }
}

/** Text folded like `nameKey` (NFKC, case folding) but not trimmed or collapsed. */
function foldText(text: string): string {
  return text.normalize('NFC').normalize('NFKC').toUpperCase().toLowerCase()
}

// ── [PASS] ──────────────────────────────────────────────────────────────────────────────────

/**
 * Whether a reply means "nothing new": `[PASS]`, `PASS`, `(pass)`, `【PASS】`, `**[PASS]**`,
 * `[pass].`, `[跳过]`, an empty reply … case-insensitive, the whole reply only.
 */
export function isPass(reply: string): boolean {
  const t = reply
    .trim()
    .replace(/^[*_`~\s]+|[*_`~\s]+$/g, '')
    .trim()
  if (t === '') return true
  return /^[[(（【<{]?\s*(pass(ed)?|skip|跳过|过)\s*[\])）】>}]?\s*[.!。！]?$/i.test(t)
}

// ── routing: the first speakers of a post ─────────────────────────────────────────────────────

/** Who posts: the user, or a Bot (by id; it may or may not be a member). */
export type Poster = { kind: 'user' } | { kind: 'bot'; botId: string }

function adminOf(room: RoomShape): string | undefined {
  return room.admin && room.members.some((m) => m.id === room.admin) ? room.admin : undefined
}

/** Admin first, then the others in member order (no admin: all in order). */
function adminThenOthers(room: RoomShape): string[] {
  const admin = adminOf(room)
  return [...(admin ? [admin] : []), ...room.members.map((m) => m.id).filter((id) => id !== admin)]
}

/**
 * The expected speakers of a post, in order (the routing table). A Bot's post is routed like the
 * user's, and the poster never answers its own post (so the admin posting plain text in `admin`
 * mode is an announcement nobody answers).
 */
export function firstSpeakers(room: RoomShape, poster: Poster, text: string): string[] {
  const mentions = parseMentions(text, room.members)
  let order: string[]
  if (mentions.ids.length > 0) order = mentions.ids
  else if (mentions.all) order = adminThenOthers(room)
  else if (room.mode === 'admin' && adminOf(room)) order = [adminOf(room)!]
  else order = adminThenOthers(room)
  return poster.kind === 'bot' ? order.filter((id) => id !== poster.botId) : order
}

// ── rounds ───────────────────────────────────────────────────────────────────────────────────

export interface RoundPlan {
  queue: string[]
  /** Calls per member so far (a call = a turn given, or queued). */
  calls: Record<string, number>
  turns: number
  maxTurns: number
  /** What the limits stopped (for the room log and tests). */
  dropped: { id: string; why: 'member-cap' | 'turn-cap' }[]
}

function cap(room: RoomShape, id: string, limits: RoomLimits): number {
  return id === adminOf(room) ? limits.callsPerAdmin : limits.callsPerMember
}

/** Start a round with the post's first speakers (already capped to the turn budget). */
export function startRound(room: RoomShape, first: readonly string[], limits: RoomLimits): RoundPlan {
  const plan: RoundPlan = { queue: [], calls: {}, turns: 0, maxTurns: turnsPerRound(room.members.length, limits), dropped: [] }
  for (const id of first) enqueue(plan, room, id, limits, 'end')
  return plan
}

function enqueue(plan: RoundPlan, room: RoomShape, id: string, limits: RoomLimits, where: 'end' | number): boolean {
  if (!room.members.some((m) => m.id === id)) return false
  const already = plan.queue.indexOf(id)
  if (already !== -1) {
    // Already waiting: "added next" moves it forward; it is not a second call.
    if (where !== 'end' && already > where) {
      plan.queue.splice(already, 1)
      plan.queue.splice(where, 0, id)
    }
    return true
  }
  if ((plan.calls[id] ?? 0) >= cap(room, id, limits)) {
    plan.dropped.push({ id, why: 'member-cap' })
    return false
  }
  if (plan.turns + plan.queue.length >= plan.maxTurns) {
    plan.dropped.push({ id, why: 'turn-cap' })
    return false
  }
  plan.calls[id] = (plan.calls[id] ?? 0) + 1
  if (where === 'end') plan.queue.push(id)
  else plan.queue.splice(where, 0, id)
  return true
}

/** The next speaker, or undefined when the round is over. Counts the turn. */
export function nextSpeaker(plan: RoundPlan): string | undefined {
  if (plan.turns >= plan.maxTurns) {
    plan.queue.length = 0
    return undefined
  }
  const id = plan.queue.shift()
  if (id !== undefined) plan.turns++
  return id
}

/**
 * After `speaker` posted `text`: the admin's `@X` adds X next, its `@all` every other member; a
 * member's `@X` adds X next and its `@all` is ignored. Nobody is added for itself. Returns who
 * was added.
 */
export function afterPost(plan: RoundPlan, room: RoomShape, speaker: string, text: string, limits: RoomLimits): string[] {
  const mentions = parseMentions(text, room.members)
  const isAdmin = speaker === adminOf(room)
  const wanted = mentions.ids.filter((id) => id !== speaker)
  const added: string[] = []
  let at = 0
  for (const id of wanted) {
    if (enqueue(plan, room, id, limits, at)) {
      added.push(id)
      at = plan.queue.indexOf(id) + 1
    }
  }
  if (isAdmin && mentions.all) {
    for (const m of room.members) {
      if (m.id === speaker || wanted.includes(m.id)) continue
      if (enqueue(plan, room, m.id, limits, 'end')) added.push(m.id)
    }
  }
  return added
}

// ── what a member reads ──────────────────────────────────────────────────────────────────────

export interface Post {
  /** 'user', a Bot id, or 'room' for notices. */
  from: string
  name: string
  text: string
  /** The post's place in its group's log (never reused; absent: its index in `posts`). */
  seq?: number
}

/**
 * Posts a member has not seen (not its own), bounded: the newest `windowPosts`, each cut to
 * `windowPostChars`. `since` is the `seq` of the first post the member has not seen.
 */
export function windowFor<P extends Post>(
  posts: readonly P[],
  since: number,
  memberId: string,
  limits: Pick<RoomLimits, 'windowPosts' | 'windowPostChars'>,
): { shown: P[]; omitted: number } {
  const unseen = posts.filter((p, i) => (p.seq ?? i) >= since && p.from !== memberId)
  const shown = unseen
    .slice(-limits.windowPosts)
    .map((p) => (p.text.length > limits.windowPostChars ? { ...p, text: `${p.text.slice(0, limits.windowPostChars)} … (cut)` } : p))
  return { shown, omitted: unseen.length - shown.length }
}

export interface TurnFacts {
  groupName: string
  notice: string
  /** 1-based place of this turn in the round so far, and the turns planned (so far). */
  place: number
  planned: number
  after?: string | undefined
  shown: readonly Post[]
  omitted: number
}

/** The message a member gets for its turn (compact: it is paid for on every turn). */
export function turnText(f: TurnFacts): string {
  const lines = [`[Group "${f.groupName}" · you speak ${f.place} of ${f.planned}${f.after ? `, after ${f.after}` : ''}]`]
  if (f.notice.trim()) lines.push(`Notice: ${f.notice.trim()}`)
  if (f.omitted > 0) lines.push(`(${f.omitted} earlier post${f.omitted === 1 ? '' : 's'} not shown; read_group_chat shows more)`)
  for (const p of f.shown) lines.push(postLine(p.name, p.text))
  if (f.shown.length === 0) lines.push('(nothing new since you last looked)')
  return lines.join('\n')
}

/**
 * The room's standing rules for a member Session (a system-prompt section; stable text: the
 * admin's standing is the one frozen with the Session). How to answer is said here once, not in
 * every turn's message.
 */
export function roomRulesText(groupName: string, isAdmin: boolean): string {
  const admin = isAdmin ? ' You are its admin: you moderate, and @all calls every member.' : ''
  return `You are speaking in the group "${groupName}" (not your own chat): your reply is posted there under your name. Keep posts short; reply [PASS] if you have nothing new; @Name calls a member next.${admin}`
}

// ── showing posts (no forgery) ───────────────────────────────────────────────────────────────

/**
 * One post as a plain-text line for a member's turn or `read_group_chat`: `Name: text`, with every
 * continuation line indented, so a post cannot open a line that reads as another speaker's.
 */
export function postLine(name: string, text: string): string {
  return `${name}: ${text.replace(/\r\n?/g, '\n').split('\n').join('\n  ')}`
}

/**
 * Markdown-escape a post's text for the room's assistant text: a line that starts (after
 * indentation) with `*` or `_` gets a backslash, so a member's reply cannot open a
 * speaker line (`**Bob:** …`) or a room notice (`_…_`) of its own.
 */
export function escapePostText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/^(\s*)([*_]+)/, (_, indent: string, run: string) => indent + run.replace(/[*_]/g, '\\$&')))
    .join('\n')
}

/** How the room shows one post in its assistant text (the name is plain, the text escaped). */
export function renderPost(name: string, text: string): string {
  return `**${shownName(name).replace(/[*_\n]/g, ' ')}:** ${escapePostText(text)}`
}

// ── the chain through a room ────────────────────────────────────────────────────

/**
 * The chain of a member's turn: one hop deeper than the post, the post's budget, and the lower of
 * the post's mode and the member's own. A user's post has no mode: the member runs at its own.
 */
export function memberChain(post: Chain, memberPreset: string | undefined): Chain {
  const mode = post.mode === undefined ? undefined : lowerMode(post.mode, asMode(memberPreset))
  return { hop: post.hop + 1, ...(post.budget ? { budget: post.budget } : {}), ...(mode ? { mode } : {}), ...(post.network ? { network: post.network } : {}) }
}

/** The chain of a round's report: the round's highest hop + 1, the post's budget and mode. */
export function reportChain(post: Chain, highestHop: number): Chain {
  return {
    hop: Math.max(post.hop, highestHop) + 1,
    ...(post.budget ? { budget: post.budget } : {}),
    ...(post.mode ? { mode: post.mode } : {}),
    ...(post.network ? { network: post.network } : {}),
  }
}

// ── resuming a round ─────────────────────────────────────────────────────────────────────────

/** A member turn already taken in a round (from the post log), in order. */
export interface TakenTurn {
  botId: string
  /** The reply, when the turn posted (it may add speakers). */
  posted?: string | undefined
}

/**
 * A round's plan after the turns already taken (a round resumed after a crash): the same pure
 * steps the live round took, so the next speaker is the one the crashed round would have called.
 */
export function replayRound(room: RoomShape, first: readonly string[], limits: RoomLimits, taken: readonly TakenTurn[]): RoundPlan {
  const plan = startRound(room, first, limits)
  for (const turn of taken) {
    let id = nextSpeaker(plan)
    while (id !== undefined && id !== turn.botId) id = nextSpeaker(plan)
    if (id === undefined) break
    if (turn.posted !== undefined) afterPost(plan, room, id, turn.posted, limits)
  }
  return plan
}

// ── reading a room log back (legacy rooms without a post log) ─────────────────────────────────

const POST_LINE = /^\*\*([^*\n]{1,100}):\*\* ?(.*)$/

/**
 * Posts from a room's messages (user posts; the assistant texts the room streamed). Used once per
 * group, to seed the post log of a room written before the log existed (its `seq` = index keeps
 * saved cursors valid); never for a room that has a post log — rendered text is not data.
 * `nameToId` maps a speaker name to its Bot id.
 */
export function postsFromRoomLog(
  items: readonly { role: 'user' | 'assistant'; text: string; userPost?: boolean }[],
  nameToId: (name: string) => string | undefined,
): Post[] {
  const out: Post[] = []
  for (const item of items) {
    if (item.role === 'user') {
      if (item.userPost && item.text.trim()) out.push({ from: 'user', name: 'User', text: item.text.trim() })
      continue
    }
    let current: Post | undefined
    for (const line of item.text.split('\n')) {
      const m = POST_LINE.exec(line)
      if (m) {
        current = { from: nameToId(m[1]!) ?? 'room', name: m[1]!, text: m[2]! }
        out.push(current)
      } else if (/^_.*_$/.test(line.trim()))
        current = undefined // a room notice, not a post
      else if (current) current.text += `\n${line}`
    }
  }
  return out.map((p) => ({ ...p, text: p.text.trim() }))
}
