/**
 * `read_own_chat`'s answer — a search, the lines around an anchor, the note that closed a part, or
 * the latest lines — from one Bot's partition, as bounded plain text with anchors; the asking turn's
 * own lines are never shown. Deliberately does not check authority, catch up or know about DSH, so
 * the bench measures this same code.
 */
import { anchor, anchorTime, parseAnchor } from '../core/anchors.ts'
import { bm25, idf, rankAll, rankMost, type Candidate } from './rank.ts'
import { SEQ_SPACE, type ArchiveIndex, type SessionMark, type StoredLine } from './index-db.ts'
import { allTermsExpression, excerpt, firstHit, hasCjk, parseQuery, termExpression, type QueryTerm } from './text.ts'

/** Most lines a search shows. */
export const SEARCH_RESULTS = 20
/** Newest matches of one expression considered for ranking (all terms); per term in the fallback. */
export const CANDIDATES = 200
export const TERM_CANDIDATES = 100
/** Lines shown with no argument. */
export const LATEST_LINES = 12
export const AROUND_BEFORE = 6
export const AROUND_AFTER = 7
/** A line in a list is an excerpt of this many characters; the anchored message is shown whole up to ANCHOR_CHARS. */
export const LINE_CHARS = 400
export const ANCHOR_CHARS = 12_000
/** Hard bound on the whole answer. */
export const MAX_ANSWER_CHARS = 24_000

export interface OwnChatArgs {
  query?: string
  around?: string
  part?: number
}

export interface PartInfo {
  sid: string
  part: number
  startedAt?: string
  endedAt?: string
  /** The handoff note that closed this part (src/context/), when one was written. */
  closingNote?: string
}

export interface OwnChatRequest {
  botId: string
  args: OwnChatArgs
  /** The Bot's own-chat parts, oldest first (the last is the current one). */
  parts: readonly PartInfo[]
  /** The Bot's task Sessions (part `-N` for task N), searched and read like its parts. */
  tasks?: readonly PartInfo[]
  /** The asking turn: lines of this Session from this seq on are not shown. */
  hide?: { sid: string; fromSeq: number }
  /** The index is behind the logs right now (catch-up running). */
  catchingUp?: boolean
}

export const partitionKeyOfBot = (botId: string) => `bot:${botId}`
export const partitionKeyOfRoom = (groupId: string) => `room:${groupId}`

const SPEAKER: Record<string, string> = { user: 'User: ', you: 'You: ', summary: 'Summary: ' }

class View {
  private readonly byId = new Map<number, SessionMark>()
  private readonly hideSess: number | undefined
  readonly index: ArchiveIndex
  readonly marks: SessionMark[]
  private readonly hide: OwnChatRequest['hide']
  constructor(index: ArchiveIndex, marks: SessionMark[], hide: OwnChatRequest['hide']) {
    this.index = index
    this.marks = marks
    this.hide = hide
    for (const m of marks) this.byId.set(m.id, m)
    this.hideSess = hide ? marks.find((m) => m.sid === hide.sid)?.id : undefined
  }
  hidden(line: { sess: number; seq: number }): boolean {
    return this.hideSess !== undefined && line.sess === this.hideSess && line.seq >= this.hide!.fromSeq
  }
  anchor(line: StoredLine): string {
    const part = this.byId.get(line.sess)?.part
    return anchor(line, part === 0 ? 'room' : (part ?? '?'))
  }
  render(line: StoredLine, max: number, terms: readonly QueryTerm[] = []): string {
    const body =
      max >= ANCHOR_CHARS
        ? line.text.length > max
          ? `${line.text.slice(0, max)}… [cut: ${line.text.length - max} more characters]`
          : line.text
        : excerpt(line.text, firstHit(line.text.replace(/\s+/g, ' ').trim(), terms), max)
    return `${this.anchor(line)} ${SPEAKER[line.who] ?? ''}${body}`
  }
  /** Lines for candidate ids, best first, skipping hidden ones, at most `n`. */
  take(ids: readonly number[], n: number): StoredLine[] {
    const out: StoredLine[] = []
    for (const id of ids) {
      if (out.length >= n) break
      const line = this.index.line(id)
      if (line && !this.hidden(line)) out.push(line)
    }
    return out
  }
}

