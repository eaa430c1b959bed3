/**
 * Scrubbing — what leaves the team in a diagnostics line has no keys or saved secrets in it (pure).
 *
 * Owns `scrubText(text, mask)` and `scrubValue(value, mask)`: first the secrets service's masker
 * (the person's saved secret values, when that service is mounted), then every generic credential
 * shape the memory filter knows (`KEY_SHAPES` of `../core/key-shapes.ts`: provider key prefixes,
 * private-key armour, JWTs, URL credentials, auth headers, token query parameters, webhook URLs),
 * each match replaced by `[redacted]`. `scrubValue` walks JSON-like data (strings, arrays, plain
 * objects; keys too) and bounds its depth.
 *
 * Deliberately does not: decide whether prose *talks about* a password (the memory filter's job:
 * here a false positive costs nothing, a miss leaks), or catch a secret split, encoded or spelled
 * out in words (docs/limitations.md).
 */
import { KEY_SHAPES } from '../core/key-shapes.ts'

export const REDACTED = '[redacted]'

/** The generic shapes, global (built once). */
const GLOBAL_SHAPES: readonly RegExp[] = KEY_SHAPES.map((re) => new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))

/** A masker of saved secrets (the secrets service's `mask`), if one is mounted. */
export type Mask = ((text: string) => string) | undefined

export function scrubText(text: string, mask?: Mask): string {
  let out = text
  if (mask) {
    try {
      out = mask(out)
    } catch {
      // A broken masker must not let the text through unscrubbed by the generic shapes below.
    }
  }
  for (const re of GLOBAL_SHAPES) out = out.replace(re, REDACTED)
  return out
}

const MAX_DEPTH = 6

/** Scrub every string in a JSON-like value (pure; deeper than `MAX_DEPTH` becomes a note). */
export function scrubValue(value: unknown, mask?: Mask, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, mask)
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
  if (depth >= MAX_DEPTH) return '[too deep]'
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, mask, depth + 1))
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[scrubText(k, mask)] = scrubValue(v, mask, depth + 1)
    return out
  }
  return value === undefined ? undefined : String(value)
}
