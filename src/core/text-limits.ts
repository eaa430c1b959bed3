/**
 * Text limits — the sizes every model-facing text the team carries must keep, in one place.
 *
 * Everything a model says is untrusted input, and every size has a limit: a message body, a stop
 * or delete reason, a reply (clipped with a marker, since it is routed back automatically), and
 * what a finished delivery record keeps of its body (team state stays small whatever the traffic).
 * Deliberately narrow: numbers and one pure clipping function; each service words its own refusals.
 */

/** Longest message body (characters); a longer message is refused, a longer reply clipped. */
export const MESSAGE_MAX = 8_000
/** Longest stop or delete reason (characters). */
export const REASON_MAX = 500
/** A finished delivery record keeps this much of its body. */
export const FINISHED_BODY_MAX = 300
/** The masked arguments of a call that waits for the person's approval, shown whole (a longer call does not wait). */
export const APPROVAL_ARGS_MAX = 4_000

/** Length in Unicode code points (what every limit here counts: '小明' is 2, not bytes or UTF-16 units). */
export function charCount(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** `text` cut to `max` characters (code points) with a marker saying how much was cut (pure). */
export function clip(text: string, max: number): string {
  const chars = [...text]
  if (chars.length <= max) return text
  const marker = `… [${chars.length - max + 40} more characters cut]`
  return chars.slice(0, Math.max(0, max - 40)).join('') + marker
}

/** The first byte at or after `at` that starts a UTF-8 character (continuation bytes are `10xxxxxx`). */
export function utf8Boundary(bytes: Uint8Array, at: number): number {
  let i = Math.max(0, at)
  while (i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++
  return i
}

/** The last `cap` bytes of `bytes` (or fewer), as text, cut where a character starts. */
export function utf8Tail(bytes: Uint8Array, cap: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .subarray(utf8Boundary(bytes, bytes.length - cap))
    .toString('utf8')
}