function search(view: View, partition: number, raw: string, scope = 'your own chat'): string[] {
  const parsed = parseQuery(raw)
  const notes = parsed.notes.map((n) => `(Note: ${n}.)`)
  const { terms } = parsed
  if (terms.length === 0) return ['The query has no words or characters to search for.', ...notes]
  const labels = terms.map((t) => `"${t.label}"`).join(', ')
  const cjkLetter = (t: QueryTerm) => t.prefix && hasCjk(t.tokens[0]!)
  const { rows, avgLength } = view.index.corpus(partition)
  const score = (ids: readonly number[], idfs: readonly number[]): Candidate[] => {
    const lengths = view.index.lengths(partition, ids)
    return ids.map((id) => ({ id, score: bm25(idfs, lengths.get(id) ?? avgLength, avgLength) }))
  }
  // Exact words first; a one-word query widens to the words it starts only if that finds nothing
  // (one prefix query at most: it merges the doclists of every word it starts, in full).
  for (const widen of terms.length === 1 && terms[0]!.prefix && !cjkLetter(terms[0]!) ? [false, true] : [false]) {
    const ids = view.index.matches(partition, allTermsExpression(terms, widen || terms.some(cjkLetter)), CANDIDATES)
    // Every candidate has every term: the terms' IDF weigh all of them alike.
    const all = rankAll(
      score(
        ids,
        terms.map(() => 1),
      ),
    )
    const found = view.take(
      all.map((c) => c.id),
      SEARCH_RESULTS,
    )
    if (found.length > 0) {
      const how = widen ? ' (words starting with these)' : ''
      return [`${found.length} line(s) of ${scope} for ${labels}${how}, best match first:`, ...found.map((l) => view.render(l, LINE_CHARS, terms)), ...notes]
    }
  }
  if (terms.length > 1) {
    // Each term exactly (a single CJK character is always a prefix): a prefix query merges the
    // doclists of every word it starts, in full.
    const lists = terms.map((t) => view.index.matches(partition, termExpression(t, cjkLetter(t)), TERM_CANDIDATES))
    // Only lines that can reach the answer need a length: those with the most terms, down to the
    // term count that fills it.
    const counts = new Map<number, number>()
    for (const list of lists) for (const id of list) counts.set(id, (counts.get(id) ?? 0) + 1)
    const byCount = [...counts.values()].sort((a, b) => b - a)
    const floor = byCount[Math.min(byCount.length, SEARCH_RESULTS * 2) - 1] ?? 1
    const perTerm: Candidate[][] = lists.map((ids) =>
      score(
        ids.filter((id) => counts.get(id)! >= floor),
        [idf(rows, ids.length)],
      ),
    )
    const most = rankMost(perTerm)
    const lines = view.take(
      most.map((h) => h.id),
      SEARCH_RESULTS,
    )
    if (lines.length > 0) {
      const count = new Map(most.map((h) => [h.id, h.terms.length]))
      return [
        `No line of ${scope} has all of ${labels}. The lines with the most of these terms, best first:`,
        ...lines.map((l) => `${view.render(l, LINE_CHARS, terms)} (${count.get(l.id)} of ${terms.length} terms)`),
        ...notes,
      ]
    }
  }
  return [`Nothing found in ${scope} for ${labels}.`, ...notes]
}

/** How a part is named in an answer: `part 2`, or `task-7` for a task Session. */
const partName = (part: number | undefined) => (part !== undefined && part < 0 ? `task-${-part}` : `part ${part}`)

function around(view: View, parts: readonly PartInfo[], text: string): string[] {
  const anchor = parseAnchor(text)
  if (!anchor) return ['Refused: "around" takes an anchor like "part 2 #135" (or "#135" for the current part), as shown before each line.']
  const part = anchor.part ?? parts.at(-1)?.part
  const mark = view.marks.find((m) => m.part === part)
  if (!mark) return [`There is no ${partName(part)} in your own chat${parts.length ? ` (parts: ${parts.map((p) => p.part).join(', ')})` : ''}.`]
  const from = view.index.walk(mark.id, anchor.seq, 1, AROUND_AFTER + 1).filter((l) => !view.hidden(l))
  const before = view.index
    .walk(mark.id, anchor.seq, -1, AROUND_BEFORE)
    .filter((l) => !view.hidden(l))
    .reverse()
  const at = from[0]
  const name = partName(part)
  if (!at) return [`Nothing at or after ${name} #${anchor.seq} in your own chat.`, ...before.map((l) => view.render(l, LINE_CHARS))]
  const head =
    at.seq === anchor.seq
      ? `${name[0]!.toUpperCase()}${name.slice(1)} around #${anchor.seq}:`
      : `No line at ${name} #${anchor.seq}; the nearest after it is #${at.seq}:`
  return [head, ...before.map((l) => view.render(l, LINE_CHARS)), `${view.render(at, ANCHOR_CHARS)}`, ...from.slice(1).map((l) => view.render(l, LINE_CHARS))]
}

