/**
 * The room's stream: a global `llm/stream` listener that answers every model request of a room
 * Session itself — so a room never calls a provider — and streams the round's posts as one text
 * block; every other request passes on untouched. Deliberately does not run rounds or touch state.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { GenerateOptions, StreamChunk } from '@deepseek-ai/dsh-llm'
import { TextBlock } from '../dsh/answer-block.ts'
import { readSourceOf, roomAnswerState, type Chain, type RoomNote } from '../core/sources.ts'
import { errorText } from '../core/errors.ts'
import type { Poster } from './policy.ts'

interface LooseMessage {
  id?: unknown
  role: string
  content: readonly { type: string; text?: string }[]
  source?: unknown
}

export const messageText = (m: { content: readonly { type: string; text?: string }[] }) =>
  m.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('')
const isRuntimeContext = (text: string) => text.startsWith('Current runtime context')

/**
 * A piece of the room's text: plain text, or one of the room's own lines with its record, which
 * the answer also keeps (as `notes` beside its rounds) so the room view draws it from data.
 */
export type RoomPiece = string | { note: RoomNote; text: string }

/** What entered the room since it last answered. */
export type RoomInput =
  | { kind: 'post'; postId: string; poster: Poster; name: string; text: string; chain: Chain; report?: boolean }
  | { kind: 'notice'; text: string }
  | { kind: 'open' }

/**
 * New inputs since the room last answered (pure). A post's id is the `postId` its source carries
 * (a Bot's or the API's post) or `msg-<DSH message id>` (the user typing in DSH Web), so the same
 * post read again after a crash is the same datum.
 */
export function readRoomRequest(messages: readonly LooseMessage[]): RoomInput[] {
  let i = messages.length - 1
  while (i >= 0 && messages[i]!.role !== 'assistant') i--
  const inputs: RoomInput[] = []
  for (const m of messages.slice(i + 1)) {
    if (m.role !== 'user' || m.content.some((b) => b.type === 'tool-result')) continue
    const text = messageText(m)
    const kind = (m.source as { kind?: unknown } | undefined)?.kind ?? 'user'
    if (kind === 'user') {
      if (text.trim() && !isRuntimeContext(text))
        inputs.push({
          kind: 'post',
          postId: `msg-${String(m.id ?? inputs.length)}`,
          poster: { kind: 'user' },
          name: 'User',
          text: text.trim(),
          chain: { hop: 0 },
        })
      continue
    }
    const s = readSourceOf(m.source, 'room-open', 'room-notice', 'room-post')
    if (s?.type === 'room-open') inputs.push({ kind: 'open' })
    else if (s?.type === 'room-notice') inputs.push({ kind: 'notice', text })
    else if (s?.type === 'room-post') {
      inputs.push({
        kind: 'post',
        postId: s.postId,
        poster: s.fromBot ? { kind: 'bot', botId: s.fromBot } : { kind: 'user' },
        name: s.fromName ?? 'User',
        text: s.said || text,
        chain: { hop: s.hop, ...(s.budget ? { budget: s.budget } : {}), ...(s.mode ? { mode: s.mode } : {}), ...(s.network ? { network: s.network } : {}) },
        ...(s.report && s.fromBot ? { report: true } : {}),
      })
    }
  }
  return inputs
}

export interface RoomAnswerer {
  /** The group a Session is the room of (the ownership index), else undefined. */
  roomOf(sessionId: string): string | undefined
  /** A text for a side request (a title): the group's name. */
  title(groupId: string): string
  /** Why the room cannot answer (the group is gone), else undefined. */
  closed(groupId: string): string | undefined
  /** The room's text for these inputs (runs rounds). */
  answer(groupId: string, inputs: readonly RoomInput[], signal: AbortSignal | undefined): AsyncIterable<RoomPiece>
}

/** Install the answerer on `ctx`; returns a counter of the requests it answered. */
export function answerRoomStreams(ctx: Context, rooms: RoomAnswerer): { answered: number } {
  const counter = { answered: 0 }
  ctx.on('llm/stream', (options, next) => {
    const groupId = options.sessionId === undefined ? undefined : rooms.roomOf(String(options.sessionId))
    if (groupId === undefined) return next()
    counter.answered++
    return roomStream(rooms, groupId, options)
  })
  return counter
}

function roomStream(rooms: RoomAnswerer, groupId: string, options: GenerateOptions): AsyncIterable<StreamChunk> {
  return (async function* () {
    const block = new TextBlock()
    if (options.purpose !== undefined) {
      yield* block.end(rooms.title(groupId))
      return
    }
    const closed = rooms.closed(groupId)
    if (closed) {
      yield* block.end(closed)
      return
    }
    const inputs = readRoomRequest(options.messages as unknown as LooseMessage[])
    const notes: RoomNote[] = []
    try {
      for await (const piece of rooms.answer(groupId, inputs, options.signal)) {
        if (typeof piece !== 'string') notes.push(piece.note)
        yield* block.delta(typeof piece === 'string' ? piece : piece.text)
      }
    } catch (error) {
      yield* block.delta(`_The round stopped: ${errorText(error).replace(/\s+/g, ' ').slice(0, 300)}_\n\n`)
    }
    // The rounds this answer ran and the room's own lines, kept with the assistant message
    // (`sources.ts` reads them back), so DSH Web draws them from the post log by post id and from
    // these records, never from this text.
    const rounds = inputs.flatMap((i) => (i.kind === 'post' ? [i.postId] : []))
    yield* block.end('_No one had anything new to add._', rounds.length || notes.length ? roomAnswerState(rounds, notes) : undefined)
  })()
}
