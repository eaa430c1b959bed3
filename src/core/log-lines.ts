/**
 * Archive lines (pure): which Session events become lines and their text — the person's and other
 * Bots' messages, the Bot's answers, question cards, each other tool call as one short line, a room's
 * posts — each keyed by its seq, so catch-up is idempotent. Deliberately does not read or store.
 */

export type Who = 'user' | 'you' | 'bot' | 'tool' | 'card' | 'answer' | 'summary' | 'room' | 'notice'
export const WHO: readonly Who[] = ['user', 'you', 'bot', 'tool', 'card', 'answer', 'summary', 'room', 'notice']

export interface ArchiveLine {
  seq: number
  /** Epoch milliseconds. */
  time: number
  who: Who
  text: string
}

/** Longest line kept whole (a longer message is cut, with a note). */
export const MAX_LINE_CHARS = 50_000
/** Tool calls and results are one short line. */
export const TOOL_LINE_CHARS = 160
/** Question cards and their answers are kept whole up to this. */
export const CARD_CHARS = 4_000
const QUESTION_TOOL = 'ask_user_question'
/** Tools whose results quote the archive itself: their result line keeps no text (no echoes). */
const ECHO_TOOLS = new Set(['read_own_chat'])

/** One event of a Session log, as DSH logs and persists it: `{type, seq, time, data}`. */
export interface LogEvent {
  type: string
  seq: number
  time: number
  data: unknown
}

interface Block {
  type: string
  text?: string
  content?: readonly Block[]
}
interface LooseMessage {
  content?: readonly Block[]
  source?: { kind?: string; plugin?: string; delivery?: string; fromName?: unknown }
}

const PLUGIN = 'bot-team'
const RUNTIME_CONTEXT = 'Current runtime context'

export function textOf(blocks: readonly Block[] | undefined): string {
  if (!blocks) return ''
  return blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : b.content ? textOf(b.content) : '')).join('')
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function bounded(text: string, max = MAX_LINE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}\n[… cut: ${text.length - max} more characters]` : text
}

const isReplace = (data: { surfaceOp?: unknown }) => typeof data.surfaceOp === 'object' && data.surfaceOp !== null

function userLine(message: LooseMessage, room: boolean): { who: Who; text: string } | undefined {
  const text = textOf(message.content).trim()
  if (!text || text.startsWith(RUNTIME_CONTEXT)) return undefined
  const source = message.source ?? { kind: 'user' }
  if ((source.kind ?? 'user') === 'user') return { who: 'user', text }
  if (source.kind !== 'plugin' || source.plugin !== PLUGIN) return undefined
  // A handoff package repeats earlier messages (their own lines stay) and its note (`part: N`
  // reads it): as a line it would only echo them in every search.
  if ((source as { type?: unknown }).type === 'handoff') return undefined
  if (room) {
    if (source.delivery === 'room-post') return { who: 'room', text: `${typeof source.fromName === 'string' ? source.fromName : 'Bot'}: ${text}` }
    return undefined // room-open / room-notice show up in the room's own text
  }
  // Inter-Bot relays, room reports, member turn prompts: the text carries its own header.
  return { who: 'bot', text }
}

/** Short form of a tool call's JSON arguments. */
function argsLine(raw: unknown): string {
  return oneLine(typeof raw === 'string' ? raw : JSON.stringify(raw ?? ''), TOOL_LINE_CHARS)
}

function questionCard(raw: unknown): string {
  let parsed: unknown = raw
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw)
    } catch {
      return `[Question card] ${oneLine(raw, CARD_CHARS)}`
    }
  }
  const questions = (parsed as { questions?: unknown })?.questions
  if (!Array.isArray(questions)) return `[Question card] ${argsLine(raw)}`
  const parts = questions.map((q: { question?: unknown; options?: unknown }) => {
    const options = Array.isArray(q.options)
      ? q.options.map((o: unknown) => (typeof o === 'string' ? o : (o as { label?: unknown })?.label)).filter((o): o is string => typeof o === 'string')
      : []
    return `${typeof q.question === 'string' ? q.question : ''}${options.length ? `\nOptions: ${options.join(' / ')}` : ''}`
  })
  return bounded(`[Question card] ${parts.join('\n')}`, CARD_CHARS)
}

/** Tool names by call id, kept by the caller across one Session's events (results name no tool). */
export type CallNames = Map<string, string>

/**
 * The archive line of one event, or undefined when the event is not a line. `calls` carries tool
 * names from `tool/call` to `tool/result` (the caller keeps it per Session; a result whose call
 * was never seen is still a line, named "tool").
 */
export function lineOf(event: LogEvent, calls: CallNames, room = false): ArchiveLine | undefined {
  const at = { seq: event.seq, time: event.time }
  const data = (event.data ?? {}) as { message?: LooseMessage; name?: string; callId?: string; arguments?: unknown; surfaceOp?: unknown; error?: unknown }
  switch (event.type) {
    case 'user/message': {
      const line = userLine(data.message ?? (data as LooseMessage), room)
      if (!line) return undefined
      return { ...at, who: isReplace(data) ? 'summary' : line.who, text: bounded(line.text) }
    }
    case 'assistant/message': {
      const text = textOf(data.message?.content).trim()
      if (!text) return undefined
      return { ...at, who: isReplace(data) ? 'summary' : room ? 'room' : 'you', text: bounded(text) }
    }
    case 'tool/call': {
      if (room) return undefined
      const name = typeof data.name === 'string' ? data.name : 'tool'
      if (typeof data.callId === 'string') calls.set(data.callId, name)
      if (name === QUESTION_TOOL) return { ...at, who: 'card', text: questionCard(data.arguments) }
      return { ...at, who: 'tool', text: `[tool call] ${name} ${argsLine(data.arguments)}` }
    }
    case 'tool/result': {
      if (room) return undefined
      const blocks = data.message?.content ?? []
      const first = blocks[0] as (Block & { toolCallId?: string }) | undefined
      const callId = typeof data.callId === 'string' ? data.callId : first?.toolCallId
      const name = (callId && calls.get(callId)) ?? 'tool'
      if (callId) calls.delete(callId)
      const text = textOf(blocks.flatMap((b) => (b.content ? [...b.content] : [b])))
      if (name === QUESTION_TOOL) return { ...at, who: 'answer', text: bounded(`[Answer to question card] ${text.trim()}`, CARD_CHARS) }
      if (ECHO_TOOLS.has(name)) return { ...at, who: 'tool', text: `[tool result] ${name}` }
      // DSH rc.8 marks a failed result on its block (`isError`); `error` on the event is kept for older logs.
      const failed = Boolean(data.error) || blocks.some((b) => (b as { isError?: unknown }).isError === true)
      return { ...at, who: 'tool', text: `[tool result] ${name}${failed ? ' (error)' : ''}: ${oneLine(text, TOOL_LINE_CHARS)}` }
    }
    default:
      return undefined
  }
}
