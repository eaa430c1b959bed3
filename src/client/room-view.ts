/**
 * How a room's answer is drawn (pure): the rounds one room message ran become one message per
 * member post, quiet lines for passes, misses, failures and the room's own notes, and a progress
 * line while it runs — from the post log's records by post id, never by splitting the rendered text.
 * Deliberately no React, no fetching; a broken answer is `undefined`.
 */
import type { StringKey, Translate } from './i18n.ts'

export type RoomItem =
  | { kind: 'post'; id: string; from: string; name: string; text: string }
  | { kind: 'quiet'; id: string; key: StringKey; name: string }
  | { kind: 'note'; id: string; text: string }

export interface RoomProgressView {
  groupId: string
  round: string
  speaking?: string
  posted: string[]
  passed: string[]
  missed: string[]
  done: boolean
}

/** Most items drawn for one answer. */
export const ROOM_ITEMS_MAX = 200
const TEXT_MAX = 20_000

const str = (v: unknown, max = 200): v is string => typeof v === 'string' && v.length > 0 && v.length <= max
const QUIET: Record<string, StringKey> = { pass: 'room.passed', missed: 'room.missed', failed: 'room.failed', stopped: 'room.failed' }

/**
 * One answer's items, in turn order (pure). A round's opening post (`id === round`: the post that
 * started it, already drawn as its own node) is not repeated; a malformed answer is `undefined`.
 */
export function roomItems(answer: unknown, nameOf: (botId: string) => string | undefined = () => undefined): RoomItem[] | undefined {
  if (!answer || typeof answer !== 'object') return undefined
  const a = answer as { posts?: unknown; turns?: unknown }
  if (!Array.isArray(a.posts) || !Array.isArray(a.turns)) return undefined
  const posts = new Map<number, { id: string; from: string; name: string; text: string; round: string }>()
  for (const p of a.posts.slice(0, 1_000)) {
    if (!p || typeof p !== 'object') continue
    const { id, seq, round, from, name, text } = p as Record<string, unknown>
    if (!str(id) || !str(round) || !str(from) || typeof name !== 'string' || typeof text !== 'string' || typeof seq !== 'number') continue
    if (id === round) continue
    posts.set(seq, { id, from, name: name.slice(0, 200), text: text.slice(0, TEXT_MAX), round })
  }
  const items: RoomItem[] = []
  const notes = readNotes((answer as { notes?: unknown }).notes)
  const noteItem = (n: Note): RoomItem => ({ kind: 'note', id: `note:${n.i}`, text: n.text })
  const hasTurns = a.turns.some((r) => Array.isArray((r as { turns?: unknown } | null)?.turns) && (r as { turns: unknown[] }).turns.length > 0)
  // An answer with no member turn and no line of the room's own that was recorded (an answer
  // written before notes existed) is left to DSH; one that only echoes notices draws nothing.
  if (!hasTurns && !notes.recorded) return undefined
  for (const n of notes.list) if (!n.round) items.push(noteItem(n))
  for (const r of a.turns.slice(0, 100)) {
    const { round, turns } = (r ?? {}) as { round?: unknown; turns?: unknown }
    if (!str(round) || !Array.isArray(turns)) continue
    for (const n of notes.list) if (n.round === round && n.kind === 'held') items.push(noteItem(n))
    for (const [i, t] of turns.slice(0, 500).entries()) {
      const { botId, outcome, post } = (t ?? {}) as Record<string, unknown>
      if (!str(botId) || typeof outcome !== 'string') continue
      if (outcome === 'posted') {
        const p = typeof post === 'number' ? posts.get(post) : undefined
        if (p && p.round === round) items.push({ kind: 'post', id: p.id, from: p.from, name: nameOf(p.from) ?? p.name, text: p.text })
      } else if (QUIET[outcome]) {
        items.push({ kind: 'quiet', id: `${round}:${i}`, key: QUIET[outcome], name: nameOf(botId) ?? botId })
      }
      if (items.length >= ROOM_ITEMS_MAX) return items
    }
    for (const n of notes.list) if (n.round === round && n.kind !== 'held') items.push(noteItem(n))
  }
  return items.slice(0, ROOM_ITEMS_MAX)
}

interface Note {
  i: number
  kind: string
  text: string
  round?: string
}

/**
 * The room's own lines of an answer, checked for shape (pure): `recorded` when the answer carries
 * any (even only notice echoes), `list` the ones to draw — every kind but `notice`, bounded.
 */
function readNotes(value: unknown): { recorded: boolean; list: Note[] } {
  if (!Array.isArray(value)) return { recorded: false, list: [] }
  const list: Note[] = []
  let recorded = false
  for (const [i, n] of value.slice(0, 50).entries()) {
    const { kind, text, round } = (n ?? {}) as Record<string, unknown>
    if (!str(kind, 20) || typeof text !== 'string' || (round !== undefined && !str(round))) continue
    recorded = true
    if (kind !== 'notice' && text.trim()) list.push({ i, kind, text: text.slice(0, 300), ...(round ? { round } : {}) })
  }
  return { recorded, list }
}

/** A running round's posts so far (`?round=` answer, no turns yet known), oldest first (pure). */
export function livePosts(answer: unknown, nameOf: (botId: string) => string | undefined = () => undefined): RoomItem[] {
  const posts = (answer as { posts?: unknown } | null)?.posts
  if (!Array.isArray(posts)) return []
  return posts.slice(-ROOM_ITEMS_MAX).flatMap((p): RoomItem[] => {
    const { id, round, from, name, text } = (p ?? {}) as Record<string, unknown>
    if (!str(id) || !str(round) || !str(from) || typeof name !== 'string' || typeof text !== 'string' || id === round) return []
    return [{ kind: 'post', id, from, name: nameOf(from) ?? name.slice(0, 200), text: text.slice(0, TEXT_MAX) }]
  })
}

/** Check a `room` event's data (pure): a progress view, or `undefined`. */
export function readProgress(value: unknown): RoomProgressView | undefined {
  if (!value || typeof value !== 'object') return undefined
  const v = value as Record<string, unknown>
  const names = (x: unknown) => (Array.isArray(x) ? x.filter((n): n is string => str(n)).slice(0, 50) : [])
  if (!str(v.groupId) || !str(v.round) || typeof v.done !== 'boolean') return undefined
  return {
    groupId: v.groupId,
    round: v.round,
    ...(str(v.speaking) ? { speaking: v.speaking } : {}),
    posted: names(v.posted),
    passed: names(v.passed),
    missed: names(v.missed),
    done: v.done,
  }
}

/** The progress line's text (pure): "Ada is speaking… · passed: Bo · missed: Cy". */
export function progressText(p: RoomProgressView, t: Translate): string {
  const parts = [p.done ? t('room.roundDone') : p.speaking ? t('room.speaking', { name: p.speaking }) : '']
  if (p.passed.length) parts.push(t('room.progressPassed', { names: p.passed.join(', ') }))
  if (p.missed.length) parts.push(t('room.progressMissed', { names: p.missed.join(', ') }))
  return parts.filter(Boolean).join(' · ')
}