function latest(view: View): string[] {
  const out: StoredLine[] = []
  for (const mark of [...view.marks].reverse()) {
    if (out.length >= LATEST_LINES) break
    out.push(
      ...view.index
        .walk(mark.id, SEQ_SPACE - 1, -1, LATEST_LINES * 2)
        .filter((l) => !view.hidden(l))
        .slice(0, LATEST_LINES - out.length),
    )
  }
  if (out.length === 0) return ['Your own chat has no archived lines before this turn yet.']
  return [`The latest ${out.length} line(s) of your own chat (oldest first):`, ...out.reverse().map((l) => view.render(l, LINE_CHARS))]
}

function partNote(parts: readonly PartInfo[], n: number): string[] {
  const part = parts.find((p) => p.part === n)
  if (!part) return [`There is no part ${n} in your own chat${parts.length ? ` (parts: ${parts.map((p) => p.part).join(', ')})` : ''}.`]
  if (part === parts.at(-1)) return [`Part ${n} is your current chat: it is in your context, and no note has closed it.`]
  if (part.closingNote)
    return [
      `The note that closed part ${n}:`,
      part.closingNote.length > ANCHOR_CHARS ? `${part.closingNote.slice(0, ANCHOR_CHARS)}\n[… cut]` : part.closingNote,
    ]
  return [`There is no note for part ${n}. Read it with around: "part ${n} #1", or search it with query.`]
}

function partsLine(parts: readonly PartInfo[]): string | undefined {
  if (parts.length < 2) return undefined
  const when = (iso: string | undefined) => (iso ? anchorTime(Date.parse(iso)) : 'now')
  return `Your own chat has ${parts.length} parts: ${parts.map((p) => `part ${p.part} (${when(p.startedAt)} – ${when(p.endedAt)})`).join(', ')}.`
}

/** The whole answer of one `read_own_chat` call. */
export function readOwnChat(index: ArchiveIndex, request: OwnChatRequest): string {
  const { args, parts } = request
  const tasks = request.tasks ?? []
  const partition = index.partitionId(partitionKeyOfBot(request.botId))
  const marks =
    partition === undefined ? [] : index.sessionsOf(partition).filter((m) => parts.some((p) => p.sid === m.sid) || tasks.some((t) => t.sid === m.sid))
  const view = new View(index, marks, request.hide)
  let body: string[]
  if (args.part !== undefined) body = partNote(parts, args.part)
  else if (partition === undefined && (args.query !== undefined || args.around !== undefined)) body = ['Your own chat has no archived lines yet.']
  else if (args.around !== undefined) body = around(view, parts, args.around)
  else if (args.query !== undefined) body = search(view, partition!, args.query)
  else body = latest(view)
  const tail = [
    partsLine(parts),
    request.catchingUp
      ? '(The archive is still catching up with your chat: the newest lines may be missing. Ask again in a moment for a complete answer.)'
      : undefined,
  ]
  const text = [...body, ...tail.filter((t): t is string => t !== undefined)].join('\n')
  return text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n[… answer cut at ${MAX_ANSWER_CHARS} characters]` : text
}

export interface RoomRequest {
  groupId: string
  groupName: string
  query: string
  catchingUp?: boolean
}

/** A search over a group room's whole history (its posts), for `read_group_chat`. */
export function readRoom(index: ArchiveIndex, request: RoomRequest): string {
  const partition = index.partitionId(partitionKeyOfRoom(request.groupId))
  const scope = `group ${request.groupName}`
  const body =
    partition === undefined
      ? [`Group ${request.groupName} has no archived posts yet.`]
      : search(new View(index, index.sessionsOf(partition), undefined), partition, request.query, scope)
  if (request.catchingUp) body.push('(The archive is still catching up with this room: the newest posts may be missing.)')
  const text = body.join('\n')
  return text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n[… answer cut at ${MAX_ANSWER_CHARS} characters]` : text
}
