/**
 * The checkpoint text a Bot Session is condensed into (pure): DSH's summary of the range, then every
 * message to the Bot word for word — newest kept first within `min(16,384, check / 4)` tokens, shown
 * oldest first, each anchored `[part N #seq · time]` — fitted under the cap the caller passes.
 * Deliberately does not call a model, read logs or mask secrets.
 */
import { anchor } from '../../core/anchors.ts'
import type { LogEvent } from '../../core/log-lines.ts'
import { textOf } from '../../core/log-lines.ts'
import { readSource } from '../../core/sources.ts'
import { estimateTokens } from '../thresholds.ts'

/** A single message longer than this is clipped in the middle (read_own_chat has it whole). */
export const MESSAGE_MAX_CHARS = 4_000
const RUNTIME_CONTEXT = 'Current runtime context'

/** One message to the Bot, as logged. */
export interface CheckpointMessage {
  seq: number
  /** Epoch milliseconds. */
  time: number
  /** Who it is from, as shown: `the user`, `Ada` (a Bot), `Ada in group Design`. */
  from: string
  text: string
}

/** `surfaceOp`: `{op: 'replace', …}` on a message that replaces earlier ones (a checkpoint). */
type LooseEvent = LogEvent & { surfaceOp?: unknown }

type Blocks = Parameters<typeof textOf>[0]

/** A checkpoint replaces a range (`surfaceOp.op: 'replace'`); ordinary events append. */
const isReplace = (op: unknown) => typeof op === 'object' && op !== null && (op as { op?: unknown }).op === 'replace'

/**
 * The messages to the Bot among a Session's events, oldest first: user messages (no source, or a
 * `user` source) and the plugin's relays from other Bots and rooms. Not: replacements (a
 * checkpoint), DSH's runtime-context snapshot, the plugin's notices, bootstrap or handoff marks,
 * or anything another plugin wrote. A member's turn prompt counts (in a group Session it is what
 * the user and the other members posted to it since it last spoke).
 */
export function checkpointMessages(events: readonly LooseEvent[]): CheckpointMessage[] {
  const out: CheckpointMessage[] = []
  for (const event of events) {
    if (event.type !== 'user/message') continue
    const data = (event.data ?? {}) as { message?: { content?: Blocks; source?: unknown }; content?: Blocks; source?: unknown; surfaceOp?: unknown }
    if (isReplace(event.surfaceOp) || isReplace(data.surfaceOp)) continue
    const message = data.message ?? data
    const text = textOf(message.content).trim()
    if (!text) continue
    const from = senderOf(message.source, text)
    if (from) out.push({ seq: event.seq, time: event.time, from, text })
  }
  return out
}

function senderOf(source: unknown, text: string): string | undefined {
  const kind = source && typeof source === 'object' ? (source as { kind?: unknown }).kind : undefined
  if (kind === undefined || kind === 'user') return text.startsWith(RUNTIME_CONTEXT) ? undefined : 'the user'
  const s = readSource(source)
  switch (s?.type) {
    case 'message':
    case 'interrupt':
    case 'stop':
    case 'reply':
      return s.fromName || 'another Bot'
    case 'room-post':
      return `${s.fromName ?? 'the user'} in group ${s.groupName}`
    case 'room-report':
    case 'room-turn':
      return `group ${s.groupName}`
    default:
      return undefined
  }
}

function clipMiddle(text: string, max: number, note: string): string {
  if (text.length <= max) return text
  const head = Math.floor((max * 2) / 3)
  const tail = max - head
  return `${text.slice(0, head)}\n[… ${text.length - max} characters left out ${note} …]\n${text.slice(text.length - tail)}`
}

function entry(m: CheckpointMessage, part: number | undefined): string {
  return `${anchor(m, part)} From ${m.from}:\n${clipMiddle(m.text, MESSAGE_MAX_CHARS, 'here; read_own_chat has the whole message')}`
}

export interface CheckpointInput {
  /** 1 for the Session's first checkpoint. */
  number: number
  /** DSH's summary of the condensed range. */
  summary: string
  /** Messages to the Bot in this Session, oldest first. */
  messages: readonly CheckpointMessage[]
  /** The own-chat part (undefined for a group Session). */
  part: number | undefined
  /** Tokens for messages word for word (`verbatimBudget`). */
  budgetTokens: number
  /** The whole text must stay under this many tokens (less than what it replaces). */
  capTokens: number
}

export interface CheckpointText {
  text: string
  /** Messages shown word for word, and left out (older ones). */
  shown: number
  left: number
}

export const OWN_WORDS_LINE = 'Your own replies and tool work up to here are condensed above; read_own_chat finds them word for word.'
export const OLDER_LINE =
  'Older messages to you (earlier parts, and any left out here) are found by read_own_chat: search a phrase, or read around an anchor such as "part 1 #12".'

/** The checkpoint text (pure). */
export function checkpointText(input: CheckpointInput): CheckpointText {
  const entries = input.messages.map((m) => entry(m, input.part))
  // Newest first within the budget.
  let keep = 0
  let used = 0
  for (let i = entries.length - 1; i >= 0; i--) {
    const cost = estimateTokens(entries[i]!) + 1
    if (used + cost > input.budgetTokens) break
    used += cost
    keep++
  }
  const compose = (summary: string, n: number) => {
    const shown = entries.slice(entries.length - n)
    const lines = [`[Checkpoint ${input.number}]`, summary.trim(), '', OWN_WORDS_LINE, '', '## Messages to you, word for word (oldest first)', OLDER_LINE]
    if (shown.length === 0) lines.push('(none in this stretch)')
    for (const e of shown) lines.push('', e)
    return lines.join('\n')
  }
  let text = compose(input.summary, keep)
  while (keep > 0 && estimateTokens(text) >= input.capTokens) text = compose(input.summary, --keep)
  if (estimateTokens(text) >= input.capTokens) {
    const fixed = estimateTokens(compose('', 0))
    const room = Math.max(0, (input.capTokens - fixed - 20) * 4)
    text = compose(clipMiddle(input.summary, room, 'from this summary'), 0)
  }
  return { text, shown: keep, left: entries.length - keep }
}
