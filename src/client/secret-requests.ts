/**
 * The secret card's pure parts: the shape check of the open requests in a `/secrets` answer and
 * whether the page is safe to type a secret into. No React, no I/O (unit-tested on their own).
 */
export interface SecretRequestView {
  id: string
  bot: { id: string; name: string }
  variable: string
  purpose: string
  exists: boolean
}

/** Is this page safe to type a secret into (loopback or HTTPS)? Pure over a location. */
export function safeOrigin(loc: { protocol: string; hostname: string } | undefined): boolean {
  if (!loc) return false
  const host = loc.hostname
  return loc.protocol === 'https:' || host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/** The open requests from a `/secrets` answer, checked for shape (pure); bounded to 20 cards. */
export function readRequests(value: unknown): SecretRequestView[] {
  const list = (value as { requests?: unknown } | undefined)?.requests
  if (!Array.isArray(list)) return []
  return list
    .filter(
      (r): r is SecretRequestView =>
        !!r &&
        typeof r === 'object' &&
        typeof r.id === 'string' &&
        typeof r.variable === 'string' &&
        typeof r.purpose === 'string' &&
        typeof r.bot?.name === 'string',
    )
    .slice(0, 20)
}
