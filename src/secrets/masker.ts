/**
 * The secret masker (pure): one compiled pass replacing every saved value and its common encodings
 * (JSON-escaped, URL, base64 at every alignment, hex; an encoding also wrapped or spaced by at most
 * `MAX_GAP` ASCII whitespace characters between two of its characters) with `[secret:NAME]` — whole
 * values only, never a piece (a prefix would answer probes); short values only where nothing touches
 * them. Capped output is masked before it is cut (`maskTail`). Deliberately does not find a value
 * split (a wider gap splits it), reversed, re-encoded otherwise or spelled out.
 */
import { utf8Boundary, utf8Tail } from '../core/text-limits.ts'

/** Values this long or shorter are masked only at non-alphanumeric boundaries, and not encoded. */
export const SHORT_MAX = 7
/**
 * The most whitespace (ASCII: space, tab, line breaks) an encoded form is found with between two of
 * its characters: a wrapping tool's line break (`\r\n`), spaced or grouped hex, a wrapped line's
 * indent. Bounded, so a capped output's margin can hold any form found (`Masker.margin`).
 */
export const MAX_GAP = 8

export interface MaskEntry {
  name: string
  value: string
}

export interface Masker {
  /** `text` with every saved value (and encoding) replaced by `[secret:NAME]`. */
  mask(text: string): string
  /** Does `text` hold a saved value (or encoding)? */
  has(text: string): boolean
  /** Names of the secrets found in `text`, sorted. */
  found(text: string): string[]
  /**
   * Bytes to keep beyond a cap so a value the cut crosses is whole when masked: the longest form
   * `mask` finds — an encoded form of `n` characters counted with `MAX_GAP` bytes of whitespace
   * between each two of them.
   */
  readonly margin: number
  /**
   * The last `cap` bytes of `bytes`, masked without leaving a piece of a value: give it at least
   * `cap + margin` bytes when more were written. It masks them all, then keeps what lies in the last
   * `cap` — a value the cut crosses as its whole placeholder, a piece before it never — and cuts
   * the result to `cap` bytes where a character starts.
   */
  maskTail(bytes: Uint8Array, cap: number): string
}

export const placeholder = (name: string) => `[secret:${name}]`

/**
 * The base64 characters that depend only on `bytes` when they sit at offset `k` (0–2) of a longer
 * stream: encode `k` filler bytes + `bytes`, drop the characters the filler or the unknown next
 * bytes touch, and any padding.
 */
export function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = []
  for (let k = 0; k < 3; k++) {
    const full = Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .replace(/=+$/, '')
    const n = k + bytes.length
    const start = Math.ceil((8 * k) / 6)
    const end = Math.floor(n / 3) * 4 + [0, 1, 2][n % 3]!
    if (end - start >= 4) cores.push(full.slice(start, end))
  }
  return cores
}

const toUrlSafe = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_')

export interface Forms {
  /** Found as they are: the value, JSON-escaped, URL-encoded (and the encodings below). */
  plain: string[]
  /** Also found with up to `MAX_GAP` ASCII whitespace characters between two of theirs (wrapped base64, spaced hex). */
  encoded: string[]
  /** Masked only where no letter or digit touches them. */
  short: boolean
}

/** Every form of one value the masker looks for. */
export function formsOf(value: string): Forms {
  const plain = new Set<string>([value])
  const once = JSON.stringify(value).slice(1, -1)
  plain.add(once)
  plain.add(JSON.stringify(once).slice(1, -1))
  if ([...value].length <= SHORT_MAX) return { plain: [...plain], encoded: [], short: true }
  const url = encodeURIComponent(value)
  plain.add(url)
  plain.add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()))
  const bytes = Buffer.from(value, 'utf8')
  const encoded = new Set<string>()
  for (const core of base64Cores(bytes)) {
    encoded.add(core)
    encoded.add(toUrlSafe(core))
  }
  const hex = bytes.toString('hex')
  encoded.add(hex)
  encoded.add(hex.toUpperCase())
  return { plain: [...plain], encoded: [...encoded], short: false }
}

interface Needle {
  text: string
  name: string
  short: boolean
}

interface Range {
  start: number
  end: number
  name: string
}

const ALNUM = /[A-Za-z0-9]/
const GAP = /[\t\n\v\f\r ]/
const GAPS = /[\t\n\v\f\r ]+/g

function touchesAlnum(text: string, start: number, end: number): boolean {
  return (start > 0 && ALNUM.test(text[start - 1]!)) || (end < text.length && ALNUM.test(text[end]!))
}

