/**
 * Scrubbing for the diagnostics log (pure): the secrets masker, then every generic credential shape
 * (`core/key-shapes.ts`) → `[redacted]`, over text and JSON-like values. Deliberately does not judge
 * prose or catch a secret split, encoded or spelled out.
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
