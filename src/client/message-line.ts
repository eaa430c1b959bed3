/**
 * How a user-role chat node is drawn (pure): one of this plugin's messages as a "Message from X"
 * line, a room post or a quiet notice — decided from its structured source, never its text — and
 * every other node handed back to DSH's renderer. Deliberately no React, no fetching.
 */
import { readSource } from '../core/sources.ts'

export type TeamLine =
  | { kind: 'relay'; type: 'message' | 'reply' | 'interrupt' | 'stop'; from: string; fromBot: string; deliveryId: string }
  | { kind: 'report'; group: string; groupId: string }
  | { kind: 'post'; from?: string; fromBot?: string; group: string; groupId: string; postId: string; said: string }
  | { kind: 'notice'; group?: string; text: string }
  | { kind: 'hidden' }

/** What a node's source makes it; `undefined`: not ours, DSH draws it. */
export function teamLine(source: unknown): TeamLine | undefined {
  const s = readSource(source)
  if (!s) return undefined
  switch (s.type) {
    case 'message':
    case 'reply':
    case 'interrupt':
    case 'stop':
      return { kind: 'relay', type: s.type, from: s.fromName, fromBot: s.fromBot, deliveryId: s.deliveryId }
    case 'room-post':
      return {
        kind: 'post',
        ...(s.fromName ? { from: s.fromName } : {}),
        ...(s.fromBot ? { fromBot: s.fromBot } : {}),
        group: s.groupName,
        groupId: s.groupId,
        postId: s.postId,
        said: s.said,
      }
    case 'room-report':
      return { kind: 'report', group: s.groupName, groupId: s.groupId }
    case 'room-turn':
      return { kind: 'notice', group: s.groupName, text: '' }
    case 'room-notice':
    case 'room-open':
      return { kind: 'notice', group: s.groupName, text: s.summary }
    case 'role-notice':
      return { kind: 'notice', text: s.summary }
    case 'bootstrap':
      return { kind: 'hidden' }
  }
}

/** The plain text of a node's content blocks (text parts only, bounded). */
export function nodeText(content: unknown, max = 20_000): string {
  if (typeof content === 'string') return content.slice(0, max)
  if (!Array.isArray(content)) return ''
  let text = ''
  for (const part of content) {
    if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text') text += String((part as { text?: unknown }).text ?? '')
    if (text.length >= max) break
  }
  return text.slice(0, max)
}

/** Initials for an avatar (pure): first letters of up to two words, or the first character. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean)
  if (words.length >= 2) return (Array.from(words[0]!)[0]! + Array.from(words[1]!)[0]!).toUpperCase()
  return (Array.from(name.trim())[0] ?? '?').toUpperCase()
}