function search(text: string, needles: readonly Needle[], out: Range[]): void {
  for (const n of needles) {
    for (let at = text.indexOf(n.text); at !== -1; at = text.indexOf(n.text, at + 1)) {
      const end = at + n.text.length
      if (!n.short || !touchesAlnum(text, at, end)) out.push({ start: at, end, name: n.name })
    }
  }
}

/** Non-overlapping ranges, earliest first; of two starting together, the longer. */
function pick(ranges: Range[]): Range[] {
  ranges.sort((a, b) => a.start - b.start || b.end - a.end)
  const out: Range[] = []
  let until = -1
  for (const r of ranges) {
    if (r.start < until) continue
    out.push(r)
    until = r.end
  }
  return out
}

const IDENTITY: Masker = { mask: (t) => t, has: () => false, found: () => [], margin: 0, maskTail: (bytes, cap) => utf8Tail(bytes, cap) }

/** A masker for `entries` (entries with an empty value are ignored). */
export function createMasker(entries: readonly MaskEntry[]): Masker {
  const plain: Needle[] = []
  const encoded: Needle[] = []
  for (const { name, value } of entries) {
    if (!value) continue
    const forms = formsOf(value)
    for (const text of forms.plain) plain.push({ text, name, short: forms.short })
    for (const text of forms.encoded) encoded.push({ text, name, short: false })
  }
  if (!plain.length) return IDENTITY
  // Encoded forms are ASCII: `n` characters and at most `MAX_GAP` bytes between each two.
  const margin = Math.max(...plain.map((n) => Buffer.byteLength(n.text)), ...encoded.map((n) => n.text.length + (n.text.length - 1) * MAX_GAP))
  const ranges = (text: string): Range[] => {
    const out: Range[] = []
    search(text, plain, out)
    search(text, encoded, out)
    if (encoded.length && GAP.test(text)) {
      // Encoded forms wrapped or spaced by a tool: search the text with each gap of at most
      // MAX_GAP removed (a wider one kept as one space, which no encoded form holds), and only
      // when something is found build the map back to the text's positions.
      const stripped = text.replace(GAPS, (gap) => (gap.length <= MAX_GAP ? '' : ' '))
      const hits: Range[] = []
      search(stripped, encoded, hits)
      if (hits.length) {
        const map: number[] = []
        for (let i = 0; i < text.length; ) {
          if (!GAP.test(text[i]!)) {
            map.push(i++)
            continue
          }
          const start = i
          while (i < text.length && GAP.test(text[i]!)) i++
          if (i - start > MAX_GAP) map.push(start)
        }
        for (const h of hits) out.push({ start: map[h.start]!, end: map[h.end - 1]! + 1, name: h.name })
      }
    }
    return pick(out)
  }
  /** `text` from `from` on (a code-unit index), every value `found` in the whole of it replaced; one `from` cuts is kept whole. */
  const maskFrom = (text: string, from: number, found: readonly Range[]): string => {
    let out = ''
    let at = from
    for (const r of found) {
      if (r.end <= from) continue
      out += text.slice(at, Math.max(at, r.start)) + placeholder(r.name)
      at = r.end
    }
    return out + text.slice(at)
  }
  return {
    margin,
    mask(text) {
      if (typeof text !== 'string' || !text) return text
      const found = ranges(text)
      return found.length ? maskFrom(text, 0, found) : text
    },
    maskTail(bytes, cap) {
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      const start = utf8Boundary(buf, buf.length - cap - margin)
      const cut = utf8Boundary(buf, buf.length - cap)
      const text = buf.subarray(start).toString('utf8')
      const masked = maskFrom(text, buf.subarray(start, cut).toString('utf8').length, ranges(text))
      return utf8Tail(Buffer.from(masked, 'utf8'), cap)
    },
    has(text) {
      return typeof text === 'string' && text.length > 0 && ranges(text).length > 0
    },
    found(text) {
      if (typeof text !== 'string' || !text) return []
      return [...new Set(ranges(text).map((r) => r.name))].sort()
    },
  }
}

/**
 * `value` with `mask` applied to every string in it (arrays and plain objects are copied; other
 * values are kept). Returns the same object when nothing changed, so callers can tell.
 */
export function maskDeep<T>(value: T, mask: (s: string) => string, depth = 0): T {
  if (typeof value === 'string') return mask(value) as T
  if (depth > 64 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    let changed = false
    const out = value.map((v) => {
      const m = maskDeep(v, mask, depth + 1)
      if (m !== v) changed = true
      return m
    })
    return (changed ? out : value) as T
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  let changed = false
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    const m = maskDeep(v, mask, depth + 1)
    if (m !== v) changed = true
    out[k] = m
  }
  return (changed ? out : value) as T
}
